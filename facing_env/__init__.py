"""facing_env: facing-aware d20 tactical combat as a PettingZoo multi-agent environment."""

from __future__ import annotations

from facing_env.battle import Attack, Battle, Creature, Shield
from facing_env.errors import IllegalActionError, RulesQueryError, ScenarioError
from facing_env.types import Area, GridKind, Ruleset, Size, Terrain

__version__ = "0.1.0"

__all__ = [
    "Area",
    "Attack",
    "Battle",
    "Creature",
    "GridKind",
    "IllegalActionError",
    "RulesQueryError",
    "Ruleset",
    "ScenarioError",
    "Shield",
    "Size",
    "Terrain",
    "__version__",
]
