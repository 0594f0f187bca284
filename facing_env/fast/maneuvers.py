"""Charges and withdrawals of the batched engine (EP-CHG-01, EP-CHG-02, EP-WDR-01).

The batched copy of ``rules.charge_destinations`` (with ``maneuvers._destinations`` and
``_relative_candidates``), ``rules.charge_path``, ``rules.may_withdraw_from`` and
``rules.withdraw_step_allowed``.

A charge's candidates are found with the integer geometry, as the reference finds them:
the anchors ``p`` (relative to the mover's) within its allowance (``speed // 5``
squares) from which its melee reach covers a square of the target without sharing one,
unless it can attack from where it stands. The closest on the board decide the distance
(at least ``MIN_CHARGE_SQUARES``); a candidate that far is a destination when its path and
lane are on the board (hex; the space of a multi-square mover), no square of its path is
blocked, its lane crosses only open or hazardous ground and no other living creature is
on either. What comes from angles and lines is read from the tables
(:func:`facing_env.fast.lookup.charge_tables`, filled by ``tables_of`` for the State's
footprints and reaches): the order among equally close destinations
(``maneuvers._preference``), the squares of a charge's path and lane
(``maneuvers._route``) and the positions of its path (``maneuvers._line``). A creature
whose footprint or reach the tables do not cover raises ``ValueError`` (build the tables
with ``tables_of`` for that State).

Kernels take ``(t, s, i, ...)``; ``tests/test_fast_scan.py`` compares them with the
reference on states of every scenario and proves the tables against ``_route`` and
``_line`` for every anchor offset of every board. ``NUMBA_DISABLE_JIT=1`` runs them as
plain Python.
"""

from __future__ import annotations

import numpy as np

from facing_env.fast.geometry import (
    BLOCKED,
    HAZARDOUS,
    OPEN,
    PILLAR,
    alive,
    cell_distance,
    covers,
    creature_distance,
    footprint_distance,
    terrain_at,
)
from facing_env.fast.jit import inline, inline_kernel, kernel
from facing_env.fast.opportunity import FEET, melee_reach, threatens_creature
from facing_env.fast.perception import perceives
from facing_env.fast.state import SHAPE_CELLS, SHAPE_OFFSETS
from facing_env.tables import MIN_CHARGE_SQUARES

MIN_CHARGE = MIN_CHARGE_SQUARES
_OFFSETS = SHAPE_OFFSETS
_CELLS = SHAPE_CELLS


@inline
def on_board(s, i, x, y):
    """Whether cell ``(x, y)`` is on battle ``i``'s board (``Battle.in_bounds``)."""
    col = x if s.kind[i] == 0 else x + (y >> 1)
    return 0 <= y < s.height[i] and 0 <= col < s.width[i]


@inline
def _occupied(t, s, i, m, x, y):
    """Some living creature other than ``m`` covers cell ``(x, y)``, but a foe ``m`` does
    not perceive (issue 36)."""
    for k in range(s.n_creatures[i]):
        if k != m and alive(s, i, k) and covers(s, i, k, x, y) and perceives(t, s, i, m, k):
            return True
    return False


@inline
def _span(t):
    """The half width of the anchor axes of the charge tables."""
    return (t.route_n_path.shape[1] - 1) // 2


@inline
def _table_row(t, s, i, m):
    """``m``'s footprint row in the charge tables; raises when they do not cover it."""
    cm = t.charge_shape[s.shape[i, m]]
    if cm < 0:
        raise ValueError("charge tables without this footprint: build them with tables_of")
    if melee_reach(s, i, m) // FEET > t.charge_reach[cm]:
        raise ValueError("a reach beyond the charge tables: build them with tables_of")
    return cm


# complexity above 15 on purpose: a charge lane's cell walk with its early exits inline, run per
# candidate lane
@inline
def _route_clear(t, s, i, m, cm, px, py):  # noqa: C901
    """The checks of ``maneuvers._destinations`` on a candidate ``p`` at the closest
    distance: on the board, no blocked square on the path, only open or hazardous ground
    on the lane, nobody else on either."""
    if max(abs(px), abs(py)) > t.charge_span[cm]:
        raise ValueError("a charge beyond the charge tables: build them with tables_of")
    mx = s.x[i, m]
    my = s.y[i, m]
    span = _span(t)
    ay = py + span
    ax = px + span
    square = s.kind[i] == 0
    if square:
        shape = s.shape[i, m]
        if _CELLS[shape] > 1:  # the board is convex: the space on it keeps the route on it
            for p in range(_CELLS[shape]):
                if not on_board(
                    s, i, mx + px + _OFFSETS[shape, p, 0], my + py + _OFFSETS[shape, p, 1]
                ):
                    return False
    for j in range(t.route_n_path[cm, ay, ax]):
        x = mx + t.route_path[cm, ay, ax, j, 0]
        y = my + t.route_path[cm, ay, ax, j, 1]
        if on_board(s, i, x, y):
            terrain = terrain_at(s, i, x, y)
            if terrain == BLOCKED or terrain == PILLAR:
                return False
        elif not square:
            return False
    for j in range(t.route_n_lane[cm, ay, ax]):
        x = mx + t.route_lane[cm, ay, ax, j, 0]
        y = my + t.route_lane[cm, ay, ax, j, 1]
        if on_board(s, i, x, y):
            terrain = terrain_at(s, i, x, y)
            if terrain != OPEN and terrain != HAZARDOUS:
                return False
        elif not square:
            return False
    for j in range(t.route_n_path[cm, ay, ax]):
        if _occupied(
            t, s, i, m, mx + t.route_path[cm, ay, ax, j, 0], my + t.route_path[cm, ay, ax, j, 1]
        ):
            return False
    for j in range(t.route_n_lane[cm, ay, ax]):
        if _occupied(
            t, s, i, m, mx + t.route_lane[cm, ay, ax, j, 0], my + t.route_lane[cm, ay, ax, j, 1]
        ):
            return False
    return True


@kernel
def route_meets(t, s, i, m, px, py, hidden):
    """The first creature (slot order) among the ``hidden`` bits
    (``perception.hidden_from``) covering a square of the path or the lane of a charge of
    ``m`` to anchor offset ``(px, py)`` (``rules.bumped`` of ``rules.charge_route``); -1
    when none."""
    if hidden == 0:
        return -1
    cm = _table_row(t, s, i, m)
    span = _span(t)
    ay = py + span
    ax = px + span
    mx = s.x[i, m]
    my = s.y[i, m]
    for k in range(s.n_creatures[i]):
        if not (hidden >> np.int64(k)) & np.int64(1) or not alive(s, i, k):
            continue
        for j in range(t.route_n_path[cm, ay, ax]):
            x = mx + t.route_path[cm, ay, ax, j, 0]
            y = my + t.route_path[cm, ay, ax, j, 1]
            if covers(s, i, k, x, y):
                return k
        for j in range(t.route_n_lane[cm, ay, ax]):
            x = mx + t.route_lane[cm, ay, ax, j, 0]
            y = my + t.route_lane[cm, ay, ax, j, 1]
            if covers(s, i, k, x, y):
                return k
    return -1


@inline
def _box(s, i, m, e, reach):
    """The anchors ``_relative_candidates`` tries, relative to ``m``'s: the target's
    squares widened by ``m``'s footprint and ``reach``, as ``(x0, x1, y0, y1)``
    (inclusive)."""
    ms = s.shape[i, m]
    ts = s.shape[i, e]
    dx = s.x[i, e] - s.x[i, m]
    dy = s.y[i, e] - s.y[i, m]
    x0 = y0 = 1 << 30
    x1 = y1 = -(1 << 30)
    for q in range(_CELLS[ts]):
        for p in range(_CELLS[ms]):
            x0 = min(x0, dx + _OFFSETS[ts, q, 0] - _OFFSETS[ms, p, 0])
            x1 = max(x1, dx + _OFFSETS[ts, q, 0] - _OFFSETS[ms, p, 0])
            y0 = min(y0, dy + _OFFSETS[ts, q, 1] - _OFFSETS[ms, p, 1])
            y1 = max(y1, dy + _OFFSETS[ts, q, 1] - _OFFSETS[ms, p, 1])
    return x0 - reach, x1 + reach, y0 - reach, y1 + reach


@inline
def _in_reach(s, i, m, e, reach, px, py):
    """From anchor ``p`` (relative to ``m``'s) ``m``'s reach covers a square of ``e``
    without sharing one."""
    gap = footprint_distance(
        s, i, s.shape[i, m], s.x[i, m] + px, s.y[i, m] + py, s.shape[i, e], s.x[i, e], s.y[i, e]
    )
    return 0 < gap <= reach


@inline
def closest(s, i, m, e):
    """The distance of ``m``'s charge at ``e``: the smallest of its candidates on the
    board, -1 when there is no charge (none; nearer than ``MIN_CHARGE_SQUARES``; it can
    attack from where it stands; either is dead)."""
    if m == e or not alive(s, i, e) or not alive(s, i, m):
        return -1
    reach = melee_reach(s, i, m) // FEET
    allowance = s.speed[i, m] // FEET
    if 0 < creature_distance(s, i, m, e) <= reach:
        return -1  # it can attack from where it stands: the closest space is its own
    x0, x1, y0, y1 = _box(s, i, m, e, reach)
    best = -1
    for py in range(y0, y1 + 1):
        for px in range(x0, x1 + 1):
            moved = cell_distance(s, i, 0, 0, px, py)
            if moved > allowance or (best >= 0 and moved >= best):
                continue
            if on_board(s, i, s.x[i, m] + px, s.y[i, m] + py) and _in_reach(
                s, i, m, e, reach, px, py
            ):
                best = moved
    return best if best >= MIN_CHARGE else -1


@inline
def _passes(t, s, i, m, e, cm, distance, reach, px, py):
    """Candidate ``p`` (relative to ``m``'s anchor) is a destination at ``distance``."""
    return (
        cell_distance(s, i, 0, 0, px, py) == distance
        and on_board(s, i, s.x[i, m] + px, s.y[i, m] + py)
        and _in_reach(s, i, m, e, reach, px, py)
        and _route_clear(t, s, i, m, cm, px, py)
    )


@inline_kernel
def can_charge(t, s, i, m, e):
    """``bool(rules.charge_destinations(battle, m, e))``: ``m`` may charge ``e`` from
    where it stands (the lane alone: whether a full-round action is left is the scan's)."""
    distance = closest(s, i, m, e)
    if distance < 0:
        return False
    cm = _table_row(t, s, i, m)
    reach = melee_reach(s, i, m) // FEET
    x0, x1, y0, y1 = _box(s, i, m, e, reach)
    for py in range(y0, y1 + 1):
        for px in range(x0, x1 + 1):
            if _passes(t, s, i, m, e, cm, distance, reach, px, py):
                return True
    return False


@inline
def _prefers(t, s, i, m, e, cm, ax, ay, bx, by):
    """Whether candidate ``a`` comes before candidate ``b`` (offsets from ``m``'s anchor)
    among equally close ones: ``maneuvers._preference``, then north to south, west to
    east."""
    ct = t.charge_shape[s.shape[i, e]]
    if ct < 0:
        raise ValueError("charge tables without this footprint: build them with tables_of")
    dx = s.x[i, e] - s.x[i, m]
    dy = s.y[i, e] - s.y[i, m]
    rq = (t.charge_ring.shape[2] - 1) // 2
    span = _span(t)
    if max(abs(dx - ax), abs(dy - ay), abs(dx - bx), abs(dy - by)) > rq:
        raise ValueError("a reach beyond the charge tables: build them with tables_of")
    ja = t.charge_ring[cm, ct, dy - ay + rq, dx - ax + rq]
    jb = t.charge_ring[cm, ct, dy - by + rq, dx - bx + rq]
    if ja < 0 or jb < 0:
        raise ValueError("a reach beyond the charge tables: build them with tables_of")
    bend_a = t.charge_bend[cm, ct, ja, ay + span, ax + span]
    bend_b = t.charge_bend[cm, ct, jb, by + span, bx + span]
    if bend_a != bend_b:
        return bend_a < bend_b
    near_a = t.charge_near[cm, ct, ja, ay + span, ax + span]
    near_b = t.charge_near[cm, ct, jb, by + span, bx + span]
    if near_a != near_b:
        return near_a < near_b
    if ay != by:
        return ay < by
    return ax < bx


@kernel
def charge_destinations(t, s, i, m, e, out):
    """``rules.charge_destinations(battle, m, e)``: the spaces a charge may end in, best
    first, as absolute anchors in ``out`` (``(n, 2)``; ``t.charge_bend.shape[2]`` rows
    hold them all); returns how many."""
    distance = closest(s, i, m, e)
    if distance < 0:
        return 0
    cm = _table_row(t, s, i, m)
    reach = melee_reach(s, i, m) // FEET
    x0, x1, y0, y1 = _box(s, i, m, e, reach)
    n = 0
    for py in range(y0, y1 + 1):
        for px in range(x0, x1 + 1):
            if not _passes(t, s, i, m, e, cm, distance, reach, px, py):
                continue
            if n >= out.shape[0]:
                raise ValueError("out has no room for every destination")
            b = n  # insertion by preference (there are few)
            while b > 0 and _prefers(t, s, i, m, e, cm, px, py, out[b - 1, 0], out[b - 1, 1]):
                out[b, 0] = out[b - 1, 0]
                out[b, 1] = out[b - 1, 1]
                b -= 1
            out[b, 0] = px
            out[b, 1] = py
            n += 1
    for a in range(n):
        out[a, 0] += s.x[i, m]
        out[a, 1] += s.y[i, m]
    return n


@kernel
def first_destination(t, s, i, m, e):
    """``rules.charge_destinations(battle, m, e)[0]``: where ``resolve._apply_charge``
    takes the charger, as an absolute ``(x, y)``; raises when there is none."""
    distance = closest(s, i, m, e)
    if distance < 0:
        raise ValueError("no charge destination")
    cm = _table_row(t, s, i, m)
    reach = melee_reach(s, i, m) // FEET
    x0, x1, y0, y1 = _box(s, i, m, e, reach)
    found = False
    bx = by = 0
    for py in range(y0, y1 + 1):
        for px in range(x0, x1 + 1):
            if _passes(t, s, i, m, e, cm, distance, reach, px, py) and (
                not found or _prefers(t, s, i, m, e, cm, px, py, bx, by)
            ):
                found = True
                bx = px
                by = py
    if not found:
        raise ValueError("no charge destination")
    return s.x[i, m] + bx, s.y[i, m] + by


@kernel
def path_length(t, s, i, m, sx, sy, dx, dy):
    """``len(rules.charge_path(...))`` of a charge from anchor ``(sx, sy)`` to
    ``(dx, dy)``: the positions after the start, the destination included."""
    span = (t.charge_n_line.shape[0] - 1) // 2
    ox = dx - sx
    oy = dy - sy
    if max(abs(ox), abs(oy)) > span:
        raise ValueError("a charge beyond the charge tables: build them with tables_of")
    return t.charge_n_line[oy + span, ox + span]


@kernel
def path_square(t, s, i, m, sx, sy, dx, dy, p):
    """``rules.charge_path(...)[p]``: the ``p``-th anchor position after the start of a
    charge from ``(sx, sy)`` to ``(dx, dy)`` (square grid: rounded half toward the start;
    hex: the hex line)."""
    span = (t.charge_n_line.shape[0] - 1) // 2
    row = t.charge_line[dy - sy + span, dx - sx + span, p]
    return sx + row[0], sy + row[1]


@inline_kernel
def may_withdraw_from(s, i, m, e):
    """``rules.may_withdraw_from(battle, m, e)`` (EP-WDR-01): ``e`` is a living enemy that
    threatens ``m``."""
    if e == m or not alive(s, i, e) or s.team[i, e] == s.team[i, m]:
        return False
    return threatens_creature(s, i, e, m)


@inline_kernel
def withdraw_step_allowed(s, i, m, e, x, y):
    """``rules.withdraw_step_allowed(battle, m, e, (x, y))`` (EP-WDR-01): ``m`` anchored at
    ``(x, y)`` is further from ``e``'s space than it is now."""
    before = creature_distance(s, i, m, e)
    after = footprint_distance(s, i, s.shape[i, m], x, y, s.shape[i, e], s.x[i, e], s.y[i, e])
    return after > before
