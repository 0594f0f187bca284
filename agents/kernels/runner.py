"""Running a scripted agent over a batch: :class:`BatchAgent` and :func:`random_actions`.

A :class:`BatchAgent` knows no agent by name: it gets an agent's batch kernel and the
:class:`~facing_env.agents.kernels.spec.Spec` fields the agent sets (the ``PARAMETERS``
of its module). The catalogue of names is :mod:`facing_env.agents`:
:func:`~facing_env.agents.make_batch_agent` gives a :class:`BatchAgent` by name (one of
``BATCH_AGENT_NAMES``, the scripted names of ``make_agent``)::

    agent = make_batch_agent("flanker")
    actions = agent.act_batch(observations, masks, rng)  # (N, D) float32, (N, A) int8 -> (N,)

A batch kernel is ``kernel(ints, floats, shapes, shape_cells, directions, observations,
masks, out)``: the tables of the layout (:func:`~facing_env.agents.kernels.spec._tables`),
then the rows; it writes one action per row into ``out``. There is one per agent (a
kernel taking the agent as an argument would compile all three into each), in the
agent's module: it rebuilds the Spec, then per row fills the workspace, chooses, and falls
back to END_TURN when the mask forbids the choice (``tactics.legal_or_end``).

``random`` (no kernel) draws ``rng.integers(0, n_legal)`` for all rows in one call: the
draws ``RandomAgent.act`` (``rng.choice`` of the legal indices) makes row after row with
the same generator, so its actions are identical too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from facing_env.agents.kernels.spec import _tables, parameter_key

__all__ = ["BatchAgent", "random_actions"]


class BatchAgent:
    """A scripted agent over batches: :meth:`act_batch` picks one action per row; it is
    also an :class:`~facing_env.agents.Agent` (:meth:`act`, a batch of one).

    ``name`` labels it; ``kernel`` is its batch kernel (None: a uniformly random allowed
    action, :func:`random_actions`); ``parameters`` the Spec fields it sets."""

    def __init__(
        self,
        name: str,
        kernel: Callable[..., None] | None,
        parameters: Mapping[str, float] | None = None,
    ) -> None:
        self.name = name
        self.kernel = kernel
        self.parameters = dict(parameters or {})
        self._key = parameter_key(self.parameters)

    def __repr__(self) -> str:
        return f"BatchAgent({self.name!r})"

    def act_batch(
        self, observations: np.ndarray, masks: np.ndarray, rng: np.random.Generator
    ) -> np.ndarray:
        """One allowed action per row: ``(N, D)`` float32 observations and ``(N, A)`` int8
        masks of one layout -> ``(N,)`` int64. Only ``random`` draws from ``rng``."""
        obs = np.ascontiguousarray(observations, dtype=np.float32)
        mask = np.ascontiguousarray(masks, dtype=np.int8)
        if obs.ndim != 2 or mask.ndim != 2 or obs.shape[0] != mask.shape[0]:
            raise ValueError(
                f"expected (N, D) observations and (N, A) masks, got {obs.shape} and {mask.shape}"
            )
        if self.kernel is None:
            return random_actions(mask, rng)
        out = np.empty(obs.shape[0], dtype=np.int64)
        if obs.shape[0]:
            self.kernel(*_tables(obs.shape[1], mask.shape[1], self._key), obs, mask, out)
        return out

    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        """The action for one observation (a batch of one)."""
        obs = np.asarray(observation).reshape(1, -1)
        mask = np.asarray(action_mask).reshape(1, -1)
        return int(self.act_batch(obs, mask, rng)[0])


def random_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random allowed action per row (END_TURN, 0, for a row that allows
    none), from one ``rng.integers(0, n_legal)`` call over the rows with a legal action:
    the draws ``RandomAgent.act`` (``rng.choice`` of the legal indices) makes row after
    row with the same generator, so the actions are the same."""
    allowed = np.asarray(masks) != 0
    out = np.zeros(allowed.shape[0], dtype=np.int64)
    counts = allowed.sum(axis=1)
    rows = np.flatnonzero(counts)
    if rows.size:
        pick = rng.integers(0, counts[rows])
        seen = np.cumsum(allowed[rows], axis=1)
        out[rows] = np.argmax(seen > pick[:, None], axis=1)
    return out
