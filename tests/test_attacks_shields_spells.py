"""Shields and spells under ua35 facing: ``shield_applies``, ``spell_origins`` and
``can_target_with_spell``.

Rule ids from docs/rules.md: shields (UA-SHLD-01, UA-SHLD-02, IC-16) and the shield spell
(UA-SPL-03); spell origins and targets (UA-SPL-01, UA-SPL-02, IC-19).

Boards follow docs/rules.md's coordinates: x grows east, y grows south; a board's
letter is the creature's id unless an ``id`` is given. ``_pair`` and ``_far`` (an
attacker next to, or on a compass ray from, a defender D) are in tests/attack_boards.py.
"""

from __future__ import annotations

import pytest

from facing_env.rules import (
    area_of,
    attack_breakdown,
    can_target_with_spell,
    shield_applies,
    spell_origins,
)
from tests.attack_boards import _OPPOSITE, BOW, _far, _pair
from tests.boards import board

# ==========================================================================================
# Shields (UA-SHLD-01, UA-SHLD-02, IC-16) and the shield spell (UA-SPL-03)
# ==========================================================================================


@pytest.mark.parametrize(
    ("side", "where", "covered"),
    [
        ("left", "N", True),
        ("left", "NW", True),
        ("left", "NE", True),
        ("left", "W", True),  # facing N: left flank is W (IC-16)
        ("left", "E", False),
        ("left", "S", False),
        ("left", "SW", False),
        ("right", "E", True),
        ("right", "W", False),
        ("right", "N", True),
        ("right", "SE", False),
    ],
)
def test_ua_shld_02_shield_side_facing_north(side, where, covered):
    """UA-SHLD-02: the shield counts against attacks from the front and the flank on the
    shield's side; UA-SHLD-01: otherwise the defender has shieldless AC (AC - bonus)."""
    b = _pair(where, a_facing=_OPPOSITE[where], D={"ac": 17, "shield": {"side": side, "bonus": 2}})
    assert shield_applies(b, "D", "A") is covered
    br = attack_breakdown(b, "A", "D")
    assert br["shield"] == (0 if covered else -2)
    assert br.target_ac == (17 if covered else 15)


@pytest.mark.parametrize(
    ("side", "where", "covered"),
    [
        ("left", "NW", True),
        ("left", "SE", False),
        ("right", "SE", True),
        ("right", "NW", False),
        ("left", "E", True),
        ("left", "W", False),
    ],
)
def test_ua_shld_02_ic_16_diagonal_facing(side, where, covered):
    """UA-SHLD-02, IC-16: facing NE the left flank is the NW corner, the right the SE."""
    b = _pair(
        where, a_facing=_OPPOSITE[where], D={"facing": "NE", "shield": {"side": side, "bonus": 1}}
    )
    assert shield_applies(b, "D", "A") is covered


@pytest.mark.parametrize(
    ("side", "where", "distance", "covered"),
    [
        ("left", "W", 3, True),
        ("left", "E", 3, False),
        ("right", "E", 4, True),
        ("right", "N", 4, True),
        ("right", "S", 4, False),
    ],
)
def test_ua_shld_02_beyond_areas(side, where, distance, covered):
    """UA-SHLD-02: 'plus any squares that lie beyond those areas' (IC-03): a ranged
    attacker beyond the shield-side flank is covered, beyond the other flank not."""
    b = _far(
        where,
        distance,
        a_facing=_OPPOSITE[where],
        A={"attacks": [BOW]},
        D={"shield": {"side": side, "bonus": 2}},
    )
    assert shield_applies(b, "D", "A") is covered


def test_ua_shld_02_ic_16_hex_facing_east():
    """UA-SHLD-02, IC-16 on hexes: facing E, the left flank is the NW hex, the right SW."""
    # Hex board rows: q = column - (row >> 1). D at (1, 1); L at NW (1, 0); R at SW (0, 2).
    b = board(
        """
        . L . .
        . D . .
        . R . .
        """,
        grid="hex",
        D={"facing": "E", "team": "foe", "shield": {"side": "left", "bonus": 2}},
        L={"team": "pc"},
        R={"team": "pc"},
    )
    assert b.creature("D").pos == (1, 1)
    assert b.creature("L").pos == (1, 0)
    assert b.creature("R").pos == (0, 2)
    assert area_of(b, "D", "L") == "flank"
    assert area_of(b, "D", "R") == "flank"
    assert shield_applies(b, "D", "L") is True
    assert shield_applies(b, "D", "R") is False


def test_ua_shld_no_shield_never_applies():
    """UA-SHLD-01: a creature without a shield has no shield term."""
    b = _pair("N", a_facing="S")
    assert shield_applies(b, "D", "A") is False
    assert attack_breakdown(b, "A", "D")["shield"] == 0


@pytest.mark.parametrize(
    ("where", "covered"), [("N", True), ("NE", True), ("E", False), ("W", False), ("S", False)]
)
def test_ua_spl_03_shield_spell_front_only(where, covered):
    """UA-SPL-03: the shield spell's +4 counts against attacks from the front area only."""
    b = _pair(where, a_facing=_OPPOSITE[where], D={"ac": 12, "spells": ["shield"]})
    assert shield_applies(b, "D", "A", source="shield_spell") is covered
    br = attack_breakdown(b, "A", "D")
    assert br["shield_spell"] == (4 if covered else 0)
    assert br.target_ac == (16 if covered else 12)


# ==========================================================================================
# Spells (UA-SPL-01, UA-SPL-02)
# ==========================================================================================


@pytest.mark.parametrize(
    ("facing", "origins"),
    [
        ("N", {(2, 2), (3, 2)}),
        ("E", {(3, 2), (3, 3)}),
        ("NE", {(2, 2), (3, 2), (3, 3)}),
        ("SW", {(2, 2), (2, 3), (3, 3)}),
    ],
)
def test_ua_spl_01_spell_origins(facing, origins):
    """UA-SPL-01: lines and cones emerge from a grid intersection between the caster's
    space and its front area (points named by the square whose NW corner they are)."""
    b = board(
        """
        . . . . .
        . . . . .
        . . C . .
        . . . . .
        . . . . .
        """,
        C={"facing": facing},
    )
    assert spell_origins(b, "C") == frozenset(origins)


def test_ua_spl_01_large_caster_and_faceless_caster():
    """UA-SPL-01: a Large caster facing N uses its 3 north-edge points; a faceless caster
    (no front) may use any corner of its space."""
    b = board(
        """
        . . . . . .
        . . L L . .
        . . L L . .
        . . . . F .
        """,
        L={"facing": "N"},
        F={"faceless": True},
    )
    assert spell_origins(b, "L") == frozenset({(2, 1), (3, 1), (4, 1)})
    assert spell_origins(b, "F") == frozenset({(4, 3), (5, 3), (4, 4), (5, 4)})


def test_ua_spl_02_ic_19_cannot_target_rear():
    """UA-SPL-02, IC-19: no spell targets in (or beyond) the rear; front and flank fine."""
    b = board(
        """
        . . F . .
        . . C . K
        . . R . .
        . . . . .
        . . B . .
        """,
        C={"facing": "N"},
    )
    assert can_target_with_spell(b, "C", "F") is True
    assert can_target_with_spell(b, "C", "K") is True  # beyond the flank
    assert can_target_with_spell(b, "C", (3, 1)) is True  # flank square
    assert can_target_with_spell(b, "C", "R") is False
    assert can_target_with_spell(b, "C", "B") is False  # beyond the rear
    assert can_target_with_spell(b, "C", (1, 2)) is False  # rear corner square


def test_ua_spl_02_standard_ruleset_targets_anywhere():
    """UA-SPL-02 is a facing rule: in the standard ruleset (no facing) the rear is fine."""
    b = board(". C .\n. R .", "standard", C={"facing": "N"})
    assert can_target_with_spell(b, "C", "R") is True
