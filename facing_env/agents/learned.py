"""The ``learned`` agent: a trained sb3-contrib ``MaskablePPO`` policy from a ``.zip``.

sb3-contrib (and torch) are imported only here, when such an agent is made, so that the
scripted agents and the environment never need them (``pip install "facing-env[train]"``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from facing_env.actions import END_TURN_INDEX


class LearnedAgent:
    """Acts deterministically with a saved ``MaskablePPO`` model, masking illegal actions
    (``action_masks=``); an unmasked choice falls back to END_TURN. The file is read on
    the first ``act``."""

    def __init__(self, path: str | Path, device: str = "cpu") -> None:
        try:
            from sb3_contrib import MaskablePPO
        except ImportError as error:
            raise ImportError(
                "the learned agent needs sb3-contrib: install the 'train' extra "
                '(pip install "facing-env[train]")'
            ) from error
        self.path = Path(path)
        if not self.path.exists() and not self.path.with_suffix(".zip").exists():
            raise FileNotFoundError(f"no model file at {self.path}")
        self.device = device
        self._loader = MaskablePPO
        self._model: Any = None

    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        """The policy's most likely legal action."""
        if self._model is None:
            self._model = self._loader.load(str(self.path), device=self.device)
        mask = np.asarray(action_mask).astype(bool)
        action, _ = self._model.predict(
            np.asarray(observation, dtype=np.float32), action_masks=mask, deterministic=True
        )
        index = int(np.asarray(action).reshape(-1)[0])
        return index if 0 <= index < mask.size and mask[index] else END_TURN_INDEX
