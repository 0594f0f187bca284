"""The ``random`` agent: uniform over the legal actions."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from facing_env.agents.kernels.runner import BatchAgent, random_actions


class RandomAgent:
    """Picks uniformly among the actions the mask allows (END_TURN if none)."""

    name = "random"
    batch: ClassVar[BatchAgent] = BatchAgent(name, None)
    """Its batch version (what ``make_batch_agent("random")`` gives): no kernel."""

    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        """A uniformly random legal action."""
        legal = np.flatnonzero(np.asarray(action_mask))
        return int(rng.choice(legal)) if legal.size else 0

    def act_batch(
        self, observations: np.ndarray, masks: np.ndarray, rng: np.random.Generator
    ) -> np.ndarray:
        """One uniformly random legal action per row, vectorised: the actions :meth:`act`
        gives row after row with the same generator
        (:func:`~facing_env.agents.kernels.runner.random_actions`)."""
        return random_actions(masks, rng)
