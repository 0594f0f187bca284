"""Helpers shared by the rules modules: resolving targets and ranking areas."""

from __future__ import annotations

from typing import Sequence

from facing_env.errors import RulesQueryError
from facing_env.rules.battle import Battle, Creature
from facing_env.rules.geometry import AreaCell
from facing_env.tables import IUD_ROGUE_LEVEL_MARGIN
from facing_env.types import Area, Pos

CELL_LEN = 2
"""An ``(x, y)`` cell has two coordinates."""

EXPOSURE: dict[Area, int] = {Area.NONE: 0, Area.FRONT: 1, Area.FLANK: 2, Area.SIDE: 2, Area.REAR: 3}
"""How exposed an area leaves its owner: rear most, front least."""

Target = str | Creature | Pos | Sequence[int]


def target_cells(battle: Battle, target: Target) -> tuple[Pos, ...]:
    """Cells of a target given as a creature id, a Creature, or an ``(x, y)`` cell."""
    if isinstance(target, (Creature, str)):
        return battle.cells_of(target)
    if (
        isinstance(target, (tuple, list))
        and len(target) == CELL_LEN
        and all(isinstance(v, int) and not isinstance(v, bool) for v in target)
    ):
        return ((int(target[0]), int(target[1])),)
    raise RulesQueryError(f"a target must be a creature id or an (x, y) cell, got {target!r}")


def cell_area(battle: Battle, of: Creature, cell: Pos) -> AreaCell | None:
    """The area cell of ``cell`` relative to ``of``, or None when ``of`` has no facing."""
    table = battle.table(of)
    if table is None:
        return None
    return table.lookup((cell[0] - of.pos[0], cell[1] - of.pos[1]))


def most_exposed(cells: Sequence[AreaCell]) -> AreaCell:
    """The cell in the most exposed area (rear before flank/side before front)."""
    return max(cells, key=lambda c: EXPOSURE[c.area])


def least_exposed(cells: Sequence[AreaCell]) -> AreaCell:
    """The cell in the least exposed area (front before flank/side before rear)."""
    return min(cells, key=lambda c: EXPOSURE[c.area])


def cannot_be_flanked(battle: Battle, defender: Creature) -> bool:
    """Whether a defender denies positional bonuses under this rule set (SR-13, UA-FEAT-IUD).

    Which flags count is rule-set data (``RulesetRow.defender_immunity_fields``).
    """
    for name in battle.rules.defender_immunity_fields:
        value = getattr(defender, name)
        if value is True or (name == "improved_uncanny_dodge" and value is not None):
            return True
    return False


def rogue_beats_immunity(battle: Battle, attacker: Creature, defender: Creature) -> bool:
    """True unless the defender cannot be flanked, save by a rogue 4 levels higher than its
    improved uncanny dodge (UA-FEAT-IUD, IC-17)."""
    if not cannot_be_flanked(battle, defender):
        return True
    only_iud = all(
        name == "improved_uncanny_dodge" or getattr(defender, name) is not True
        for name in battle.rules.defender_immunity_fields
    )
    iud = defender.improved_uncanny_dodge
    return only_iud and iud is not None and attacker.rogue_level >= iud + IUD_ROGUE_LEVEL_MARGIN
