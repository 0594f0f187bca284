"""Attack rolls under the side_rear rule set: the flanked bonus by the defender's side and
rear, Pack Fighter, sneak attack, Improved Chieftain, concealment from behind.

Rule ids from docs/rules.md: SR-03, SR-05, SR-07..SR-13, IC-10, IC-11.

Boards follow docs/rules.md's coordinates: x grows east, y grows south; a board's
letter is the creature's id unless an ``id`` is given. ``_pair`` and ``_far`` (an
attacker next to, or on a compass ray from, a defender D) are in tests/attack_boards.py.
"""

from __future__ import annotations

import pytest

from facing_env.rules import (
    area_of,
    attack_breakdown,
    concealment_miss_chance,
    facing_modifier,
    sneak_attack_applies,
)
from tests.attack_boards import _OPPOSITE, ROGUE, _pair
from tests.boards import board

# ==========================================================================================
# side_rear (SR-03, SR-07..SR-13, IC-10)
# ==========================================================================================


@pytest.mark.parametrize(
    ("where", "bonus"),
    [("NW", 0), ("N", 0), ("NE", 0), ("E", 2), ("W", 2), ("SE", 2), ("SW", 2), ("S", 4)],
)
def test_sr_07_08_ic_10_side_plus_2_rear_plus_4(where, bonus):
    """SR-07 (side: flanked, +2), SR-08 (rear: doubled, +4), IC-10; SR-05 geometry:
    1x1 facing N has 4 side squares (W, E, SW, SE) and 1 rear square (S)."""
    b = _pair(where, "side_rear", a_facing=_OPPOSITE[where])
    assert area_of(b, "D", "A") == {0: "front", 2: "side", 4: "rear"}[bonus]
    br = attack_breakdown(b, "A", "D")
    assert br["flanked"] == bonus
    assert "facing_own_area" not in br.terms
    assert facing_modifier(b, "A", "D") == bonus


@pytest.mark.parametrize("a_facing", ["N", "E", "S", "W"])
def test_sr_03_own_facing_never_penalises(a_facing):
    """SR-03: the attacker turns to face its target, so its own facing is never a
    penalty (A in D's side square: always +2)."""
    b = _pair("E", "side_rear", a_facing=a_facing)
    assert facing_modifier(b, "A", "D") == 2


@pytest.mark.parametrize(("where", "pack"), [("N", 0), ("E", 2), ("SW", 2), ("S", 5)])
def test_sr_09_pack_fighter_full_in_rear_half_in_side(where, pack):
    """SR-09: Pack Fighter (bonus 5) gives its full bonus from the rear, half (2) from
    a side space, nothing from the front."""
    b = _pair(where, "side_rear", a_facing=_OPPOSITE[where], A={"pack_fighter_bonus": 5})
    br = attack_breakdown(b, "A", "D")
    assert br["pack_fighter"] == pack
    flanked = {"N": 0, "E": 2, "SW": 2, "S": 4}[where]
    assert facing_modifier(b, "A", "D") == flanked + pack


def test_sr_10_sneak_attack_only_from_rear():
    """SR-10: sneak attack does not activate from side spaces, only from rear spaces."""
    side = _pair("SE", "side_rear", a_facing="NW", A=ROGUE)
    rear = _pair("S", "side_rear", a_facing="N", A=ROGUE)
    front = _pair("N", "side_rear", a_facing="S", A=ROGUE)
    assert sneak_attack_applies(side, "A", "D") is False
    assert sneak_attack_applies(rear, "A", "D") is True
    assert sneak_attack_applies(front, "A", "D") is False


@pytest.mark.parametrize(
    ("where", "bonus", "sneak"),
    [("N", 2, False), ("NE", 2, False), ("E", 4, True), ("SW", 4, True), ("S", 4, True)],
)
def test_sr_12_improved_chieftain_shifts(where, bonus, sneak):
    """SR-12: Improved Chieftain gives side bonuses in front spaces (+2) and rear
    bonuses in side spaces (+4, and sneak attack, SR-10)."""
    b = _pair(
        where, "side_rear", a_facing=_OPPOSITE[where], A={"improved_chieftain": True, **ROGUE}
    )
    assert facing_modifier(b, "A", "D") == bonus
    assert sneak_attack_applies(b, "A", "D") is sneak


def test_sr_11_concealment_from_behind():
    """SR-11: a defender in the attacker's rear has concealment from it (20%); not from
    the side or front; never against all-around vision; never in ua35."""
    b = board(
        """
        . . F . .
        . . A . K
        . . R . .
        """,
        "side_rear",
        A={"facing": "N", "team": "pc"},
    )
    assert concealment_miss_chance(b, "A", "R") == 20
    assert attack_breakdown(b, "A", "R").concealment == 20
    assert concealment_miss_chance(b, "A", "F") == 0
    assert concealment_miss_chance(b, "A", "K") == 0  # beyond the side
    assert concealment_miss_chance(b, "A", (1, 2)) == 0  # SW: a side square in side_rear
    assert concealment_miss_chance(b, "A", (2, 2)) == 20
    b.creature("A").all_around_vision = True
    assert concealment_miss_chance(b, "A", "R") == 0
    ua = board(". A .\n. R .", A={"facing": "N"})
    assert concealment_miss_chance(ua, "A", "R") == 0


@pytest.mark.parametrize(
    "immunity",
    [{"uncanny_dodge": True}, {"all_around_vision": True}, {"improved_uncanny_dodge": 3}],
)
@pytest.mark.parametrize("where", ["E", "SW", "S"])
def test_sr_13_cannot_be_flanked_no_advantage(immunity, where):
    """SR-13: a defender that cannot be flanked (uncanny dodge, all-around vision) gives
    no advantage from its side or rear: no bonus, no Pack Fighter, no sneak attack."""
    b = _pair(
        where,
        "side_rear",
        a_facing=_OPPOSITE[where],
        A={"pack_fighter_bonus": 2, **ROGUE},
        D=immunity,
    )
    assert facing_modifier(b, "A", "D") == 0
    assert sneak_attack_applies(b, "A", "D") is False


def test_ic_10_bonus_per_attack_origin():
    """IC-10: the flanked bonus is per attack origin: with A in D's side (+2), B in its
    front still gets 0 and C in its rear +4."""
    b = board(
        """
        . B .
        . D A
        . C .
        """,
        "side_rear",
        A={"team": "pc", "facing": "W"},
        B={"team": "pc", "facing": "S"},
        C={"team": "pc", "facing": "N"},
        D={"team": "foe", "facing": "N"},
    )
    assert facing_modifier(b, "A", "D") == 2
    assert facing_modifier(b, "B", "D") == 0
    assert facing_modifier(b, "C", "D") == 4


def test_sr_05_ic_11_large_defender_side_rear():
    """SR-05, IC-11: a Large defender facing N: its 2 rear squares give +4, the side
    column +2, the front row 0."""
    b = board(
        """
        . . . .
        . D D .
        . D D .
        . . A .
        """,
        "side_rear",
        A={"team": "pc", "facing": "N"},
        D={"team": "foe", "facing": "N"},
    )
    assert facing_modifier(b, "A", "D") == 4
    b.place("A", (3, 3))  # the SE corner square: a side square
    assert facing_modifier(b, "A", "D") == 2
    b.place("A", (3, 0))  # the NE corner square: front
    assert facing_modifier(b, "A", "D") == 0
