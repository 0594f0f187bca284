"""Creatures sharing squares: internal creatures, clamber and stepover.

EP-STEP-01, EP-CLAMBER-01, EP-FLANK-07, EP-SQZ-01. A creature two or more size categories
larger may share squares with a smaller one (``Creature.can_share_space``); ``Battle``
specs accept exactly that overlap, and neither creature is then squeezing. The larger
creature gets there by stepover (``step_cost`` and ``forced_path`` let it ignore such
creatures; a 5-foot step never ends in an occupied space), the smaller one by a clamber
(:func:`clamber_allowed`). Squeezing itself (EP-SQZ-01: -4 to attack rolls and AC) is the
creature field ``squeezing``, read by ``attack_breakdown``; a step into a square that needs
squeezing costs as difficult terrain (``step_cost(..., squeezing=True)``).
"""

from __future__ import annotations

from typing import Iterable, Sequence

from facing_env.rules.battle import Battle, Creature
from facing_env.rules.movement import corner_cut
from facing_env.tables import (
    CLAMBER_SPEED_DIVISOR,
    DIFFICULT_MULTIPLIER,
    FEET_PER_SQUARE,
    SHARED_SPACE_SIZE_GAP,
)
from facing_env.types import GridKind, Pos, Terrain

_NO_CLAMBER = (Terrain.BLOCKED, Terrain.PILLAR, Terrain.IMPEDED)


def is_inside(battle: Battle, creature: str | Creature, of: str | Creature) -> bool:
    """Whether ``creature`` stands inside the space of ``of``, a living creature two or more
    size categories larger (EP-FLANK-07: an internal creature)."""
    c, big = battle.creature(creature), battle.creature(of)
    if c.hp <= 0 or big.hp <= 0 or int(big.size) - int(c.size) < SHARED_SPACE_SIZE_GAP:
        return False
    return not set(battle.cells_of(c)).isdisjoint(battle.cells_of(big))


def clamber_allowed(
    battle: Battle,
    climber: str | Creature,
    target: str | Creature,
    path: Iterable[Sequence[int]],
) -> bool:
    """Whether ``climber`` may clamber along ``path`` into ``target``'s space (EP-CLAMBER-01).

    ``path`` lists the positions the climber's ``pos`` passes through (the start may be
    included). The target is at least two size categories larger; the climber starts
    outside its space and ends with a square inside it ("any square of its space"); each
    step goes to an adjacent position, enters no blocked or impeded terrain and no other
    creature's space (a clamber never affects several creatures) and cuts no wall corner;
    and the path costs at most half the climber's speed, difficult terrain counting double
    and diagonals by the battle's diagonal rule. There is no facing surcharge: the climber
    turns as it moves (UA-MOVE-01). The movement is forced movement, so a successful clamber
    provokes nothing (``provokers(..., mode="forced")``); the check itself is not modelled.
    """
    c, t = battle.creature(climber), battle.creature(target)
    if c.hp <= 0 or t.hp <= 0 or int(t.size) - int(c.size) < SHARED_SPACE_SIZE_GAP:
        return False
    steps = [(int(p[0]), int(p[1])) for p in path]
    if steps and steps[0] == c.pos:
        steps = steps[1:]
    if not steps or is_inside(battle, c, t):
        return False
    cost = _path_cost(battle, c, t, steps)
    if cost is None or cost > c.speed // FEET_PER_SQUARE // CLAMBER_SPEED_DIVISOR:
        return False
    return not set(battle.cells_of(t)).isdisjoint(c.shape.cells(steps[-1]))


def _path_cost(battle: Battle, c: Creature, t: Creature, steps: list[Pos]) -> int | None:
    """Squares of movement for the clamber path, or None when a step is not allowed."""
    here, cost, diagonals = c.pos, 0, 0
    for nxt in steps:
        if battle.distance(here, nxt) != 1:
            return None
        vec = (nxt[0] - here[0], nxt[1] - here[1])
        old = c.shape.cells(here)
        if corner_cut(battle, old, vec):
            return None
        difficult = False
        for cell in set(c.shape.cells(nxt)) - set(old):
            terrain = battle.terrain_at(cell)
            if terrain in _NO_CLAMBER:
                return None
            difficult |= terrain is Terrain.DIFFICULT
            if any(o not in (c.id, t.id) for o in battle.occupants(cell)):
                return None
        step = 1
        if battle.kind is GridKind.SQUARE and vec[0] != 0 and vec[1] != 0:
            step += int(battle.diagonal_rule == "alternating" and diagonals % 2 == 1)
            diagonals += 1
        cost += step * (DIFFICULT_MULTIPLIER if difficult else 1)
        here = nxt
    return cost
