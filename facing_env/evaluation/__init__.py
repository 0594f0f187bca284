"""Measuring agents: games between agents (:mod:`.match`), win rates with their intervals
and ratings (:mod:`.evaluate`), the benchmark suite with its aggregates over runs and its
rating ladder (:mod:`.suite`, its command :mod:`.benchmark`, its statistics in
:mod:`.statistics`), pictures of the results (:mod:`.plots`), the speed benchmark
(:mod:`.bench`) and the damage-race calculator (:mod:`.ceiling`).

Each command-line tool has a ``main(argv)``; ``python -m facing_env.evaluate``,
``python -m facing_env.benchmark`` and ``python -m facing_env.bench`` are kept as short
names.
"""
