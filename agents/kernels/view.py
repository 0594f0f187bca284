"""Reading one observation row in a kernel: what :class:`~facing_env.agents.ObservationView`
reads, into arrays reused from row to row.

:func:`_row` fills a row's arrays (allocated once per batch by :func:`_workspace`) from
its observation and mask and returns its scalars as a :class:`_Geo`; :func:`_value`,
:func:`_scalar`, :func:`_at` and the others read the flat vector by the offsets of the
:class:`~facing_env.agents.kernels.spec.Spec`.

Conventions: a cell set is the cells of one table slot (slot 0, the observer, read off
the window's ``self`` channel; the others the default footprint of their size at their
offset, as :meth:`ObservationView.cells_of`), moved by ``(dx, dy)``. Where the observer
could stand are *anchors* (its footprint moved there), on a grid covering
``[-2h-2, 2h+2]^2`` (``h``: the window's half width). A kernel returns action indices,
``-1`` (:data:`_NO`) standing for the Python agents' ``None``. Helpers take the row's
arrays explicitly (``obs``, ``mask``, ``cells``, ``slots``, ``anchors``, ``turns``) and
its scalars as :class:`_Geo`: numba passes tuples of arrays to a call at a real cost.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

_RAD_TO_DEG = 180.0 / math.pi  # math.degrees(x) is x * (180 / pi), to the last bit
_NO = -1  # no action: the Python agents' None
_BIG = 1 << 30

# rows of a row's ``slots`` array
_CN, _ENEMIES, _ALLIES, _DIR_X, _DIR_Y = 0, 1, 2, 3, 4
# planes of a row's ``anchors`` array
_FREE, _CLEAR, _ROUGH, _PROV = 0, 1, 2, 3

_Geo = namedtuple(
    "_Geo",
    [
        "g",  # 0 square, 1 hex
        "strict",  # only cells beyond 135 degrees are rear (side_rear squares)
        "half",  # the window's half width
        "ao",  # index of anchor (0, 0) on the anchor grid
        "front_max",  # area thresholds of this grid
        "rear_min",
        "n_enemies",  # living enemies (slots[_ENEMIES, :n_enemies])
        "n_allies",
        "n_dir",  # movement directions (slots[_DIR_X, :n_dir])
        "n_turn",  # TURN slots with an angle (turns[:n_turn])
        "own_has",  # whether the observer has a facing
        "own",  # its facing angle (degrees, counter-clockwise from east)
        "reach",  # the observer's reach (cells)
        "speed",  # its squares per move action
    ],
)
_Geo.__doc__ = "The scalars of one row (what ObservationView computes once per view)."


@njit(cache=True, inline="always")
def _value(s, obs, slot, col):
    """One table entry as a double (``ObservationView.value``)."""
    return np.float64(obs[s.table + slot * s.n_features + col])


@njit(cache=True, inline="always")
def _scalar(s, obs, index):
    """One turn scalar as a double (``ObservationView.scalar``)."""
    return np.float64(obs[s.scalars + index])


@njit(cache=True, inline="always")
def _legal(mask, index):
    """Whether the mask allows an action index."""
    return index >= 0 and index < mask.size and mask[index] != 0


@njit(cache=True, inline="always")
def _at(s, geo, obs, ch, x, y):
    """A channel at a relative cell; outside the window: blocked, else 0."""
    h = geo.half
    if abs(x) > h or abs(y) > h:
        return 1.0 if ch == s.ch_blocked else 0.0
    return np.float64(obs[((h + y) * s.window + (h + x)) * s.n_channels + ch])


@njit(cache=True, inline="always")
def _facing(s, obs, slot):
    """(has facing, angle in degrees) of a slot (``ObservationView.facing_angle``)."""
    if _value(s, obs, slot, s.col_has_facing) < 0.5:
        return False, 0.0
    fy = _value(s, obs, slot, s.col_facing_y)
    fx = _value(s, obs, slot, s.col_facing_x)
    return True, math.atan2(fy, fx) * _RAD_TO_DEG


@njit(cache=True, inline="always")
def _distance(s, obs, slot):
    """Cells between the observer and a slot (the table's distance)."""
    return round(_value(s, obs, slot, s.col_distance) * s.window)


@njit(cache=True, inline="always")
def _reach_of(s, obs, slot):
    """A creature's reach in cells, at least 1."""
    return max(1, round(_value(s, obs, slot, s.col_reach) * 5))


# complexity above 15 on purpose: one pass over a row's observation filling every array
# the kernels read, field by field
@njit(cache=True)
def _row(s, shapes, shape_cells, directions, obs, mask, cells, slots, anchors, turns):  # noqa: C901
    """Fill one row's arrays (``cells``, ``slots``, ``anchors``, ``turns``, allocated by
    :func:`_workspace`) from its observation and mask; returns its :class:`_Geo`."""
    w = s.window
    h = w // 2
    nch = s.n_channels
    g = 1 if _scalar(s, obs, s.sc_hex_grid) > 0.5 else 0
    strict = g == 0 and _scalar(s, obs, s.sc_side_rear_rules) > 0.5
    # the observer's cells, row-major off the self channel; (0, 0) if none
    n_self = 0
    for rr in range(w):
        for cc in range(w):
            if obs[(rr * w + cc) * nch + s.ch_self] > 0.5:
                cells[0, n_self, 0] = cc - h
                cells[0, n_self, 1] = rr - h
                n_self += 1
    if n_self == 0:
        cells[0, 0, 0] = 0
        cells[0, 0, 1] = 0
        n_self = 1
    slots[_CN, 0] = n_self
    n_enemies = 0
    n_allies = 0
    for k in range(1, s.n_slots):
        slots[_CN, k] = 0
        if not _value(s, obs, k, s.col_present) > 0.5:
            continue
        if _value(s, obs, k, s.col_enemy) > 0.5:
            slots[_ENEMIES, n_enemies] = k
            n_enemies += 1
        if _value(s, obs, k, s.col_ally) > 0.5:
            slots[_ALLIES, n_allies] = k
            n_allies += 1
        size = round(_value(s, obs, k, s.col_size) * 8)
        if size < 0 or size >= shape_cells.shape[1]:
            continue
        x = round(_value(s, obs, k, s.col_dx) * w)
        y = round(_value(s, obs, k, s.col_dy) * w)
        n = shape_cells[g, size]
        slots[_CN, k] = n
        for i in range(n):
            cells[k, i, 0] = x + shapes[g, size, i, 0]
            cells[k, i, 1] = y + shapes[g, size, i, 1]
    n_dir = directions[g, 0, 0]
    for d in range(n_dir):
        slots[_DIR_X, d] = directions[g, d + 1, 0]
        slots[_DIR_Y, d] = directions[g, d + 1, 1]
    own_has, own = _facing(s, obs, 0)
    # TURN slot angles (ObservationView.turn_angles)
    if g == 0:
        legal_turns = 0
        for i in range(s.n_directions):
            if mask[s.turn_base + i] != 0:
                legal_turns += 1
        step = 90.0 if legal_turns + 1 == 4 else 45.0
        n_turn = int(360 / step)
        for i in range(n_turn):
            turns[i] = 90.0 - step * i
    else:
        offset = 30.0 if round(own / 30.0) % 2 else 0.0
        n_turn = 6
        for i in range(n_turn):
            turns[i] = offset + 60.0 * i
    # anchors (pathing._anchors): free, clear, rough; provocations unknown (NaN)
    ao = 2 * h + 2
    anchors[_FREE] = 0.0
    anchors[_CLEAR] = 0.0
    anchors[_ROUGH] = 0.0
    anchors[_PROV] = np.nan
    min_x = max_x = cells[0, 0, 0]
    min_y = max_y = cells[0, 0, 1]
    for i in range(n_self):
        min_x = min(min_x, cells[0, i, 0])
        max_x = max(max_x, cells[0, i, 0])
        min_y = min(min_y, cells[0, i, 1])
        max_y = max(max_y, cells[0, i, 1])
    for ax in range(-h - min_x, h - max_x + 1):
        for ay in range(-h - min_y, h - max_y + 1):
            blocked = False
            taken = False
            for i in range(n_self):
                at = ((h + ay + cells[0, i, 1]) * w + (h + ax + cells[0, i, 0])) * nch
                if obs[at + s.ch_blocked] > 0.5:
                    blocked = True
                    break
                if (
                    obs[at + s.ch_impeded] > 0.5
                    or obs[at + s.ch_ally] > 0.5
                    or obs[at + s.ch_enemy] > 0.5
                ):
                    taken = True
            if not blocked:
                anchors[_CLEAR, ay + ao, ax + ao] = 1.0
                if not taken:
                    anchors[_FREE, ay + ao, ax + ao] = 1.0
    for rr in range(w):
        for cc in range(w):
            if obs[(rr * w + cc) * nch + s.ch_difficult] > 0.5:
                for i in range(n_self):
                    ry = rr - h - cells[0, i, 1] + ao
                    rx = cc - h - cells[0, i, 0] + ao
                    anchors[_ROUGH, ry, rx] = 1.0
    reach = max(1, round(_value(s, obs, 0, s.col_reach) * 5))
    speed = max(1, round(_value(s, obs, 0, s.col_speed) * 12))
    if g == 0:
        front_max, rear_min = s.front_max_square, s.rear_min_square
    else:
        front_max, rear_min = s.front_max_hex, s.rear_min_hex
    return _Geo(
        g, strict, h, ao, front_max, rear_min, n_enemies, n_allies, n_dir, n_turn,
        own_has, own, reach, speed,
    )  # fmt: skip


@njit(cache=True)
def _workspace(s, shapes):
    """A row's arrays, reused from row to row: (cells, slots, anchors, turns)."""
    most = max(shapes.shape[2], s.window * s.window)
    cells = np.zeros((s.n_slots, most, 2), dtype=np.int64)
    slots = np.zeros((5, max(s.n_slots, s.n_directions)), dtype=np.int64)
    side = 2 * (2 * (s.window // 2) + 2) + 1
    anchors = np.zeros((4, side, side), dtype=np.float64)
    turns = np.zeros(s.n_directions, dtype=np.float64)
    return cells, slots, anchors, turns


@njit(cache=True, inline="always")
def _on(geo, anchors, plane, x, y):
    """Whether anchor ``(x, y)`` is on a plane of the anchor grid (False off the grid)."""
    i = y + geo.ao
    j = x + geo.ao
    if i < 0 or j < 0 or i >= anchors.shape[1] or j >= anchors.shape[2]:
        return False
    return anchors[plane, i, j] > 0.5
