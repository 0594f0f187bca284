"""Play agents against each other and count what happened (docs/design.md, agents).

``play`` runs one PettingZoo episode with one agent per team; ``attack_origins`` reads the
engine's attack events: where each team's attacks came from relative to the defender's
facing (``front``, ``flank``, ``side``, ``rear``, ``none``). Evaluation reads the env's
record of events; the agents themselves see only observations and masks.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

import facing_env
from facing_env.agents.base import Agent, choose
from facing_env.events import Event
from facing_env.rules import engine


class MaskViolation(AssertionError):
    """An agent chose an action its mask did not allow."""


@dataclass(frozen=True)
class Episode:
    """The outcome of one game: the winning team (None for a draw), every engine event,
    the team of each creature id and the number of agent steps."""

    winner: str | None
    events: list[Event]
    teams: dict[str, str]
    steps: int


def play(
    scenario: str,
    agents: Mapping[str, Agent],
    seed: int,
    *,
    max_steps: int = 100_000,
    **env_kwargs: Any,
) -> Episode:
    """One episode of ``scenario`` seeded with ``seed``; ``agents`` maps each team to the
    agent that controls all its creatures. Raises :class:`MaskViolation` on a masked
    action."""
    env = facing_env.env(scenario=scenario, **env_kwargs)
    env.reset(seed=seed)
    raw = env.unwrapped
    rng = np.random.default_rng(seed)
    steps = 0
    for name in env.agent_iter(max_iter=max_steps):
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        mask = observation["action_mask"]
        agent = agents[raw.teams[raw.agent_to_id[name]]]
        action = choose(agent, observation["observation"], mask, rng, lambda: raw.battle)
        if not (isinstance(action, (int, np.integer)) and 0 <= action < mask.size and mask[action]):
            raise MaskViolation(f"{scenario} seed {seed}: {name} chose masked action {action!r}")
        env.step(int(action))
        steps += 1
    battle = raw.battle
    winner = engine.winner(battle) if engine.is_over(battle) else None
    episode = Episode(winner, list(raw.events), dict(raw.teams), steps)
    env.close()
    return episode


def attack_origins(
    episode: Episode, labels: Mapping[str, str] | None = None, *, aoo: bool = False
) -> Counter:
    """Counts of ``(label, defender area)`` over the attacks in one episode, labelled by
    ``labels[team]`` (default: the team). Attacks of opportunity (the engine's reactions,
    not the agents' choices) count only with ``aoo=True``."""
    counts: Counter = Counter()
    for e in episode.events:
        if e.kind == "attack" and (aoo or e.attack_kind != "aoo"):
            team = episode.teams[e.actor]
            label = labels.get(team, team) if labels else team
            counts[(label, e.defender_area or "none")] += 1
    return counts


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% by default)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))
