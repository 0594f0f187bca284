"""Geometry of facing areas: golden area counts and drawn rings.

Rule ids are defined in docs/rules.md: UA-FACE-01..06, UA-HEX-03, SR-05, SR-06, IC-01,
IC-05, IC-11, IC-18. Left/right, distances, squares beyond an area, creatures without
facing and the space: test_geometry_queries.py.
"""

from __future__ import annotations

import textwrap

import pytest

from facing_env import Battle
from facing_env.rules import area_counts, area_of, areas
from facing_env.rules.geometry import allowed_facings, area_table, default_shape, facing_names
from facing_env.types import GridKind, Ruleset, Size
from tests.boards import board

SQUARE_ORTHOGONAL = ("N", "E", "S", "W")
NO_FACING = (Size.FINE, Size.DIMINUTIVE, Size.TINY)  # UA-FACE-06, UA-FCL-02

# -- golden count tables ----------------------------------------------------------------------
# (front, flank-or-side, rear) per size; the square tables are docs/rules.md UA-FACE-02/03 (IC-01
# column) and SR-05 (with the extrapolated Huge/Gargantuan/Colossal counts of IC-11).

UA35_SQUARE = {  # size: (orthogonal, diagonal)
    Size.SMALL: ((3, 2, 3), (3, 2, 3)),
    Size.MEDIUM: ((3, 2, 3), (3, 2, 3)),
    Size.LARGE: ((4, 4, 4), (3, 6, 3)),
    Size.HUGE: ((5, 6, 5), (5, 6, 5)),
    Size.GARGANTUAN: ((6, 8, 6), (5, 10, 5)),
    Size.COLOSSAL: ((7, 10, 7), (7, 10, 7)),
}
SIDE_REAR_SQUARE = {  # SR-05: 1 space 3/4/1 in all 8 facings; Large 4/6/2; then n+2/2n+2/n
    Size.SMALL: (3, 4, 1),
    Size.MEDIUM: (3, 4, 1),
    Size.LARGE: (4, 6, 2),
    Size.HUGE: (5, 8, 3),
    Size.GARGANTUAN: (6, 10, 4),
    Size.COLOSSAL: (7, 12, 5),
}
# Hex, identical in ua35 (IC-05) and side_rear (SR-06). One hex: 3/2/1. Large (the 3-hex
# triangle of SR-06): 4/4/1 with the apex forward, 3/4/2 with the base forward (SR-06 text).
# Huge (7-hex flower), Gargantuan (10-hex triangle) and Colossal (19-hex flower) are the
# PROJECT'S EXTRAPOLATION (UA-HEX-02 gives footprints only as a picture; the counts below
# are what the angle rule of geometry.py gives, not numbers from the seed texts), and so are
# the ua35 multi-hex counts (docs/rules.md UA-HEX-03 and "Hex footprints").
HEX_APEX_FORWARD = ("N", "WSW", "ESE")  # the up-triangle's corners
HEX_BASE_FORWARD = ("ENE", "WNW", "S")
HEX_COUNTS = {
    Size.SMALL: {f: (3, 2, 1) for f in ("E", "NE", "NW", "W", "SW", "SE")},
    Size.MEDIUM: {f: (3, 2, 1) for f in ("E", "NE", "NW", "W", "SW", "SE")},
    Size.LARGE: {
        **{f: (4, 4, 1) for f in HEX_APEX_FORWARD},
        **{f: (3, 4, 2) for f in HEX_BASE_FORWARD},
    },
    Size.HUGE: {f: (5, 4, 3) for f in ("E", "NE", "NW", "W", "SW", "SE")},  # extrapolation
    Size.GARGANTUAN: {  # extrapolation
        **{f: (6, 6, 3) for f in HEX_APEX_FORWARD},
        **{f: (5, 6, 4) for f in HEX_BASE_FORWARD},
    },
    Size.COLOSSAL: {f: (7, 8, 3) for f in ("E", "NE", "NW", "W", "SW", "SE")},  # extrapolation
}

AREA_KEYS = {
    Ruleset.UA35: ("front", "flank", "rear"),
    Ruleset.SIDE_REAR: ("front", "side", "rear"),
    Ruleset.STANDARD: ("front", "flank", "rear"),
}


def _expected(kind: GridKind, ruleset: Ruleset, size: Size, facing: str) -> tuple[int, ...]:
    if ruleset is Ruleset.STANDARD or size in NO_FACING:  # IC-18, UA-FACE-06
        return (0, 0, 0)
    if kind is GridKind.HEX:
        return HEX_COUNTS[size][facing]
    if ruleset is Ruleset.SIDE_REAR:
        return SIDE_REAR_SQUARE[size]
    orthogonal, diagonal = UA35_SQUARE[size]
    return orthogonal if facing in SQUARE_ORTHOGONAL else diagonal


def _golden_cases() -> list[tuple[GridKind, Ruleset, Size, str]]:
    cases = []
    for kind in GridKind:
        for ruleset in Ruleset:
            for size in Size:
                shape = default_shape(kind, size)
                for f in allowed_facings(kind, ruleset, shape):
                    cases.append((kind, ruleset, size, facing_names(kind)[f]))
    return cases


GOLDEN = _golden_cases()


def _one(kind: GridKind, ruleset: Ruleset, size: Size, facing: str, **fields) -> Battle:
    pos = [6, 7] if kind is GridKind.HEX else [4, 4]
    return Battle.from_spec(
        {
            "ruleset": ruleset.value,
            "grid": {"kind": kind.value, "width": 16, "height": 16},
            "creatures": [{"id": "c", "size": size.label, "pos": pos, "facing": facing, **fields}],
        }
    )


def test_golden_table_covers_every_allowed_facing():
    """UA-FACE-01 (8 square facings), UA-HEX-03 (6 hex facings), IC-11 (side_rear
    multi-square creatures face N/E/S/W only): the parametrized table is complete."""
    per = {(k, r, s): 0 for k, r, s, _ in GOLDEN}
    for k, r, s, _ in GOLDEN:
        per[(k, r, s)] += 1
    assert per[(GridKind.SQUARE, Ruleset.UA35, Size.LARGE)] == 8
    assert per[(GridKind.SQUARE, Ruleset.SIDE_REAR, Size.MEDIUM)] == 8
    assert per[(GridKind.SQUARE, Ruleset.SIDE_REAR, Size.LARGE)] == 4
    assert per[(GridKind.HEX, Ruleset.UA35, Size.MEDIUM)] == 6
    assert per[(GridKind.HEX, Ruleset.SIDE_REAR, Size.LARGE)] == 6
    assert len(GOLDEN) == 9 * 8 * 3 - 4 * 4 + 9 * 6 * 3


@pytest.mark.parametrize(
    ("kind", "ruleset", "size", "facing"),
    GOLDEN,
    ids=[f"{k.value}-{r.value}-{s.label}-{f}" for k, r, s, f in GOLDEN],
)
def test_golden_area_counts(kind, ruleset, size, facing):
    """UA-FACE-02, UA-FACE-03 (IC-01), SR-05 (IC-11), SR-06, IC-05, UA-FACE-06: ring counts
    (front, flank/side, rear) of every size in every allowed facing, rule set and grid."""
    battle = _one(kind, ruleset, size, facing)
    expected = dict(zip(AREA_KEYS[ruleset], _expected(kind, ruleset, size, facing), strict=True))
    assert area_counts(battle, "c") == expected
    if ruleset is not Ruleset.STANDARD and size not in NO_FACING:
        shape = default_shape(kind, size)
        index = facing_names(kind).index(facing)
        assert area_table(kind, ruleset, shape, index).counts() == expected


def test_standard_area_table_has_no_areas():
    """IC-18: the standard rule set has no facing areas at all."""
    shape = default_shape(GridKind.SQUARE, Size.MEDIUM)
    assert area_table(GridKind.SQUARE, Ruleset.STANDARD, shape, 0).counts() == {}


@pytest.mark.parametrize(("facing", "expected"), [("N", (4, 4, 1)), ("S", (3, 4, 2))])
def test_sr06_large_hex_front_side_hexes(facing, expected):
    """SR-06: a Large creature using 1 hex as its front side has 4 front / 4 side / 1 rear;
    using 2 hexes, 3 / 4 / 2. The triangle (0,0),(1,0),(1,-1) at pos (4,4)."""
    front = [[5, 3]] if facing == "N" else [[4, 4], [5, 4]]
    spec = {
        "ruleset": "side_rear",
        "grid": {"kind": "hex", "width": 12, "height": 12},
        "creatures": [
            {
                "id": "L",
                "size": "Large",
                "pos": [4, 4],
                "hexes": [[4, 4], [5, 4], [5, 3]],
                "front_side_hexes": front,
            }
        ],
    }
    battle = Battle.from_spec(spec)
    assert battle.to_spec()["creatures"][0]["facing"] == facing
    assert area_counts(battle, "L") == dict(zip(("front", "side", "rear"), expected, strict=True))


# -- drawn rings ------------------------------------------------------------------------------

_LETTERS = {"front": "F", "flank": "K", "side": "S", "rear": "R"}


def _ring_picture(picture: str, ruleset: str, facing: str, grid: str = "square") -> str:
    """Build a board from a drawn ring (``C`` = the creature) and redraw it from areas()."""
    text = textwrap.dedent(picture).strip("\n")
    rows = [line.replace(" ", "") for line in text.splitlines()]
    terrain = ["".join("C" if ch == "C" else "." for ch in row) for row in rows]
    battle = board("\n".join(terrain), ruleset, grid=grid, C={"facing": facing})
    ring = areas(battle, "C")
    by_cell = {cell: _LETTERS[a] for a, cells in ring.items() for cell in cells}
    # areas() and area_of() agree on every ring square
    assert {c: area_of(battle, "C", c) for cells in ring.values() for c in cells} == {
        c: a for a, cells in ring.items() for c in cells
    }
    out = []
    for y, row in enumerate(rows):
        chars = []
        for x in range(len(row)):
            cell = (x - (y >> 1), y) if grid == "hex" else (x, y)
            chars.append("C" if row[x] == "C" else by_cell.get(cell, "."))
        out.append("".join(chars))
    return "\n".join(out)


def _squash(picture: str) -> str:
    rows = textwrap.dedent(picture).strip("\n").splitlines()
    return "\n".join(r.replace(" ", "") for r in rows)


RINGS = [
    # UA-FACE-02 (and IC-02: exactly two flank squares)
    (
        "ua35",
        "N",
        """
        F F F
        K C K
        R R R
    """,
    ),
    (
        "ua35",
        "NE",
        """
        K F F
        R C F
        R R K
    """,
    ),
    # UA-FACE-03, IC-01
    (
        "ua35",
        "N",
        """
        F F F F
        K C C K
        K C C K
        R R R R
    """,
    ),
    (
        "ua35",
        "NE",
        """
        K K F F
        K C C F
        R C C K
        R R K K
    """,
    ),
    (
        "ua35",
        "NE",
        """
        K K F F F
        K C C C F
        R C C C F
        R C C C K
        R R R K K
    """,
    ),
    (
        "ua35",
        "NE",
        """
        K K K F F F
        K C C C C F
        K C C C C F
        R C C C C K
        R C C C C K
        R R R K K K
    """,
    ),
    (
        "ua35",
        "NE",
        """
        K K K F F F F
        K C C C C C F
        K C C C C C F
        R C C C C C F
        R C C C C C K
        R C C C C C K
        R R R R K K K
    """,
    ),
    # SR-05, IC-11
    (
        "side_rear",
        "N",
        """
        F F F
        S C S
        S R S
    """,
    ),
    (
        "side_rear",
        "NE",
        """
        S F F
        S C F
        R S S
    """,
    ),
    (
        "side_rear",
        "N",
        """
        F F F F
        S C C S
        S C C S
        S R R S
    """,
    ),
]


@pytest.mark.parametrize(
    ("ruleset", "facing", "picture"),
    RINGS,
    ids=[f"{r}-{f}-{len(_squash(p).splitlines()) - 2}x" for r, f, p in RINGS],
)
def test_drawn_rings(ruleset, facing, picture):
    """UA-FACE-02, UA-FACE-03 (IC-01 drawn rings), SR-05 (IC-11 drawn rings): every ring
    square of the docs/rules.md pictures, cell by cell."""
    assert _ring_picture(picture, ruleset, facing) == _squash(picture)


def test_large_ne_is_not_alt_a():
    """IC-01 vs ALT-A: the face-based reading would make (0,1) of a Large NE facer a rear
    square and (1,0) front; the chosen angle rule makes both flank squares."""
    battle = board(
        """
        . . . .
        . L L .
        . L L .
        . . . .
        """,
        L={"facing": "NE"},
    )
    assert (area_of(battle, "L", (0, 1)), area_of(battle, "L", (1, 0))) == ("flank", "flank")


@pytest.mark.parametrize("ruleset", ["ua35", "side_rear"])
def test_hex_ring_facing_e(ruleset):
    """UA-HEX-03, IC-05 (ua35) and SR-06 (side_rear): a single hex facing E has the E, NE
    and SE hexes in front, NW and SW on its flanks/sides and W behind it."""
    side = "K" if ruleset == "ua35" else "S"
    picture = f"""
         . {side} F
          R C F
         . {side} F
    """
    assert _ring_picture(picture, ruleset, "E", grid="hex") == _squash(picture)
