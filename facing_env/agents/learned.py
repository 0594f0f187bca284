"""The ``learned`` agent: a trained sb3-contrib ``MaskablePPO`` policy.

sb3-contrib (and torch) are imported only here, when such an agent is made, so that the
scripted agents and the environment never need them (``pip install "facing-env[train]"``).
By default the agent samples from the policy's masked action distribution with the
generator it is given (reproducible per seed); ``deterministic=True`` takes the most likely
action instead, which can leave a policy repeating itself when it is unsure.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from facing_env.actions import END_TURN_INDEX


class PolicyAgent:
    """A ``MaskablePPO`` model in memory behind the agent protocol."""

    def __init__(self, model: Any, deterministic: bool = False) -> None:
        self.model = model
        self.deterministic = deterministic

    def probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """The policy's masked action probabilities."""
        import torch

        mask = np.asarray(action_mask).astype(bool)
        obs = torch.as_tensor(np.asarray(observation, dtype=np.float32)[None])
        with torch.no_grad():
            dist = self.model.policy.get_distribution(obs, action_masks=mask[None])
            probs = dist.distribution.probs[0].cpu().numpy().astype(np.float64)
        probs[~mask] = 0.0
        return probs

    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        """A legal action: sampled with ``rng``, or the most likely one."""
        mask = np.asarray(action_mask).astype(bool)
        probs = self.probabilities(observation, mask)
        total = probs.sum()
        if not total > 0:
            return END_TURN_INDEX
        if self.deterministic:
            return int(np.argmax(probs))
        return int(rng.choice(probs.size, p=probs / total))


class LearnedAgent(PolicyAgent):
    """A saved ``MaskablePPO`` model (``.zip``), read on the first ``act``."""

    def __init__(self, path: str | Path, device: str = "cpu", deterministic: bool = False) -> None:
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
        super().__init__(None, deterministic)

    def probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """The policy's masked action probabilities (loading the model if needed)."""
        if self.model is None:
            self.model = self._loader.load(str(self.path), device=self.device)
        return super().probabilities(observation, action_mask)
