"""The numba kernels the scripted agents share (issue 18), split by concern.

``aggressive``, ``flanker`` and ``defensive`` are deterministic. Their logic is written
once, as ``@njit(cache=True)`` kernels (nopython) that loop over the rows of a batch: each
agent's parameters, decision kernels and batch kernel are in the module of its name
(:mod:`facing_env.agents.aggressive`, :mod:`~facing_env.agents.flanker`,
:mod:`~facing_env.agents.defensive`); what they share is here:

- :mod:`~facing_env.agents.kernels.spec`: the ``Spec`` and the tables built at run time;
- :mod:`~facing_env.agents.kernels.view`: one observation row, read into arrays (and the
  conventions every kernel follows);
- :mod:`~facing_env.agents.kernels.geometry`: cells, distances, angles and areas;
- :mod:`~facing_env.agents.kernels.tactics`: turning, movement budgets, the nearest foe;
- :mod:`~facing_env.agents.kernels.paths`: the route search;
- :mod:`~facing_env.agents.kernels.runner`: ``BatchAgent``, which runs an agent's batch
  kernel over a batch, and ``random_actions``.

``AggressiveAgent.act``, ``FlankerAgent.act`` and ``DefensiveAgent.act`` run the same
kernels on a batch of one, so row ``i`` of ``act_batch`` is exactly
``make_agent(name).act(observations[i], masks[i], rng)``. ``tests/test_batch_agents.py``
checks that, and checks the kernels against ``tests/reference/agents.py`` (the agents as
they were written over an :class:`~facing_env.agents.ObservationView` before the kernels,
kept as the kernels' differential oracle), on hundreds of states of every built-in
scenario. A kernel's docstring names what it mirrors there: ``ObservationView.gap``
(:mod:`facing_env.agents.view`), ``tactics.area`` and ``pathing.routes``
(``tests/reference/tactics.py``, ``tests/reference/pathing.py``), ``FlankerAgent.value``
(``ReferenceFlanker.value`` of ``tests/reference/agents.py``).

Every kernel module imports numba at module level (``from numba import njit``): that is
how :mod:`facing_env.fast.cache` finds the modules whose sources version numba's cache.

``NUMBA_DISABLE_JIT=1`` runs the same source as plain Python, for debuggers (1-4 ms a
row: a few times slower than the former Python agents).
"""
