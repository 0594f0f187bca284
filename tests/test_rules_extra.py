"""Shared spaces, squeezing, touch attacks, hazardous terrain, Mounted Combat and the run
multiplier: the remaining rule ids of docs/rules.md.

EP-FLANK-07, EP-FLANK-08, EP-STEP-01, EP-CLAMBER-01, EP-SQZ-01, EP-TER-05, SRD-TOUCH-01,
UA-FEAT-MC, EP-RUN-02 with IC-13. Boards: x grows east, y
grows south; the letter is the id. A creature inside a larger one's space is not drawn: its
``pos`` (and ``size``) are given in its fields.
"""

from __future__ import annotations

import pytest

from facing_env import Battle
from facing_env.errors import ScenarioError
from facing_env.rules import (
    area_of,
    attack_breakdown,
    charge_allowed,
    clamber_allowed,
    facing_modifier,
    flanking_allies,
    flanks,
    forced_path,
    is_inside,
    movement_allowance,
    provokers,
    sneak_attack_applies,
    step_cost,
)
from facing_env.rules.flanking import line_flanks
from facing_env.scenario import scenario_from_dict
from facing_env.types import Terrain
from tests.boards import board

ROGUE = {"sneak_attack": "2d6", "rogue_level": 4}

HUGE_WITH_CORNER_ALLY = """
    F . . . .
    . H H H .
    . H H H .
    . H H H .
    . . . . .
"""


def _huge_with_medium_inside(ruleset: str = "standard", **fields):
    """Huge H (foe) at (1,1); Medium M (pc) inside it at the centre (2,2); F (pc) at the
    NW corner (0,0), diagonally adjacent to H."""
    creatures = {
        "H": {"team": "foe"},
        "M": {"team": "pc", "pos": [2, 2], **ROGUE},
        "F": {"team": "pc"},
    }
    for letter, extra in fields.items():
        creatures[letter] = {**creatures[letter], **extra}
    return board(HUGE_WITH_CORNER_ALLY, ruleset, **creatures)


# ==========================================================================================
# Sharing a space: what the battle spec accepts (EP-STEP-01, EP-CLAMBER-01)
# ==========================================================================================


@pytest.mark.parametrize(
    ("big", "small", "pos"),
    [("Huge", "Medium", [2, 2]), ("Large", "Small", [1, 1]), ("Medium", "Tiny", [1, 1])],
)
def test_ep_step_01_spec_accepts_a_creature_two_sizes_smaller_inside(big, small, pos):
    """EP-STEP-01 / EP-CLAMBER-01: a creature two or more size categories smaller may share
    the larger one's squares; the battle holds both in the shared square and round-trips."""
    b = Battle.from_spec(
        {
            "grid": {"width": 5, "height": 5},
            "creatures": [
                {"id": "big", "size": big, "pos": [1, 1], "team": "foe"},
                {"id": "small", "size": small, "pos": pos, "team": "pc"},
            ],
        }
    )
    assert b.occupants(tuple(pos)) == ["big", "small"]
    assert is_inside(b, "small", "big") is True
    assert is_inside(b, "big", "small") is False
    assert Battle.from_spec(b.to_spec()).to_spec() == b.to_spec()


@pytest.mark.parametrize(
    ("creatures", "bad", "other"),
    [
        # one size apart: a Medium inside a Large
        ([("L", "Large", [1, 1]), ("M", "Medium", [2, 2])], "M", "L"),
        # both two sizes smaller than the Huge, but the same size as each other
        ([("H", "Huge", [1, 1]), ("M", "Medium", [2, 2]), ("N", "Medium", [2, 2])], "N", "M"),
        # same size, partial overlap
        ([("A", "Large", [1, 1]), ("B", "Large", [2, 2])], "B", "A"),
    ],
)
def test_ep_step_01_spec_rejects_other_overlaps(creatures, bad, other):
    """EP-STEP-01: only creatures two or more size categories apart share squares; any
    other overlap is a ScenarioError naming the creature, the field and the other one."""
    spec = {
        "grid": {"width": 6, "height": 6},
        "creatures": [{"id": i, "size": s, "pos": p} for i, s, p in creatures],
    }
    with pytest.raises(ScenarioError) as err:
        Battle.from_spec(spec)
    assert (err.value.creature, err.value.field) == (bad, "pos")
    assert f"overlaps creature '{other}'" in str(err.value)
    assert "two or more size categories" in str(err.value)


def test_ep_step_01_playable_scenarios_keep_spaces_separate():
    """EP-STEP-01: shared squares are for rule queries; a scenario for the turn engine that
    starts with a creature inside another is a ScenarioError naming the file, creature and
    field (the engine keeps every creature in a space of its own)."""
    creatures = [
        {"id": "H", "size": "Huge", "pos": [1, 1], "team": "foe"},
        {"id": "M", "size": "Medium", "pos": [2, 2], "team": "pc"},
    ]
    with pytest.raises(ScenarioError) as err:
        scenario_from_dict({"name": "inside", "creatures": creatures}, source="inside.yaml")
    assert (err.value.file, err.value.creature, err.value.field) == ("inside.yaml", "M", "pos")
    assert "shared with creature 'H'" in str(err.value)
    creatures[1]["pos"] = [5, 5]
    assert scenario_from_dict({"name": "apart", "creatures": creatures}).teams == ("foe", "pc")


# ==========================================================================================
# Internal flanking (EP-FLANK-07) and shared squares (EP-FLANK-08), standard rule set
# ==========================================================================================


def test_ep_flank_07_internal_creature_flanks_with_an_ally_anywhere():
    """EP-FLANK-07: M inside Huge H flanks it with F, who threatens H from its NW corner
    (no line through opposite sides exists: M's centre is inside H's space). The flank
    gives +2 and lets the rogue sneak attack (SRD-FLANK-01)."""
    b = _huge_with_medium_inside()
    assert flanking_allies(b, "M", "H") == ["F"]
    br = attack_breakdown(b, "M", "H")
    assert br["flanking"] == 2
    assert br.facing == 2
    assert sneak_attack_applies(b, "M", "H") is True


def test_ep_flank_07_only_the_internal_creature_gains_it():
    """EP-FLANK-07: 'a smaller creature can gain internal flanking'; its ally outside (F)
    has no line through H to M's square, so F does not flank H."""
    b = _huge_with_medium_inside()
    assert flanking_allies(b, "F", "H") == []
    assert attack_breakdown(b, "F", "H")["flanking"] == 0


def test_ep_flank_07_needs_an_ally_that_threatens():
    """EP-FLANK-07: 'if he has an ally that threatens the larger creature': an F that
    threatens nothing gives no flank, and alone M has none."""
    b = _huge_with_medium_inside(F={"threatens": False})
    assert flanking_allies(b, "M", "H") == []
    assert flanks(b, "M", "H") is False
    assert sneak_attack_applies(b, "M", "H") is False


def test_ep_flank_07_small_inside_large():
    """EP-FLANK-07: two size categories is enough: Small s inside Large L at (1,1) flanks
    it with F at L's far corner (3,3)."""
    b = board(
        """
        . . . .
        . L L .
        . L L .
        . . . F
        """,
        "standard",
        L={"team": "foe"},
        s={"team": "pc", "size": "Small", "pos": [1, 1]},
        F={"team": "pc"},
    )
    assert flanking_allies(b, "s", "L") == ["F"]


def test_ep_flank_07_larger_creature_and_its_ally_flank_the_internal_one():
    """EP-FLANK-07 (the seed's next sentences): Large L flanks the Small s inside it when
    an ally of L (G) threatens s's square, and G flanks s with L. No line from G's centre to
    any of L's squares crosses s's square through opposite sides or corners."""
    text = """
        . . G .
        . L L .
        . L L .
        . . . .
    """
    b = board(
        text,
        "standard",
        L={"team": "foe"},
        G={"team": "foe"},
        s={"team": "pc", "size": "Small", "pos": [1, 1]},
    )
    box = (1.0, 1.0, 2.0, 2.0)
    assert not any(line_flanks((2.5, 0.5), (x + 0.5, y + 0.5), box) for x in (1, 2) for y in (1, 2))
    assert flanking_allies(b, "L", "s") == ["G"]
    assert flanking_allies(b, "G", "s") == ["L"]
    assert attack_breakdown(b, "G", "s")["flanking"] == 2
    lone = board(
        text,
        "standard",
        L={"team": "foe"},
        G={"team": "foe", "threatens": False},
        s={"team": "pc", "size": "Small", "pos": [1, 1]},
    )
    assert flanking_allies(lone, "L", "s") == []


def test_ep_flank_07_internal_flanking_is_standard_only():
    """IC-18: ua35 has no flanking, internal or not; M inside H lies in none of H's areas
    (a square of H's own space), so M gets no opponent-facing bonus either."""
    b = _huge_with_medium_inside("ua35")
    assert flanking_allies(b, "M", "H") == []
    assert area_of(b, "H", "M") == "none"
    assert attack_breakdown(b, "M", "H")["facing_opponent_area"] == 0


SHARED_SQUARE = """
    . . . .
    P L L .
    . L L .
    . . . .
"""


def _shared_square(with_s: bool):
    """Large L (foe) at (1,1); Small Q (pc) inside L at (2,1); P (pc) west of L at (0,1);
    optionally Small s (foe) inside L at (1,1), between P and Q."""
    fields = {
        "L": {"team": "foe"},
        "P": {"team": "pc", **ROGUE},
        "Q": {"team": "pc", "size": "Small", "pos": [2, 1]},
    }
    if with_s:
        fields["s"] = {"team": "foe", "size": "Small", "pos": [1, 1]}
    return board(SHARED_SQUARE, "standard", **fields)


def test_ep_flank_08_flank_to_a_shared_square_flanks_everyone_in_it():
    """EP-FLANK-08: P and Q flank square (1,1) (a line through its west and east sides);
    it holds s and L, so P flanks both, though the line ends inside L's space."""
    b = _shared_square(with_s=True)
    assert flanking_allies(b, "P", "s") == ["Q"]
    assert flanking_allies(b, "P", "L") == ["Q"]
    assert attack_breakdown(b, "P", "L")["flanking"] == 2
    assert sneak_attack_applies(b, "P", "L") is True


def test_ep_flank_08_needs_more_than_one_creature_in_the_square():
    """EP-FLANK-08: without s, square (1,1) holds only L and P gets no flank on L; Q,
    inside L, still flanks it internally (EP-FLANK-07)."""
    b = _shared_square(with_s=False)
    assert flanking_allies(b, "P", "L") == []
    assert sneak_attack_applies(b, "P", "L") is False
    assert flanking_allies(b, "Q", "L") == ["P"]


# ==========================================================================================
# Stepover (EP-STEP-01) and clamber (EP-CLAMBER-01)
# ==========================================================================================

STEPOVER = """
    . . . . . . . .
    . H H H M . . .
    . H H H . . . .
    . H H H . . . .
    . . . . . . . .
"""


def test_ep_step_01_larger_creature_steps_onto_a_much_smaller_one():
    """EP-STEP-01: Huge H (facing E) steps east onto Medium foe M's square: a front step,
    cost 1. A 5-foot step never ends in an occupied space (stepover is part of a move)."""
    b = board(STEPOVER, H={"facing": "E", "team": "foe"}, M={"team": "pc"})
    assert step_cost(b, "H", "E") == 1
    assert step_cost(b, "H", "E", five_foot_step=True) is None


def test_ep_step_01_one_size_larger_cannot_step_over():
    """EP-STEP-01: 'two size categories or larger': a Large creature is stopped by a
    Medium foe."""
    b = board(
        """
        . L L M
        . L L .
        """,
        L={"facing": "E", "team": "foe"},
        M={"team": "pc"},
    )
    assert step_cost(b, "L", "E") is None


def test_ep_step_01_stepping_over_still_provokes():
    """EP-STEP-01: '(though moving still provokes attacks of opportunity as normal)': H
    walks east over M and past it, leaving squares M threatens: M gets one AoO."""
    b = board(STEPOVER, H={"facing": "E", "team": "foe"}, M={"team": "pc"})
    path = [(1, 1), (2, 1), (3, 1), (4, 1), (5, 1)]
    assert provokers(b, "H", path) == ["M"]
    b.place("H", (2, 1))
    assert sorted(b.occupants((4, 1))) == ["H", "M"]
    assert step_cost(b, "H", "E") == 1


def test_ep_step_01_smaller_creature_moves_out_but_not_in():
    """EP-STEP-01: the smaller creature may move out of the shared space, provoking as
    normal (all internal squares are threatened, EP-THR-01), but may not enter the larger
    creature's squares with normal movement."""
    b = board(
        """
        . . . . .
        . H H H .
        . H H H .
        . H H H .
        """,
        H={"team": "foe"},
        M={"team": "pc", "pos": [3, 1], "facing": "E"},
    )
    assert step_cost(b, "M", "E") == 1
    assert provokers(b, "M", [(3, 1), (4, 1)]) == ["H"]
    assert step_cost(b, "M", "W") is None


def test_ep_step_01_forced_movement_steps_over():
    """EP-STEP-01: a Huge creature pushed east steps over the Medium M in its path; a
    pushed Large creature stops before a Medium one (EP-FORCE-02)."""
    b = board(
        """
        . H H H . . .
        A H H H M . .
        . H H H . . .
        """,
        A={"team": "pc"},
        H={"team": "foe"},
        M={"team": "pc"},
    )
    assert forced_path(b, "H", "A", [(2, 0), (3, 0)], kind="push") == [(2, 0), (3, 0)]
    small = board(
        """
        . L L M .
        A L L . .
        """,
        A={"team": "pc"},
        L={"team": "foe"},
        M={"team": "pc"},
    )
    assert forced_path(small, "L", "A", [(2, 0)], kind="push") == []


CLAMBER = """
    . . . . . . . .
    . . . . . H H H
    . . M . . H H H
    . . . . . H H H
    . . . . . . . .
"""


@pytest.mark.parametrize(
    ("path", "speed", "allowed"),
    [
        ([(3, 2), (4, 2), (5, 2)], 30, True),  # 3 squares = half of 6
        ([(3, 2), (4, 2), (5, 2), (6, 2)], 30, False),  # 4 squares > 3
        ([(3, 2), (4, 2), (5, 2), (6, 2)], 40, True),  # half of 8 squares
        ([(3, 2), (4, 2)], 30, False),  # ends outside H's space
        ([(3, 2), (5, 2)], 30, False),  # not a step to an adjacent square
    ],
)
def test_ep_clamber_01_half_speed_into_the_space(path, speed, allowed):
    """EP-CLAMBER-01: 'a move of up to half your normal speed. This movement must include
    moving into the target monster's space': Medium M (speed ``speed``) clambers into H."""
    b = board(CLAMBER, H={"team": "foe"}, M={"team": "pc", "speed": speed})
    assert clamber_allowed(b, "M", "H", path) is allowed


def test_ep_clamber_01_difficult_terrain_still_costs_double():
    """EP-CLAMBER-01: 'Difficult terrain in your path still costs twice as much': one
    difficult square makes the 3-square path cost 4 > 3."""
    b = board(CLAMBER.replace(". . M . . H", ". . M ~ . H"), H={"team": "foe"}, M={})
    assert b.terrain_at((3, 2)) is Terrain.DIFFICULT
    assert clamber_allowed(b, "M", "H", [(3, 2), (4, 2), (5, 2)]) is False


@pytest.mark.parametrize(("ruleset", "allowed"), [("ua35", False), ("standard", True)])
def test_ep_clamber_01_diagonals_by_the_diagonal_rule(ruleset, allowed):
    """EP-CLAMBER-01 with IC-07: two diagonals and a straight step cost 1 + 2 + 1 = 4 under
    alternating counting (ua35) but 3 under uniform counting (standard, EP-GEN-02)."""
    b = board(
        """
        . . . . . . . .
        . . . . . H H H
        . . . . . H H H
        . . . . . H H H
        . . M . . . . .
        """,
        ruleset,
        H={"team": "foe"},
        M={"team": "pc"},
    )
    assert clamber_allowed(b, "M", "H", [(3, 3), (4, 2), (5, 2)]) is allowed


def test_ep_clamber_01_target_two_sizes_larger_and_one_creature_only():
    """EP-CLAMBER-01: 'The target creature must be at least 2 size categories larger'
    (not a Large one for a Medium climber); a clamber never passes through another
    creature (X); a climber already inside cannot clamber into the same creature."""
    large = board(
        """
        . . . . .
        . . . L L
        . M . L L
        """,
        L={"team": "foe"},
        M={"team": "pc"},
    )
    assert clamber_allowed(large, "M", "L", [(2, 2), (3, 2)]) is False
    blocked = board(CLAMBER.replace(". . M . . H", ". . M X . H"), H={"team": "foe"}, M={})
    assert clamber_allowed(blocked, "M", "H", [(3, 2), (4, 2), (5, 2)]) is False
    assert clamber_allowed(blocked, "M", "H", [(3, 1), (4, 1), (5, 1)]) is True
    inside = board(CLAMBER, H={"team": "foe"}, M={"pos": [5, 2]})
    assert clamber_allowed(inside, "M", "H", [(6, 2)]) is False


# ==========================================================================================
# Squeezing (EP-SQZ-01)
# ==========================================================================================

FACE_TO_FACE = """
    . A .
    . D .
    . . .
"""


def test_ep_sqz_01_squeezing_attacker_minus_4_to_attack():
    """EP-SQZ-01: 'a -4 penalty to attack rolls': A and D face each other (facing 0)."""
    b = board(FACE_TO_FACE, A={"facing": "S", "squeezing": True}, D={"facing": "N"})
    br = attack_breakdown(b, "A", "D")
    assert br["squeezing"] == -4
    assert br.total == -4
    assert br.target_ac == 10
    assert facing_modifier(b, "A", "D") == 0  # not a facing term


def test_ep_sqz_01_squeezing_defender_minus_4_to_ac():
    """EP-SQZ-01: 'a -4 penalty to AC': D (AC 15) squeezing is hit on AC 11."""
    b = board(FACE_TO_FACE, A={"facing": "S"}, D={"facing": "N", "ac": 15, "squeezing": True})
    br = attack_breakdown(b, "A", "D")
    assert br["squeezing_ac"] == -4
    assert br.target_ac == 11
    assert br["squeezing"] == 0  # the attacker is not squeezing
    assert br.total == 0


@pytest.mark.parametrize(
    ("terrain", "squeezing", "cost", "five_foot"),
    [
        (".", False, 1, 1),
        (".", True, 2, None),  # treated as difficult terrain (EP-5FT-03: no 5-foot step)
        ("~", False, 2, None),
        ("~", True, 2, None),  # difficult once, not twice
    ],
)
def test_ep_sqz_01_entering_a_squeeze_is_difficult_terrain(terrain, squeezing, cost, five_foot):
    """EP-SQZ-01: 'Entering a square which requires squeezing is treated as difficult
    terrain': A steps north into its front (1,0)."""
    b = board(f". {terrain} .\n. A .", A={"facing": "N"})
    assert step_cost(b, "A", "N", squeezing=squeezing) == cost
    assert step_cost(b, "A", "N", squeezing=squeezing, five_foot_step=True) == five_foot


def test_ep_sqz_01_internal_creatures_are_not_squeezing():
    """EP-FLANK-07 / EP-STEP-01: 'neither figure is considered to be Squeezing' when a
    creature is inside one two sizes larger: no squeezing term either way; the squeezing
    flag round-trips through the spec."""
    b = _huge_with_medium_inside()
    for attacker, defender in (("M", "H"), ("H", "M")):
        br = attack_breakdown(b, attacker, defender)
        assert (br["squeezing"], br["squeezing_ac"]) == (0, 0)
    squeezed = board(FACE_TO_FACE, A={"squeezing": True})
    spec = squeezed.to_spec()
    assert [c["squeezing"] for c in spec["creatures"]] == [True, False]
    assert Battle.from_spec(spec).creature("A").squeezing is True


# ==========================================================================================
# Touch attacks (SRD-TOUCH-01)
# ==========================================================================================

TOUCH_ATTACKS = [{"name": "sword"}, {"name": "touch", "touch": True}]
RAY = {"name": "ray", "kind": "ranged", "touch": True}


def _touch_board(where: str, **d_fields):
    """Defender D at (1,1) facing N, shield on the left (W); A at ``where`` facing D."""
    a_pos, a_facing = {"front": ((1, 0), "S"), "right": ((2, 1), "W")}[where]
    d = {"team": "foe", "facing": "N", **d_fields}
    return Battle.from_spec(
        {
            "grid": {"width": 3, "height": 3},
            "creatures": [
                {"id": "D", "size": "Medium", "pos": [1, 1], **d},
                {
                    "id": "A",
                    "size": "Medium",
                    "pos": list(a_pos),
                    "facing": a_facing,
                    "team": "pc",
                    "attacks": [*TOUCH_ATTACKS, RAY],
                },
            ],
        }
    )


ARMOURED = {"ac": 20, "touch_ac": 12, "shield": {"side": "left", "bonus": 2}}


@pytest.mark.parametrize(
    ("where", "attack", "target_ac", "shield", "touch"),
    [
        ("front", "sword", 20, 0, 0),
        ("front", "touch", 12, -2, -6),
        ("front", "ray", 12, -2, -6),
        ("right", "sword", 18, -2, 0),  # the shieldless flank (UA-SHLD-02)
        ("right", "touch", 12, -2, -6),
    ],
)
def test_srd_touch_01_touch_ac_drops_armor_shield_natural(where, attack, target_ac, shield, touch):
    """SRD-TOUCH-01: 'AC against a touch attack does not include any armor bonus, shield
    bonus, or natural armor bonus': D has AC 20, touch AC 12 and a +2 shield on the left."""
    b = _touch_board(where, **ARMOURED)
    br = attack_breakdown(b, "A", "D", attack=attack)
    assert br.target_ac == target_ac
    assert (br.ac_terms["shield"], br.ac_terms["touch"]) == (shield, touch)


def test_srd_touch_01_shield_spell_is_a_shield_bonus():
    """SRD-TOUCH-01 with UA-SPL-03: the shield spell's +4 is a shield bonus, so it counts
    against the sword from the front but not against a touch attack."""
    b = _touch_board("front", ac=15, touch_ac=11, spells=["shield"])
    assert attack_breakdown(b, "A", "D", attack="sword").target_ac == 19
    br = attack_breakdown(b, "A", "D", attack="touch")
    assert br.ac_terms["shield_spell"] == 0
    assert br.target_ac == 11


def test_srd_touch_01_dexterity_still_applies():
    """SRD-TOUCH-01: 'The target's ... Dexterity modifier ... apply normally', so a
    flat-footed target (Dex 14) loses it from its touch AC too (SRD-FF-01): 12 - 2."""
    b = _touch_board("front", ac=20, touch_ac=12, dex=14, flat_footed=True)
    assert attack_breakdown(b, "A", "D", attack="touch").target_ac == 10
    assert attack_breakdown(b, "A", "D", attack="sword").target_ac == 18


def test_srd_touch_01_default_touch_ac_and_spec():
    """SRD-TOUCH-01: without ``touch_ac`` the touch AC is the AC less the shield bonus (no
    armor or natural armor given); a touch AC above that is a ScenarioError on the field;
    ``touch`` and ``touch_ac`` round-trip."""
    b = _touch_board("front", ac=17, shield={"side": "left", "bonus": 2})
    assert b.creature("D").touch_ac == 15
    assert attack_breakdown(b, "A", "D", attack="touch").target_ac == 15
    spec = b.to_spec()
    assert spec["creatures"][0]["touch_ac"] == 15
    assert [a.get("touch", False) for a in spec["creatures"][1]["attacks"]] == [
        False,
        True,
        True,
    ]
    assert Battle.from_spec(spec).to_spec() == spec
    with pytest.raises(ScenarioError) as err:
        _touch_board("front", ac=20, touch_ac=19, shield={"side": "left", "bonus": 2})
    assert (err.value.creature, err.value.field) == ("D", "touch_ac")
    assert "SRD-TOUCH-01" in str(err.value)


# ==========================================================================================
# Hazardous terrain (EP-TER-05)
# ==========================================================================================


@pytest.mark.parametrize(
    ("terrain", "cost", "five_foot"), [(".", 1, 1), ("^", 1, 1), ("~", 2, None)]
)
def test_ep_ter_05_hazardous_terrain_is_entered_freely(terrain, cost, five_foot):
    """EP-TER-05: 'a character can freely move into spaces of hazardous terrain': it costs
    what open ground costs and allows a 5-foot step, unlike difficult terrain."""
    b = board(f". A {terrain}", A={"facing": "E"})
    assert step_cost(b, "A", "E") == cost
    assert step_cost(b, "A", "E", five_foot_step=True) == five_foot


@pytest.mark.parametrize(("terrain", "allowed"), [("^", True), ("~", False)])
def test_ep_ter_05_charge_lane_through_hazardous_terrain(terrain, allowed):
    """EP-TER-05 with EP-CHG-01: hazardous terrain neither blocks nor slows movement, so a
    charge may cross it; difficult terrain stops the charge."""
    b = board(
        f"""
        . . . .
        A {terrain} . D
        . . . .
        """,
        A={"team": "pc"},
        D={"team": "foe"},
    )
    assert charge_allowed(b, "A", "D", (2, 1)) is allowed


@pytest.mark.parametrize(("terrain", "moved"), [("^", [(2, 0)]), ("#", [])])
def test_ep_ter_05_forced_into_hazardous_terrain(terrain, moved):
    """EP-TER-05 with EP-FORCE-01/02: a push may end on hazardous terrain (never on blocked
    terrain)."""
    b = board(f"P T {terrain} .", P={"team": "pc"}, T={"team": "foe"})
    assert forced_path(b, "T", "P", [(2, 0)], kind="push") == moved


def test_ep_ter_05_hazardous_in_the_spec():
    """EP-TER-05: terrain kind ``hazardous`` (map character ``^``) is accepted and
    round-trips."""
    b = Battle.from_spec(
        {"map": "..^\n...", "terrain": [{"pos": [0, 1], "kind": "hazardous"}], "creatures": []}
    )
    assert b.terrain_at((2, 0)) is Terrain.HAZARDOUS
    assert b.terrain_at((0, 1)) is Terrain.HAZARDOUS
    assert b.to_spec()["terrain"] == [
        {"pos": [2, 0], "kind": "hazardous"},
        {"pos": [0, 1], "kind": "hazardous"},
    ]


# ==========================================================================================
# Mounted Combat (UA-FEAT-MC) and the run multiplier (EP-RUN-02, IC-13)
# ==========================================================================================


@pytest.mark.parametrize(
    ("feats", "flank", "rear"),
    [([], -5, -10), (["Mounted Combat"], -5, -10), (["Whirlwind Attack"], 0, 0)],
)
def test_ua_feat_mc_no_effect_unmounted(feats, flank, rear):
    """UA-FEAT-MC: 'can attack into their steeds' flank areas without penalty while
    mounted'. The project has no mounts, so a creature with the feat is never mounted and
    keeps -5 into its own flank and -10 into its rear (unlike Whirlwind Attack, UA-FEAT-WA).
    A faces N; D faces A (no opponent bonus), east of A (flank) or south of it (rear)."""
    side = board(". A D", A={"facing": "N", "feats": feats}, D={"facing": "W"})
    assert facing_modifier(side, "A", "D") == flank
    assert facing_modifier(side, "A", "D", kind="aoo") == flank
    behind = board(". A .\n. D .", A={"facing": "N", "feats": feats}, D={"facing": "N"})
    assert attack_breakdown(behind, "A", "D")["facing_own_area"] == rear


@pytest.mark.parametrize(
    ("speed", "armor", "squares"),
    [(30, "none", 24), (30, "light", 24), (30, "medium", 24), (30, "heavy", 18), (20, "heavy", 12)],
)
def test_ep_run_02_ic_13_run_section_multiplier(speed, armor, squares):
    """EP-RUN-02 resolved by IC-13: the Run section's x4 (x3 in heavy armour), not the
    Encumbrance section's x5 (which would give 30 squares unarmoured or in light armour;
    medium x4 and heavy x3 agree under both)."""
    b = board(". R .", R={"speed": speed, "armor": armor})
    assert movement_allowance(b, "R", "run") == squares
