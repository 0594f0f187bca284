"""Symmetry properties: the rules have no preferred direction or origin.

Rotating a board by 90 degrees rotates every answer, mirroring it east-west swaps left and
right and keeps every area, translating it changes nothing. Rule ids: UA-FACE-01..04 (the
areas are defined relative to the facing only), IC-01, IC-03, IC-04, IC-06, IC-07, IC-11,
IC-16, EP-TER-04, SRD-AOO-02, EP-FLANK-02.
"""

from __future__ import annotations

from typing import Any, Callable

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from facing_env import Battle, ScenarioError
from facing_env.rules import (
    area_of,
    areas,
    facing_modifier,
    provokers,
    side_of,
    step_cost,
    threatened_cells,
)
from facing_env.rules.geometry import allowed_facings, area_table, default_shape, hex_distance
from facing_env.types import GridKind, Ruleset, Size

N = 9  # side of the square board used for rotations and mirrors
WORLD = 8  # translation: the generated world, shifted inside a bigger board
BIG = 15
DIRS = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
SIDE = {"Tiny": 1, "Small": 1, "Medium": 1, "Large": 2, "Huge": 3}
TERRAIN_KINDS = ("blocked", "pillar", "difficult", "impeded")
PROPERTY = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
)

Pos = tuple[int, int]


@st.composite
def battles(draw: st.DrawFn, lo: int = 0, hi: int = N) -> dict[str, Any]:
    """A spec: a rule set, a few terrain cells and 2-3 creatures whose spaces lie inside
    ``[lo, hi)`` on both axes (terrain anywhere in ``[lo - 1, hi + 1)`` clipped to 0..)."""
    ruleset = draw(st.sampled_from(["ua35", "side_rear", "standard"]))
    t_lo, t_hi = max(lo - 1, 0), min(hi + 1, N)
    cell = st.tuples(st.integers(t_lo, t_hi - 1), st.integers(t_lo, t_hi - 1))
    terrain = draw(st.dictionaries(cell, st.sampled_from(TERRAIN_KINDS), max_size=8))
    creatures = []
    taken: set[Pos] = set()
    count = draw(st.integers(2, 3))
    for i in range(count):
        size = draw(st.sampled_from(["Medium", "Medium", "Large", "Small", "Tiny", "Huge"]))
        n = SIDE[size]
        x = draw(st.integers(lo, hi - n))
        y = draw(st.integers(lo, hi - n))
        space = {(x + i2, y + j) for i2 in range(n) for j in range(n)}
        assume(not space & taken)
        taken |= space
        if ruleset == "side_rear" and n > 1:
            facing = draw(st.sampled_from(["N", "E", "S", "W"]))
        else:
            facing = draw(st.sampled_from(DIRS))
        fields: dict[str, Any] = {
            "id": f"c{i}",
            "team": draw(st.sampled_from(["red", "blue"])),
            "size": size,
            "pos": [x, y],
            "facing": facing,
        }
        if draw(st.integers(0, 5)) == 0:
            fields["faceless"] = True
        if draw(st.integers(0, 3)) == 0:
            fields["attacks"] = [{"reach": 10}]
        creatures.append(fields)
    for p in taken:  # creatures never stand on blocked terrain
        if terrain.get(p) in ("blocked", "pillar"):
            del terrain[p]
    return {
        "ruleset": ruleset,
        "grid": {"width": N, "height": N},
        "terrain": [{"pos": list(p), "kind": k} for p, k in sorted(terrain.items())],
        "creatures": creatures,
    }


def _transform(
    spec: dict[str, Any],
    cell: Callable[[Pos], Pos],
    pos: Callable[[Pos, int], Pos],
    facing: Callable[[str], str],
    size: int | None = None,
) -> dict[str, Any]:
    out = {**spec, "terrain": [], "creatures": []}
    if size is not None:
        out["grid"] = {"width": size, "height": size}
    for t in spec["terrain"]:
        out["terrain"].append({"pos": list(cell(tuple(t["pos"]))), "kind": t["kind"]})
    for c in spec["creatures"]:
        n = SIDE[c["size"]]
        out["creatures"].append(
            {**c, "pos": list(pos(tuple(c["pos"]), n)), "facing": facing(c["facing"])}
        )
    return out


def rot_cell(p: Pos) -> Pos:
    """Clockwise quarter turn of a square of the N x N board (N becomes E)."""
    return (N - 1 - p[1], p[0])


def rot_pos(p: Pos, n: int) -> Pos:
    return (N - n - p[1], p[0])


def rot_dir(d: str) -> str:
    return DIRS[(DIRS.index(d) + 2) % 8]


def mir_cell(p: Pos) -> Pos:
    """East-west mirror of a square of the N x N board."""
    return (N - 1 - p[0], p[1])


def mir_pos(p: Pos, n: int) -> Pos:
    return (N - n - p[0], p[1])


def mir_dir(d: str) -> str:
    return DIRS[(8 - DIRS.index(d)) % 8]


def _build(spec: dict[str, Any]) -> Battle:
    try:
        return Battle.from_spec(spec)
    except ScenarioError:
        assume(False)
        raise


def _ids(battle: Battle) -> list[str]:
    return [c["id"] for c in battle.to_spec()["creatures"]]


def _path(draw: st.DrawFn, start: Pos) -> list[Pos]:
    steps = draw(st.lists(st.sampled_from(DIRS), min_size=1, max_size=4))
    vec = {
        "N": (0, -1),
        "NE": (1, -1),
        "E": (1, 0),
        "SE": (1, 1),
        "S": (0, 1),
        "SW": (-1, 1),
        "W": (-1, 0),
        "NW": (-1, -1),
    }
    path, (x, y) = [start], start
    for d in steps:
        x, y = x + vec[d][0], y + vec[d][1]
        path.append((x, y))
    return path


ALL_CELLS = [(x, y) for y in range(N) for x in range(N)]


def _step_costs(battle: Battle, cid: str, dirs: tuple[str, ...]) -> list[Any]:
    return [
        step_cost(battle, cid, d, turn_first=tf, five_foot_step=ff, diagonals_so_far=k)
        for d in dirs
        for tf, ff, k in ((False, False, 0), (False, False, 1), (True, False, 0), (False, True, 0))
    ]


# -- rotation --------------------------------------------------------------------------------------


@PROPERTY
@given(spec=battles())
def test_rotation_rotates_areas(spec):
    """UA-FACE-01..03, IC-01, IC-03, IC-04: a quarter turn of the board (facings turned
    with it) turns every area answer with it, for cells and for creatures."""
    b = _build(spec)
    r = _build(_transform(spec, rot_cell, rot_pos, rot_dir))
    for cid in _ids(b):
        assert [area_of(b, cid, p) for p in ALL_CELLS] == [
            area_of(r, cid, rot_cell(p)) for p in ALL_CELLS
        ]
        for other in _ids(b):
            if other != cid:
                assert area_of(b, cid, other) == area_of(r, cid, other)
                assert side_of(b, cid, other) == side_of(r, cid, other)


@PROPERTY
@given(spec=battles())
def test_rotation_rotates_step_costs(spec):
    """UA-MOVE-03/04, IC-06, IC-07, EP-TER-01..04, EP-WALK-01: step costs turn with the
    board (walls, corners, allies, enemies and the board edge included)."""
    b = _build(spec)
    r = _build(_transform(spec, rot_cell, rot_pos, rot_dir))
    for cid in _ids(b):
        assert _step_costs(b, cid, DIRS) == _step_costs(r, cid, tuple(rot_dir(d) for d in DIRS))


@PROPERTY
@given(spec=battles())
def test_rotation_keeps_facing_modifiers(spec):
    """UA-ATK-01/02, UA-OPP-01/02, SR-07/08, SRD-FLANK-01 (EP-FLANK-02 line rule), IC-04,
    IC-09: attack-roll facing modifiers do not depend on the board's orientation."""
    b = _build(spec)
    r = _build(_transform(spec, rot_cell, rot_pos, rot_dir))
    for a in _ids(b):
        for d in _ids(b):
            if a != d:
                for kind in ("attack", "aoo"):
                    assert facing_modifier(b, a, d, kind=kind) == facing_modifier(
                        r, a, d, kind=kind
                    )
                assert facing_modifier(b, a, d, ranged=True) == facing_modifier(
                    r, a, d, ranged=True
                )


@PROPERTY
@given(spec=battles(), data=st.data())
def test_rotation_keeps_provokers(spec, data):
    """SRD-AOO-01/02, EP-THR-01, IC-12: who gets an attack of opportunity for a path does
    not depend on the board's orientation; threatened squares turn with the board."""
    b = _build(spec)
    r = _build(_transform(spec, rot_cell, rot_pos, rot_dir))
    ids = _ids(b)
    mover = data.draw(st.sampled_from(ids))
    size = SIDE[next(c["size"] for c in spec["creatures"] if c["id"] == mover)]
    start = tuple(next(c["pos"] for c in spec["creatures"] if c["id"] == mover))
    path = _path(data.draw, start)
    rpath = [rot_pos(p, size) for p in path]
    for mode in ("walk", "withdraw"):
        assert provokers(b, mover, path, mode=mode) == provokers(r, mover, rpath, mode=mode)
    for cid in ids:
        assert {rot_cell(p) for p in threatened_cells(b, cid)} == set(threatened_cells(r, cid))


# -- mirror ----------------------------------------------------------------------------------------


@PROPERTY
@given(spec=battles())
def test_mirror_swaps_left_and_right(spec):
    """IC-16 (left = counter-clockwise of the facing), UA-SHLD-02, UA-FACE-02/03: an
    east-west mirror swaps every left and right and keeps every area."""
    b = _build(spec)
    m = _build(_transform(spec, mir_cell, mir_pos, mir_dir))
    swap = {"left": "right", "right": "left", "centre": "centre"}
    for cid in _ids(b):
        assert [area_of(b, cid, p) for p in ALL_CELLS] == [
            area_of(m, cid, mir_cell(p)) for p in ALL_CELLS
        ]
        assert [swap[side_of(b, cid, p)] for p in ALL_CELLS] == [
            side_of(m, cid, mir_cell(p)) for p in ALL_CELLS
        ]
        assert {k: {mir_cell(p) for p in v} for k, v in areas(b, cid).items()} == {
            k: set(v) for k, v in areas(m, cid).items()
        }
        assert _step_costs(b, cid, DIRS) == _step_costs(m, cid, tuple(mir_dir(d) for d in DIRS))


# -- translation -----------------------------------------------------------------------------------


@PROPERTY
@given(spec=battles(lo=1, hi=WORLD - 1), dx=st.integers(0, BIG - WORLD), dy=st.integers(0, 7))
def test_translation_changes_nothing(spec, dx, dy):
    """UA-FACE-01..04 and every rule query: moving the whole board content changes no
    answer (creatures stay a square away from the generated world's edge, so the cells a
    step inspects are the same ones)."""
    spec = {**spec, "grid": {"width": BIG, "height": BIG}}
    b = _build(spec)

    def shift(p: Pos) -> Pos:
        return (p[0] + dx, p[1] + dy)

    t = _build(_transform(spec, shift, lambda p, n: shift(p), lambda f: f, size=BIG))
    cells = [(x, y) for y in range(WORLD) for x in range(WORLD)]
    ids = _ids(b)
    for cid in ids:
        assert [area_of(b, cid, p) for p in cells] == [area_of(t, cid, shift(p)) for p in cells]
        assert [side_of(b, cid, p) for p in cells] == [side_of(t, cid, shift(p)) for p in cells]
        assert _step_costs(b, cid, DIRS) == _step_costs(t, cid, DIRS)
        assert {shift(p) for p in threatened_cells(b, cid)} == set(threatened_cells(t, cid))
        for other in ids:
            if other != cid:
                assert facing_modifier(b, cid, other) == facing_modifier(t, cid, other)
                assert area_of(b, cid, other) == area_of(t, cid, other)
        start = tuple(next(c["pos"] for c in spec["creatures"] if c["id"] == cid))
        path = [start, (start[0] + 1, start[1]), (start[0] + 1, start[1] + 1)]
        assert provokers(b, cid, path) == provokers(t, cid, [shift(p) for p in path])


# -- hex rotation (exhaustive, geometry only) ------------------------------------------------------


def _hex_rot(p: Pos) -> Pos:
    """60 degrees counter-clockwise about the origin hex, axial pointy-top."""
    return (p[0] + p[1], -p[0])


def test_hex_rotation_rotates_areas():
    """UA-HEX-03, IC-05, SR-06: turning a single-hex or hexagon creature 60 degrees (two
    30-degree facing steps) turns its areas with it, ring and beyond (IC-03)."""
    disc = [(q, r) for q in range(-4, 5) for r in range(-4, 5)]
    cells = [c for c in disc if hex_distance((0, 0), c) <= 4]
    for ruleset in (Ruleset.UA35, Ruleset.SIDE_REAR):
        for size in (Size.MEDIUM, Size.HUGE, Size.COLOSSAL):
            shape = default_shape(GridKind.HEX, size)
            for facing in allowed_facings(GridKind.HEX, ruleset, shape):
                here = area_table(GridKind.HEX, ruleset, shape, facing)
                turned = area_table(GridKind.HEX, ruleset, shape, (facing + 2) % 12)
                for c in cells:
                    assert here.lookup(c) == turned.lookup(_hex_rot(c)), (size, facing, c)
