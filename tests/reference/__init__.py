"""The readable implementations the tests compare the fast code with (test-only code).

- :mod:`tests.reference.env` and :mod:`tests.reference.observation`: the AEC API over the
  object engine, with ``why_illegal``'s legal actions and the observation drawn cell by
  cell (the oracle of ``facing_env.fast``);
- :mod:`tests.reference.agents`, with :mod:`tests.reference.tactics` and
  :mod:`tests.reference.pathing`: the scripted agents as they were written over an
  ``ObservationView`` before their numba kernels (the oracle of ``facing_env/agents/``);
- :mod:`tests.reference.arena`: play agents against each other and count the attacks.

The package never imports from here; the constants both sides use
(``DIAGONAL_COST``, ``ASSUMED_SPEED``) are the package's (:mod:`facing_env.agents.kernels`).
"""
