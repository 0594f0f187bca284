"""Lookup tables of one grid kind and rule set, built from the reference geometry.

The kernels never redo the angle arithmetic of :mod:`facing_env.geometry` (``atan2``,
``fmod`` and rounding to 6 places would have to match the reference to the last bit):
every answer that comes from an angle is read from a table filled by the reference
functions themselves, so the two engines agree by construction. The integer geometry
(distances, cells of a footprint) is computed in the kernels.

:func:`tables_for` builds (and caches) a :class:`Tables` for a grid kind, a rule set,
the footprints of a scenario and a board radius. Axes: ``shape`` a row of
:data:`facing_env.fast.state.SHAPES`, ``facing`` a facing index, ``d`` a movement
direction, ``(dy, dx)`` an offset from an anchor shifted by ``radius``.
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

import numpy as np

from facing_env import engine, geometry
from facing_env.fast.state import AREA_CODES, SHAPES, State
from facing_env.rules.movement import _step_area, step_geometry
from facing_env.types import Area, GridKind, Ruleset, Side

SIDE_CODES: tuple[Side, ...] = (Side.LEFT, Side.RIGHT, Side.CENTRE)
"""Sides as codes 0-2."""
NONE_CODE = AREA_CODES.index(Area.NONE)
FRONT_CODE = AREA_CODES.index(Area.FRONT)


class Tables(NamedTuple):
    """The geometry of one grid kind and rule set (see the module docstring)."""

    square: bool
    radius: int
    vectors: np.ndarray  # (D, 2) int32: direction d's (dx, dy)
    diagonal: np.ndarray  # (D,) bool: a diagonal step (square grids)
    entered: np.ndarray  # (S, D, E, 2) int32: cells a step enters, relative to the anchor
    n_entered: np.ndarray  # (S, D) int32
    corners: np.ndarray  # (S, D, C, 2) int32: wall corners a diagonal step would cut
    n_corners: np.ndarray  # (S, D) int32
    allowed: np.ndarray  # (S, F) bool: facings a footprint may take
    toward: np.ndarray  # (S, F, D) int32: the allowed facing closest to direction d
    step_front: np.ndarray  # (F, D) bool: a step in direction d enters the front (IC-06)
    area: np.ndarray  # (S, F, 2R+1, 2R+1) int8: area code of an offset (AreaTable.lookup)
    side: np.ndarray  # (S, F, 2R+1, 2R+1) int8: side code of an offset (IC-16)


def _kind_ruleset(kind: GridKind | int, ruleset: Ruleset | int) -> tuple[GridKind, Ruleset]:
    from facing_env.fast.state import KINDS, RULESETS

    k = KINDS[kind] if isinstance(kind, (int, np.integer)) else GridKind(kind)
    r = RULESETS[ruleset] if isinstance(ruleset, (int, np.integer)) else Ruleset(ruleset)
    return k, r


def radius_for(kind: GridKind, height: int, width: int) -> int:
    """The largest offset, in either coordinate, between two cells of footprints on a
    ``height x width`` board (hex boards store odd-r rows: axial ``q`` spans ``width +
    height / 2``)."""
    side = max(max(abs(v) for o in s.offsets for v in o) for s in SHAPES) + 1
    extra = (height + 1) // 2 if kind is GridKind.HEX else 0
    return max(width + extra, height) + side


@cache
def tables_for(
    kind: GridKind, ruleset: Ruleset, radius: int, footprints: tuple[int, ...] | None = None
) -> Tables:
    """The tables of a grid kind and rule set for offsets up to ``radius`` cells (see
    :func:`radius_for`). The area tables are filled for the footprints ``footprints`` (rows of
    :data:`~facing_env.fast.state.SHAPES`; default: all of the grid kind) and left at
    ``NONE_CODE`` for the others."""
    kind, ruleset = _kind_ruleset(kind, ruleset)
    vectors = geometry.direction_vectors(kind)
    n_dirs, n_facings = len(vectors), len(geometry.facing_names(kind))
    shapes = [s for s in SHAPES if s.kind is kind]
    wanted = [s for s in shapes if footprints is None or SHAPES.index(s) in footprints]
    index = {s: SHAPES.index(s) for s in shapes}
    n_shapes = len(SHAPES)
    geo = {(s, d): step_geometry(kind, s, d) for s in shapes for d in range(n_dirs)}
    most_entered = max(len(g.entered) for g in geo.values())
    most_corners = max(max(len(g.corners) for g in geo.values()), 1)
    entered = np.zeros((n_shapes, n_dirs, most_entered, 2), dtype=np.int32)
    n_entered = np.zeros((n_shapes, n_dirs), dtype=np.int32)
    corners = np.zeros((n_shapes, n_dirs, most_corners, 2), dtype=np.int32)
    n_corners = np.zeros((n_shapes, n_dirs), dtype=np.int32)
    for (s, d), g in geo.items():
        i = index[s]
        n_entered[i, d] = len(g.entered)
        entered[i, d, : len(g.entered)] = g.entered
        n_corners[i, d] = len(g.corners)
        if g.corners:
            corners[i, d, : len(g.corners)] = g.corners
    diagonal = np.array([step_geometry(kind, shapes[0], d).diagonal for d in range(n_dirs)])
    allowed = np.zeros((n_shapes, n_facings), dtype=np.bool_)
    toward = np.zeros((n_shapes, n_facings, n_dirs), dtype=np.int32)
    for s in shapes:
        for f in geometry.allowed_facings(kind, ruleset, s):
            allowed[index[s], f] = True
        for f in range(n_facings):
            for d in range(n_dirs):
                angle = geometry.direction_angle(kind, d)
                toward[index[s], f, d] = engine._closest_facing_cached(kind, ruleset, s, f, angle)
    step_front = np.array(
        [
            [_step_area(kind, ruleset, f, d) == Area.FRONT.value for d in range(n_dirs)]
            for f in range(n_facings)
        ],
        dtype=np.bool_,
    )
    width = 2 * radius + 1
    area = np.full((n_shapes, n_facings, width, width), NONE_CODE, dtype=np.int8)
    side = np.full((n_shapes, n_facings, width, width), SIDE_CODES.index(Side.CENTRE), np.int8)
    for s in wanted:
        for f in range(n_facings):
            table = geometry.area_table(kind, ruleset, s, f)
            for dy in range(-radius, radius + 1):
                for dx in range(-radius, radius + 1):
                    cell = table.lookup((dx, dy))
                    area[index[s], f, dy + radius, dx + radius] = AREA_CODES.index(cell.area)
                    side[index[s], f, dy + radius, dx + radius] = SIDE_CODES.index(cell.side)
    return Tables(
        kind is GridKind.SQUARE,
        radius,
        np.array(vectors, dtype=np.int32),
        diagonal,
        entered,
        n_entered,
        corners,
        n_corners,
        allowed,
        toward,
        step_front,
        area,
        side,
    )


def tables_of(state: State) -> Tables:
    """The tables for the battles of ``state`` (one grid kind and rule set, as in one
    scenario): every footprint of the grid kind on boards up to 32 cells a side, only the
    footprints present on larger ones (whose tables grow with the board's area)."""
    kinds, rulesets = set(state.kind.tolist()), set(state.ruleset.tolist())
    if len(kinds) != 1 or len(rulesets) != 1:
        raise ValueError("the battles of one State must share a grid kind and a rule set")
    kind, ruleset = _kind_ruleset(kinds.pop(), rulesets.pop())
    height, width = state.terrain.shape[1:]
    footprints = None
    if max(height, width) > 32:
        footprints = tuple(sorted(set(state.shape[state.present].tolist())))
    return tables_for(kind, ruleset, radius_for(kind, height, width), footprints)
