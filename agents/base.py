"""The agent protocol shared by scripted and learned agents (docs/design.md, agents)."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np


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
    """Base of the scripted agents: read the observation through an ``ObservationView``,
    let :meth:`choose` pick an index (None ends the turn), fall back to END_TURN when the
    mask forbids the choice."""

    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        """The chosen action, always one the mask allows."""
        from facing_env.agents.tactics import legal_or_end
        from facing_env.agents.view import ObservationView

        view = ObservationView(observation, action_mask)
        return legal_or_end(view, self.choose(view))

    def choose(self, view: object) -> int | None:
        """The action index, or None to end the turn."""
        raise NotImplementedError
