"""Cells, distances, angles and areas in a kernel: the geometry of ``rules.geometry`` and
the areas of the reference ``tactics`` (``tests/reference/tactics.py``) over a row's cell
sets (:mod:`facing_env.agents.kernels.view`)."""

from __future__ import annotations

import math

from numba import njit

from facing_env.agents.kernels.view import _BIG, _CN, _ENEMIES, _RAD_TO_DEG

_SQRT3 = math.sqrt(3.0)

# areas, as tactics.area names them
_NONE, _FRONT, _FLANK, _REAR = 0, 1, 2, 3


@njit(cache=True, inline="always")
def _cell_distance(g, ax, ay, bx, by):
    """``geometry.cell_distance`` (the alternating diagonal rule on squares)."""
    dx = ax - bx
    dy = ay - by
    if g == 1:
        return (abs(dx) + abs(dy) + abs(dx + dy)) // 2
    dx = abs(dx)
    dy = abs(dy)
    if dx >= dy:
        return dx + dy // 2
    return dy + dx // 2


@njit(cache=True, inline="always")
def _gap(geo, cells, slots, a, ax, ay, b, bx, by):
    """Smallest distance between slot ``a``'s cells moved by ``(ax, ay)`` and slot ``b``'s
    moved by ``(bx, by)`` (``ObservationView.gap``)."""
    best = _BIG
    for i in range(slots[_CN, a]):
        px = cells[a, i, 0] + ax
        py = cells[a, i, 1] + ay
        for j in range(slots[_CN, b]):
            d = _cell_distance(geo.g, px, py, cells[b, j, 0] + bx, cells[b, j, 1] + by)
            if d < best:
                best = d
    return best


@njit(cache=True, inline="always")
def _cell_centre(g, x, y):
    """``geometry.cell_centre``."""
    if g == 0:
        return x + 0.5, y + 0.5
    return _SQRT3 * (x + y / 2.0), 1.5 * y


@njit(cache=True, inline="always")
def _centre(geo, cells, slots, a, ax, ay):
    """Cartesian centre of slot ``a``'s cells moved by ``(ax, ay)``."""
    sx = 0.0
    sy = 0.0
    n = slots[_CN, a]
    for i in range(n):
        px, py = _cell_centre(geo.g, cells[a, i, 0] + ax, cells[a, i, 1] + ay)
        sx += px
        sy += py
    return sx / n, sy / n


@njit(cache=True, inline="always")
def _vector_angle(dx, dy):
    """``geometry.vector_angle``."""
    return math.atan2(-dy, dx) * _RAD_TO_DEG


@njit(cache=True)
def _angle_between(geo, cells, slots, a, ax, ay, b, bx, by):
    """Direction in degrees from slot ``a``'s cells (moved) to slot ``b``'s (moved)."""
    px, py = _centre(geo, cells, slots, a, ax, ay)
    qx, qy = _centre(geo, cells, slots, b, bx, by)
    return _vector_angle(qx - px, qy - py)


@njit(cache=True, inline="always")
def _angle_gap(a, b):
    """``tactics.angle_gap``."""
    return abs((a - b + 180.0) % 360.0 - 180.0)


@njit(cache=True, inline="always")
def _area_by_angle(geo, diff):
    """``tactics.area_by_angle``."""
    if diff <= geo.front_max + 1e-6:
        return _FRONT
    if geo.strict:
        if diff > geo.rear_min + 1e-6:
            return _REAR
    elif diff >= geo.rear_min - 1e-6:
        return _REAR
    return _FLANK


@njit(cache=True, inline="always")
def _rank(area):
    """``tactics.AREA_RANK``."""
    return area - 1 if area > _NONE else 0


@njit(cache=True, inline="always")
def _contains(cells, slots, a, ax, ay, x, y):
    """Whether cell ``(x, y)`` is one of slot ``a``'s cells moved by ``(ax, ay)``."""
    found = False
    for i in range(slots[_CN, a]):
        if cells[a, i, 0] + ax == x and cells[a, i, 1] + ay == y:
            found = True
            break
    return found


@njit(cache=True, inline="always")
def _area_of_cell(geo, facing, ocx, ocy, x, y):
    """The area of cell ``(x, y)`` for a creature centred at ``(ocx, ocy)``."""
    px, py = _cell_centre(geo.g, x, y)
    return _area_by_angle(geo, _angle_gap(_vector_angle(px - ocx, py - ocy), facing))


@njit(cache=True)
def _area(geo, cells, slots, has, facing, a, ax, ay, b, bx, by):
    """``tactics.area``: where slot ``b``'s cells (moved) stand relative to slot ``a``'s
    (moved) facing ``facing``, its most favourable cell counting; _NONE without facing."""
    if not has:
        return _NONE
    best = _NONE
    ocx, ocy = _centre(geo, cells, slots, a, ax, ay)
    for j in range(slots[_CN, b]):
        x = cells[b, j, 0] + bx
        y = cells[b, j, 1] + by
        if _contains(cells, slots, a, ax, ay, x, y):
            continue
        found = _area_of_cell(geo, facing, ocx, ocy, x, y)
        if best == _NONE or _rank(found) > _rank(best):
            best = found
    return best


@njit(cache=True)
def _danger(geo, cells, slots, near, facing, ax, ay):
    """``tactics.danger`` of the observer at anchor ``(ax, ay)`` facing ``facing``;
    ``near``: the distance from which a foe may walk up and strike (``ASSUMED_SPEED + 1``)."""
    total = 0.0
    for k in range(geo.n_enemies):
        e = slots[_ENEMIES, k]
        d = _gap(geo, cells, slots, 0, ax, ay, e, 0, 0)
        weight = 2.0 if d <= 1 else (1.0 if d <= near else 0.0)
        if weight:
            found = _area(geo, cells, slots, True, facing, 0, ax, ay, e, 0, 0)
            worth = 2.0 if found == _FLANK else (4.0 if found == _REAR else 0.0)
            total += weight * worth
    return total
