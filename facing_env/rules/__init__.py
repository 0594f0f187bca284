"""Rule queries: pure functions of a :class:`~facing_env.rules.battle.Battle` and creature ids.

The rules engine imports no gymnasium or pettingzoo. Every function cites the rule ids of
``docs/rules.md`` it implements.
"""

from __future__ import annotations

from facing_env.rules.areas import area_counts, area_of, areas, side_of, visible_area
from facing_env.rules.attacks import (
    FACING_TERMS,
    Modifiers,
    attack_breakdown,
    facing_modifier,
    shield_applies,
    sneak_attack_applies,
)
from facing_env.rules.flanking import flanking_allies, flanks
from facing_env.rules.maneuvers import (
    charge_allowed,
    charge_destinations,
    charge_path,
    charge_route,
    may_withdraw_from,
    withdraw_step_allowed,
)
from facing_env.rules.movement import (
    FULL_ROUND,
    forced_path,
    movement_allowance,
    step_area,
    step_cost,
)
from facing_env.rules.opportunity import (
    can_make_attacks_of_opportunity,
    provokers,
    threatened_cells,
    threatens,
)
from facing_env.rules.perception import (
    bumped,
    can_ready_against,
    concealment_miss_chance,
    forget,
    hear,
    look,
    perceives,
    roll_spot,
    spot_checks,
    spot_modifier,
    unseen,
)
from facing_env.rules.space import clamber_allowed, is_inside
from facing_env.rules.spells import can_target_with_spell, spell_origins

__all__ = [
    "FACING_TERMS",
    "FULL_ROUND",
    "Modifiers",
    "area_counts",
    "area_of",
    "areas",
    "attack_breakdown",
    "bumped",
    "can_make_attacks_of_opportunity",
    "can_ready_against",
    "can_target_with_spell",
    "charge_allowed",
    "charge_destinations",
    "charge_path",
    "charge_route",
    "clamber_allowed",
    "concealment_miss_chance",
    "facing_modifier",
    "flanking_allies",
    "flanks",
    "forced_path",
    "forget",
    "hear",
    "is_inside",
    "look",
    "may_withdraw_from",
    "movement_allowance",
    "perceives",
    "provokers",
    "roll_spot",
    "shield_applies",
    "side_of",
    "sneak_attack_applies",
    "spell_origins",
    "spot_checks",
    "spot_modifier",
    "step_area",
    "step_cost",
    "threatened_cells",
    "threatens",
    "unseen",
    "visible_area",
    "withdraw_step_allowed",
]
