"""The ``learned`` agent: a trained sb3-contrib ``MaskablePPO`` policy.

sb3-contrib (and torch) are imported only here, when such an agent is made, so that the
scripted agents and the environment never need them (``pip install "facing-env[train]"``).
By default the agent plays the policy's most likely action (``temperature=0``, as
stable-baselines3's ``evaluate_policy`` and the RLlib agent do); ``temperature=1`` samples
the trained distribution with the generator it is given (reproducible per seed), and values
between sharpen it (:func:`sharpen`).

Model files are untrusted input: :func:`load_model` never unpickles. A ``.zip`` saved by
stable-baselines3 keeps some entries as pickles (the policy class, the spaces, schedules);
they are replaced by known-safe objects rebuilt from the readable fields beside them, and
the weights are read with ``torch.load(weights_only=True)`` by stable-baselines3 itself.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from facing_env.actions import END_TURN_INDEX


class PolicyAgent:
    """A ``MaskablePPO`` model in memory behind the agent protocol."""

    def __init__(self, model: Any, temperature: float = 0.0) -> None:
        if not temperature >= 0.0:
            raise ValueError(f"temperature must be >= 0, got {temperature}")
        self.model = model
        self.temperature = temperature

    @property
    def deterministic(self) -> bool:
        """Whether the agent always plays the most likely action (temperature 0)."""
        return self.temperature == 0.0

    def probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """The policy's masked action probabilities."""
        import torch

        mask = np.asarray(action_mask).astype(bool)
        expected = (self.model.observation_space.shape[0], int(self.model.action_space.n))
        if (np.size(observation), mask.size) != expected:
            raise ValueError(
                f"the model expects observations of {expected[0]} values and masks of "
                f"{expected[1]} actions, got {np.size(observation)} and {mask.size}: "
                "was it trained on another scenario's layout?"
            )
        obs = torch.as_tensor(np.asarray(observation, dtype=np.float32)[None])
        with torch.no_grad():
            dist = self.model.policy.get_distribution(obs, action_masks=mask[None])
            probs = dist.distribution.probs[0].cpu().numpy().astype(np.float64)
        probs[~mask] = 0.0
        return probs

    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        """A legal action: the most likely one, or sampled with ``rng`` at the temperature."""
        mask = np.asarray(action_mask).astype(bool)
        probs = self.probabilities(observation, mask)
        total = probs.sum()
        if not total > 0:
            return END_TURN_INDEX
        if self.deterministic:
            return int(np.argmax(probs))
        return int(rng.choice(probs.size, p=sharpen(probs / total, self.temperature)))


def sharpen(probs: np.ndarray, temperature: float) -> np.ndarray:
    """``probs ** (1 / temperature)`` renormalised (computed in log space, so a small
    temperature cannot underflow); zeros stay zero, ``temperature`` 1 changes nothing."""
    if temperature == 1.0:
        return probs
    logp = np.full(probs.size, -np.inf)
    logp[probs > 0] = np.log(probs[probs > 0]) / temperature
    out = np.exp(logp - logp.max())
    return out / out.sum()


class LearnedAgent(PolicyAgent):
    """A saved ``MaskablePPO`` model (``.zip``), read on the first ``act``."""

    def __init__(
        self,
        path: str | Path,
        device: str = "cpu",
        temperature: float = 0.0,
    ) -> None:
        try:
            import sb3_contrib  # noqa: F401 - fail here, with the extra's name
        except ImportError as error:
            raise ImportError(
                "the learned agent needs sb3-contrib: install the 'train' extra "
                '(pip install "facing-env[train]")'
            ) from error
        self.path = Path(path)
        if not self.path.exists() and not self.path.with_suffix(".zip").exists():
            raise FileNotFoundError(f"no model file at {self.path}")
        self.device = device
        super().__init__(None, temperature)

    def probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """The policy's masked action probabilities (loading the model if needed)."""
        if self.model is None:
            self.model = load_model(self.path, self.device)
        return super().probabilities(observation, action_mask)


class ModelFileError(ValueError):
    """A model file that is not a readable MaskablePPO ``.zip``."""


def load_model(path: str | Path, device: str = "cpu") -> Any:
    """A ``MaskablePPO`` from a ``.zip`` without unpickling anything in it (see the module
    docstring); raises :class:`ModelFileError` naming the file and the problem."""
    from sb3_contrib import MaskablePPO

    path = Path(path)
    if not path.exists() and path.with_suffix(".zip").exists():
        path = path.with_suffix(".zip")
    try:
        with zipfile.ZipFile(path) as archive:
            data = json.loads(archive.read("data"))
            if "policy.pth" not in archive.namelist():
                raise ModelFileError(f"{path}: no policy.pth in the archive")
    except (OSError, zipfile.BadZipFile, KeyError, json.JSONDecodeError) as error:
        raise ModelFileError(f"{path}: not a stable-baselines3 model archive ({error})") from error
    if not isinstance(data, dict):
        raise ModelFileError(f"{path}: the 'data' entry is not a JSON object")
    try:
        return MaskablePPO.load(path, device=device, custom_objects=_safe_objects(path, data))
    except ModelFileError:
        raise
    except Exception as error:  # a shape mismatch, a truncated tensor file, ...
        raise ModelFileError(f"{path}: cannot load the model ({error})") from error


def _safe_objects(path: Path, data: dict[str, Any]) -> dict[str, Any]:
    """Replacements for every pickled entry of a saved model's ``data``."""
    from gymnasium import spaces
    from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    def constant(value: float) -> Any:
        return lambda _progress: value

    replacements: dict[str, Any] = {
        "policy_class": MaskableActorCriticPolicy,
        "rollout_buffer_class": MaskableRolloutBuffer,
        "learning_rate": 0.0,  # training-only entries: inert stand-ins
        "lr_schedule": constant(0.0),
        "clip_range": constant(0.2),
        "clip_range_vf": None,
    }
    objects: dict[str, Any] = {}
    for key, value in data.items():
        if not (isinstance(value, dict) and ":serialized:" in value):
            continue
        if key == "observation_space":
            objects[key] = _box(path, value, spaces)
        elif key == "action_space":
            objects[key] = _discrete(path, value, spaces)
        else:
            objects[key] = replacements.get(key)
    for key in ("observation_space", "action_space"):
        if key not in objects:
            raise ModelFileError(f"{path}: no {key} in the model data")
    return objects


def _box(path: Path, entry: dict[str, Any], spaces: Any) -> Any:
    """The observation Box from its readable shape and dtype. The bounds are taken from
    ``low_repr``/``high_repr`` when the saving gymnasium wrote them (1.4 leaves them None),
    else unbounded: acting uses only the shape and dtype of a float Box."""
    try:
        shape = tuple(int(n) for n in entry["_shape"])
        dtype = np.dtype(str(entry["dtype"]))
    except (KeyError, TypeError, ValueError) as error:
        raise ModelFileError(f"{path}: observation_space is not a Box ({error})") from error
    if dtype.kind != "f":
        raise ModelFileError(f"{path}: observation_space has dtype {dtype}, expected a float")
    return spaces.Box(
        _bound(entry, "low_repr", -np.inf), _bound(entry, "high_repr", np.inf), shape, dtype
    )


def _bound(entry: dict[str, Any], key: str, default: float) -> float:
    try:
        return float(entry.get(key))
    except (TypeError, ValueError):
        return default


def _discrete(path: Path, entry: dict[str, Any], spaces: Any) -> Any:
    try:
        n = int(entry["n"])
    except (KeyError, TypeError, ValueError) as error:
        raise ModelFileError(f"{path}: action_space is not Discrete ({error})") from error
    return spaces.Discrete(n)
