"""Perception under facing: Spot penalties, readied triggers, concealment from behind.

UA-PER-01, UA-PER-02, UA-FEAT-CA, SR-11.
"""

from __future__ import annotations

from facing_env.rules._common import Target, cell_area, target_cells
from facing_env.rules.areas import visible_area
from facing_env.rules.battle import Battle, Creature
from facing_env.tables import CONCEALMENT_MISS_CHANCE, SPOT_PENALTY, SPOT_PENALTY_COMBAT_AWARENESS
from facing_env.types import Area


def spot_modifier(battle: Battle, observer: str | Creature, target: Target) -> int:
    """Spot check modifier from facing: -5 in or beyond the flank, -10 in or beyond the rear.

    UA-PER-01 (ua35 only); Combat Awareness gives 0 / -5 (UA-FEAT-CA); faceless creatures,
    Tiny or smaller ones and those with all-around vision take no penalty. A creature is
    seen by its least exposed square.
    """
    c = battle.creature(observer)
    if not battle.rules.facing_penalties or c.all_around_vision:
        return 0
    area = Area(visible_area(battle, c, target))
    table = SPOT_PENALTY_COMBAT_AWARENESS if c.has_feat("Combat Awareness") else SPOT_PENALTY
    return table[area]


def can_ready_against(
    battle: Battle, creature: str | Creature, trigger: Target, *, sound: bool = False
) -> bool:
    """Whether a readied action can respond to a trigger there (UA-PER-02).

    A trigger that must be seen cannot lie in (or beyond) the rear area; a sound-based
    trigger can. Creatures without facing and all-around vision see everywhere.
    """
    c = battle.creature(creature)
    if sound or not battle.rules.facing_penalties or c.all_around_vision:
        return True
    return visible_area(battle, c, trigger) != Area.REAR.value


def concealment_miss_chance(battle: Battle, attacker: str | Creature, defender: Target) -> int:
    """Miss chance of ``attacker``'s attacks on a defender standing behind it (SR-11).

    Under ``side_rear`` "being behind a creature grants concealment from that creature":
    20% (the SRD concealment value) when every square of the defender is in the attacker's
    rear area. Creatures with all-around vision or no facing are never fooled.
    """
    a = battle.creature(attacker)
    if not battle.rules.concealment_from_behind or a.all_around_vision:
        return 0
    found = [cell_area(battle, a, x) for x in target_cells(battle, defender)]
    if found and all(f is not None and f.area is Area.REAR for f in found):
        return CONCEALMENT_MISS_CHANCE
    return 0
