"""Measuring agents: games between agents (:mod:`.match`), win rates with their intervals
and ratings (:mod:`.evaluate`), pictures of the results (:mod:`.plots`), the speed benchmark
(:mod:`.bench`) and the damage-race calculator (:mod:`.ceiling`).

Each command-line tool has a ``main(argv)``; ``python -m facing_env.evaluate`` and
``python -m facing_env.bench`` are kept as short names for the first two.
"""
