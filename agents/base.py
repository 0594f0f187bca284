"""The agent protocol shared by scripted and learned agents (docs/design.md, agents)."""

from __future__ import annotations

from typing import ClassVar, Protocol, runtime_checkable

import numpy as np

from facing_env.agents.batch import BatchAgent


@runtime_checkable
class Agent(Protocol):
    """Chooses one action index from a flat observation vector and its int8 mask.

    Agents see nothing else; the chosen index is always allowed by ``action_mask``
    (END_TURN, index 0, is always allowed for the acting agent).
    """

    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        """The action to take now."""
        ...


class ScriptedAgent:
    """Base of the deterministic scripted agents. Their logic is one numba kernel each, in
    :mod:`facing_env.agents.batch` (named :attr:`name`): :meth:`act` runs it on a batch of
    one, :meth:`act_batch` on a whole batch. The kernel falls back to END_TURN when the
    mask forbids its choice, so the answer is always allowed."""

    name: ClassVar[str] = ""
    """The agent's ``make_agent`` name, which is also its kernel's."""
    deterministic: ClassVar[bool] = True
    """The action depends on the observation and mask alone (batches may be split freely)."""

    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        """The chosen action, always one the mask allows (``rng`` is not used)."""
        return BatchAgent(self.name).act(observation, action_mask, rng)

    def act_batch(
        self, observations: np.ndarray, masks: np.ndarray, rng: np.random.Generator
    ) -> np.ndarray:
        """One allowed action per row of ``(N, D)`` observations and ``(N, A)`` masks,
        row ``i`` being ``act(observations[i], masks[i], rng)``."""
        return BatchAgent(self.name).act_batch(observations, masks, rng)


def act_batch(
    agent: Agent, observations: np.ndarray, masks: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """One action per row of ``(N, D)`` observations and ``(N, A)`` masks: the agent's own
    ``act_batch`` when it has one (the scripted and learned agents), else ``act`` row by
    row; ``(N,)`` int64."""
    batch = getattr(agent, "act_batch", None)
    if batch is not None:
        return np.asarray(batch(observations, masks, rng), dtype=np.int64)
    return np.array(
        [agent.act(o, m, rng) for o, m in zip(observations, masks, strict=True)], dtype=np.int64
    )
