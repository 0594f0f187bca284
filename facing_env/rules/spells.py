"""Spellcasting under facing: where areas emerge and what can be targeted.

UA-SPL-01, UA-SPL-02 (IC-19), UA-SPL-03 (see ``attacks.shield_applies``).
"""

from __future__ import annotations

from facing_env.errors import RulesQueryError
from facing_env.rules._common import Target
from facing_env.rules.areas import areas, visible_area
from facing_env.rules.battle import Battle, Creature
from facing_env.types import Area, GridKind, Pos


def _corners(cell: Pos) -> set[Pos]:
    x, y = cell
    return {(x, y), (x + 1, y), (x, y + 1), (x + 1, y + 1)}


def spell_origins(battle: Battle, caster: str | Creature) -> frozenset[Pos]:
    """Grid intersections where a line or cone may start (UA-SPL-01, square grid).

    Intersections are named by the square whose north-west corner they are: the corner
    between squares ``(x-1, y-1)`` and ``(x, y)`` is ``(x, y)``. With facing: the points
    shared by the caster's space and a front square (facing N: the two north corners;
    facing NE: the NW, NE and SE corners). Without facing: every corner of its space.
    """
    c = battle.creature(caster)
    if battle.kind is not GridKind.SQUARE:
        raise RulesQueryError("spell_origins is defined for the square grid only")
    own: set[Pos] = set()
    for cell in battle.cells_of(c):
        own |= _corners(cell)
    front = areas(battle, c)[Area.FRONT.value]
    if battle.table(c) is None:
        return frozenset(own)
    shared: set[Pos] = set()
    for cell in front:
        shared |= _corners(cell) & own
    return frozenset(shared)


def can_target_with_spell(battle: Battle, caster: str | Creature, target: Target) -> bool:
    """A caster cannot target anything in (or beyond) its rear area (UA-SPL-02, IC-19).

    A creature that is partly outside the rear area can be targeted.
    """
    c = battle.creature(caster)
    if not battle.rules.facing_penalties:
        return True
    return visible_area(battle, c, target) != Area.REAR.value
