"""Flanking under the standard rule set (no facing): ``flanks``, ``flanking_allies`` and
``line_flanks``, the line rule between allies.

Rule ids from docs/rules.md: SRD-FLANK-01, EP-FLANK-01..06, IC-18 (with UA-FEAT-IUD,
SR-13 and IC-17 immunities).

Boards follow docs/rules.md's coordinates: x grows east, y grows south; a board's
letter is the creature's id unless an ``id`` is given. ``_pair`` and ``_far`` (an
attacker next to, or on a compass ray from, a defender D) are in tests/attack_boards.py.
"""

from __future__ import annotations

import pytest

from facing_env.rules import (
    area_of,
    attack_breakdown,
    facing_modifier,
    flanking_allies,
    flanks,
    sneak_attack_applies,
)
from facing_env.rules.flanking import line_flanks
from tests.attack_boards import BOW, ROGUE, SWORD
from tests.boards import board

# ==========================================================================================
# standard: flanking by the line rule (SRD-FLANK-01, EP-FLANK-01..06, IC-18)
# ==========================================================================================


def _std(text: str, **fields):
    for letter in ("A", "B", "C"):
        if letter in text:
            fields.setdefault(letter, {})
            fields[letter] = {"team": "pc", **fields[letter]}
    return board(text, "standard", **fields)


def test_srd_flank_01_opposite_allies_plus_2_and_sneak():
    """SRD-FLANK-01: A and B directly opposite, both threatening D: +2 each; a rogue in
    this position can also sneak attack."""
    b = _std(". . .\nA D B\n. . .", A=ROGUE)
    assert flanks(b, "A", "D") is True
    assert flanking_allies(b, "A", "D") == ["B"]
    assert flanking_allies(b, "B", "D") == ["A"]
    br = attack_breakdown(b, "A", "D")
    assert br["flanking"] == 2
    assert br.facing == 2
    assert facing_modifier(b, "A", "D") == 2
    assert facing_modifier(b, "B", "D") == 2
    assert sneak_attack_applies(b, "A", "D") is True


def test_srd_flank_01_no_ally_no_flank():
    """SRD-FLANK-01: alone, no flank (standard has no facing to give a bonus)."""
    b = _std(". . .\nA D .\n. . .", A=ROGUE)
    assert flanks(b, "A", "D") is False
    assert facing_modifier(b, "A", "D") == 0
    assert sneak_attack_applies(b, "A", "D") is False


def test_ic_18_standard_has_no_facing():
    """IC-18, SRD-FACE-01: no areas and no facing terms in standard, whatever the facing."""
    b = _std(". A .\n. D .", A={"facing": "N"}, D={"facing": "N"})
    assert area_of(b, "D", "A") == "none"
    assert area_of(b, "A", "D") == "none"
    br = attack_breakdown(b, "A", "D")
    assert "facing_own_area" not in br.terms
    assert "facing_opponent_area" not in br.terms
    assert facing_modifier(b, "A", "D") == 0


@pytest.mark.parametrize(
    ("ally", "why"),
    [
        ({"threatens": False}, "ally does not threaten"),
        ({"flat_footed": True}, "a flat-footed ally threatens nothing (SRD-FF-01)"),
        ({"team": "third_party"}, "not an ally"),
        ({"attacks": [BOW]}, "a ranged-only ally does not threaten"),
    ],
)
def test_ep_flank_01_ally_must_threaten(ally, why):
    """EP-FLANK-01: only allies which threaten the creature can provide flanks."""
    b = _std(". . .\nA D B\n. . .", B=ally)
    assert flanks(b, "A", "D") is False, why
    assert facing_modifier(b, "A", "D") == 0


def test_ep_flank_01_attacker_must_threaten():
    """EP-FLANK-01: 'If you do not threaten, you cannot flank' (A two squares away with
    5-ft reach); a ranged attack never gets the flanking bonus."""
    b = _std(". . . .\nA . D B\n. . . .")
    assert flanks(b, "A", "D") is False
    b2 = _std(". . .\nA D B\n. . .", A={"attacks": [SWORD, BOW]})
    assert facing_modifier(b2, "A", "D") == 2
    assert facing_modifier(b2, "A", "D", ranged=True) == 0
    assert attack_breakdown(b2, "A", "D", attack="bow")["flanking"] == 0


@pytest.mark.parametrize(
    ("a", "b", "flank"),
    [
        ((0, 1), (2, 1), True),  # W - E: opposite sides
        ((1, 0), (1, 2), True),  # N - S: opposite sides
        ((0, 0), (2, 2), True),  # NW - SE: opposite corners
        ((2, 0), (0, 2), True),  # NE - SW: opposite corners
        ((0, 1), (2, 2), False),  # W - SE: side with corner (EP-FLANK-03)
        ((0, 0), (2, 1), False),  # NW - E: corner with side (EP-FLANK-03)
        ((0, 1), (1, 0), False),  # W - N: adjacent sides
        ((0, 1), (2, 0), False),  # W - NE: enters a side, exits the adjacent side
        ((0, 0), (2, 0), False),  # NW - NE: the line misses the space
        ((0, 0), (0, 2), False),  # NW - SW
    ],
)
def test_ep_flank_02_03_line_rule_medium(a, b, flank):
    """EP-FLANK-02: centre-to-centre line through opposite sides or opposite corners;
    EP-FLANK-03: corner squares only flank with opposite corner squares."""
    rows = [[".", ".", "."] for _ in range(3)]
    rows[1][1] = "D"
    rows[a[1]][a[0]] = "A"
    rows[b[1]][b[0]] = "B"
    battle = _std("\n".join(" ".join(r) for r in rows))
    assert flanks(battle, "A", "D") is flank
    assert flanks(battle, "B", "D") is flank
    assert facing_modifier(battle, "A", "D") == (2 if flank else 0)


def test_ep_flank_03_line_along_the_border_is_not_a_flank():
    """EP-FLANK-03/06: reach creatures A (1,0) and B (1,4), both threatening D (2,2),
    can only draw lines touching D's west border x=2 (A's and B's east corners) or
    missing D: not a flank."""
    text = """
        . A . . .
        . . . . .
        . . D . .
        . . . . .
        . B . . .
    """
    b = _std(text, A={"reach": 10}, B={"reach": 10})
    assert b.creature("D").pos == (2, 2)
    assert flanking_allies(b, "A", "D") == []
    assert flanks(b, "A", "D") is False
    # the border segment itself: from (2, 0) to (2, 5) along D's west side
    assert line_flanks((2.0, 0.0), (2.0, 5.0), (2.0, 2.0, 3.0, 3.0)) is False
    # one column east, the same pair flanks through D's north and south sides
    b2 = _std(
        text.replace(". A . . .", ". . A . .").replace(". B . . .", ". . B . ."),
        A={"reach": 10},
        B={"reach": 10},
    )
    assert flanks(b2, "A", "D") is True


def test_ep_flank_04_large_defender_any_portion_of_opposite_side():
    """EP-FLANK-04: against a Large D, A beside its upper W square and B beside its
    lower E square flank (W side to E side); the same offsets against a Medium D are a
    side and a corner: no flank."""
    large = _std(
        """
        . . . .
        A D D .
        . D D B
        . . . .
        """
    )
    assert flanks(large, "A", "D") is True
    assert facing_modifier(large, "A", "D") == 2
    medium = _std(
        """
        . . .
        A D .
        . . B
        """
    )
    assert flanks(medium, "A", "D") is False


def test_ep_flank_05_large_attacker_chooses_its_square():
    """EP-FLANK-05: a Large A draws from any one of its squares: from (1,0) to B's centre
    the line passes D's NW and SE corners (a flank), though the line from A's centre
    (1,1) would enter D's W side and leave by its S side."""
    b = _std(
        """
        A A . .
        A A D .
        . . . B
        """
    )
    d_box = (2.0, 1.0, 3.0, 2.0)
    assert line_flanks((1.5, 0.5), (3.5, 2.5), d_box) is True
    assert line_flanks((1.0, 1.0), (3.5, 2.5), d_box) is False
    assert flanks(b, "A", "D") is True
    assert flanks(b, "B", "D") is True
    assert attack_breakdown(b, "A", "D")["flanking"] == 2


def test_ep_flank_06_reach_corner_line_through_opposite_sides():
    """EP-FLANK-06: A (1,2) with reach 10 threatens D (3,3) from 2 squares; from A's SE
    corner (2,3) to B's SE corner (5,4) the line crosses D's W and E sides: a flank, though
    the centre-to-centre line only grazes D's NW corner and leaves by the E side."""
    text = """
        . . . . .
        . . . . .
        . A . . .
        . . . D B
        . . . . .
    """
    b = _std(text, A={"reach": 10})
    box = (3.0, 3.0, 4.0, 4.0)
    assert line_flanks((1.5, 2.5), (4.5, 3.5), box) is False
    assert line_flanks((2.0, 3.0), (4.5, 3.5), box) is True
    assert line_flanks((2.0, 3.0), (5.0, 4.0), box) is True
    assert flanks(b, "A", "D") is True
    assert flanks(b, "B", "D") is True
    b_short = _std(text, A={"reach": 5})  # does not threaten D: no flank
    assert flanks(b_short, "A", "D") is False


def test_ep_flank_06_reach_corner_to_corner():
    """EP-FLANK-06: A (1,2) and B (4,5), both reach 10: A's NE corner (2,2) to B's SE
    corner (5,5) runs through D's opposite corners: a flank (no centre line does)."""
    text = """
        . . . . . .
        . . . . . .
        . A . . . .
        . . . D . .
        . . . . . .
        . . . . B .
    """
    b = _std(text, A={"reach": 10}, B={"reach": 10})
    box = (3.0, 3.0, 4.0, 4.0)
    assert line_flanks((1.5, 2.5), (4.5, 5.5), box) is False
    assert line_flanks((2.0, 2.0), (5.0, 5.0), box) is True
    assert flanks(b, "A", "D") is True
    assert flanks(b, "B", "D") is True


def _corners_of(x: int, y: int) -> list[tuple[float, float]]:
    return [(x + i, y + j) for i in (0.0, 1.0) for j in (0.0, 1.0)]


def test_ep_flank_06_only_the_adjacent_allys_corner_makes_the_flank():
    """EP-FLANK-06: A (3,1) with reach 10 threatens D (3,3) from 2 squares north; B (4,4)
    is adjacent to D (SE) without reach. No line from A's centre or any of A's corners to
    B's centre flanks (so B's centre alone never gives it); A's NW corner (3,1) to B's SW
    corner (4,5) enters D's N side at x=3.5 and leaves its S side at x=3.75: a flank, for
    both of them (a flank is mutual, SRD-FLANK-01)."""
    text = """
        . . . . .
        . . . A .
        . . . . .
        . . . D .
        . . . . B
    """
    b = _std(text, A={"reach": 10})
    assert b.creature("A").pos == (3, 1) and b.creature("B").pos == (4, 4)
    box = (3.0, 3.0, 4.0, 4.0)
    a_points = [(3.5, 1.5), *_corners_of(3, 1)]
    assert not any(line_flanks(p, (4.5, 4.5), box) for p in a_points)
    assert line_flanks((3.0, 1.0), (4.0, 5.0), box) is True
    assert flanking_allies(b, "A", "D") == ["B"]
    assert flanking_allies(b, "B", "D") == ["A"]
    assert facing_modifier(b, "A", "D") == 2
    assert facing_modifier(b, "B", "D") == 2


def test_ep_flank_06_adjacent_attacker_with_reach_uses_corners():
    """EP-FLANK-06: A (3,2), adjacent to D (3,3) on its N side, has reach 10; B (4,4) is
    adjacent on D's SE corner. Centre to centre (3.5,2.5)-(4.5,4.5) enters D's N side and
    leaves its E side (adjacent sides: EP-FLANK-03), but A's NW corner (3,2) to B's SW
    corner (4,5) runs from D's N side (x=3.33) to its S side (x=3.67): a flank."""
    text = """
        . . . . .
        . . . . .
        . . . A .
        . . . D .
        . . . . B
    """
    b = _std(text, A={"reach": 10})
    box = (3.0, 3.0, 4.0, 4.0)
    assert line_flanks((3.5, 2.5), (4.5, 4.5), box) is False
    assert line_flanks((3.0, 2.0), (4.0, 5.0), box) is True
    assert flanks(b, "A", "D") is True
    assert flanks(b, "B", "D") is True
    assert facing_modifier(b, "A", "D") == 2
    assert attack_breakdown(b, "A", "D")["flanking"] == 2


@pytest.mark.parametrize("reach", [5, None])
def test_ep_flank_06_same_geometry_without_reach_does_not_flank(reach):
    """EP-FLANK-06 (negative): the board of the test above, A with a 5 ft reach (given, or
    a Medium creature's natural reach): no one has reach, so only centre-to-centre lines
    count (EP-FLANK-02) and A's N-to-E line is no flank."""
    text = """
        . . . . .
        . . . . .
        . . . A .
        . . . D .
        . . . . B
    """
    b = _std(text, A={} if reach is None else {"reach": reach})
    assert flanking_allies(b, "A", "D") == []
    assert flanks(b, "B", "D") is False
    assert facing_modifier(b, "A", "D") == 0


def test_standard_flanking_denied_by_all_around_vision_and_iud():
    """SRD-FLANK-01 with UA-FEAT-IUD/SR-13 immunity flags (defender_immunity_fields of
    standard): all-around vision and IUD deny the flank; a rogue 4 levels higher beats
    IUD (IC-17)."""
    for d in ({"all_around_vision": True}, {"improved_uncanny_dodge": 5}):
        b = _std(". . .\nA D B\n. . .", A=ROGUE, D=d)
        assert flanks(b, "A", "D") is False
        assert facing_modifier(b, "A", "D") == 0
    b = _std(
        ". . .\nA D B\n. . .",
        A={"sneak_attack": "5d6", "rogue_level": 9},
        D={"improved_uncanny_dodge": 5},
    )
    assert flanks(b, "A", "D") is True
    assert sneak_attack_applies(b, "A", "D") is True
