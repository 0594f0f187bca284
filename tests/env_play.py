"""Helpers for the env-level tests: random masked play and independent battle copies.

``walk`` drives an env with uniformly random masked actions from a seeded generator and
stops at a living agent's decision; the same arguments always reach the same state.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

import facing_env
from facing_env.rules.battle import Battle

SCENARIOS = facing_env.scenario_names()


def copy_battle(battle: Battle) -> Battle:
    """An independent copy of a battle, to try an action on without touching the original."""
    return battle.copy()


def masked_choice(rng: np.random.Generator, mask: np.ndarray) -> int:
    """A uniformly random allowed index of an action mask."""
    return int(rng.choice(np.flatnonzero(mask)))


def walk(
    scenario: str,
    seed: int,
    decisions: int,
    *,
    dice: str | None = None,
    visit: Callable[[Any], None] | None = None,
) -> Any:
    """A ``raw_env`` after ``decisions`` random masked actions from ``reset(seed=seed)``,
    waiting for a living agent's action. Dead agents take their ``None`` step on the way;
    ``visit(env)`` is called at every living decision, the last one included. If the
    episode ends first, the walk is replayed to decision ``decisions % length`` instead."""
    for _ in range(2):
        env = facing_env.raw_env(scenario=scenario, dice=dice)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        done = 0
        for _agent in env.agent_iter():
            obs, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            if visit is not None:
                visit(env)
            if done == decisions:
                return env
            env.step(masked_choice(rng, obs["action_mask"]))
            done += 1
        decisions %= done
    raise AssertionError("unreachable: the replayed walk stops before the episode ends")
