"""Attack-roll rules under ua35 facing: ``facing_modifier``, ``attack_breakdown`` and friends.

Rule ids from docs/rules.md: the attacker's own area (UA-ATK-01..03), the defender's
facing (UA-OPP-01..03, IC-18), faceless and Tiny creatures (UA-FCL-01, UA-FCL-02, IC-15),
feats (UA-FEAT-CLV, -CR, -IUD, -WA, -CA, IC-08, IC-17), monster flank and rear attacks
(UA-MON-01, UA-MON-02), perception and readied actions (UA-PER-01, UA-PER-02), size
(SRD-SIZE-01) and multi-square combatants (IC-04), sneak attack (UA-SNK-01, IC-14).
Shields and spells: test_attacks_shields_spells.py; side_rear: test_attacks_side_rear.py;
standard flanking: test_attacks_flanking.py.

Boards follow docs/rules.md's coordinates: x grows east, y grows south; a board's
letter is the creature's id unless an ``id`` is given. ``_pair`` and ``_far`` (an
attacker next to, or on a compass ray from, a defender D) are in tests/attack_boards.py.
"""

from __future__ import annotations

import pytest

from facing_env.rules import (
    area_of,
    attack_breakdown,
    can_ready_against,
    facing_modifier,
    flanking_allies,
    flanks,
    sneak_attack_applies,
    spot_modifier,
)
from tests.attack_boards import _OPPOSITE, BOW, ROGUE, SPEAR, SWORD, _far, _pair
from tests.boards import board

# ==========================================================================================
# ua35: the attacker's own area (UA-ATK-01..03)
# ==========================================================================================


@pytest.mark.parametrize(
    ("where", "own"),
    [("NW", 0), ("N", 0), ("NE", 0), ("E", -5), ("W", -5), ("SE", -10), ("S", -10), ("SW", -10)],
)
def test_ua_atk_01_02_own_area_penalty_melee(where, own):
    """UA-ATK-01 (front 0), UA-ATK-02 (flank -5, rear -10): attacker A faces N; the
    defender at ``where`` faces the attacker, so no opponent bonus."""
    # D is at `where` of A: put A at the centre by swapping roles of the helper.
    b = _pair(_OPPOSITE[where], D={"facing": _OPPOSITE[where]}, A={"facing": "N"})
    # In this board A is at _OPPOSITE[where] of D, i.e. D is at `where` of A.
    br = attack_breakdown(b, "A", "D")
    assert br["facing_own_area"] == own
    assert br["facing_opponent_area"] == 0
    assert facing_modifier(b, "A", "D") == own


@pytest.mark.parametrize(("where", "own"), [("N", 0), ("E", -5), ("W", -5), ("S", -10)])
def test_ua_atk_03_ranged_beyond_areas_same_penalties(where, own):
    """UA-ATK-03: ranged attacks beyond the front are free; beyond the flank -5, beyond
    the rear -10 (the attacker 4 squares away on a compass ray, IC-03)."""
    b = _far(
        _OPPOSITE[where],
        4,
        a_facing="N",
        d_facing=_OPPOSITE[where],
        A={"attacks": [SWORD, BOW]},
    )
    assert facing_modifier(b, "A", "D", ranged=True) == own
    assert facing_modifier(b, "A", "D", attack="bow") == own
    br = attack_breakdown(b, "A", "D", attack="bow")
    assert br["facing_own_area"] == own
    assert br["attack_bonus"] == 0


# ==========================================================================================
# ua35: the defender's facing (UA-OPP-01..03)
# ==========================================================================================


@pytest.mark.parametrize(
    ("where", "bonus"),
    [("NW", 0), ("N", 0), ("NE", 0), ("E", 2), ("W", 2), ("SE", 4), ("S", 4), ("SW", 4)],
)
def test_ua_opp_01_02_opponent_bonus_adjacent(where, bonus):
    """UA-OPP-01 (+2 from the foe's flank), UA-OPP-02 (+4 from its rear); D faces N and
    the attacker faces D (own penalty 0)."""
    b = _pair(where, a_facing=_OPPOSITE[where], d_facing="N")
    br = attack_breakdown(b, "A", "D")
    assert br["facing_own_area"] == 0
    assert br["facing_opponent_area"] == bonus
    assert facing_modifier(b, "A", "D") == bonus


@pytest.mark.parametrize(("where", "bonus"), [("N", 0), ("E", 2), ("W", 2), ("S", 4)])
def test_ua_opp_01_02_beyond_with_reach_weapon(where, bonus):
    """UA-OPP-01/02: 'or the squares beyond it, if you have a reach ... weapon' (IC-03)."""
    b = _far(where, 2, a_facing=_OPPOSITE[where], A={"attacks": [SPEAR]})
    assert facing_modifier(b, "A", "D", attack="longspear") == bonus


@pytest.mark.parametrize(("where", "bonus"), [("N", 0), ("E", 2), ("W", 2), ("S", 4)])
def test_ua_opp_01_02_beyond_with_ranged_weapon(where, bonus):
    """UA-OPP-01/02: ranged attacks from beyond the foe's flank +2, beyond its rear +4."""
    b = _far(where, 5, a_facing=_OPPOSITE[where], A={"attacks": [BOW]})
    assert facing_modifier(b, "A", "D", ranged=True) == bonus


def test_ua_opp_01_no_one_needed_opposite():
    """UA-OPP-01: 'You don't need anyone opposite you': a lone attacker in the flank +2."""
    b = _pair("E", a_facing="W")
    assert len(b.creatures) == 2
    assert facing_modifier(b, "A", "D") == 2


def test_ua_opp_03_supersedes_standard_flanking():
    """UA-OPP-03, IC-18: A and B opposite each other in D's flanks get +2 each from the
    flank and nothing more; there is no standard flanking term or flank in ua35."""
    b = board(
        """
        . A .
        . D .
        . B .
        """,
        A={"facing": "S", "team": "pc"},
        B={"facing": "N", "team": "pc"},
        D={"facing": "E", "team": "foe"},
    )
    for attacker in ("A", "B"):
        br = attack_breakdown(b, attacker, "D")
        assert "flanking" not in br.terms
        assert br.facing == 2
        assert facing_modifier(b, attacker, "D") == 2
        assert flanks(b, attacker, "D") is False
        assert flanking_allies(b, attacker, "D") == []


def test_ic_18_ua35_opposite_allies_front_and_rear():
    """IC-18: ua35 has no standard flanking: A in D's front gets 0, B in its rear +4."""
    b = board(
        """
        . A .
        . D .
        . B .
        """,
        A={"facing": "S", "team": "pc", **ROGUE},
        B={"facing": "N", "team": "pc"},
        D={"facing": "N", "team": "foe"},
    )
    assert facing_modifier(b, "A", "D") == 0
    assert facing_modifier(b, "B", "D") == 4
    assert sneak_attack_applies(b, "A", "D") is False


# ==========================================================================================
# Faceless and Tiny creatures (UA-FCL-01, UA-FCL-02, IC-15)
# ==========================================================================================


@pytest.mark.parametrize("where", ["N", "E", "S", "W", "SE"])
def test_ua_fcl_01_faceless_defender_gives_no_bonus(where):
    """UA-FCL-01: 'they can't be flanked or attacked from the rear': no +2/+4 anywhere."""
    b = _pair(where, a_facing=_OPPOSITE[where], D={"faceless": True})
    assert area_of(b, "D", "A") == "none"
    assert facing_modifier(b, "A", "D") == 0


@pytest.mark.parametrize(("where", "bonus"), [("N", 0), ("E", 2), ("S", 4)])
def test_ua_fcl_01_ic_15_faceless_attacker(where, bonus):
    """UA-FCL-01: a faceless attacker 'can attack into any adjacent square' (no own
    penalty, though it 'faces' away); IC-15: it still gets the defender-based +2/+4."""
    b = _pair(where, a_facing=where, A={"faceless": True})  # facing away from D
    br = attack_breakdown(b, "A", "D")
    assert br["facing_own_area"] == 0
    assert br["facing_opponent_area"] == bonus
    assert facing_modifier(b, "A", "D") == bonus


def test_ua_fcl_02_tiny_defender_has_no_facing():
    """UA-FCL-02: a Tiny creature's given facing is ignored; no +4 from 'behind' it, no
    rear sneak attack; area_of is 'none'."""
    b = _pair("S", a_facing="N", A=ROGUE, D={"size": "Tiny", "facing": "N"})
    assert area_of(b, "D", "A") == "none"
    assert facing_modifier(b, "A", "D") == 0
    assert sneak_attack_applies(b, "A", "D") is False


def test_ua_fcl_02_tiny_attacker_no_own_penalty_ic_15():
    """UA-FCL-02, IC-15: a Tiny attacker 'facing' away from D takes no penalty, and
    attacking from D's rear still gets +4."""
    b = _pair("S", a_facing="S", A={"size": "Tiny"})
    br = attack_breakdown(b, "A", "D")
    assert br["facing_own_area"] == 0
    assert br["facing_opponent_area"] == 4
    assert br["size"] == 2  # SRD-SIZE-01: Tiny +2
    assert facing_modifier(b, "A", "D") == 4


# ==========================================================================================
# Feats (UA-FEAT-CLV, -CR, -IUD, -WA, -CA)
# ==========================================================================================


@pytest.mark.parametrize(("where", "own"), [("N", 0), ("E", 0), ("W", 0), ("S", -10)])
def test_ua_feat_clv_cleave_into_flank_free_rear_still_minus_10(where, own):
    """UA-FEAT-CLV: Cleave/Great Cleave extra attacks go into flanks without penalty;
    the rear stays -10. D faces A, so only the own penalty counts."""
    b = _pair(
        _OPPOSITE[where],
        a_facing="N",
        d_facing=_OPPOSITE[where],
        A={"feats": ["Cleave", "Great Cleave"]},
    )
    assert facing_modifier(b, "A", "D", kind="cleave") == own


def test_ua_feat_clv_ordinary_attack_unaffected():
    """UA-FEAT-CLV: the character's ordinary attacks into the flank are still -5."""
    b = _pair("W", a_facing="N", d_facing="W", A={"feats": ["Cleave"]})  # D east of A
    assert facing_modifier(b, "A", "D", kind="cleave") == 0
    assert facing_modifier(b, "A", "D") == -5


@pytest.mark.parametrize(
    ("feats", "kind", "where", "own"),
    [
        (["Combat Reflexes"], "aoo", "E", 0),
        (["Combat Reflexes"], "aoo", "S", -10),
        (["Combat Reflexes"], "attack", "E", -5),
        ([], "aoo", "E", -5),
        ([], "aoo", "S", -10),
    ],
)
def test_ua_feat_cr_combat_reflexes_aoo_into_flank(feats, kind, where, own):
    """UA-FEAT-CR: attacks of opportunity into the flank without penalty; rear AoO still
    -10; ordinary attacks and AoO without the feat unaffected."""
    b = _pair(_OPPOSITE[where], a_facing="N", d_facing=_OPPOSITE[where], A={"feats": feats})
    assert facing_modifier(b, "A", "D", kind=kind) == own


@pytest.mark.parametrize(("where", "own"), [("E", 0), ("W", 0), ("S", 0), ("SE", 0)])
def test_ua_feat_wa_whirlwind_attack_feat_any_area_ic_08(where, own):
    """UA-FEAT-WA, IC-08: with Whirlwind Attack every attack goes into any area without
    penalty, ordinary attacks included."""
    b = _pair(
        _OPPOSITE[where], a_facing="N", d_facing=_OPPOSITE[where], A={"feats": ["Whirlwind Attack"]}
    )
    assert facing_modifier(b, "A", "D") == own
    assert facing_modifier(b, "A", "D", kind="whirlwind") == own


def test_ua_feat_wa_without_feat_ordinary_attack_rear_minus_10():
    """UA-FEAT-WA, IC-08: without the feat an ordinary attack into the rear is -10 while
    a whirlwind attack is 0."""
    b = _pair("N", a_facing="N", d_facing="N")  # D south of A, in A's rear; A in D's front
    assert facing_modifier(b, "A", "D") == -10
    assert facing_modifier(b, "A", "D", kind="whirlwind") == 0


def test_ua_feat_iud_no_flank_or_rear_bonus():
    """UA-FEAT-IUD: 'No attacker gets the +2 ... or the +4': flank 0 and rear 0."""
    for where in ("E", "S", "SW"):
        b = _pair(where, a_facing=_OPPOSITE[where], D={"improved_uncanny_dodge": 5})
        br = attack_breakdown(b, "A", "D")
        assert br["facing_opponent_area"] == 0
        assert facing_modifier(b, "A", "D") == 0


def test_ua_feat_iud_keeps_own_penalty():
    """UA-FEAT-IUD: the defender's feat removes the attacker's bonus, not its penalty."""
    b = _pair("E", a_facing="N", D={"improved_uncanny_dodge": 5})  # D west of A: A's flank
    assert facing_modifier(b, "A", "D") == -5


@pytest.mark.parametrize(("rogue_level", "sneak"), [(4, False), (8, False), (9, True), (12, True)])
def test_ua_feat_iud_ic_17_rogue_four_levels_higher(rogue_level, sneak):
    """UA-FEAT-IUD, IC-17: from the rear, sneak attack iff rogue level >= IUD level + 4
    (IUD 5: level 9 and up); even that rogue gets no +4."""
    b = _pair(
        "S",
        a_facing="N",
        A={"sneak_attack": "3d6", "rogue_level": rogue_level},
        D={"improved_uncanny_dodge": 5},
    )
    assert sneak_attack_applies(b, "A", "D") is sneak
    assert facing_modifier(b, "A", "D") == 0


def test_ua_feat_ca_combat_awareness_spot_only():
    """UA-FEAT-CA: no -5 Spot in or beyond the flank, -5 in the rear; attack penalties
    unchanged (flank attack still -5)."""
    b = board(
        """
        . . . . .
        . . . . .
        . . O . E
        . . R . .
        . . . . .
        . . S . .
        """,
        O={"facing": "N", "feats": ["Combat Awareness"], "team": "pc"},
        E={"facing": "W"},
        R={"facing": "N"},
        S={"facing": "N"},
    )
    assert spot_modifier(b, "O", "E") == 0  # beyond the flank
    assert spot_modifier(b, "O", "R") == -5  # rear
    assert spot_modifier(b, "O", "S") == -5  # beyond the rear
    assert spot_modifier(b, "O", (3, 2)) == 0  # flank square
    assert spot_modifier(b, "O", (2, 1)) == 0  # front square
    assert facing_modifier(b, "O", "R") == -10  # attacks unaffected


def test_ua_feat_ca_attack_into_flank_still_minus_5():
    """UA-FEAT-CA affects Spot only: an attack into the flank stays -5."""
    b = _pair("W", a_facing="N", d_facing="W", A={"feats": ["Combat Awareness"]})
    assert facing_modifier(b, "A", "D") == -5


# ==========================================================================================
# Monster flank and rear attacks (UA-MON-01, UA-MON-02)
# ==========================================================================================

_MONSTER_ATTACKS = [
    {"name": "bite"},
    {"name": "wing", "zones": ["front", "flank"]},
    {"name": "tail_slap", "zones": ["rear"]},
]


@pytest.mark.parametrize(
    ("where", "attack", "own"),
    [
        ("E", "bite", -5),
        ("E", "wing", 0),
        ("E", "tail_slap", -5),
        ("S", "bite", -10),
        ("S", "wing", -10),
        ("S", "tail_slap", 0),
        ("N", "bite", 0),
        ("N", "wing", 0),
    ],
)
def test_ua_mon_01_02_attack_zones(where, attack, own):
    """UA-MON-01: flank attacks (wings) take no penalty into flank squares; UA-MON-02:
    rear attacks (tail slap) take none into rear squares; other attacks unaffected."""
    b = _pair(
        _OPPOSITE[where], a_facing="N", d_facing=_OPPOSITE[where], A={"attacks": _MONSTER_ATTACKS}
    )
    assert facing_modifier(b, "A", "D", attack=attack) == own
    assert attack_breakdown(b, "A", "D", attack=attack)["facing_own_area"] == own


# ==========================================================================================
# Perception and readied actions (UA-PER-01, UA-PER-02)
# ==========================================================================================

_SPOT = """
    . . . . . . .
    . . . F . . .
    . . . . . . .
    . W . O . . E
    . . . R . . .
    . . . . . . .
    . . . B . . .
"""


@pytest.mark.parametrize(
    ("observer", "expected"),
    [
        ({"facing": "N"}, {"F": 0, "W": -5, "E": -5, "R": -10, "B": -10}),
        ({"facing": "S"}, {"F": -10, "W": -5, "E": -5, "R": 0, "B": 0}),
        ({"facing": "E"}, {"F": -5, "W": -10, "E": 0, "R": -5, "B": -5}),
        ({"facing": "N", "faceless": True}, {"F": 0, "W": 0, "E": 0, "R": 0, "B": 0}),
        ({"facing": "N", "all_around_vision": True}, {"F": 0, "W": 0, "E": 0, "R": 0, "B": 0}),
        ({"facing": "N", "size": "Tiny"}, {"F": 0, "W": 0, "E": 0, "R": 0, "B": 0}),
    ],
)
def test_ua_per_01_spot_penalties(observer, expected):
    """UA-PER-01: Spot -5 in (or beyond) the flank, -10 in (or beyond) the rear; faceless
    creatures and all-around vision take no penalty (Tiny creatures are faceless,
    UA-FCL-02)."""
    b = board(_SPOT, O=observer)
    assert {t: spot_modifier(b, "O", t) for t in expected} == expected


def test_ua_per_02_readied_action_not_against_rear_unless_sound():
    """UA-PER-02: no readied action on a seen trigger in (or beyond) the rear area; a
    sound-based trigger is fine; front and flank are fine."""
    b = board(_SPOT, O={"facing": "N"})
    assert can_ready_against(b, "O", "R") is False
    assert can_ready_against(b, "O", "B") is False
    assert can_ready_against(b, "O", "R", sound=True) is True
    assert can_ready_against(b, "O", "W") is True
    assert can_ready_against(b, "O", "F") is True


def test_ua_per_02_all_around_vision_readies_anywhere():
    """UA-PER-01/02: all-around vision has no blind rear."""
    b = board(_SPOT, O={"facing": "N", "all_around_vision": True})
    assert can_ready_against(b, "O", "R") is True


# ==========================================================================================
# Size (SRD-SIZE-01) and multi-square combatants (IC-04)
# ==========================================================================================


@pytest.mark.parametrize(
    ("size", "modifier"),
    [
        ("Fine", 8),
        ("Diminutive", 4),
        ("Tiny", 2),
        ("Small", 1),
        ("Medium", 0),
        ("Large", -1),
        ("Huge", -2),
        ("Gargantuan", -4),
        ("Colossal", -8),
    ],
)
def test_srd_size_01_size_term(size, modifier):
    """SRD-SIZE-01: the attacker's size modifier is a term of the attack roll."""
    b = board(
        """
        A . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . .
        . . . . . . . D
        """,
        A={"size": size, "attacks": [{"name": "claw", "bonus": 3}]},
    )
    br = attack_breakdown(b, "A", "D")
    assert br["size"] == modifier
    assert br["attack_bonus"] == 3
    assert br.total == 3 + modifier + br.facing


def test_ic_04_large_attacker_uses_its_best_square():
    """IC-04: a Large attacker attacks 'from' its most favourable square within reach:
    from (1,1), in D's rear (D faces N), rather than (1,0) in its flank: +4."""
    b = board(
        """
        A A D .
        A A . .
        . . . .
        """,
        A={"facing": "E", "team": "pc"},
        D={"facing": "N", "team": "foe"},
    )
    assert area_of(b, "D", (1, 0)) == "flank"
    assert area_of(b, "D", (1, 1)) == "rear"
    br = attack_breakdown(b, "A", "D")
    assert br["facing_own_area"] == 0
    assert br["facing_opponent_area"] == 4
    assert br["size"] == -1
    assert facing_modifier(b, "A", "D") == 4


def test_ic_04_large_defender_least_penalised_square():
    """IC-04: an attacker facing N attacks the Large defender 'into' its square (1,0) in
    the attacker's front, not (1,1) in its flank: no penalty; A is in D's rear: +4."""
    b = board(
        """
        . D D .
        A D D .
        . . . .
        """,
        A={"facing": "N", "team": "pc"},
        D={"facing": "E", "team": "foe"},
    )
    assert b.creature("D").size.label == "Large"
    br = attack_breakdown(b, "A", "D")
    assert br["facing_own_area"] == 0
    assert br["facing_opponent_area"] == 4
    assert facing_modifier(b, "A", "D") == 4


def test_ic_04_large_defender_attacker_in_flank_beside_it():
    """IC-04, UA-FACE-03: beside a Large N-facer (its flank column) the bonus is +2."""
    b = board(
        """
        . . . .
        D D A .
        D D . .
        . . . .
        """,
        A={"facing": "W", "team": "pc"},
        D={"facing": "N", "team": "foe"},
    )
    assert facing_modifier(b, "A", "D") == 2


# ==========================================================================================
# Sneak attack (UA-SNK-01, IC-14)
# ==========================================================================================


def test_ua_snk_01_ic_14_ranged_from_rear_no_sneak():
    """UA-SNK-01, IC-14: rear sneak attack needs a melee attack; ranged from the rear
    only when the foe is flat-footed."""
    b = _far("S", 3, a_facing="N", A={"attacks": [SWORD, BOW], **ROGUE})
    assert sneak_attack_applies(b, "A", "D", ranged=True) is False
    assert attack_breakdown(b, "A", "D", attack="bow").sneak_attack is False
    b2 = _far("S", 3, a_facing="N", A={"attacks": [SWORD, BOW], **ROGUE}, D={"flat_footed": True})
    assert sneak_attack_applies(b2, "A", "D", ranged=True) is True


def test_ua_snk_01_melee_from_rear_and_flat_footed():
    """UA-SNK-01: melee from the rear area, or any attack on a flat-footed foe."""
    b = _pair("S", a_facing="N", A=ROGUE)
    assert sneak_attack_applies(b, "A", "D") is True
    assert attack_breakdown(b, "A", "D").sneak_attack is True
    b2 = _pair("N", a_facing="S", A=ROGUE)
    assert sneak_attack_applies(b2, "A", "D") is False
    b3 = _pair("N", a_facing="S", A=ROGUE, D={"flat_footed": True})
    assert sneak_attack_applies(b3, "A", "D") is True


def test_ua_snk_01_no_sneak_attack_dice_no_sneak():
    """UA-SNK-01 concerns rogues: an attacker without sneak attack never gets it."""
    b = _pair("S", a_facing="N")
    assert sneak_attack_applies(b, "A", "D") is False
