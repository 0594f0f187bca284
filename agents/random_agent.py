"""The ``random`` agent: uniform over the legal actions."""

from __future__ import annotations

import numpy as np


class RandomAgent:
    """Picks uniformly among the actions the mask allows (END_TURN if none)."""

    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        """A uniformly random legal action."""
        legal = np.flatnonzero(np.asarray(action_mask))
        return int(rng.choice(legal)) if legal.size else 0
