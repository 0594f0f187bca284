"""The agent protocol shared by scripted and learned agents (DESIGN.md section 8)."""

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
