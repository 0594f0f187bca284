"""Geometry queries around a creature: left and right (``side_of``), distances, squares
beyond an area (``area_of``), creatures without facing, the space facing never changes,
side_rear multi-square facings, and pickled shapes.

Rule ids are defined in docs/rules.md: IC-16, UA-SHLD-02, UA-HEX-01, IC-07, EP-GEN-02,
SRD-AOO-01, IC-03, IC-04, UA-OPP-01/02, UA-FACE-03..06, UA-FCL-01/02, IC-18, IC-11, SR-05.
"""

from __future__ import annotations

import pytest

from facing_env import Battle, ScenarioError
from facing_env.rules import area_counts, area_of, areas, side_of, threatened_cells
from facing_env.rules.geometry import hex_distance, square_distance
from tests.boards import board

SQUARE_DIAGONAL = ("NE", "SE", "SW", "NW")


# -- left and right (IC-16) -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("facing", "cell", "expected"),
    [
        ("N", (4, 5), "left"),  # W flank
        ("N", (6, 5), "right"),  # E flank
        ("N", (4, 4), "left"),  # NW front corner
        ("N", (5, 4), "centre"),
        ("N", (5, 6), "centre"),
        ("NE", (4, 4), "left"),  # NW corner is the left flank of a NE facer
        ("NE", (6, 6), "right"),  # SE corner is the right flank
        ("E", (5, 4), "left"),  # facing E, north is left
        ("S", (6, 5), "left"),  # facing S, east is left
        ("W", (5, 6), "left"),  # facing W, south is left
    ],
)
def test_left_right_square(facing, cell, expected):
    """IC-16, UA-SHLD-02: left = 90 degrees counter-clockwise of the facing on a north-up map."""
    battle = _medium_at_5_5("ua35", facing)
    assert side_of(battle, "m", cell) == expected


def test_left_right_flank_areas_medium_n():
    """IC-16, UA-FACE-02: facing N, the left flank is W and the right flank is E."""
    battle = _medium_at_5_5("ua35", "N")
    flank = areas(battle, "m")["flank"]
    assert {c: side_of(battle, "m", c) for c in flank} == {(4, 5): "left", (6, 5): "right"}


def test_left_right_large_n():
    """IC-16: the whole west column of a Large N facer's flank is on its left."""
    battle = board(
        """
        . . . .
        . L L .
        . L L .
        . . . .
        """,
        L={"facing": "N"},
    )
    sides = {c: side_of(battle, "L", c) for c in areas(battle, "L")["flank"]}
    assert sides == {(0, 1): "left", (0, 2): "left", (3, 1): "right", (3, 2): "right"}


def test_left_right_hex_facing_e():
    """IC-16, UA-SHLD-02: hex facing E, the left flank is the NW hex, the right the SW hex."""
    battle = Battle.from_spec(
        {
            "grid": {"kind": "hex", "width": 9, "height": 9},
            "creatures": [{"id": "h", "size": "Medium", "pos": [3, 4], "facing": "E"}],
        }
    )
    assert side_of(battle, "h", (3, 3)) == "left"  # NW (0,-1)
    assert side_of(battle, "h", (2, 5)) == "right"  # SW (-1,+1)
    assert areas(battle, "h")["flank"] == frozenset({(3, 3), (2, 5)})


@pytest.mark.parametrize(
    ("picture", "expected"),
    [
        (
            """. . . . .
            . . M . .
            . B B B .
            . B B B .
            . B B B .""",
            "centre",
        ),  # rear squares on both sides
        (
            """. . . . .
            . . M . .
            . . B B .
            . . B B .
            . . . . .""",
            "right",
        ),  # rear squares straight behind and to the right
        (
            """. . . . .
            B B M . .
            B B . . .
            . . . . .
            . . . . .""",
            "left",
        ),
    ],
)
def test_left_right_of_a_creature(picture, expected):
    """IC-16 with IC-04: a creature is left or right by its squares in its most exposed
    area; one straddling both sides is centre (the answer must not depend on the order of
    its squares, see test_properties)."""
    battle = board(picture, M={"facing": "N"})
    assert side_of(battle, "M", "B") == expected


# -- distances (UA-HEX-01, IC-07) ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ((0, 0), (0, 0), 0),
        ((0, 0), (1, 0), 1),
        ((0, 0), (3, -1), 3),
        ((0, 0), (2, 2), 4),
        ((1, -2), (-2, 1), 3),
        ((0, 0), (-3, 0), 3),
        ((2, 3), (-1, 1), 5),
    ],
)
def test_hex_distance(a, b, expected):
    """UA-HEX-01: count hexes by the shorter path, (|dq| + |dr| + |dq + dr|) / 2."""
    assert hex_distance(a, b) == expected
    assert hex_distance(b, a) == expected


@pytest.mark.parametrize(
    ("dx", "dy", "alternating", "uniform"),
    [
        (0, 0, 0, 0),
        (1, 1, 1, 1),
        (2, 2, 3, 2),
        (3, 3, 4, 3),
        (4, 1, 4, 4),
        (5, -2, 6, 5),
        (-3, 4, 5, 4),
        (6, 0, 6, 6),
        (4, 4, 6, 4),
    ],
)
def test_square_distance(dx, dy, alternating, uniform):
    """UA-HEX-01 (3.5 "every other square counts double") vs EP-GEN-02 ("diagonal moves are
    the same as straight moves"); IC-07 makes it the ``alternating``/``uniform`` option."""
    assert square_distance(dx, dy, "alternating") == alternating
    assert square_distance(dx, dy, "uniform") == uniform


@pytest.mark.parametrize(("ruleset", "threatened"), [("ua35", False), ("standard", True)])
def test_reach_10_diagonal_by_ruleset_diagonal_default(ruleset, threatened):
    """IC-07, SRD-AOO-01: a reach-10 weapon reaches (2,2) away only when diagonals are
    uniform (standard default); under alternating (ua35 default) that square is 3 away."""
    battle = Battle.from_spec(
        {
            "ruleset": ruleset,
            "creatures": [{"id": "p", "size": "Medium", "pos": [5, 5], "attacks": [{"reach": 10}]}],
        }
    )
    zone = threatened_cells(battle, "p")
    assert ((7, 7) in zone) is threatened
    assert (7, 6) in zone
    assert (8, 5) not in zone


# -- beyond an area (IC-03), on the compass rays --------------------------------------------------


def _medium_at_5_5(ruleset: str, facing: str, **fields) -> Battle:
    return Battle.from_spec(
        {
            "ruleset": ruleset,
            "grid": {"width": 11, "height": 11},
            "creatures": [{"id": "m", "size": "Medium", "pos": [5, 5], "facing": facing, **fields}],
        }
    )


@pytest.mark.parametrize(
    ("ray", "expected"),
    [
        ((0, -1), "front"),
        ((1, -1), "front"),
        ((1, 0), "flank"),
        ((1, 1), "rear"),
        ((0, 1), "rear"),
        ((-1, 1), "rear"),
        ((-1, 0), "flank"),
        ((-1, -1), "front"),
    ],
)
@pytest.mark.parametrize("k", [2, 3, 5])
def test_beyond_medium_n_on_compass_rays(ray, expected, k):
    """IC-03, UA-OPP-01/02 ("or the squares beyond it"): squares k steps out on a compass ray
    from a Medium N facer lie beyond the ring square of that ray."""
    battle = _medium_at_5_5("ua35", "N")
    assert area_of(battle, "m", (5 + k * ray[0], 5 + k * ray[1])) == expected


@pytest.mark.parametrize(
    ("ray", "expected"),
    [
        ((0, -1), "front"),
        ((1, -1), "front"),
        ((1, 0), "front"),
        ((1, 1), "flank"),
        ((0, 1), "rear"),
        ((-1, 1), "rear"),
        ((-1, 0), "rear"),
        ((-1, -1), "flank"),
    ],
)
def test_beyond_huge_ne_on_compass_rays(ray, expected):
    """IC-03 with IC-01: a Huge NE facer (space (4,4)-(6,6), centre square (5,5)); the
    straight N and E rays are at exactly 45 degrees (front), S and W at 135 (rear)."""
    battle = Battle.from_spec(
        {
            "grid": {"width": 12, "height": 12},
            "creatures": [{"id": "h", "size": "Huge", "pos": [4, 4], "facing": "NE"}],
        }
    )
    for k in (2, 3, 4):
        assert area_of(battle, "h", (5 + k * ray[0], 5 + k * ray[1])) == expected


@pytest.mark.parametrize(
    ("cell", "expected"),
    [
        ((7, 4), "front"),
        ((8, 3), "front"),
        ((4, 4), "front"),
        ((3, 3), "front"),
        ((7, 7), "rear"),
        ((8, 8), "rear"),
        ((4, 7), "rear"),
        ((3, 8), "rear"),
    ],
)
def test_beyond_large_n_on_diagonal_rays(cell, expected):
    """IC-03, UA-FACE-03 ("front corners", "rear corners"): a Large N facer at (5,5); the
    diagonal rays through its centre run through its corner squares and beyond."""
    battle = Battle.from_spec(
        {
            "grid": {"width": 12, "height": 12},
            "creatures": [{"id": "L", "size": "Large", "pos": [5, 5], "facing": "N"}],
        }
    )
    assert area_of(battle, "L", cell) == expected


@pytest.mark.parametrize(
    ("cell", "expected"),
    [
        ((5, 2), "front"),
        ((8, 2), "front"),
        ((8, 5), "side"),
        ((8, 8), "side"),
        ((5, 8), "rear"),
        ((2, 8), "side"),
        ((2, 5), "side"),
        ((2, 2), "front"),
    ],
)
def test_beyond_side_rear_medium_n(cell, expected):
    """IC-03 with IC-11 (rear strictly beyond 135 degrees): beyond a 1x1 N facer under
    side_rear only the straight-back ray is rear."""
    battle = _medium_at_5_5("side_rear", "N")
    assert area_of(battle, "m", cell) == expected


@pytest.mark.parametrize(
    ("cell", "expected"),
    [
        ((8, 5), "front"),
        ((8, 2), "front"),
        ((5, 8), "front"),
        ((5, 2), "flank"),
        ((2, 8), "flank"),
        ((2, 5), "rear"),
    ],
)
def test_beyond_hex_medium_e(cell, expected):
    """IC-03 with IC-05: the six hex rays from a single hex facing E at (5,5)."""
    battle = Battle.from_spec(
        {
            "grid": {"kind": "hex", "width": 14, "height": 12},
            "creatures": [{"id": "h", "size": "Medium", "pos": [5, 5], "facing": "E"}],
        }
    )
    assert area_of(battle, "h", cell) == expected


def test_own_space_is_none():
    """UA-FACE-04: a square of the creature's own space is in none of its areas."""
    battle = board(
        """
        . . . .
        . L L .
        . L L .
        . . . .
        """,
        L={"facing": "N"},
    )
    assert [area_of(battle, "L", c) for c in [(1, 1), (2, 1), (1, 2), (2, 2)]] == ["none"] * 4


def test_creature_target_counts_by_most_exposed_square():
    """IC-04 (docs/design.md, rule queries): a Large creature with squares in a Medium N
    facer's front and flank lies in its flank."""
    battle = board(
        """
        . . . . .
        . . . L L
        . . . L L
        . . M . .
        . . . . .
        """,
        M={"facing": "N"},
    )
    assert area_of(battle, "M", (3, 2)) == "front"
    assert area_of(battle, "M", (4, 2)) == "flank"
    assert area_of(battle, "M", "L") == "flank"


# -- no facing: faceless, Tiny and smaller, standard (UA-FCL-01/02, UA-FACE-06) ----------------


def test_faceless_has_no_areas():
    """UA-FCL-01, UA-FACE-05: a faceless creature has no front, flank or rear."""
    battle = board(
        """
        . A .
        . O .
        . B .
        """,
        O={"faceless": True, "facing": "N"},
    )
    assert area_of(battle, "O", "A") == "none"
    assert area_of(battle, "O", "B") == "none"
    assert area_of(battle, "O", (2, 1)) == "none"
    assert area_counts(battle, "O") == {"front": 0, "flank": 0, "rear": 0}
    assert area_of(battle, "A", "O") == "rear"  # A (facing N) still has O behind it


@pytest.mark.parametrize("size", ["Fine", "Diminutive", "Tiny"])
@pytest.mark.parametrize("ruleset", ["ua35", "side_rear"])
def test_tiny_and_smaller_have_no_facing(size, ruleset):
    """UA-FACE-06, UA-FCL-02: Tiny and smaller creatures don't have facing (a facing given
    in the spec is ignored)."""
    battle = board(
        """
        . A .
        . T .
        . B .
        """,
        ruleset,
        T={"size": size, "facing": "NE"},
    )
    assert area_of(battle, "T", "A") == "none"
    assert area_of(battle, "T", "B") == "none"
    assert sum(area_counts(battle, "T").values()) == 0
    assert area_of(battle, "B", "T") == "front"


def test_standard_ruleset_has_no_areas():
    """IC-18, SRD-FACE-01: the standard rules have no front or rear."""
    battle = board(
        """
        . A .
        . M .
        . B .
        """,
        "standard",
        M={"facing": "N"},
    )
    assert (area_of(battle, "M", "A"), area_of(battle, "M", "B")) == ("none", "none")
    assert area_counts(battle, "M") == {"front": 0, "flank": 0, "rear": 0}


# -- facing never changes the space (UA-FACE-04) ---------------------------------------------------


@pytest.mark.parametrize("size", ["Medium", "Large", "Huge", "Gargantuan", "Colossal"])
def test_facing_never_changes_the_space(size):
    """UA-FACE-04: whatever the facing, the space (and so the ring around it) is the same,
    and the space squares are never in an area."""
    rings, nones = set(), set()
    for facing in ("N", "NE", "E", "SE", "S", "SW", "W", "NW"):
        battle = Battle.from_spec(
            {
                "grid": {"width": 12, "height": 12},
                "creatures": [{"id": "c", "size": size, "pos": [3, 3], "facing": facing}],
            }
        )
        rings.add(frozenset().union(*areas(battle, "c").values()))
        side = {"Medium": 1, "Large": 2, "Huge": 3, "Gargantuan": 4, "Colossal": 5}[size]
        space = [(3 + i, 3 + j) for i in range(side) for j in range(side)]
        nones.add(tuple(area_of(battle, "c", cell) for cell in space))
        assert battle.to_spec()["creatures"][0]["pos"] == [3, 3]
    assert len(rings) == 1
    (ring,) = rings
    n = {"Medium": 1, "Large": 2, "Huge": 3, "Gargantuan": 4, "Colossal": 5}[size]
    assert len(ring) == 4 * n + 4
    assert nones == {("none",) * (n * n)}


# -- IC-11: side_rear multi-square creatures face orthogonally -------------------------------------


@pytest.mark.parametrize("size", ["Large", "Huge", "Gargantuan", "Colossal"])
@pytest.mark.parametrize("facing", SQUARE_DIAGONAL)
def test_side_rear_multi_square_diagonal_facing_rejected(size, facing):
    """IC-11, SR-05: a diagonally facing Large creature would get 3/6/3, contradicting the
    fixed 4/6/2, so multi-square creatures face only N/E/S/W under side_rear."""
    spec = {
        "ruleset": "side_rear",
        "creatures": [{"id": "big", "size": size, "pos": [2, 2], "facing": facing}],
    }
    with pytest.raises(ScenarioError) as err:
        Battle.from_spec(spec)
    assert (err.value.creature, err.value.field) == ("big", "facing")
    assert "creature 'big'" in str(err.value) and "field 'facing'" in str(err.value)


def test_side_rear_single_square_diagonal_facing_allowed():
    """SR-05: a 1-space creature keeps 3/4/1 in all 8 facings, diagonals included."""
    battle = _medium_at_5_5("side_rear", "NE")
    assert area_counts(battle, "m") == {"front": 3, "side": 4, "rear": 1}


def test_shapes_and_area_cells_hash_right_after_pickling_across_processes():
    """Shape and AreaCell cache their hash, which depends on str hashing (per process):
    unpickled in another process they must hash like fresh equal objects."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    make = (
        "from facing_env.rules import geometry as g; from facing_env.types import *\n"
        "shape = g.default_shape(GridKind.SQUARE, Size.LARGE)\n"
        "cell = g.area_table(GridKind.SQUARE, Ruleset.UA35, shape, 0).lookup((3, 0))\n"
    )
    dump = make + "import pickle, sys; sys.stdout.write(pickle.dumps((shape, cell)).hex())"
    load = make + (
        "import pickle, sys; s, c = pickle.loads(bytes.fromhex(sys.stdin.read()))\n"
        "print(s == shape and s in {shape: 1} and c == cell and c in {cell: 1})"
    )

    def run(code: str, seed: str, stdin: str = "") -> str:
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(root)}
        out = subprocess.run(
            [sys.executable, "-c", code], input=stdin, env=env, capture_output=True, text=True
        )
        assert out.returncode == 0, out.stderr
        return out.stdout.strip()

    assert run(load, "2", run(dump, "1")) == "True"
