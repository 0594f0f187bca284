"""Charge and withdraw: where a charge may end and the line it follows, and which squares a
withdrawal may enter.

EP-CHG-01, EP-CHG-02, EP-WDR-01. Interpretation choices (``docs/rules.md``):

- the distance of a charge is ``movement_allowance(..., "charge")``: the mover's speed, as
  EP-CHG-01 states (the SRD's charge moves up to twice the speed);
- when several spaces tie as the closest from which the charger can attack, the engine
  takes the first of :func:`charge_destinations` (the straightest line, then the nearest to
  the target, then north to south, west to east);
- the line a charge follows is :func:`charge_path`: the charger's anchor stepped square by
  square along the straight line between the centres, every position of it free.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Sequence

from facing_env.rules import geometry
from facing_env.rules.battle import Battle, Creature
from facing_env.rules.geometry import Shape
from facing_env.rules.movement import (
    _CHARGE_LANE,
    _IMPASSABLE,
    _hex_line,
    _lane_cells,
    movement_allowance,
)
from facing_env.rules.opportunity import melee_reach, threatened_cells
from facing_env.rules.perception import unseen
from facing_env.tables import FEET_PER_SQUARE, MIN_CHARGE_SQUARES
from facing_env.types import GridKind, Pos


def charge_allowed(
    battle: Battle, mover: str | Creature, target: str | Creature, destination: Sequence[int]
) -> bool:
    """Whether a charge from the mover's space to ``destination`` against ``target`` is
    legal (EP-CHG-01): at least 2 squares and at most its speed; the destination is the
    closest space from which it can attack; the straight line between the centres crosses
    no blocking, difficult or impeded terrain and no creature (even an ally)."""
    m, t = battle.creature(mover), battle.creature(target)
    dest = (int(destination[0]), int(destination[1]))
    if m is t or t.hp <= 0 or m.hp <= 0:
        return False
    return dest in _destinations(battle, m, t, whole_path=False)


def charge_destinations(battle: Battle, mover: str | Creature, target: str | Creature) -> list[Pos]:
    """Every space a charge against ``target`` may end in (EP-CHG-01), best first (see the
    module docstring), with every position of :func:`charge_path` free; empty when the
    mover cannot charge that creature from where it is.

    Everything is read relative to the mover's anchor: the geometry of the charges from
    :func:`_relative_candidates` (translation invariant, cached, and kept by the battle per
    pair of creatures and offset), the board's blocking and slowing cells from
    :func:`_terrain_near` (kept by the battle per anchor), the other creatures' squares as
    they stand. The answer is kept by the battle per pair and placement of every creature
    (``Battle._charges``, shared by its copies, which have the same terrain and creatures),
    so a placement seen before, in this battle or an earlier one, costs one lookup.
    """
    m = mover if type(mover) is Creature else battle.creature(mover)
    t = target if type(target) is Creature else battle.creature(target)
    if m is t or t.hp <= 0 or m.hp <= 0:
        return []
    hidden = unseen(battle, m)  # foes m does not perceive are not there to it (issue 36)
    key = (
        m.id,
        t.id,
        *[c.pos if c.hp > 0 and c.id not in hidden else None for c in battle.creatures.values()],
    )
    answers = battle._charges
    found = answers.get(key)
    if found is None:
        if len(answers) >= MAX_KEPT_ANSWERS:
            answers.clear()
        found = answers[key] = tuple(_destinations(battle, m, t))
    return list(found)


MAX_KEPT_ANSWERS = 1 << 18
"""Placements whose charge answers a battle keeps (and its copies); then it starts over."""


def _destinations(
    battle: Battle, m: Creature, t: Creature, *, whole_path: bool = True
) -> list[Pos]:
    """:func:`charge_destinations` of a placement not seen since the last change; with
    ``whole_path`` False, :func:`charge_allowed`'s reading (the destination's space and
    the lane must be free, not every space of the path)."""
    mx, my = m.pos
    offset = (t.pos[0] - mx, t.pos[1] - my)
    pair = battle._charge_geometry.get((m.id, t.id))
    if pair is None:
        pair = battle._charge_geometry[(m.id, t.id)] = {}
    relative = pair.get(offset)
    if relative is None:
        relative = pair[offset] = _relative_candidates(
            battle.kind,
            battle.diagonal_rule,
            m.shape,
            melee_reach(m) // FEET_PER_SQUARE,
            movement_allowance(battle, m, "charge"),
            t.shape,
            offset[0],
            offset[1],
        )
    if not relative:
        return []
    terrain = battle._terrain_map  # the board's cells; anything else is off the board
    blocked, slowing = _terrain_near(battle, m.pos)
    occupied: frozenset[Pos] | None = None
    square = battle.kind is GridKind.SQUARE
    out: list[Pos] = []
    closest = -1
    for distance, (dx, dy), space, path, lane, route in relative:
        dest = (mx + dx, my + dy)
        if dest not in terrain:
            continue
        if closest < 0:
            closest = distance
            if distance < MIN_CHARGE_SQUARES:
                return []
        elif distance > closest:
            break
        # the board is convex: a destination space on it keeps the whole square route on it
        cells = (space if len(space) > 1 else ()) if square else route
        if any((mx + x, my + y) not in terrain for x, y in cells):
            continue
        if not whole_path:
            path, route = space, space | lane
        if not (path.isdisjoint(blocked) and lane.isdisjoint(slowing)):
            continue
        if occupied is None:
            occupied = _occupied_near(battle, m, unseen(battle, m))
        if route.isdisjoint(occupied):
            out.append(dest)
    return out


def charge_route(battle: Battle, mover: str | Creature, destination: Pos) -> tuple[Pos, ...]:
    """Every square a charge of ``mover`` to ``destination`` crosses: the squares of each
    space of its path and of its lane (EP-CHG-01), sorted (where a foe it does not perceive
    stops it, issue 36)."""
    m = battle.creature(mover)
    dx, dy = destination[0] - m.pos[0], destination[1] - m.pos[1]
    route = _route(battle.kind, m.shape, (dx, dy))[3]
    return tuple(sorted((m.pos[0] + x, m.pos[1] + y) for x, y in route))


def _occupied_near(battle: Battle, m: Creature, hidden: frozenset[str]) -> frozenset[Pos]:
    """The squares of every other living creature but the ``hidden`` ones (the foes ``m``
    does not perceive), relative to ``m``'s anchor."""
    mx, my = m.pos
    return frozenset(
        (x - mx, y - my)
        for c in battle.creatures.values()
        if c.hp > 0 and c is not m and c.id not in hidden
        for x, y in c.shape.cells(c.pos)
    )


def _terrain_near(battle: Battle, anchor: Pos) -> tuple[frozenset[Pos], frozenset[Pos]]:
    """The board's cells that block movement, and those a charge lane may not cross
    (anything but open or hazardous ground, EP-CHG-01, EP-TER-05), relative to
    ``anchor``; kept by the battle per anchor (its terrain is fixed)."""
    memo = battle._charge_terrain
    found = memo.get(anchor)
    if found is None:
        ax, ay = anchor
        blocked = []
        slowing = []
        for (x, y), kind in battle._terrain_map.items():
            if kind not in _CHARGE_LANE:
                slowing.append((x - ax, y - ay))
                if kind in _IMPASSABLE:
                    blocked.append((x - ax, y - ay))
        found = memo[anchor] = (frozenset(blocked), frozenset(slowing))
    return found


@lru_cache(maxsize=1 << 16)
def _relative_candidates(
    kind: GridKind,
    diagonal_rule: str,
    shape: Shape,
    reach: int,
    allowance: int,
    t_shape: Shape,
    dx: int,
    dy: int,
) -> tuple[tuple[int, Pos, frozenset[Pos], frozenset[Pos], frozenset[Pos], frozenset[Pos]], ...]:
    """For a mover of ``shape`` at (0, 0) and a target of ``t_shape`` at ``(dx, dy)``: every
    anchor within ``allowance`` squares from which the mover's reach covers a target
    square without sharing one, as (distance, anchor, the squares of its space there,
    the squares of every space of its path (:func:`charge_path`), the squares its lane
    crosses, the union of the two), nearest first, then best first (:func:`_preference`).
    Empty when the mover
    can attack from where it stands. A pure function of its arguments (both grids are
    translation invariant), hence the cache."""
    origin = (0, 0)
    t_cells = t_shape.cells((dx, dy))
    if 0 < geometry.cells_distance(kind, shape.cells(origin), t_cells, diagonal_rule) <= reach:
        return ()  # it can attack from where it stands: the closest space is its own
    xs = [c[0] for c in t_cells]
    ys = [c[1] for c in t_cells]
    ox = [o[0] for o in shape.offsets]
    oy = [o[1] for o in shape.offsets]
    found: list = []
    for y in range(min(ys) - max(oy) - reach, max(ys) - min(oy) + reach + 1):
        for x in range(min(xs) - max(ox) - reach, max(xs) - min(ox) + reach + 1):
            p = (x, y)
            moved = geometry.cell_distance(kind, origin, p, diagonal_rule)
            if moved > allowance:
                continue
            offset = (dx - x, dy - y)
            gap = geometry.footprint_distance(kind, shape, t_shape, offset, diagonal_rule)
            if 0 < gap <= reach:
                rank = _preference(shape, t_shape, (dx, dy), p)
                found.append((moved, rank, p, *_route(kind, shape, p)))
    found.sort(key=lambda f: (f[0], f[1], f[2][1], f[2][0]))
    return tuple((f[0], f[2], *f[3:]) for f in found)


@lru_cache(maxsize=1 << 16)
def _route(
    kind: GridKind, shape: Shape, p: Pos
) -> tuple[frozenset[Pos], frozenset[Pos], frozenset[Pos], frozenset[Pos]]:
    """A charge of a ``shape`` from (0, 0) to ``p``: the squares of its space at ``p``, of
    every space of its path (:func:`charge_path`), of its lane, and of the last two
    together (the same for every target: cached apart from :func:`_relative_candidates`)."""
    origin = (0, 0)
    path = frozenset(c for q in (p, *_line(kind, origin, p)) for c in shape.cells(q))
    lane = frozenset(_lane_cells(kind, shape, origin, p))
    return frozenset(shape.cells(p)), path, lane, path | lane


def _preference(shape: Shape, t_shape: Shape, t_pos: Pos, p: Pos) -> tuple[float, float]:
    """Sort key among equally close destinations of a mover at (0, 0): straightest (the
    angle between the charge and the line to the target's centre), then nearest the
    target's centre (then north to south, west to east, by the caller's stable order)."""
    ax, ay = shape.centre_at((0, 0))
    bx, by = shape.centre_at(p)
    tx, ty = t_shape.centre_at(t_pos)
    bend = geometry.vector_angle(bx - ax, by - ay) - geometry.vector_angle(tx - ax, ty - ay)
    return (round(abs(geometry._norm180(bend)), 6), round(math.hypot(tx - bx, ty - by), 6))


def charge_path(battle: Battle, mover: str | Creature, destination: Sequence[int]) -> list[Pos]:
    """The anchor positions a charge passes through after its start, ending at
    ``destination``: one square at a time along the straight line between the two
    positions (square grid: rounded half toward the start; hex: the hex line)."""
    m = battle.creature(mover)
    return _line(battle.kind, m.pos, (int(destination[0]), int(destination[1])))


def _line(kind: GridKind, start: Pos, dest: Pos) -> list[Pos]:
    """The positions after ``start`` of a straight walk to ``dest`` (see :func:`charge_path`)."""
    if kind is GridKind.HEX:
        return _hex_line(start, dest)[1:]
    (x0, y0), (x1, y1) = start, dest
    n = max(abs(x1 - x0), abs(y1 - y0))
    return [
        (x0 + _round_half(x1 - x0, i, n), y0 + _round_half(y1 - y0, i, n)) for i in range(1, n + 1)
    ]


def _round_half(delta: int, i: int, n: int) -> int:
    """``round(delta * i / n)`` in integers, halves rounded toward the start."""
    num = abs(delta) * i
    q, r = divmod(num, n)
    step = q + (1 if 2 * r > n else 0)
    return step if delta >= 0 else -step


def withdraw_step_allowed(
    battle: Battle, mover: str | Creature, primary_target: str | Creature, destination: Pos
) -> bool:
    """EP-WDR-01: every square of a withdrawal must take the mover further from its primary
    target than the space it leaves (measured between the two spaces, in squares)."""
    m, t = battle.creature(mover), battle.creature(primary_target)
    t_cells = battle.cells_of(t)
    before = battle.cells_distance(battle.cells_of(m), t_cells)
    after = battle.cells_distance(m.shape.cells(destination), t_cells)
    return after > before


def may_withdraw_from(
    battle: Battle, mover: str | Creature, primary_target: str | Creature
) -> bool:
    """EP-WDR-01: the primary target is a living enemy that threatens the mover (one it
    can perceive: nobody here is blinded, and facing does not hide a creature)."""
    m, t = battle.creature(mover), battle.creature(primary_target)
    if t.hp <= 0 or t.team == m.team or t is m:
        return False
    zone = threatened_cells(battle, t)
    return any(cell in zone for cell in battle.cells_of(m))
