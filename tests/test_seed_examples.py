"""Every worked example of the seed texts, with its exact numbers (docs/rules.md: UA-ATK, UA-OPP,
UA-SNK, UA-AOO).

Each test names the rule id whose example it reproduces. Boards follow docs/rules.md's
coordinates: x grows east, y grows south; the letter on the board is the creature's id.
"""

from __future__ import annotations

from facing_env.rules import (
    area_of,
    attack_breakdown,
    facing_modifier,
    provokers,
    sneak_attack_applies,
)
from tests.boards import board

ROGUE = {"sneak_attack": "2d6", "rogue_level": 4}

# -- UA-AOO-01..03 with IC-09: the three attack-of-opportunity figures ----------------------
# Fighter F at (5,5) facing E; the rogue R leaves the square next to him.

_FIGURE_EAST = """
    . . . . . . . .
    . . . . . . . .
    . . . . . . . .
    . . . . . . . .
    . . . . . . . .
    . . . . . F R .
    . . . . . . . .
"""
_FIGURE_WEST = """
    . . . . . . . .
    . . . . . . . .
    . . . . . . . .
    . . . . . . . .
    . . . . . . . .
    . . . . R F . .
    . . . . . . . .
"""


def _figure(text: str, rogue_facing: str):
    return board(
        text,
        F={"facing": "E", "team": "pc"},
        R={"facing": rogue_facing, "team": "npc", **ROGUE},
    )


def test_ua_aoo_01_figure_1_rogue_moves_out_past_fighter_plus_2():
    """UA-AOO-01, IC-09: rogue at (6,5) facing N; the fighter is in her flank: +2."""
    b = _figure(_FIGURE_EAST, "N")
    assert b.creature("R").pos == (6, 5)
    assert provokers(b, "R", [(6, 5), (6, 4), (6, 3)]) == ["F"]
    br = attack_breakdown(b, "F", "R", kind="aoo")
    assert br["facing_own_area"] == 0  # the rogue is in the fighter's front
    assert br["facing_opponent_area"] == 2  # the fighter is in the rogue's flank
    assert facing_modifier(b, "F", "R", kind="aoo") == 2


def test_ua_aoo_02_figure_2_rogue_moves_sideways_facing_fighter_no_bonus():
    """UA-AOO-02, IC-09: rogue at (6,5) facing W; the fighter is in her front: 0."""
    b = _figure(_FIGURE_EAST, "W")
    assert provokers(b, "R", [(6, 5), (6, 4), (6, 3)]) == ["F"]
    br = attack_breakdown(b, "F", "R", kind="aoo")
    assert (br["facing_own_area"], br["facing_opponent_area"]) == (0, 0)
    assert facing_modifier(b, "F", "R", kind="aoo") == 0


def test_ua_aoo_03_figure_3_rogue_moves_around_fighters_back_minus_8():
    """UA-AOO-03, IC-09: rogue at (4,5) facing N: -10 (fighter's rear) + 2 (her flank)."""
    b = _figure(_FIGURE_WEST, "N")
    assert b.creature("R").pos == (4, 5)
    assert provokers(b, "R", [(4, 5), (4, 4), (5, 4)]) == ["F"]
    br = attack_breakdown(b, "F", "R", kind="aoo")
    assert br["facing_own_area"] == -10
    assert br["facing_opponent_area"] == 2
    assert facing_modifier(b, "F", "R", kind="aoo") == -8


# -- UA-ATK-04: Kroh, the bugbear and the goblin ----------------------------------------------

_KROH = """
    . . . . . . .
    . . . . . . .
    . . . . . . .
    . . . . . . .
    . . . . . B .
    . . . . . K .
    . . . . . G .
"""


def _kroh():
    return board(
        _KROH,
        K={"id": "kroh", "facing": "N", "team": "pc"},
        B={"id": "bugbear", "facing": "S", "team": "monsters"},
        G={"id": "goblin", "facing": "N", "team": "monsters"},
    )


def test_ua_atk_04_kroh_geometry():
    """UA-ATK-04: Kroh (5,5) facing N, bugbear (5,4) in front, goblin (5,6) in the rear."""
    b = _kroh()
    assert b.creature("kroh").pos == (5, 5)
    assert b.creature("bugbear").pos == (5, 4)
    assert b.creature("goblin").pos == (5, 6)
    assert area_of(b, "kroh", "bugbear") == "front"
    assert area_of(b, "kroh", "goblin") == "rear"


def test_ua_atk_04_kroh_attacks_bugbear_in_front_0():
    """UA-ATK-04: Kroh -> bugbear before turning: 0."""
    assert facing_modifier(_kroh(), "kroh", "bugbear") == 0


def test_ua_atk_04_kroh_attacks_goblin_in_rear_before_turning_minus_10():
    """UA-ATK-04: Kroh -> goblin without turning: -10 (goblin faces N, Kroh in its front)."""
    b = _kroh()
    br = attack_breakdown(b, "kroh", "goblin")
    assert br["facing_own_area"] == -10
    assert br["facing_opponent_area"] == 0
    assert facing_modifier(b, "kroh", "goblin") == -10


def test_ua_atk_04_kroh_after_free_turn_to_goblin():
    """UA-ATK-04: after turning S: goblin 0, bugbear now in Kroh's rear -10."""
    b = _kroh()
    b.place("kroh", (5, 5), facing=4)  # S
    assert facing_modifier(b, "kroh", "goblin") == 0
    assert facing_modifier(b, "kroh", "bugbear") == -10
    assert area_of(b, "kroh", "bugbear") == "rear"


def test_ua_atk_04_bugbear_attacks_kroh_from_his_rear_plus_4():
    """UA-ATK-04: 'He's stuck with his back to the bugbear': bugbear -> Kroh +4."""
    b = _kroh()
    assert facing_modifier(b, "bugbear", "kroh") == 0  # before Kroh turned: his front
    b.place("kroh", (5, 5), facing=4)
    br = attack_breakdown(b, "bugbear", "kroh")
    assert br["facing_own_area"] == 0
    assert br["facing_opponent_area"] == 4
    assert facing_modifier(b, "bugbear", "kroh") == 4


# -- UA-SNK-04: the gnoll, the fighter, Rogue A and Rogue B ---------------------------------

_GNOLL = """
    . . . . . . . .
    . . . . . . . .
    . . . . . . . .
    . . . . . . . .
    . . . . . . . .
    . . . . F G A .
    . . . . . B . .
"""


def _gnoll(gnoll_facing: str = "N"):
    return board(
        _GNOLL,
        G={"id": "gnoll", "facing": gnoll_facing, "team": "gnolls"},
        F={"id": "fighter", "facing": "E", "team": "pc"},
        A={"id": "rogue_a", "facing": "W", "team": "pc", **ROGUE},
        B={"id": "rogue_b", "facing": "N", "team": "pc", **ROGUE},
    )


def test_ua_snk_04_fighter_and_rogue_a_in_gnolls_flanks_plus_2():
    """UA-SNK-04: fighter (4,5) and Rogue A (6,5) both +2 from the gnoll's flanks."""
    b = _gnoll()
    assert area_of(b, "gnoll", "fighter") == "flank"
    assert area_of(b, "gnoll", "rogue_a") == "flank"
    assert facing_modifier(b, "fighter", "gnoll") == 2
    assert facing_modifier(b, "rogue_a", "gnoll") == 2


def test_ua_snk_04_rogue_a_no_sneak_despite_fighter_opposite():
    """UA-SNK-04: Rogue A gets no sneak attack from the flank, fighter opposite or not."""
    b = _gnoll()
    assert sneak_attack_applies(b, "rogue_a", "gnoll") is False
    assert attack_breakdown(b, "rogue_a", "gnoll").sneak_attack is False


def test_ua_snk_04_rogue_b_sneaks_from_the_rear():
    """UA-SNK-04: Rogue B (5,6) attacks from the gnoll's rear: sneak attack and +4."""
    b = _gnoll()
    assert area_of(b, "gnoll", "rogue_b") == "rear"
    assert sneak_attack_applies(b, "rogue_b", "gnoll") is True
    assert facing_modifier(b, "rogue_b", "gnoll") == 4


def test_ua_snk_04_gnoll_turns_to_face_rogue_b():
    """UA-SNK-04: 'If the gnoll turns to face Rogue B, she'll have to move': no sneak, 0."""
    b = _gnoll("S")
    assert area_of(b, "gnoll", "rogue_b") == "front"
    assert sneak_attack_applies(b, "rogue_b", "gnoll") is False
    assert facing_modifier(b, "rogue_b", "gnoll") == 0
    assert facing_modifier(b, "rogue_a", "gnoll") == 2  # still in a flank


# -- UA-SNK-02 and UA-SNK-03 ---------------------------------------------------------------

_BEHIND = """
    . . . . .
    . . M . .
    . . R . .
    . . . . .
"""


def test_ua_snk_02_shambling_mound_has_a_rear_but_is_immune():
    """UA-SNK-02: a rogue in the mound's rear gets +4 but never sneak attack damage."""
    b = board(
        _BEHIND,
        M={"id": "shambling_mound", "facing": "N", "immune_to_sneak_attack": True},
        R={"id": "rogue", "facing": "N", **ROGUE},
    )
    assert area_of(b, "shambling_mound", "rogue") == "rear"
    assert facing_modifier(b, "rogue", "shambling_mound") == 4
    assert sneak_attack_applies(b, "rogue", "shambling_mound") is False


def test_ua_snk_03_phasm_faceless_no_rear_sneak():
    """UA-SNK-03, UA-FCL-01: the phasm has no front or rear: no +4, no sneak from 'behind'."""
    b = board(
        _BEHIND,
        M={"id": "phasm", "facing": "N", "faceless": True},
        R={"id": "rogue", "facing": "N", **ROGUE},
    )
    assert area_of(b, "phasm", "rogue") == "none"
    assert facing_modifier(b, "rogue", "phasm") == 0
    assert sneak_attack_applies(b, "rogue", "phasm") is False


def test_ua_snk_03_phasm_flat_footed_sneak():
    """UA-SNK-03: 'you can still deal extra sneak attack damage if you catch it flat-footed'."""
    b = board(
        _BEHIND,
        M={"id": "phasm", "facing": "N", "faceless": True, "flat_footed": True},
        R={"id": "rogue", "facing": "N", **ROGUE},
    )
    assert sneak_attack_applies(b, "rogue", "phasm") is True


# -- UA-OPP worked numbers: side by side and back to back------------------------------------


def test_ua_opp_side_by_side_both_facing_north_minus_3():
    """UA-ATK-02 + UA-OPP-01: side by side, both facing N: -5 + 2 = -3, both ways."""
    b = board(". A B .", A={"facing": "N"}, B={"facing": "N"})
    br = attack_breakdown(b, "A", "B")
    assert (br["facing_own_area"], br["facing_opponent_area"]) == (-5, 2)
    assert facing_modifier(b, "A", "B") == -3
    assert facing_modifier(b, "B", "A") == -3


def test_ua_opp_back_to_back_minus_6():
    """UA-ATK-02 + UA-OPP-02: back to back: -10 + 4 = -6, both ways."""
    b = board(
        """
        . A .
        . B .
        """,
        A={"facing": "N"},
        B={"facing": "S"},
    )
    br = attack_breakdown(b, "A", "B")
    assert (br["facing_own_area"], br["facing_opponent_area"]) == (-10, 4)
    assert facing_modifier(b, "A", "B") == -6
    assert facing_modifier(b, "B", "A") == -6
