"""The route search in a kernel: Dijkstra over the observer's anchors (the reference
``pathing.routes`` of ``tests/reference/pathing.py``), with :data:`DIAGONAL_COST`.

A route's cost counts squares of movement with ``MOVE`` (turning first, so every step is
a front step: UA-MOVE-01, UA-MOVE-03); diagonals count :data:`DIAGONAL_COST`, difficult
terrain double, impeded terrain is avoided. The attacks of opportunity a walk draws are
estimated: leaving a square an enemy threatens provokes (SRD-AOO-02, IC-12), and 5-foot
steps never do (SRD-AOO-04). The first step is taken only in directions whose ``MOVE`` the
mask allows.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from facing_env.agents.kernels.geometry import _gap
from facing_env.agents.kernels.view import (
    _CLEAR,
    _CN,
    _DIR_X,
    _DIR_Y,
    _ENEMIES,
    _FREE,
    _PROV,
    _ROUGH,
    _at,
    _legal,
    _on,
    _reach_of,
    _value,
)

DIAGONAL_COST = 1.5
"""Squares a diagonal step costs on a square grid (the alternating 3.5 rule on average)."""


@njit(cache=True)
def _threat_sum(s, geo, obs, cells, slots, ax, ay):
    """Sum of the threatened_by_enemies channel over the footprint at an anchor."""
    total = 0.0
    for i in range(slots[_CN, 0]):
        total += _at(s, geo, obs, s.ch_threat, cells[0, i, 0] + ax, cells[0, i, 1] + ay)
    return total


@njit(cache=True, inline="always")
def _threatened(s, geo, obs, cells, slots, ax, ay):
    """Whether some cell of the footprint at an anchor is threatened by an enemy."""
    for i in range(slots[_CN, 0]):
        if _at(s, geo, obs, s.ch_threat, cells[0, i, 0] + ax, cells[0, i, 1] + ay) > 0:
            return True
    return False


@njit(cache=True, inline="always")
def _provocations(s, geo, obs, cells, slots, anchors, ax, ay):
    """``pathing.provocations``: enemies with an attack of opportunity left that threaten
    the observer at anchor ``(ax, ay)`` (memoised on the anchor grid)."""
    i = ay + geo.ao
    j = ax + geo.ao
    known = anchors[_PROV, i, j]
    if known == known:  # not NaN
        return known
    count = 0.0
    if _threatened(s, geo, obs, cells, slots, ax, ay):
        for k in range(geo.n_enemies):
            e = slots[_ENEMIES, k]
            if _value(s, obs, e, s.col_aoo_left) > 0.5 and (
                _gap(geo, cells, slots, 0, ax, ay, e, 0, 0) <= _reach_of(s, obs, e)
            ):
                count += 1.0
    anchors[_PROV, i, j] = count
    return count


@njit(cache=True, inline="always")
def _before(k1, c1, x1, y1, k2, c2, x2, y2):
    """``(k1, c1, (x1, y1)) < (k2, c2, (x2, y2))``, as heapq compares its entries."""
    if k1 != k2:
        return k1 < k2
    if c1 != c2:
        return c1 < c2
    if x1 != x2:
        return x1 < x2
    return y1 < y2


@njit(cache=True, inline="always")
def _heap_push(hk, hc, hx, hy, n, key, cost, x, y):
    """Push onto the binary heap in ``hk, hc, hx, hy`` (``n`` entries, room for one
    more); returns the new size."""
    i = n
    while i > 0:
        parent = (i - 1) >> 1
        if not _before(key, cost, x, y, hk[parent], hc[parent], hx[parent], hy[parent]):
            break
        hk[i] = hk[parent]
        hc[i] = hc[parent]
        hx[i] = hx[parent]
        hy[i] = hy[parent]
        i = parent
    hk[i] = key
    hc[i] = cost
    hx[i] = x
    hy[i] = y
    return n + 1


@njit(cache=True, inline="always")
def _heap_pop(hk, hc, hx, hy, n):
    """Pop the smallest entry (``n`` > 0): (key, cost, x, y, new size)."""
    key, cost, x, y = hk[0], hc[0], hx[0], hy[0]
    n -= 1
    lk, lc, lx, ly = hk[n], hc[n], hx[n], hy[n]
    i = 0
    while True:
        child = 2 * i + 1
        if child >= n:
            break
        right = child + 1
        if right < n and _before(
            hk[right], hc[right], hx[right], hy[right], hk[child], hc[child], hx[child], hy[child]
        ):
            child = right
        if not _before(hk[child], hc[child], hx[child], hy[child], lk, lc, lx, ly):
            break
        hk[i] = hk[child]
        hc[i] = hc[child]
        hx[i] = hx[child]
        hy[i] = hy[child]
        i = child
    if n > 0:
        hk[i] = lk
        hc[i] = lc
        hx[i] = lx
        hy[i] = ly
    return key, cost, x, y, n


@njit(cache=True)
def _paths(s):
    """The arrays :func:`_routes` works in, reused from call to call: (reached, cost,
    provoked, first direction) over the anchor grid, the anchors in the order reached,
    and a heap with room for every push. Only the start, its neighbours and anchors in
    the window are expanded, each at most once (steps cost at least one square, so an
    expanded anchor never improves), each pushing at most ``n_directions`` entries."""
    side = 2 * (2 * (s.window // 2) + 2) + 1
    cap = (s.window * s.window + s.n_directions + 1) * s.n_directions + 1
    return (
        np.zeros((side, side), dtype=np.bool_),
        np.zeros((side, side), dtype=np.float64),
        np.zeros((side, side), dtype=np.float64),
        np.zeros((side, side), dtype=np.int64),
        np.zeros((side * side, 2), dtype=np.int64),
        np.empty(cap, dtype=np.float64),
        np.empty(cap, dtype=np.float64),
        np.empty(cap, dtype=np.int64),
        np.empty(cap, dtype=np.int64),
    )


@njit(cache=True)
def _routes(s, geo, obs, mask, cells, slots, anchors, paths, max_cost, aoo_weight):
    """``pathing.routes``: the cheapest route (squares + ``aoo_weight`` per provocation)
    to every anchor reachable within ``max_cost`` squares: Dijkstra, popping in heapq's
    order, so ties resolve as in Python. Fills ``paths`` (:func:`_paths`) and returns the
    number of anchors reached: ``order[:n]`` as ``(x, y)`` in the order of ``routes``'
    dict (the start first, then each anchor where it was first reached), each with its
    cost, provocations and first direction on the grids (row ``y + ao``, column
    ``x + ao``)."""
    reached, cost_of, provoked_of, first_of, order, hk, hc, hx, hy = paths
    ao = geo.ao
    reached[:, :] = False
    reached[ao, ao] = True
    cost_of[ao, ao] = 0.0
    provoked_of[ao, ao] = 0.0
    first_of[ao, ao] = -1
    order[0, 0] = 0
    order[0, 1] = 0
    n_order = 1
    n = _heap_push(hk, hc, hx, hy, 0, 0.0, 0.0, 0, 0)
    limit = max_cost + 1e-9
    square = geo.g == 0
    while n > 0:
        key, _, hx0, hy0, n = _heap_pop(hk, hc, hx, hy, n)
        cost = cost_of[hy0 + ao, hx0 + ao]
        provoked = provoked_of[hy0 + ao, hx0 + ao]
        first_dir = first_of[hy0 + ao, hx0 + ao]
        if key > cost + aoo_weight * provoked + 1e-9:
            continue
        leave = provoked + _provocations(s, geo, obs, cells, slots, anchors, hx0, hy0)
        first = hx0 == 0 and hy0 == 0
        for d in range(geo.n_dir):
            vx = slots[_DIR_X, d]
            vy = slots[_DIR_Y, d]
            diagonal = square and vx != 0 and vy != 0
            nx = hx0 + vx
            ny = hy0 + vy
            if first:  # the first step: whatever the mask allows
                if not _legal(mask, s.move_base + d):
                    continue
            elif not _on(geo, anchors, _FREE, nx, ny) or (  # never cut a corner
                diagonal
                and (
                    not _on(geo, anchors, _CLEAR, hx0 + vx, hy0)
                    or not _on(geo, anchors, _CLEAR, hx0, hy0 + vy)
                )
            ):
                continue
            base = s.diagonal_cost if diagonal else 1.0
            step = base * 2.0 if _on(geo, anchors, _ROUGH, nx, ny) else base
            new_cost = cost + step
            if new_cost > limit:
                continue
            new_key = new_cost + aoo_weight * leave
            i = ny + ao
            j = nx + ao
            if not reached[i, j] or new_key < cost_of[i, j] + aoo_weight * provoked_of[i, j] - 1e-9:
                if not reached[i, j]:
                    reached[i, j] = True
                    order[n_order, 0] = nx
                    order[n_order, 1] = ny
                    n_order += 1
                cost_of[i, j] = new_cost
                provoked_of[i, j] = leave
                first_of[i, j] = d if first else first_dir
                if n == hk.size:
                    raise RuntimeError("facing_env.agents.kernels.paths: route heap overflow")
                n = _heap_push(hk, hc, hx, hy, n, new_key, new_cost, nx, ny)
    return n_order
