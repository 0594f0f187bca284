"""Attack-roll rules under facing: ``facing_modifier``, ``attack_breakdown`` and friends.

Rule ids from docs/rules.md: ua35 (UA-*), side_rear (SR-*) and standard flanking
(SRD-FLANK-01, EP-FLANK-*). Boards follow docs/rules.md's coordinates: x grows east, y grows
south; a board's letter is the creature's id unless an ``id`` is given.
"""

from __future__ import annotations

import pytest

from facing_env.rules import (
    area_of,
    attack_breakdown,
    can_ready_against,
    can_target_with_spell,
    concealment_miss_chance,
    facing_modifier,
    flanking_allies,
    flanks,
    shield_applies,
    sneak_attack_applies,
    spell_origins,
    spot_modifier,
)
from facing_env.rules.flanking import line_flanks
from tests.boards import board

ROGUE = {"sneak_attack": "2d6", "rogue_level": 4}
BOW = {"name": "bow", "kind": "ranged", "range": 100}
SWORD = {"name": "sword"}
SPEAR = {"name": "longspear", "reach": 10}

# A defender D at the centre of a 5x5 board and the attacker A around it.
_RING = {
    "N": (2, 1),
    "NE": (3, 1),
    "E": (3, 2),
    "SE": (3, 3),
    "S": (2, 3),
    "SW": (1, 3),
    "W": (1, 2),
    "NW": (1, 1),
}
_OPPOSITE = {"N": "S", "NE": "SW", "E": "W", "SE": "NW", "S": "N", "SW": "NE", "W": "E", "NW": "SE"}


def _pair(
    where: str,
    ruleset: str = "ua35",
    *,
    a_facing: str = "N",
    d_facing: str = "N",
    size: int = 5,
    centre: tuple[int, int] = (2, 2),
    **fields,
):
    """Attacker A at compass point ``where`` of defender D (adjacent), on a size x size board."""
    rows = [["." for _ in range(size)] for _ in range(size)]
    dx, dy = _RING[where][0] - 2, _RING[where][1] - 2
    rows[centre[1]][centre[0]] = "D"
    rows[centre[1] + dy][centre[0] + dx] = "A"
    text = "\n".join(" ".join(r) for r in rows)
    a = {"facing": a_facing, "team": "pc", **fields.pop("A", {})}
    d = {"facing": d_facing, "team": "foe", **fields.pop("D", {})}
    return board(text, ruleset, A=a, D=d, **fields)


def _far(where: str, distance: int, ruleset: str = "ua35", **kw):
    """Attacker ``distance`` squares from the defender along a compass ray (IC-03)."""
    size = 2 * distance + 1
    rows = [["." for _ in range(size)] for _ in range(size)]
    dx, dy = _RING[where][0] - 2, _RING[where][1] - 2
    rows[distance][distance] = "D"
    rows[distance + dy * distance][distance + dx * distance] = "A"
    text = "\n".join(" ".join(r) for r in rows)
    a = {"facing": kw.pop("a_facing", "N"), "team": "pc", **kw.pop("A", {})}
    d = {"facing": kw.pop("d_facing", "N"), "team": "foe", **kw.pop("D", {})}
    return board(text, ruleset, A=a, D=d, **kw)


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
