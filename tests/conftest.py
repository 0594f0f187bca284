"""Test-wide settings.

The tests step the compiled engine unless they say otherwise: the AEC env's default
``engine="auto"`` would play on the readable engine (and start a background compile)
whenever the kernel cache is not complete, as in a checkout where ``python -m facing_env
warm`` has not run since the last edit. Tests of ``"auto"`` and ``"readable"`` pass
``engine=`` themselves; the differential tests compare the two engines explicitly.
"""

from __future__ import annotations

import os

from facing_env.warm import ENGINE_VARIABLE

os.environ.setdefault(ENGINE_VARIABLE, "compiled")
