"""``python -m facing_env.benchmark``: the short name of :mod:`facing_env.evaluation.benchmark`."""

from __future__ import annotations

from facing_env.cli import run_main
from facing_env.evaluation.benchmark import main

if __name__ == "__main__":
    run_main(main)
