"""The ``learned`` agent: a trained sb3-contrib ``MaskablePPO`` policy.

sb3-contrib (and torch) are imported only here, when such an agent is made, so that the
scripted agents and the environment never need them (``pip install "facing-env[train]"``).
By default the agent plays the policy's most likely action (``temperature=0``, as
stable-baselines3's ``evaluate_policy`` and the RLlib agent do); ``temperature=1`` samples
the trained distribution with the generator it is given (reproducible per seed), and values
between sharpen it (:func:`sharpen`).

Model files are untrusted input: :func:`load_model` does not hand them to
``MaskablePPO.load`` (which unpickles entries of the archive and feeds others to
``gym.make``). It reads the file once, takes only the readable shape of the spaces and the
network sizes from the archive's JSON (checked against limits and, when the env is known,
against its observation size and action count, before any network is built; each member's
uncompressed size is capped), builds the policy itself and loads the weights with
``torch.load(weights_only=True)`` (refusing NaN or infinite ones); nothing else in the file is
used. The limits are in :mod:`facing_env.limits`.
"""

from __future__ import annotations

import io
import itertools
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from facing_env.actions import END_TURN_INDEX
from facing_env.limits import (
    MAX_MODEL_ACTIONS,
    MAX_MODEL_BYTES,
    MAX_MODEL_DATA_BYTES,
    MAX_MODEL_LAYERS,
    MAX_MODEL_OBSERVATION,
    MAX_MODEL_PARAMETERS,
    MAX_MODEL_WEIGHTS_BYTES,
    MAX_MODEL_WIDTH,
    read_bounded,
    short_repr,
)


class PolicyAgent:
    """A ``MaskablePPO`` model (or a :class:`LoadedPolicy`) in memory behind the agent
    protocol."""

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

    def probabilities_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """:meth:`probabilities` of every row of ``(N, D)`` observations and ``(N, A)``
        masks, in one forward pass: ``(N, A)`` float64."""
        import torch

        obs = np.asarray(observations, dtype=np.float32)
        mask = np.asarray(masks).astype(bool)
        if obs.ndim != BATCH_NDIM or mask.ndim != BATCH_NDIM or obs.shape[0] != mask.shape[0]:
            raise ValueError(
                f"expected (N, D) observations and (N, A) masks, got {obs.shape} and {mask.shape}"
            )
        if not obs.shape[0]:
            return np.zeros(mask.shape, dtype=np.float64)
        self.probabilities(obs[0], mask[0])  # checks the layout (and loads a saved model)
        with torch.no_grad():
            dist = self.model.policy.get_distribution(torch.as_tensor(obs), action_masks=mask)
            probs = dist.distribution.probs.cpu().numpy().astype(np.float64)
        probs[~mask] = 0.0
        return probs

    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        """A legal action: the most likely one, or sampled with ``rng`` at the temperature."""
        mask = np.asarray(action_mask).astype(bool)
        return self._choose(self.probabilities(observation, mask), rng)

    def act_batch(
        self, observations: np.ndarray, masks: np.ndarray, rng: np.random.Generator
    ) -> np.ndarray:
        """One legal action per row, the policy run once over the batch; row ``i`` is
        ``act(observations[i], masks[i], rng)`` (sampled rows draw from ``rng`` in row
        order)."""
        probs = self.probabilities_batch(observations, masks)
        return np.array([self._choose(p, rng) for p in probs], dtype=np.int64)

    def _choose(self, probs: np.ndarray, rng: np.random.Generator) -> int:
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
    with np.errstate(over="ignore"):  # a tiny temperature overflows: treat it as greedy
        logp[probs > 0] = np.log(probs[probs > 0]) / temperature
    top = logp.max()
    if not np.isfinite(top):  # every entry overflowed
        out = np.zeros(probs.size)
        out[int(np.argmax(probs))] = 1.0
        return out
    out = np.exp(logp - top)
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
            self.check_layout(int(np.size(observation)), int(np.size(action_mask)))
        return super().probabilities(observation, action_mask)

    def check_layout(self, observation_size: int, actions: int) -> None:
        """Load the model now, checking that it was made for observations of
        ``observation_size`` values and ``actions`` actions; raise :class:`ModelFileError`."""
        if self.model is None:
            self.model = load_model(self.path, self.device, observation_size, actions)
            return
        expected = (self.model.observation_space.shape[0], int(self.model.action_space.n))
        if expected != (observation_size, actions):
            raise ModelFileError(_layout_problem(self.path, expected, observation_size, actions))


class ModelFileError(ValueError):
    """A model file that is not a readable MaskablePPO ``.zip`` of a supported shape."""


BATCH_NDIM = 2
"""Observations and masks come as ``(N, D)`` / ``(N, A)`` batches."""
MAX_MESSAGE = 300
"""Characters of an error message kept in a one-line report."""
MAX_FILE_BYTES = MAX_MODEL_BYTES  # the names of earlier versions
MAX_OBSERVATION = MAX_MODEL_OBSERVATION
MAX_ACTIONS = MAX_MODEL_ACTIONS
MAX_LAYERS, MAX_WIDTH = MAX_MODEL_LAYERS, MAX_MODEL_WIDTH
_POLICY_FLAGS = ("share_features_extractor", "ortho_init", "normalize_images")


@dataclass(frozen=True)
class LoadedPolicy:
    """A policy read from a model file: what :class:`PolicyAgent` needs of a model."""

    policy: Any
    observation_space: Any
    action_space: Any


def load_model(
    path: str | Path,
    device: str = "cpu",
    observation_size: int | None = None,
    actions: int | None = None,
) -> LoadedPolicy:
    """The policy of a MaskablePPO ``.zip`` without unpickling or importing anything named
    in it (see the module docstring); with ``observation_size`` and ``actions`` (the env's
    layout) the file must declare those before a network is built. Raises
    :class:`ModelFileError` naming the file and the problem."""
    import torch
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    path = Path(path)
    if not path.exists() and path.with_suffix(".zip").exists():
        path = path.with_suffix(".zip")
    try:
        blob = read_bounded(path, MAX_MODEL_BYTES)  # one read: what is checked is loaded
    except ValueError as error:
        raise ModelFileError(f"{path}: {error}") from None
    try:
        with zipfile.ZipFile(io.BytesIO(blob)) as archive:
            data = json.loads(_member(path, archive, "data", MAX_MODEL_DATA_BYTES))
            weights = _member(path, archive, "policy.pth", MAX_MODEL_WEIGHTS_BYTES)
    except ModelFileError:
        raise
    except Exception as error:  # missing entries, bad zip or JSON, odd compression, ...
        raise ModelFileError(
            f"{path}: not a stable-baselines3 model archive ({_reason(error)})"
        ) from error
    if not isinstance(data, dict):
        raise ModelFileError(f"{path}: the 'data' entry is not a JSON object")
    n_obs, n_actions = _observation_size(path, data), _action_count(path, data)
    expected = (observation_size, actions)
    if None not in expected and (n_obs, n_actions) != expected:
        raise ModelFileError(_layout_problem(path, (n_obs, n_actions), *expected))  # type: ignore[arg-type]
    policy_kwargs = _policy_kwargs(path, data.get("policy_kwargs", {}))
    _check_parameters(path, n_obs, n_actions, policy_kwargs)
    observation_space = spaces.Box(-np.inf, np.inf, (n_obs,), np.float32)
    action_space = spaces.Discrete(n_actions)
    try:
        state = torch.load(io.BytesIO(weights), map_location=device, weights_only=True)
    except Exception as error:
        raise ModelFileError(
            f"{path}: policy.pth is not a PyTorch state dict of tensors ({_reason(error)})"
        ) from error
    _check_finite(path, state)
    try:
        policy = MaskableActorCriticPolicy(
            observation_space, action_space, lambda _progress: 0.0, **policy_kwargs
        )
        policy.load_state_dict(state)
    except Exception as error:
        raise ModelFileError(
            f"{path}: the weights do not fit the stored network ({_reason(error)})"
        ) from error
    policy.set_training_mode(False)
    return LoadedPolicy(policy.to(device), observation_space, action_space)


def _reason(error: BaseException) -> str:
    """An exception's message on one line, cut short; its type when it has none."""
    text = " ".join(str(error).split())
    if not text:
        return type(error).__name__
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE] + "..."


def _layout_problem(path: Path, declared: tuple[int, int], observation: int, actions: int) -> str:
    return (
        f"{path}: the model expects observations of {declared[0]} values and masks of "
        f"{declared[1]} actions, the env has {observation} and {actions}: was it trained on "
        "another scenario's layout?"
    )


def _member(path: Path, archive: zipfile.ZipFile, name: str, limit: int) -> bytes:
    """An archive member's bytes, refused when it inflates to more than ``limit``."""
    info = archive.getinfo(name)
    if info.file_size > limit:
        raise ModelFileError(
            f"{path}: the member {name!r} inflates to {info.file_size} bytes, more than the"
            f" limit of {limit}"
        )
    with archive.open(info) as member:
        payload = member.read(limit + 1)
    if len(payload) > limit:
        raise ModelFileError(f"{path}: the member {name!r} inflates to more than {limit} bytes")
    return payload


def _check_parameters(
    path: Path, n_obs: int, n_actions: int, policy_kwargs: dict[str, Any]
) -> None:
    """Refuse networks of more than ``MAX_MODEL_PARAMETERS`` before building them (the
    default architecture is stable-baselines3's: 64 x 64 for policy and value; a features
    extractor counts once, shared)."""
    net_arch = policy_kwargs.get("net_arch")
    arch = [64, 64] if net_arch is None else net_arch
    nets = [arch.get("pi", []), arch.get("vf", [])] if isinstance(arch, dict) else [arch, arch]
    total, features = 0, n_obs
    if "features_extractor_kwargs" in policy_kwargs:
        from facing_env.train.policies import clock_size, extractor_size

        kind = policy_kwargs["features_extractor_class"].__name__
        size = clock_size if kind == "ClockExtractor" else extractor_size
        try:
            total, features = size(**policy_kwargs["features_extractor_kwargs"])
        except TypeError as error:
            raise ModelFileError(
                f"{path}: features_extractor_kwargs lacks an argument of {kind} ({_reason(error)})"
            ) from error
    for widths, head in zip(nets, (n_actions, 1), strict=True):
        sizes = [features, *widths, head]
        total += sum(a * b + b for a, b in itertools.pairwise(sizes))
    if total > MAX_MODEL_PARAMETERS:
        raise ModelFileError(
            f"{path}: the declared networks have {total} parameters, more than the limit of"
            f" {MAX_MODEL_PARAMETERS}"
        )


def _check_finite(path: Path, state: Any) -> None:
    """Every tensor of the weights is finite."""
    import torch

    if not isinstance(state, dict):
        raise ModelFileError(f"{path}: the weights are not a state dict")
    for key, value in state.items():
        floating = isinstance(value, torch.Tensor) and value.is_floating_point()
        if floating and not bool(torch.isfinite(value).all()):
            raise ModelFileError(
                f"{path}: the weights {short_repr(key)} are not finite (NaN or infinite)"
            )


def _observation_size(path: Path, data: dict[str, Any]) -> int:
    entry = data.get("observation_space")
    try:
        shape = [int(n) for n in entry["_shape"]]  # type: ignore[index]
        dtype = np.dtype(str(entry["dtype"]))  # type: ignore[index]
    except Exception as error:
        raise ModelFileError(
            f"{path}: observation_space has no readable shape ({_reason(error)})"
        ) from error
    if len(shape) != 1 or not 0 < shape[0] <= MAX_OBSERVATION or dtype.kind != "f":
        raise ModelFileError(
            f"{path}: observation_space must be a flat float Box of at most "
            f"{MAX_OBSERVATION} values, got shape {short_repr(shape)} and dtype {dtype}"
        )
    return shape[0]


def _action_count(path: Path, data: dict[str, Any]) -> int:
    entry = data.get("action_space")
    try:
        kind = str(entry[":type:"])  # type: ignore[index]
        raw = entry["n"]  # type: ignore[index]
        n = int(raw)
    except Exception as error:
        raise ModelFileError(
            f"{path}: action_space is not a Discrete space ({_reason(error)})"
        ) from error
    if isinstance(raw, bool) or (isinstance(raw, float) and raw != n):
        raise ModelFileError(f"{path}: action_space's n must be a whole number, got {raw!r}")
    if "Discrete" not in kind or not 0 < n <= MAX_ACTIONS:
        raise ModelFileError(
            f"{path}: action_space must be Discrete(1..{MAX_ACTIONS}), got {short_repr(kind)} n={n}"
        )
    return n


def _policy_kwargs(path: Path, kwargs: Any) -> dict[str, Any]:
    """``net_arch`` (a list of widths or ``{"pi": [...], "vf": [...]}``) and the boolean
    flags of :data:`_POLICY_FLAGS`; anything else is refused by name."""
    if not isinstance(kwargs, dict):
        raise ModelFileError(f"{path}: policy_kwargs is not a JSON object")
    out: dict[str, Any] = {}
    for key, value in kwargs.items():
        if key == "net_arch":
            out[key] = _net_arch(path, value)
        elif key in _POLICY_FLAGS and isinstance(value, bool):
            out[key] = value
        elif key == "features_extractor_class":
            out[key] = _extractor_class(path, value)
        elif key == "features_extractor_kwargs":
            out[key] = value
        elif key not in ("device", ":type:", ":serialized:"):  # the pickle is never read
            raise ModelFileError(f"{path}: unsupported policy_kwargs entry {short_repr(key)}")
    if ("features_extractor_kwargs" in out) != ("features_extractor_class" in out):
        raise ModelFileError(
            f"{path}: features_extractor_class and features_extractor_kwargs come together"
        )
    if "features_extractor_class" in out:
        kind = out["features_extractor_class"].__name__
        out["features_extractor_kwargs"] = _extractor_kwargs(
            path, out["features_extractor_kwargs"], _EXTRACTOR_KWARGS[kind]
        )
    return out


_EXTRACTORS = {
    "<class 'facing_env.train.policies.EntityExtractor'>": "EntityExtractor",
    "<class 'facing_env.train.policies.ClockExtractor'>": "ClockExtractor",
}
"""Features extractors a model file may name (by the repr stable-baselines3 stores)."""
_EXTRACTOR_KWARGS = {
    "EntityExtractor": ("window", "n_slots", "conv_channels", "window_dim", "entity_dim"),
    "ClockExtractor": ("window", "n_slots", "rounds"),
}
"""The integer arguments each extractor may be given."""


def _extractor_class(path: Path, value: Any) -> Any:
    if value not in _EXTRACTORS:
        raise ModelFileError(
            f"{path}: unsupported features_extractor_class {str(value)[:80]!r} "
            f"(known: {sorted(_EXTRACTORS)})"
        )
    from facing_env.train import policies

    return getattr(policies, _EXTRACTORS[value])


def _extractor_kwargs(path: Path, value: Any, names: tuple[str, ...]) -> dict[str, int]:
    from facing_env.train.policies import MAX_WIDTH

    ok = isinstance(value, dict) and set(value) <= set(names)
    if not ok or not all(type(v) is int and 0 < v <= MAX_WIDTH for v in value.values()):
        raise ModelFileError(
            f"{path}: features_extractor_kwargs must map {names} to integers in "
            f"1..{MAX_WIDTH}, got {str(value)[:200]}"
        )
    return dict(value)


def _net_arch(path: Path, value: Any) -> Any:
    def widths(layers: Any) -> list[int]:
        ok = isinstance(layers, list) and len(layers) <= MAX_LAYERS
        whole = all(isinstance(w, int) and not isinstance(w, bool) for w in layers or ())
        if not ok or not whole or not all(0 < w <= MAX_WIDTH for w in layers):
            raise ModelFileError(
                f"{path}: net_arch needs at most {MAX_LAYERS} layers of 1..{MAX_WIDTH} units, "
                f"got {short_repr(layers)}"
            )
        return list(layers)

    if isinstance(value, dict) and set(value) <= {"pi", "vf"}:
        return {k: widths(v) for k, v in value.items()}
    return widths(value)
