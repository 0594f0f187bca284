"""Reach, threatened squares and attacks of opportunity.

SRD-AOO-01..05, EP-THR-01, EP-REACH-01, SRD-FF-01, UA-FEAT-CR, EP-DBL-01, EP-RUN-01,
EP-5FT-01, EP-WDR-01, EP-CHG-02, EP-FORCE-01, IC-12. Facing never changes *whether* a
move provokes, only the modifiers (UA-AOO-01..03, see ``attacks.facing_modifier``).
"""

from __future__ import annotations

import itertools
from functools import cache, lru_cache
from typing import Iterable, Sequence

from facing_env.errors import RulesQueryError
from facing_env.rules._common import CELL_LEN
from facing_env.rules.battle import Attack, Battle, Creature
from facing_env.rules.geometry import Shape, cell_distance, footprint_distance
from facing_env.tables import FEET_PER_SQUARE
from facing_env.types import GridKind, MoveMode, Pos


def melee_reach(creature: Creature) -> int:
    """Longest melee reach in feet over the creature's melee attacks (0 if none)."""
    reach = 0
    for a in creature.attacks:  # a loop, not max() over a generator: on the step path
        if not a.ranged and a.reach > reach:
            reach = a.reach
    return reach


def can_make_attacks_of_opportunity(creature: Creature) -> bool:
    """Alive, threatens, has a melee attack, and is not flat-footed.

    SRD-FF-01: a flat-footed combatant can't make attacks of opportunity (Combat Reflexes
    lifts this, as in the 3.5 SRD). Tiny and smaller creatures have no reach (EP-REACH-01),
    so they threaten only the squares they occupy (EP-THR-01), never an adjacent one.
    """
    if creature.hp <= 0:
        return False
    may, reflexes = aoo_traits(creature)
    return may and (not creature.flat_footed or reflexes)


def aoo_traits(creature: Creature) -> tuple[bool, bool]:
    """The parts of :func:`can_make_attacks_of_opportunity` a creature's spec fixes:
    whether it may make them at all (threatens, has a melee attack) and whether Combat
    Reflexes lets it while flat-footed (SRD-FF-01)."""
    melee = False
    for a in creature.attacks:  # a loop, not any() over a generator: on the step path
        if not a.ranged:
            melee = True
            break
    return bool(creature.threatens and melee), creature.has_feat("Combat Reflexes")


@cache
def _offsets_within(
    kind: GridKind, shape: Shape, radius: int, diagonal_rule: str
) -> frozenset[Pos]:
    cells = shape.offsets
    span = radius + 6
    return frozenset(
        (dx, dy)
        for dx in range(-span, span + 1)
        for dy in range(-span, span + 1)
        if min(cell_distance(kind, (dx, dy), c, diagonal_rule) for c in cells) <= radius
    )


@lru_cache(maxsize=16384)
def _cells_within_at(
    kind: GridKind, shape: Shape, radius: int, diagonal_rule: str, pos: Pos
) -> frozenset[Pos]:
    x, y = pos
    offs = _offsets_within(kind, shape, radius, diagonal_rule)
    return frozenset((x + dx, y + dy) for dx, dy in offs)


def cells_within(battle: Battle, creature: Creature, feet: int) -> frozenset[Pos]:
    """Cells within ``feet`` of the creature's space, plus its own space (cached per
    footprint, radius and position)."""
    radius = feet // FEET_PER_SQUARE
    return _cells_within_at(
        battle.kind, creature.shape, radius, battle.diagonal_rule, tuple(creature.pos)
    )


def threatened_cells(battle: Battle, creature: str | Creature) -> frozenset[Pos]:
    """Cells a creature threatens: within its melee reach and its own space (EP-THR-01).

    A creature that cannot make attacks of opportunity threatens nothing (EP-THR-01,
    SRD-FF-01).
    """
    c = battle.creature(creature)
    if not can_make_attacks_of_opportunity(c):
        return frozenset()
    return cells_within(battle, c, melee_reach(c))


def threatened_offsets(battle: Battle, creature: str | Creature) -> frozenset[Pos]:
    """:func:`threatened_cells` as offsets from the creature's anchor (cached per
    footprint and reach; for observation stamps)."""
    c = battle.creature(creature)
    if not can_make_attacks_of_opportunity(c):
        return frozenset()
    radius = melee_reach(c) // FEET_PER_SQUARE
    return _offsets_within(battle.kind, c.shape, radius, battle.diagonal_rule)


def threatens(battle: Battle, creature: str | Creature, target: str | Creature | Pos) -> bool:
    """Whether ``creature`` threatens a cell or any square of another creature."""
    zone = threatened_cells(battle, creature)
    if isinstance(target, tuple):
        return target in zone
    return any(cell in zone for cell in battle.cells_of(target))


def within_reach(battle: Battle, attacker: Creature, defender: Creature, attack: Attack) -> bool:
    """Whether ``attack`` can reach the defender (reach for melee, range for ranged)."""
    feet = attack.range if attack.ranged else attack.reach
    if feet <= 0:
        return False
    offset = (defender.pos[0] - attacker.pos[0], defender.pos[1] - attacker.pos[1])
    dist = footprint_distance(
        battle.kind, attacker.shape, defender.shape, offset, battle.diagonal_rule
    )
    return dist * FEET_PER_SQUARE <= feet


def _positions(mover: Creature, path: Iterable[Sequence[int]]) -> list[Pos]:
    steps: list[Pos] = []
    for p in path:
        if not (isinstance(p, (tuple, list)) and len(p) == CELL_LEN):
            raise RulesQueryError(f"a path is a list of (x, y) positions, got {p!r}")
        steps.append((int(p[0]), int(p[1])))
    if steps and steps[0] == mover.pos:
        steps = steps[1:]
    return [mover.pos, *steps]


_MOVE_MODES = {m.value: m for m in MoveMode} | {m: m for m in MoveMode}


@cache
def _left_behind(shape: Shape, delta: Pos) -> tuple[Pos, ...]:
    """Offsets of the squares a footprint leaves when its anchor moves by ``delta``."""
    after = set(shape.cells(delta))
    return tuple(o for o in shape.offsets if o not in after)


def _left_cells(m: Creature, here: Pos, there: Pos) -> list[Pos]:
    """The squares ``m``'s footprint leaves when its anchor moves from ``here`` to ``there``."""
    behind = _left_behind(m.shape, (there[0] - here[0], there[1] - here[1]))
    return [(here[0] + dx, here[1] + dy) for dx, dy in behind]


def step_provokers(battle: Battle, m: Creature, dest: Pos) -> list[str]:
    """``provokers(battle, m, [dest])`` for one walking or running step of the engine (a
    creature and a position it has already checked): the enemies threatening a square it
    leaves, in ``battle.living()`` order."""
    left = _left_cells(m, m.pos, dest)
    return [
        e.id
        for e in battle.creatures.values()
        if e.hp > 0
        and e.team != m.team
        and e.id != m.id
        and not threatened_cells(battle, e).isdisjoint(left)
    ]


def provokers(
    battle: Battle,
    mover: str | Creature,
    path: Iterable[Sequence[int]],
    *,
    mode: str = "walk",
    primary_target: str | None = None,
    maneuver_succeeded: bool = True,
) -> list[str]:
    """Ids of the creatures that get an attack of opportunity, in the order provoked.

    ``path`` lists the positions the mover's ``pos`` passes through (the start may be
    included). Leaving a square an enemy threatens provokes, the starting square too
    (IC-12, SRD-AOO-02, EP-WALK-01); each enemy once (EP-DBL-01). Modes:

    - ``walk``, ``double_move``, ``run``: as above (EP-RUN-01 runs provoke as normal);
    - ``five_foot_step`` and ``forced``: never provoke (SRD-AOO-04, EP-5FT-01, EP-FORCE-01);
    - ``withdraw``: ``primary_target`` never gets one; on success the first other provoker
      is also avoided (EP-WDR-01; the extra ones bought by a margin are not modelled);
    - ``charge``: on success the charged ``primary_target`` gets none (EP-CHG-02); on a
      failed charge everyone threatening an exited square does.
    """
    m = battle.creature(mover)
    move = _MOVE_MODES.get(mode) if isinstance(mode, str) else None
    if move is None:
        names = ", ".join(x.value for x in MoveMode)
        raise RulesQueryError(f"unknown movement mode {mode!r}; expected one of {names}")
    if primary_target is not None:
        battle.creature(primary_target)
    if move in (MoveMode.FIVE_FOOT_STEP, MoveMode.FORCED):
        return []
    excluded: set[str] = set()
    if primary_target is not None and (
        move is MoveMode.WITHDRAW or (move is MoveMode.CHARGE and maneuver_succeeded)
    ):
        excluded.add(primary_target)
    zones = {
        e.id: threatened_cells(battle, e)
        for e in battle.living()
        if e.team != m.team and e.id != m.id and e.id not in excluded
    }
    order: list[str] = []
    positions = _positions(m, path)
    for here, there in itertools.pairwise(positions):
        left = _left_cells(m, here, there)
        for eid, zone in zones.items():
            if eid not in order and not zone.isdisjoint(left):
                order.append(eid)
    if move is MoveMode.WITHDRAW and maneuver_succeeded and order:
        order = order[1:]
    return order
