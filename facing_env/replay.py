"""``python -m facing_env.replay``: the short name of :mod:`facing_env.render.replay`."""

from __future__ import annotations

import sys

from facing_env.render.replay import main

if __name__ == "__main__":
    sys.exit(main())
