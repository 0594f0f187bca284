"""Lookup tables of one grid kind and rule set, built from the reference geometry.

The kernels never redo the angle arithmetic of :mod:`facing_env.rules.geometry` (``atan2``,
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

import hashlib
import os
import zipfile
from collections.abc import Callable
from functools import cache, wraps
from typing import Any, NamedTuple, TypeVar

import numpy as np

from facing_env.fast import cache as _jit_cache
from facing_env.fast.state import AREA_CODES, SHAPES, State
from facing_env.rules import geometry, turns
from facing_env.rules.geometry import Shape
from facing_env.rules.movement import _step_area, step_geometry
from facing_env.tables import FEET_PER_SQUARE
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
    facing_to: np.ndarray  # (S, F, S, 2R+1, 2R+1) int8: engine.toward_creature by offset
    # -- charges (EP-CHG-01), for the footprints and reaches of one State: filled
    # by tables_of (charge_tables); tables_for leaves them empty (no shape tabulated)
    charge_shape: np.ndarray  # (S,) int32: a footprint's row in the charge tables, -1: none
    charge_reach: np.ndarray  # (C,) int32: the largest melee reach tabulated (squares)
    charge_span: np.ndarray  # (C,) int32: the largest anchor offset tabulated (squares)
    charge_ring: np.ndarray  # (C, C, 2Q+1, 2Q+1) int32: index of the target's offset q
    charge_bend: np.ndarray  # (C, C, NQ, 2P+1, 2P+1) float64: maneuvers._preference [0]
    charge_near: np.ndarray  # (C, C, NQ, 2P+1, 2P+1) float64: maneuvers._preference [1]
    route_path: np.ndarray  # (C, 2P+1, 2P+1, LP, 2) int32: squares of a charge's path
    route_n_path: np.ndarray  # (C, 2P+1, 2P+1) int32
    route_lane: np.ndarray  # (C, 2P+1, 2P+1, LL, 2) int32: squares its lane crosses
    route_n_lane: np.ndarray  # (C, 2P+1, 2P+1) int32
    charge_line: np.ndarray  # (2P+1, 2P+1, L, 2) int32: maneuvers.charge_path's positions
    charge_n_line: np.ndarray  # (2P+1, 2P+1) int32


def _fill_facing_to(
    out: np.ndarray, kind: GridKind, ruleset: Ruleset, a: Shape, b: Shape, radius: int
) -> None:
    """``out[a, f, b, dy + R, dx + R]``: :func:`engine.toward_creature` of a creature of
    footprint ``a`` facing ``f`` toward one of footprint ``b`` anchored ``(dx, dy)`` away.
    The angle is taken between the two centres as the engine takes it (from anchors
    ``(0, 0)`` and ``(dx, dy)``; on hex grids a centre is a rounded product, so another
    anchor pair can differ in the last bit of the angle, which the engine's rounding of
    the gap to 6 places absorbs: the apply kernel's tests check it on every scenario)."""
    ia, ib = SHAPES.index(a), SHAPES.index(b)
    n_facings = out.shape[1]
    ax, ay = a.centre_at((0, 0))
    for dy in range(-radius, radius + 1):
        for dx in range(-radius, radius + 1):
            bx, by = b.centre_at((dx, dy))
            angle = geometry.vector_angle(bx - ax, by - ay)
            for f in range(n_facings):
                out[ia, f, ib, dy + radius, dx + radius] = turns.closest_facing(
                    kind, ruleset, a, f, angle
                )


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


_F = TypeVar("_F", bound=Callable[..., Any])


def on_disk(function: _F) -> _F:
    """Keep ``function``'s arrays in this source version's cache directory
    (:func:`facing_env.fast.cache.active_dir`, ``tables/``), keyed by its name and the
    ``repr`` of its arguments: built once per machine, not once per process (the dragon's
    charge tables take seconds to build). A ``dict`` of arrays or a :class:`Tables` is
    stored with :func:`numpy.savez` and read back with ``allow_pickle=False``; a file that
    cannot be read is built again and rewritten; without a cache directory nothing is
    stored."""

    @wraps(function)
    def wrapper(*args: Any) -> Any:
        root = _jit_cache.active_dir()
        if root is None:
            return function(*args)
        key = hashlib.sha256(repr((function.__name__, args)).encode()).hexdigest()[:24]
        path = root / "tables" / f"{function.__name__}-{key}.npz"
        try:
            with np.load(path, allow_pickle=False) as data:
                fields = {name: data[name] for name in data.files}
            return _rebuild(function.__name__, fields)
        except (OSError, ValueError, KeyError, TypeError, zipfile.BadZipFile):
            pass  # not built yet, or unreadable: build it
        value = function(*args)
        fields = value._asdict() if isinstance(value, Tables) else value
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            partial = path.with_suffix(f".{os.getpid()}.tmp.npz")
            np.savez(partial, **fields)
            os.replace(partial, path)
        except OSError:
            pass  # a read-only cache: build again next time
        return value

    return wrapper  # type: ignore[return-value]


def _rebuild(name: str, fields: dict[str, np.ndarray]) -> Any:
    """What :func:`on_disk` stored: a :class:`Tables` (``tables_for``) or the dict."""
    if name != "tables_for":
        return fields
    if set(fields) != set(Tables._fields):
        raise KeyError("not a Tables")
    values = dict(fields)
    values["square"] = bool(values["square"])
    values["radius"] = int(values["radius"])
    return Tables(**values)


@cache
@on_disk
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
                toward[index[s], f, d] = turns.closest_facing(kind, ruleset, s, f, angle)
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
    facing_to = np.zeros((n_shapes, n_facings, n_shapes, width, width), dtype=np.int8)
    for a in wanted:
        for b in wanted:
            _fill_facing_to(facing_to, kind, ruleset, a, b, radius)
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
        facing_to,
        **_NO_CHARGES,
    )


def tables_of(state: State) -> Tables:
    """The tables for the battles of ``state`` (one grid kind and rule set, as in one
    scenario), filled for the footprints present (the tables grow with the board's area
    and with the pairs of footprints), with the charge tables of its creatures'
    footprints and reaches (:func:`charge_tables`)."""
    kinds, rulesets = set(state.kind.tolist()), set(state.ruleset.tolist())
    if len(kinds) != 1 or len(rulesets) != 1:
        raise ValueError("the battles of one State must share a grid kind and a rule set")
    kind, ruleset = _kind_ruleset(kinds.pop(), rulesets.pop())
    height, width = state.terrain.shape[1:]
    footprints = tuple(sorted(set(state.shape[state.present].tolist())))
    base = tables_for(kind, ruleset, radius_for(kind, height, width), footprints)
    return base._replace(**charge_tables(kind, base.radius, charge_profile(state)))


# -- charges (EP-CHG-01) --------------------------------------------------------------------

_MOST_OFFSET = max(abs(v) for s in SHAPES for o in s.offsets for v in o)
_UNIFORM = "uniform"


def charge_profile(state: State) -> tuple[tuple[int, int], ...]:
    """``(footprint row, largest melee reach in squares)`` per footprint of the present
    creatures of ``state``, by footprint row."""
    most: dict[int, int] = {}
    for i, k in zip(*np.nonzero(state.present), strict=True):
        n = state.n_attacks[i, k]
        melee = ~state.attack_ranged[i, k, :n]
        reach = int(state.attack_reach[i, k, :n][melee].max(initial=0)) // FEET_PER_SQUARE
        row = int(state.shape[i, k])
        most[row] = max(most.get(row, 0), reach)
    return tuple(sorted(most.items()))


_NO_CHARGES = {
    "charge_shape": np.full(len(SHAPES), -1, dtype=np.int32),
    "charge_reach": np.zeros(0, dtype=np.int32),
    "charge_span": np.zeros(0, dtype=np.int32),
    "charge_ring": np.zeros((0, 0, 1, 1), dtype=np.int32),
    "charge_bend": np.zeros((0, 0, 0, 1, 1)),
    "charge_near": np.zeros((0, 0, 0, 1, 1)),
    "route_path": np.zeros((0, 1, 1, 0, 2), dtype=np.int32),
    "route_n_path": np.zeros((0, 1, 1), dtype=np.int32),
    "route_lane": np.zeros((0, 1, 1, 0, 2), dtype=np.int32),
    "route_n_lane": np.zeros((0, 1, 1), dtype=np.int32),
    "charge_line": np.zeros((1, 1, 0, 2), dtype=np.int32),
    "charge_n_line": np.zeros((1, 1), dtype=np.int32),
}
"""The charge fields of tables that tabulate no footprint (:func:`tables_for`)."""


def _yx(cell: tuple[int, int]) -> tuple[int, int]:
    return (cell[1], cell[0])


@cache
@on_disk
def charge_tables(
    kind: GridKind | int, radius: int, profile: tuple[tuple[int, int], ...]
) -> dict[str, np.ndarray]:
    """The charge fields of :class:`Tables` for a :func:`charge_profile`, built by the
    reference (:mod:`facing_env.rules.maneuvers`), anchors up to ``radius`` apart.

    A charge's candidates are the anchors ``p`` (relative to the mover's) within its
    allowance from which its reach covers a target square without sharing one; the
    kernels find them with the integer geometry and read here what comes from angles and
    lines: the preference among equally close ones (``maneuvers._preference`` of ``p``
    and the target's anchor ``p + q``, at ``charge_ring[mover, target, q]``) and the
    squares of the path and of the lane of a charge to ``p`` (``maneuvers._route``).
    Offsets ``q`` go up to the footprint's largest melee reach (``charge_reach``) under
    either diagonal rule, anchors ``p`` up to ``radius`` (``charge_span``: any speed; two
    anchors on the board are no further apart). ``charge_line`` holds the anchor
    positions of ``maneuvers.charge_path`` from ``(0, 0)`` to ``p``."""
    from facing_env.rules.maneuvers import _line, _preference, _route

    if isinstance(kind, (int, np.integer)):
        kind = _kind_ruleset(kind, 0)[0]
    kind = GridKind(kind)
    n = len(profile)
    shapes = [SHAPES[row] for row, _ in profile]
    index = np.full(len(SHAPES), -1, dtype=np.int32)
    for c, (row, _) in enumerate(profile):
        index[row] = c
    reach = np.array([r for _, r in profile], dtype=np.int32)
    span = np.full(n, radius, dtype=np.int32)
    rings: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for cm, m in enumerate(shapes):
        extent = int(reach[cm]) + 2 * _MOST_OFFSET + 1
        for ct, target in enumerate(shapes):
            # uniform distances are the shorter: the ring of either diagonal rule
            rings[cm, ct] = [
                (qx, qy)
                for qy in range(-extent, extent + 1)
                for qx in range(-extent, extent + 1)
                if 0 < geometry.footprint_distance(kind, m, target, (qx, qy), _UNIFORM) <= reach[cm]
            ]
    q_most = max((abs(v) for ring in rings.values() for q in ring for v in q), default=0)
    n_q = max((len(ring) for ring in rings.values()), default=0)
    p_most = int(span.max(initial=0))
    width = 2 * p_most + 1
    ring_index = np.full((n, n, 2 * q_most + 1, 2 * q_most + 1), -1, dtype=np.int32)
    bend = np.full((n, n, n_q, width, width), np.nan)
    near = np.full((n, n, n_q, width, width), np.nan)
    for (cm, ct), ring in rings.items():
        a = int(span[cm])
        for j, (qx, qy) in enumerate(ring):
            ring_index[cm, ct, qy + q_most, qx + q_most] = j
            for py in range(-a, a + 1):
                for px in range(-a, a + 1):
                    key = _preference(shapes[cm], shapes[ct], (px + qx, py + qy), (px, py))
                    bend[cm, ct, j, py + p_most, px + p_most] = key[0]
                    near[cm, ct, j, py + p_most, px + p_most] = key[1]
    routes = {
        (cm, px, py): _route(kind, m, (px, py))
        for cm, m in enumerate(shapes)
        for py in range(-int(span[cm]), int(span[cm]) + 1)
        for px in range(-int(span[cm]), int(span[cm]) + 1)
    }
    most_path = max((len(r[1]) for r in routes.values()), default=0)
    most_lane = max((len(r[2]) for r in routes.values()), default=0)
    path = np.zeros((n, width, width, most_path, 2), dtype=np.int32)
    n_path = np.zeros((n, width, width), dtype=np.int32)
    lane = np.zeros((n, width, width, most_lane, 2), dtype=np.int32)
    n_lane = np.zeros((n, width, width), dtype=np.int32)
    for (cm, px, py), (_, squares, crossed, _) in routes.items():
        at = (cm, py + p_most, px + p_most)
        n_path[at] = len(squares)
        if squares:
            path[at][: len(squares)] = sorted(squares, key=_yx)
        n_lane[at] = len(crossed)
        if crossed:
            lane[at][: len(crossed)] = sorted(crossed, key=_yx)
    lines = {
        (px, py): _line(kind, (0, 0), (px, py))
        for py in range(-p_most, p_most + 1)
        for px in range(-p_most, p_most + 1)
    }
    line = np.zeros((width, width, max(map(len, lines.values())), 2), dtype=np.int32)
    n_line = np.zeros((width, width), dtype=np.int32)
    for (px, py), positions in lines.items():
        n_line[py + p_most, px + p_most] = len(positions)
        if positions:
            line[py + p_most, px + p_most, : len(positions)] = positions
    return {
        "charge_shape": index,
        "charge_reach": reach,
        "charge_span": span,
        "charge_ring": ring_index,
        "charge_bend": bend,
        "charge_near": near,
        "route_path": path,
        "route_n_path": n_path,
        "route_lane": lane,
        "route_n_lane": n_lane,
        "charge_line": line,
        "charge_n_line": n_line,
    }
