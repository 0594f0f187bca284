"""The readable implementations the tests compare the fast code with (test-only code).

- :func:`readable_env`: the AEC env on the readable engine (``raw_env(engine="readable")``:
  :mod:`facing_env.rules.play`, the object engine with ``legal_actions`` and the
  observation drawn cell by cell), the oracle of ``facing_env.fast``;
- :mod:`tests.reference.agents`, with :mod:`tests.reference.tactics` and
  :mod:`tests.reference.pathing`: the scripted agents as they were written over an
  ``ObservationView`` before their numba kernels (the oracle of ``facing_env/agents/``);
- :mod:`tests.reference.arena`: play agents against each other and count the attacks.

The package never imports from here; the constants both sides use
(``DIAGONAL_COST``, ``ASSUMED_SPEED``) are the package's (:mod:`facing_env.agents.kernels`).
"""

from __future__ import annotations

from typing import Any

from facing_env.env import raw_env


def readable_env(**kwargs: Any) -> raw_env:
    """``raw_env(**kwargs)`` playing on the readable engine, whatever the kernel cache holds."""
    return raw_env(engine="readable", **kwargs)
