"""Board primitives of the batched engine: numba functions over a :class:`State` row.

Integer geometry only (cells, distances, terrain, occupancy); what comes from angles is
read from :class:`~facing_env.fast.lookup.Tables`. Every function takes the state ``s``
and the battle row ``i`` first; creatures are slots ``k``. Each mirrors one reference
function, named in its docstring; ``tests/test_fast_geo.py`` compares them on random
states of every scenario. ``NUMBA_DISABLE_JIT=1`` runs them as plain Python. They are
:data:`~facing_env.fast.jit.kernel` s (no reference counting, no allocation).
"""

from __future__ import annotations

import numpy as np

from facing_env.fast.jit import inline_kernel, kernel
from facing_env.fast.lookup import NONE_CODE
from facing_env.fast.state import SHAPE_CELLS, SHAPE_OFFSETS
from facing_env.tables import SIZES
from facing_env.types import Size, Terrain

BLOCKED = np.int8(Terrain.BLOCKED)
PILLAR = np.int8(Terrain.PILLAR)
DIFFICULT = np.int8(Terrain.DIFFICULT)
IMPEDED = np.int8(Terrain.IMPEDED)
HAZARDOUS = np.int8(Terrain.HAZARDOUS)
OPEN = np.int8(Terrain.OPEN)

SIZE_HAS_FACING = np.array([SIZES[Size(v)].has_facing for v in range(len(Size))])
"""``[size]``: whether a size category has facing (UA-FACE-06, UA-FCL-02)."""
SIZE_MODIFIER = np.array([SIZES[Size(v)].modifier for v in range(len(Size))], dtype=np.int32)
SHARE_GAP = 2  # tables.SHARED_SPACE_SIZE_GAP

_OFFSETS = SHAPE_OFFSETS
_CELLS = SHAPE_CELLS


@kernel
def terrain_at(s, i, x, y):
    """``Battle.terrain_at``: the terrain of cell ``(x, y)``; off the board: blocked."""
    row = y
    col = x if s.kind[i] == 0 else x + (y >> 1)
    if row < 0 or col < 0 or row >= s.height[i] or col >= s.width[i]:
        return BLOCKED
    return s.terrain[i, row, col]


@kernel
def cell_distance(s, i, ax, ay, bx, by):
    """``geometry.cell_distance`` under the battle's grid and diagonal rule."""
    dx = ax - bx
    dy = ay - by
    if s.kind[i] == 1:
        return (abs(dx) + abs(dy) + abs(dx + dy)) // 2
    dx = abs(dx)
    dy = abs(dy)
    hi = dx if dx >= dy else dy
    lo = dy if dx >= dy else dx
    return hi + lo // 2 if s.diagonal[i] == 0 else hi


@kernel
def footprint_distance(s, i, shape_a, ax, ay, shape_b, bx, by):
    """``geometry.cells_distance`` between two footprints anchored at ``(ax, ay)`` and
    ``(bx, by)``."""
    best = 1 << 30
    for p in range(_CELLS[shape_a]):
        px = ax + _OFFSETS[shape_a, p, 0]
        py = ay + _OFFSETS[shape_a, p, 1]
        for q in range(_CELLS[shape_b]):
            d = cell_distance(
                s, i, px, py, bx + _OFFSETS[shape_b, q, 0], by + _OFFSETS[shape_b, q, 1]
            )
            if d < best:
                best = d
    return best


@kernel
def creature_distance(s, i, a, b):
    """Cells between the spaces of creatures ``a`` and ``b`` (``Battle.cells_distance``)."""
    return footprint_distance(
        s, i, s.shape[i, a], s.x[i, a], s.y[i, a], s.shape[i, b], s.x[i, b], s.y[i, b]
    )


@inline_kernel
def covers(s, i, k, x, y):
    """Whether creature ``k``'s space (at its position) includes cell ``(x, y)``."""
    shape = s.shape[i, k]
    dx = x - s.x[i, k]
    dy = y - s.y[i, k]
    for p in range(_CELLS[shape]):
        if _OFFSETS[shape, p, 0] == dx and _OFFSETS[shape, p, 1] == dy:
            return True
    return False


@kernel
def alive(s, i, k):
    """A present creature with hit points above 0."""
    return s.present[i, k] and s.hp[i, k] > 0


@kernel
def winner(s, i):
    """``engine.winner``: the team index of the last team standing, -1 for none (nobody
    left, or two teams still fighting: see :func:`is_over`)."""
    team = -1
    for k in range(s.n_creatures[i]):
        if alive(s, i, k):
            if team < 0:
                team = s.team[i, k]
            elif s.team[i, k] != team:
                return -2
    return team


@kernel
def is_over(s, i):
    """``engine.is_over``: at most one team has living creatures."""
    return winner(s, i) != -2


@kernel
def has_facing(s, i, k):
    """``Battle.table(c) is not None``: the rule set and the creature both have facing."""
    return s.ruleset[i] != 2 and SIZE_HAS_FACING[s.size[i, k]] and not s.faceless[i, k]


@kernel
def steps_over(s, i, m, o):
    """``rules.movement._steps_over``: ``m`` is two or more size categories larger than
    ``o`` (EP-STEP-01)."""
    return s.size[i, m] - s.size[i, o] >= SHARE_GAP


@kernel
def area_code(t, s, i, k, x, y):
    """``rules._common.cell_area``: the area code of cell ``(x, y)`` relative to creature
    ``k`` (``tables.NONE_CODE`` when it has no facing)."""
    if not has_facing(s, i, k):
        return NONE_CODE
    r = t.radius
    return t.area[s.shape[i, k], s.facing[i, k], y - s.y[i, k] + r, x - s.x[i, k] + r]


@kernel
def side_code(t, s, i, k, x, y):
    """The side code (``tables.SIDE_CODES``) of cell ``(x, y)`` relative to creature ``k``."""
    r = t.radius
    return t.side[s.shape[i, k], s.facing[i, k], y - s.y[i, k] + r, x - s.x[i, k] + r]
