"""``python -m facing_env.replay``: the short name of :mod:`facing_env.render.replay`."""

from __future__ import annotations

from facing_env.cli import run_main
from facing_env.render.replay import main

if __name__ == "__main__":
    run_main(main)
