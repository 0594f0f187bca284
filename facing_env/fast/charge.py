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
(:func:`facing_env.fast.tables.charge_tables`, filled by ``tables_of`` for the State's
footprints, reaches and speeds): the order among equally close destinations
(``maneuvers._preference``), the squares of a charge's path and lane
(``maneuvers._route``) and the positions of its path (``maneuvers._line``). A creature
whose reach or allowance the tables do not cover raises ``ValueError`` (build the tables
with ``tables_of`` for that State).

Kernels take ``(t, s, i, ...)``; ``tests/test_fast_scan.py`` compares them with the
reference on states of every scenario and proves the tables against ``_route`` and
``_line`` for every anchor offset of every board. ``NUMBA_DISABLE_JIT=1`` runs them as
plain Python.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from facing_env.fast.geo import (
    BLOCKED,
    HAZARDOUS,
    OPEN,
    PILLAR,
    alive,
    cell_distance,
    creature_distance,
    footprint_distance,
    terrain_at,
)
from facing_env.fast.reach import FEET, melee_reach, threatens_creature
from facing_env.fast.state import SHAPE_CELLS, SHAPE_OFFSETS
from facing_env.tables import MIN_CHARGE_SQUARES

MIN_CHARGE = MIN_CHARGE_SQUARES
_OFFSETS = SHAPE_OFFSETS
_CELLS = SHAPE_CELLS


@njit(cache=True)
def on_board(s, i, x, y):
    """Whether cell ``(x, y)`` is on battle ``i``'s board (``Battle.in_bounds``)."""
    col = x if s.kind[i] == 0 else x + (y >> 1)
    return 0 <= y < s.height[i] and 0 <= col < s.width[i]


@njit(cache=True)
def _occupied(s, i, m, x, y):
    """Some living creature other than ``m`` covers cell ``(x, y)``."""
    for k in range(s.n_creatures[i]):
        if k == m or not alive(s, i, k):
            continue
        shape = s.shape[i, k]
        dx = x - s.x[i, k]
        dy = y - s.y[i, k]
        for p in range(_CELLS[shape]):
            if _OFFSETS[shape, p, 0] == dx and _OFFSETS[shape, p, 1] == dy:
                return True
    return False


@njit(cache=True)
def _span(t):
    """The half width of the anchor axes of the charge tables."""
    return (t.route_n_path.shape[1] - 1) // 2


@njit(cache=True)
def _table_row(t, s, i, m):
    """``m``'s footprint row in the charge tables; raises when they do not cover it."""
    cm = t.charge_shape[s.shape[i, m]]
    if cm < 0:
        raise ValueError("charge tables without this footprint: build them with tables_of")
    if melee_reach(s, i, m) // FEET > t.charge_reach[cm]:
        raise ValueError("a reach beyond the charge tables: build them with tables_of")
    return cm


@njit(cache=True)
def _route_clear(t, s, i, m, cm, px, py):
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
            if terrain == BLOCKED or terrain == PILLAR:  # noqa: SIM109 (numba)
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
            s, i, m, mx + t.route_path[cm, ay, ax, j, 0], my + t.route_path[cm, ay, ax, j, 1]
        ):
            return False
    for j in range(t.route_n_lane[cm, ay, ax]):
        if _occupied(
            s, i, m, mx + t.route_lane[cm, ay, ax, j, 0], my + t.route_lane[cm, ay, ax, j, 1]
        ):
            return False
    return True


@njit(cache=True)
def _destinations(t, s, i, m, e, out, first_only):
    """The destinations of ``m``'s charge at ``e`` as anchor offsets from ``m``'s, in
    the reference's enumeration order (not yet by preference): written to ``out`` (as
    many rows as it has), counted; with ``first_only`` the count stops at 1."""
    if m == e or not alive(s, i, e) or not alive(s, i, m):
        return 0
    reach = melee_reach(s, i, m) // FEET
    allowance = s.speed[i, m] // FEET
    if 0 < creature_distance(s, i, m, e) <= reach:
        return 0  # it can attack from where it stands: the closest space is its own
    ms = s.shape[i, m]
    ts = s.shape[i, e]
    mx = s.x[i, m]
    my = s.y[i, m]
    ex = s.x[i, e]
    ey = s.y[i, e]
    dx = ex - mx
    dy = ey - my
    # the box of _relative_candidates: target squares widened by the footprint and reach
    x_lo = 1 << 30
    x_hi = -(1 << 30)
    y_lo = 1 << 30
    y_hi = -(1 << 30)
    for q in range(_CELLS[ts]):
        x_lo = min(x_lo, dx + _OFFSETS[ts, q, 0])
        x_hi = max(x_hi, dx + _OFFSETS[ts, q, 0])
        y_lo = min(y_lo, dy + _OFFSETS[ts, q, 1])
        y_hi = max(y_hi, dy + _OFFSETS[ts, q, 1])
    o_lo = 1 << 30
    o_hi = -(1 << 30)
    r_lo = 1 << 30
    r_hi = -(1 << 30)
    for p in range(_CELLS[ms]):
        o_lo = min(o_lo, _OFFSETS[ms, p, 0])
        o_hi = max(o_hi, _OFFSETS[ms, p, 0])
        r_lo = min(r_lo, _OFFSETS[ms, p, 1])
        r_hi = max(r_hi, _OFFSETS[ms, p, 1])
    closest = -1
    for py in range(y_lo - r_hi - reach, y_hi - r_lo + reach + 1):
        for px in range(x_lo - o_hi - reach, x_hi - o_lo + reach + 1):
            moved = cell_distance(s, i, 0, 0, px, py)
            if moved > allowance or (closest >= 0 and moved >= closest):
                continue
            if not on_board(s, i, mx + px, my + py):
                continue
            gap = footprint_distance(s, i, ms, mx + px, my + py, ts, ex, ey)
            if 0 < gap <= reach:
                closest = moved
    if closest < MIN_CHARGE:
        return 0
    cm = _table_row(t, s, i, m)
    n = 0
    for py in range(y_lo - r_hi - reach, y_hi - r_lo + reach + 1):
        for px in range(x_lo - o_hi - reach, x_hi - o_lo + reach + 1):
            if cell_distance(s, i, 0, 0, px, py) != closest:
                continue
            if not on_board(s, i, mx + px, my + py):
                continue
            gap = footprint_distance(s, i, ms, mx + px, my + py, ts, ex, ey)
            if not 0 < gap <= reach or not _route_clear(t, s, i, m, cm, px, py):
                continue
            if n < out.shape[0]:
                out[n, 0] = px
                out[n, 1] = py
            n += 1
            if first_only:
                return n
    return n


@njit(cache=True)
def can_charge(t, s, i, m, e):
    """``bool(rules.charge_destinations(battle, m, e))``: ``m`` may charge ``e`` from
    where it stands (the lane alone: whether a full-round action is left is the scan's)."""
    return _destinations(t, s, i, m, e, np.empty((0, 2), dtype=np.int32), True) > 0


@njit(cache=True)
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


@njit(cache=True)
def charge_destinations(t, s, i, m, e, out):
    """``rules.charge_destinations(battle, m, e)``: the spaces a charge may end in, best
    first, as absolute anchors in ``out`` (``(n, 2)``: room for ``t.charge_bend.shape[2]``
    rows holds them all); returns how many."""
    n = _destinations(t, s, i, m, e, out, False)
    if n > out.shape[0]:
        raise ValueError("out has no room for every destination")
    if n > 1:
        cm = t.charge_shape[s.shape[i, m]]
        for a in range(1, n):  # insertion sort by preference (n is small)
            ax = out[a, 0]
            ay = out[a, 1]
            b = a - 1
            while b >= 0 and _prefers(t, s, i, m, e, cm, ax, ay, out[b, 0], out[b, 1]):
                out[b + 1, 0] = out[b, 0]
                out[b + 1, 1] = out[b, 1]
                b -= 1
            out[b + 1, 0] = ax
            out[b + 1, 1] = ay
    for a in range(n):
        out[a, 0] += s.x[i, m]
        out[a, 1] += s.y[i, m]
    return n


@njit(cache=True)
def first_destination(t, s, i, m, e):
    """``rules.charge_destinations(battle, m, e)[0]``: where ``engine._apply_charge``
    takes the charger, as an absolute ``(x, y)``; raises when there is none."""
    out = np.empty((max(t.charge_bend.shape[2], 1), 2), dtype=np.int32)
    n = _destinations(t, s, i, m, e, out, False)
    if n == 0:
        raise ValueError("no charge destination")
    if n > out.shape[0]:
        raise ValueError("more destinations than the charge tables allow")
    cm = t.charge_shape[s.shape[i, m]]
    best = 0
    for a in range(1, n):
        if _prefers(t, s, i, m, e, cm, out[a, 0], out[a, 1], out[best, 0], out[best, 1]):
            best = a
    return s.x[i, m] + out[best, 0], s.y[i, m] + out[best, 1]


@njit(cache=True)
def path_length(t, s, i, m, sx, sy, dx, dy):
    """``len(rules.charge_path(...))`` of a charge from anchor ``(sx, sy)`` to
    ``(dx, dy)``: the positions after the start, the destination included."""
    span = (t.charge_n_line.shape[0] - 1) // 2
    ox = dx - sx
    oy = dy - sy
    if max(abs(ox), abs(oy)) > span:
        raise ValueError("a charge beyond the charge tables: build them with tables_of")
    return t.charge_n_line[oy + span, ox + span]


@njit(cache=True)
def path_square(t, s, i, m, sx, sy, dx, dy, p):
    """``rules.charge_path(...)[p]``: the ``p``-th anchor position after the start of a
    charge from ``(sx, sy)`` to ``(dx, dy)`` (square grid: rounded half toward the start;
    hex: the hex line)."""
    span = (t.charge_n_line.shape[0] - 1) // 2
    row = t.charge_line[dy - sy + span, dx - sx + span, p]
    return sx + row[0], sy + row[1]


@njit(cache=True)
def may_withdraw_from(s, i, m, e):
    """``rules.may_withdraw_from(battle, m, e)`` (EP-WDR-01): ``e`` is a living enemy that
    threatens ``m``."""
    if e == m or not alive(s, i, e) or s.team[i, e] == s.team[i, m]:
        return False
    return threatens_creature(s, i, e, m)


@njit(cache=True)
def withdraw_step_allowed(s, i, m, e, x, y):
    """``rules.withdraw_step_allowed(battle, m, e, (x, y))`` (EP-WDR-01): ``m`` anchored at
    ``(x, y)`` is further from ``e``'s space than it is now."""
    before = creature_distance(s, i, m, e)
    after = footprint_distance(s, i, s.shape[i, m], x, y, s.shape[i, e], s.x[i, e], s.y[i, e])
    return after > before
