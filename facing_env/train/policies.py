"""Features extractors that fit the observation, for stable-baselines3 / sb3-contrib
policies: :class:`EntityExtractor` (a small convolution over the window and one shared
network per creature row) and :class:`ClockExtractor` (the flat observation and the round
as a thermometer code).

The flat observation (:class:`facing_env.observation.ObservationLayout`) is a ``W x W x C``
window around the observer, a ``K x F`` creature table, scalars, and the tactics part (a
``K x T`` table and two scalars). :class:`EntityExtractor` reads it by those offsets:

- the window goes through two 3x3 convolutions (the second with stride 2) and a linear
  layer: local terrain, threat and facing patterns look the same wherever they are;
- each creature row (its table row with its tactics row) goes through the same two-layer
  network, and the rows' embeddings are concatenated in slot order, since the actions
  address creatures by slot (ATTACK k, CHARGE k, WITHDRAW k): one set of weights learns
  what a flanking position or a wounded foe means for every slot;
- the scalars (turn state, rule set flags, withdrawal) pass through unchanged.

Needs torch (the ``train`` extra). The constructor's arguments are plain integers, so a
saved model names them in its JSON and :func:`facing_env.agents.learned.load_model` can
rebuild the network without unpickling anything.
"""

from __future__ import annotations

import gymnasium as gym
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from facing_env.observation import (
    CHANNELS,
    FEATURES,
    SCALARS,
    TACTIC_SCALARS,
    TACTICS,
    ObservationLayout,
    Scalar,
)

MAX_WIDTH = 1024
"""Largest accepted hidden width (a model file names the widths; see ``load_model``)."""


def _layout(observation_space: gym.spaces.Box, **sizes: int) -> ObservationLayout:
    """The observation layout of ``sizes["window"]`` and ``sizes["n_slots"]``, after checking
    that every size is an integer in 1..MAX_WIDTH and that the layout is the space's."""
    for name, value in sizes.items():
        if not isinstance(value, int) or not 0 < value <= MAX_WIDTH:
            raise ValueError(f"{name} must be an integer in 1..{MAX_WIDTH}, got {value!r}")
    window, n_slots = sizes["window"], sizes["n_slots"]
    layout = ObservationLayout(window, n_slots)
    size = int(observation_space.shape[0])
    if size != layout.size:
        raise ValueError(
            f"window={window} and n_slots={n_slots} describe observations of "
            f"{layout.size} values, the space has {size}"
        )
    return layout


class EntityExtractor(BaseFeaturesExtractor):
    """Window convolution + shared per-creature network + scalars (module docstring)."""

    def __init__(
        self,
        observation_space: gym.spaces.Box,
        window: int,
        n_slots: int,
        conv_channels: int = 32,
        window_dim: int = 128,
        entity_dim: int = 64,
    ) -> None:
        layout = _layout(
            observation_space,
            window=window,
            n_slots=n_slots,
            conv_channels=conv_channels,
            window_dim=window_dim,
            entity_dim=entity_dim,
        )
        self.layout = layout
        n_scalars = len(SCALARS) + len(TACTIC_SCALARS)
        super().__init__(observation_space, window_dim + n_slots * entity_dim + n_scalars)
        channels = len(CHANNELS)
        half = (window + 1) // 2
        self.window_net = nn.Sequential(
            nn.Conv2d(channels, conv_channels, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(conv_channels, conv_channels, 3, stride=2, padding=1),
            nn.ReLU(),
            nn.Flatten(),
            nn.Linear(conv_channels * half * half, window_dim),
            nn.ReLU(),
        )
        self.entity_net = nn.Sequential(
            nn.Linear(len(FEATURES) + len(TACTICS), entity_dim),
            nn.ReLU(),
            nn.Linear(entity_dim, entity_dim),
            nn.ReLU(),
        )

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        """``(B, D)`` observations to ``(B, features_dim)`` features."""
        lay = self.layout
        b = observations.shape[0]
        ws, ts, at = lay.window_size, lay.table_size, lay.tactics_offset
        k = lay.n_slots
        window = observations[:, :ws].reshape(b, lay.window, lay.window, len(CHANNELS))
        table = observations[:, ws : ws + ts].reshape(b, k, len(FEATURES))
        scalars = observations[:, ws + ts : at]
        tk = k * len(TACTICS)
        tactics = observations[:, at : at + tk].reshape(b, k, len(TACTICS))
        tactic_scalars = observations[:, at + tk :]
        seen = self.window_net(window.permute(0, 3, 1, 2))
        rows = self.entity_net(torch.cat([table, tactics], dim=2)).reshape(b, -1)
        return torch.cat([seen, rows, scalars, tactic_scalars], dim=1)


def extractor_size(
    window: int,
    n_slots: int,
    conv_channels: int = 32,
    window_dim: int = 128,
    entity_dim: int = 64,
) -> tuple[int, int]:
    """(parameters of an :class:`EntityExtractor`, its features_dim), computed without
    building it (model files are checked against a size limit first)."""
    c, half = len(CHANNELS), (window + 1) // 2
    conv = (c * 9 + 1) * conv_channels + (conv_channels * 9 + 1) * conv_channels
    seen = (conv_channels * half * half + 1) * window_dim
    rows = (len(FEATURES) + len(TACTICS) + 1) * entity_dim + (entity_dim + 1) * entity_dim
    features = window_dim + n_slots * entity_dim + len(SCALARS) + len(TACTIC_SCALARS)
    return conv + seen + rows, features


def entity_policy_kwargs(layout: ObservationLayout, net_arch: list[int]) -> dict:
    """``policy_kwargs`` for a MaskablePPO with :class:`EntityExtractor` on ``layout``."""
    return {
        "net_arch": list(net_arch),
        "features_extractor_class": EntityExtractor,
        "features_extractor_kwargs": {"window": layout.window, "n_slots": layout.n_slots},
    }


class ClockExtractor(BaseFeaturesExtractor):
    """The flat observation followed by the round as a thermometer code: feature ``j``
    (``1 <= j <= rounds``) is 1 from round ``j`` on. The observation holds the round as one
    scalar, ``round / max_rounds`` (``Scalar.ROUND_FRACTION``); a policy that must act one
    way until round 8 and another from round 9 in the same position (the expert waiting
    readied for a foe that waits, then closing in, ``agents/expert.py``'s PATIENCE) needs a
    sharp step in that scalar, which a fitted MLP draws late or early from one run to the
    next; with the code the step is one input. ``rounds`` is the scenario's ``max_rounds``.
    No weights of its own; the code is computed in :meth:`forward`."""

    def __init__(
        self, observation_space: gym.spaces.Box, window: int, n_slots: int, rounds: int
    ) -> None:
        layout = _layout(observation_space, window=window, n_slots=n_slots, rounds=rounds)
        super().__init__(observation_space, layout.size + rounds)
        self.index = layout.window_size + layout.table_size + Scalar.ROUND_FRACTION
        self.rounds = rounds

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        """``(B, D)`` observations to ``(B, D + rounds)`` features."""
        now = observations[:, self.index : self.index + 1] * self.rounds
        steps = torch.arange(1, self.rounds + 1, dtype=observations.dtype, device=now.device)
        code = (now >= steps - 0.5).to(observations.dtype)
        return torch.cat([observations.flatten(1), code], dim=1)


def clock_size(window: int, n_slots: int, rounds: int) -> tuple[int, int]:
    """(parameters of a :class:`ClockExtractor`: none, its features_dim)."""
    return 0, ObservationLayout(window, n_slots).size + rounds


def clock_policy_kwargs(layout: ObservationLayout, net_arch: list[int], rounds: int) -> dict:
    """``policy_kwargs`` for a MaskablePPO with :class:`ClockExtractor` on ``layout``."""
    return {
        "net_arch": list(net_arch),
        "features_extractor_class": ClockExtractor,
        "features_extractor_kwargs": {
            "window": layout.window,
            "n_slots": layout.n_slots,
            "rounds": rounds,
        },
    }
