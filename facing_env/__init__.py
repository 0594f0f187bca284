"""facing_env: facing-aware d20 tactical combat as a PettingZoo multi-agent environment.

Public API (docs/design.md)::

    import facing_env
    env = facing_env.env(scenario="duel")          # AEC with PettingZoo's safety wrappers
    par = facing_env.parallel_env(scenario="skirmish")
    import pettingzoo
    env = pettingzoo.make("aec", "facing_env/Duel-v2")  # every built-in scenario is registered

The rule queries live in :mod:`facing_env.rules`; the rules engine imports neither
gymnasium nor pettingzoo, and importing this package never imports torch.
``compiled_modules()`` lists the modules running from the optional Cython build
(:mod:`facing_env._accel`); the numba kernels are cached per version of the sources
(:mod:`facing_env._jit_cache`).
"""

# ruff: noqa: E402  (the build is chosen before the first compiled module is imported)
from __future__ import annotations

from facing_env import _accel, _jit_cache

_accel.activate()
_jit_cache.activate()  # before any numba kernel is decorated

from facing_env._accel import compiled_modules
from facing_env.battle import Attack, Battle, Creature, Shield
from facing_env.env import env, parallel_env, raw_env
from facing_env.errors import (
    EnvStateError,
    IllegalActionError,
    RulesQueryError,
    ScenarioError,
)
from facing_env.registry import ENV_NAMESPACE, register_scenarios, registered_ids
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
    "compiled_modules",
    "env",
    "load_scenario",
    "parallel_env",
    "raw_env",
    "registered_ids",
    "scenario_names",
]
