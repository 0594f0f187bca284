"""Facing areas as queries: where things lie relative to a creature's facing.

UA-FACE-01..06, UA-HEX-03, SR-05, SR-06, IC-01..05, IC-11, IC-16.
"""

from __future__ import annotations

from facing_env.rules._common import Target, cell_area, least_exposed, most_exposed, target_cells
from facing_env.rules.battle import Battle, Creature
from facing_env.types import Area, Pos, Side

_NO_FACING_KEYS = (Area.FRONT, Area.FLANK, Area.REAR)


def _area_keys(battle: Battle) -> tuple[Area, ...]:
    return battle.rules.areas or _NO_FACING_KEYS


def area_of(battle: Battle, of: str | Creature, target: Target) -> str:
    """Where a cell ``(x, y)`` or another creature lies relative to ``of``'s facing.

    Returns ``"front" | "flank" | "rear"`` (``ua35``), ``"front" | "side" | "rear"``
    (``side_rear``) or ``"none"`` (``standard``, faceless, Tiny or smaller: UA-FCL-01,
    UA-FCL-02; or a cell inside ``of``'s own space). Cells beyond an area count as that
    area (IC-03). A creature counts by its most exposed square, the one most favourable to
    it (IC-04): rear before flank or side before front.
    """
    c = battle.creature(of)
    cells = [cell_area(battle, c, cell) for cell in target_cells(battle, target)]
    found = [a for a in cells if a is not None]
    if not found:
        return Area.NONE.value
    return most_exposed(found).area.value


def side_of(battle: Battle, of: str | Creature, target: Target) -> str:
    """``"left"``, ``"right"`` or ``"centre"`` of ``of``'s facing (IC-16), for shields.

    A creature is judged by its squares in its most exposed area (as in :func:`area_of`):
    left or right when those squares lie on that side only (or straight ahead/behind),
    centre when they are all straight ahead/behind or on both sides.
    """
    c = battle.creature(of)
    found = [a for a in (cell_area(battle, c, x) for x in target_cells(battle, target)) if a]
    if not found:
        return Side.CENTRE.value
    worst = most_exposed(found).area
    sides = {a.side for a in found if a.area is worst} - {Side.CENTRE}
    return sides.pop().value if len(sides) == 1 else Side.CENTRE.value


def areas(battle: Battle, of: str | Creature) -> dict[str, frozenset[Pos]]:
    """The adjacent ring of ``of`` split by area, as absolute cells.

    Keys are the rule set's areas (``front/flank/rear`` or ``front/side/rear``); a creature
    without facing gets the keys with empty sets.
    """
    c = battle.creature(of)
    table = battle.table(c)
    x, y = c.pos
    out: dict[str, frozenset[Pos]] = {}
    for area in _area_keys(battle):
        offsets = table.by_area.get(area, frozenset()) if table is not None else frozenset()
        out[area.value] = frozenset((x + dx, y + dy) for dx, dy in offsets)
    return out


def area_counts(battle: Battle, of: str | Creature) -> dict[str, int]:
    """Number of ring cells in each area (golden counts: UA-FACE-02, -03, SR-05, SR-06)."""
    return {name: len(cells) for name, cells in areas(battle, of).items()}


def visible_area(battle: Battle, of: str | Creature, target: Target) -> str:
    """The least exposed area a target occupies (what ``of`` sees or aims at best)."""
    c = battle.creature(of)
    found = [a for a in (cell_area(battle, c, x) for x in target_cells(battle, target)) if a]
    if not found:
        return Area.NONE.value
    return least_exposed(found).area.value
