"""The agent protocol shared by scripted and learned agents (docs/design.md, agents)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar, Protocol, runtime_checkable

import numpy as np

if TYPE_CHECKING:
    from facing_env.agents.kernels.runner import BatchAgent
    from facing_env.rules.battle import Battle


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
    the module of the agent's name (``facing_env.agents.flanker``...), which the subclass
    gives as :attr:`batch`: :meth:`act` runs it on a batch of one, :meth:`act_batch` on a
    whole batch. The kernel falls back to END_TURN when the mask forbids its choice, so the
    answer is always allowed."""

    name: ClassVar[str] = ""
    """The agent's ``make_agent`` name."""
    batch: ClassVar[BatchAgent]
    """Its batch kernel with its parameters (what ``make_batch_agent(name)`` gives)."""
    deterministic: ClassVar[bool] = True
    """The action depends on the observation and mask alone (batches may be split freely)."""

    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        """The chosen action, always one the mask allows (``rng`` is not used)."""
        return self.batch.act(observation, action_mask, rng)

    def act_batch(
        self, observations: np.ndarray, masks: np.ndarray, rng: np.random.Generator
    ) -> np.ndarray:
        """One allowed action per row of ``(N, D)`` observations and ``(N, A)`` masks,
        row ``i`` being ``act(observations[i], masks[i], rng)``."""
        return self.batch.act_batch(observations, masks, rng)


def act_batch(
    agent: Agent,
    observations: np.ndarray,
    masks: np.ndarray,
    rng: np.random.Generator,
    battles: Callable[[int], Battle] | None = None,
    games: np.ndarray | None = None,
) -> np.ndarray:
    """One action per row of ``(N, D)`` observations and ``(N, A)`` masks: the agent's own
    ``act_batch`` when it has one (the scripted and learned agents), else ``act`` row by
    row; ``(N,)`` int64. A planning agent (``plans``) gets row ``j``'s battle as
    ``battles(games[j])`` and keeps one plan per game (``games``: the rows' battle
    indices, e.g. of a ``VectorEnv``)."""
    if getattr(agent, "plans", False):
        if battles is None or games is None:
            raise TypeError(f"{getattr(agent, 'name', agent)!r} plans with the battle: none given")
        return np.array(
            [
                agent.act_battle(battles(int(g)), m, rng, game=int(g))  # type: ignore[attr-defined]
                for g, m in zip(games, masks, strict=True)
            ],
            dtype=np.int64,
        )
    batch = getattr(agent, "act_batch", None)
    if batch is not None:
        return np.asarray(batch(observations, masks, rng), dtype=np.int64)
    return np.array(
        [agent.act(o, m, rng) for o, m in zip(observations, masks, strict=True)], dtype=np.int64
    )


def choose(
    agent: Agent,
    observation: np.ndarray,
    action_mask: np.ndarray,
    rng: np.random.Generator,
    battle: Callable[[], Battle] | None = None,
) -> int:
    """One agent's action: ``act`` for the agents that read the observation, and
    ``act_battle(battle(), action_mask, rng)`` for those that plan with the engine
    (``plans`` true: the ``expert``), which need the game loop to give the battle."""
    if getattr(agent, "plans", False):
        if battle is None:
            raise TypeError(f"{getattr(agent, 'name', agent)!r} plans with the battle: none given")
        return int(agent.act_battle(battle(), action_mask, rng))  # type: ignore[attr-defined]
    return int(agent.act(observation, action_mask, rng))


def fork(agent: Agent) -> Agent:
    """The agent for one more game played side by side: a planning agent's ``fork()``
    (its own plan), any other agent itself (they keep nothing between calls)."""
    make = getattr(agent, "fork", None)
    return make() if make is not None else agent
