"""Standard flanking by the line rule (ruleset ``standard``; IC-18: not in ``ua35``).

SRD-FLANK-01, EP-FLANK-01..08. Trace a line from the centre of a square the attacker
occupies to the centre of a square a threatening ally occupies; it flanks when it passes
through opposite sides or opposite corners of the defender's space (EP-FLANK-02, -03).
Large attackers choose any of their squares (EP-FLANK-05). When either creature of the pair
has reach (see :func:`has_reach`), the line may also run from any corner of one's space to
any corner of the other's, adjacent to the defender or not (EP-FLANK-06). Hex boards: the
line's two ends (square centres only; EP-FLANK-06 corners are a square-grid rule) must lie
at least 150 degrees apart around the defender.

Creatures inside the space of one two or more size categories larger (``space.is_inside``):
the internal creature flanks the larger one with any ally that threatens it (EP-FLANK-07);
the seed's next sentences give the converse, also under EP-FLANK-07: the larger creature
and each of its allies that threatens the internal creature's square flank that creature.
Only the internal creature gains the first flank (its ally outside needs the line rule). A
legal flank (line rule, both threatening the square) to a square holding more than one
creature flanks every creature in it (EP-FLANK-08).
"""

from __future__ import annotations

import math

from facing_env.rules._common import rogue_beats_immunity
from facing_env.rules.battle import Battle, Creature
from facing_env.rules.geometry import cell_centre, vector_angle
from facing_env.rules.opportunity import melee_reach, threatened_cells
from facing_env.rules.space import is_inside
from facing_env.tables import FEET_PER_SQUARE
from facing_env.types import GridKind, Pos

_CORNER_SIDES = 2
"""A corner square touches two sides of the footprint."""

_EPS = 1e-9
Point = tuple[float, float]


def _clip(p: Point, q: Point, box: tuple[float, float, float, float]) -> tuple[Point, Point] | None:
    """Liang-Barsky: the part of segment pq inside ``box`` (x0, y0, x1, y1), or None."""
    x0, y0, x1, y1 = box
    dx, dy = q[0] - p[0], q[1] - p[1]
    t0, t1 = 0.0, 1.0
    for den, num in ((-dx, p[0] - x0), (dx, x1 - p[0]), (-dy, p[1] - y0), (dy, y1 - p[1])):
        if abs(den) < _EPS:
            if num < -_EPS:
                return None
            continue
        t = num / den
        if den < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
    if t1 - t0 < _EPS:
        return None
    return (p[0] + t0 * dx, p[1] + t0 * dy), (p[0] + t1 * dx, p[1] + t1 * dy)


def _sides(pt: Point, box: tuple[float, float, float, float]) -> frozenset[str]:
    x0, y0, x1, y1 = box
    out = set()
    if abs(pt[0] - x0) < _EPS:
        out.add("W")
    if abs(pt[0] - x1) < _EPS:
        out.add("E")
    if abs(pt[1] - y0) < _EPS:
        out.add("N")
    if abs(pt[1] - y1) < _EPS:
        out.add("S")
    return frozenset(out)


_OPPOSITE = {"W": "E", "E": "W", "N": "S", "S": "N"}


def line_flanks(p: Point, q: Point, box: tuple[float, float, float, float]) -> bool:
    """Whether segment pq passes through opposite sides or opposite corners of ``box``."""
    seg = _clip(p, q, box)
    if seg is None:
        return False
    a, b = _sides(seg[0], box), _sides(seg[1], box)
    if len(a) == 1 and len(b) == 1:
        (sa,), (sb,) = a, b
        return _OPPOSITE[sa] == sb  # along a border both ends share a side: not a flank
    if len(a) == len(b) == _CORNER_SIDES:
        return {_OPPOSITE[s] for s in a} == b
    return False  # corner squares only flank with opposite corners (EP-FLANK-03)


def has_reach(creature: Creature) -> bool:
    """EP-FLANK-06: a creature "with reach (or reach weapons)" has a melee reach beyond the
    squares adjacent to its space (more than 5 ft, whatever its size: reach counts from
    the space), whether or not it stands adjacent to the creature it flanks."""
    return melee_reach(creature) > FEET_PER_SQUARE


def _centres(battle: Battle, c: Creature) -> list[Point]:
    """EP-FLANK-02, -05: the centre of each square ``c`` occupies."""
    return [cell_centre(battle.kind, cell) for cell in battle.cells_of(c)]


def _corners(battle: Battle, c: Creature) -> list[Point]:
    """EP-FLANK-06: each corner of each square ``c`` occupies (square grids)."""
    return sorted({(x + i, y + j) for x, y in battle.cells_of(c) for i in (0, 1) for j in (0, 1)})


def _line_pairs(battle: Battle, a: Creature, b: Creature) -> list[tuple[Point, Point]]:
    """End points for the line rule between ``a`` and ``b``: centre to centre
    (EP-FLANK-02, -05); on square grids, when either has reach, also corner to corner
    (EP-FLANK-06: "from any corner of their own space to any corner of an ally's space").

    The pair is symmetric: a flank is mutual (SRD-FLANK-01), so the reach creature's
    corner line flanks for its ally too, adjacent to the defender or not.
    """
    pairs = [(p, q) for p in _centres(battle, a) for q in _centres(battle, b)]
    if battle.kind is GridKind.SQUARE and (has_reach(a) or has_reach(b)):
        pairs += [(p, q) for p in _corners(battle, a) for q in _corners(battle, b)]
    return pairs


def _box(cells: tuple[Pos, ...]) -> tuple[float, float, float, float]:
    xs, ys = [c[0] for c in cells], [c[1] for c in cells]
    return (min(xs), min(ys), max(xs) + 1.0, max(ys) + 1.0)


def _opposite(
    battle: Battle, attacker: Creature, ally: Creature, target: tuple[Pos, ...], centre: Point
) -> bool:
    """The line rule against the space ``target`` (cells) with centre ``centre``."""
    pairs = _line_pairs(battle, attacker, ally)
    if battle.kind is GridKind.SQUARE:
        box = _box(target)
        return any(line_flanks(p, q, box) for p, q in pairs)
    cx, cy = centre
    for p, q in pairs:
        diff = abs(vector_angle(p[0] - cx, p[1] - cy) - vector_angle(q[0] - cx, q[1] - cy))
        if min(diff, 360.0 - diff) >= 150.0 - 1e-6 and not math.isclose(diff, 0.0):
            return True
    return False


def _internal(battle: Battle, a: Creature, ally: Creature, d: Creature) -> bool:
    """EP-FLANK-07: ``a`` inside ``d``; or ``d`` inside ``a`` or inside the ally."""
    return is_inside(battle, a, d) or is_inside(battle, d, a) or is_inside(battle, d, ally)


def _shared_square(
    battle: Battle, a: Creature, ally: Creature, d: Creature, zones: tuple[frozenset[Pos], ...]
) -> bool:
    """EP-FLANK-08: a legal flank to one of ``d``'s squares that holds several creatures."""
    for cell in battle.cells_of(d):
        if len(battle.occupants(cell)) <= 1 or not all(cell in z for z in zones):
            continue
        if _opposite(battle, a, ally, (cell,), cell_centre(battle.kind, cell)):
            return True
    return False


def flanking_allies(
    battle: Battle, attacker: str | Creature, defender: str | Creature
) -> list[str]:
    """Allies with whom ``attacker`` flanks ``defender`` (EP-FLANK-01: both threaten it),
    by the line rule (EP-FLANK-02..06), internal flanking (EP-FLANK-07) or a flank to a
    shared square (EP-FLANK-08).

    Empty outside the ``standard`` rule set (IC-18) and against defenders that cannot be
    flanked (see :func:`flanks`).
    """
    a, d = battle.creature(attacker), battle.creature(defender)
    if not battle.rules.standard_flanking or not rogue_beats_immunity(battle, a, d):
        return []
    d_cells = battle.cells_of(d)
    a_zone = threatened_cells(battle, a)
    if not any(cell in a_zone for cell in d_cells):
        return []
    centre = d.shape.centre_at(d.pos)
    out = []
    for ally in battle.living():
        if ally.id in (a.id, d.id) or ally.team != a.team:
            continue
        zone = threatened_cells(battle, ally)
        if not any(cell in zone for cell in d_cells):
            continue
        if (
            _opposite(battle, a, ally, d_cells, centre)
            or _internal(battle, a, ally, d)
            or _shared_square(battle, a, ally, d, (a_zone, zone))
        ):
            out.append(ally.id)
    return out


def flanks(battle: Battle, attacker: str | Creature, defender: str | Creature) -> bool:
    """Whether ``attacker`` flanks ``defender`` with some ally (SRD-FLANK-01, EP-FLANK-01).

    Only in the ``standard`` rule set. Defenders that cannot be flanked (all-around
    vision; improved uncanny dodge, except by a rogue four levels higher: UA-FEAT-IUD, as
    in the 3.5 SRD) never are.
    """
    return bool(flanking_allies(battle, attacker, defender))
