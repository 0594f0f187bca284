"""facing_env: facing-aware d20 tactical combat as a PettingZoo multi-agent environment.

Public API (docs/design.md)::

    import facing_env
    env = facing_env.env(scenario="duel")          # AEC with PettingZoo's safety wrappers
    par = facing_env.parallel_env(scenario="skirmish")
    import pettingzoo
    env = pettingzoo.make("aec", "facing_env/Duel-v2")  # every built-in scenario is registered

The rule queries live in :mod:`facing_env.rules`; the rules engine imports neither
gymnasium nor pettingzoo, and importing this package never imports torch.
The step path is the batched engine's numba kernels (:mod:`facing_env.fast`), cached
on disk per version of the sources (:mod:`facing_env.fast.cache`).
"""

# ruff: noqa: E402  (numba's cache is placed before the first kernel is decorated)
from __future__ import annotations

from facing_env.fast import cache as _jit_cache

_jit_cache.activate()

from facing_env.env import env, parallel_env, raw_env, skip_dead_steps
from facing_env.errors import (
    EnvStateError,
    IllegalActionError,
    RulesQueryError,
    ScenarioError,
)
from facing_env.registry import ENV_NAMESPACE, register_scenarios, registered_ids
from facing_env.rules.battle import Attack, Battle, Creature, Shield
from facing_env.scenario import load_scenario, scenario_names
from facing_env.types import Area, GridKind, Ruleset, Size, Terrain

__version__ = "0.1.0"

register_scenarios()

__all__ = [
    "ENV_NAMESPACE",
    "Area",
    "Attack",
    "Battle",
    "Creature",
    "EnvStateError",
    "GridKind",
    "IllegalActionError",
    "RulesQueryError",
    "Ruleset",
    "ScenarioError",
    "Shield",
    "Size",
    "Terrain",
    "__version__",
    "env",
    "load_scenario",
    "parallel_env",
    "raw_env",
    "registered_ids",
    "scenario_names",
    "skip_dead_steps",
]
