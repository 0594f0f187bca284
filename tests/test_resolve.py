"""Attacks resolved through ``apply``: attack rolls, natural 1 and 20, criticals, damage
dice, sneak attack, death and the end of the battle, and Cleave.

Rule ids from docs/rules.md: UA-SNK-01, UA-SNK-02, UA-SNK-04 (sneak attack) and
UA-FEAT-CLV, UA-ATK-02 (Cleave into the flank, not the rear).

Boards, actions and dice come from tests/engine_boards.py (:class:`ScriptedDice` hands
out the d20s a test lists; ``begin`` scripts the initiative order). Square directions
and facings are indexed ``N NE E SE S SW W NW`` = 0..7.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from facing_env import Battle, IllegalActionError
from facing_env.rules import engine, sneak_attack_applies
from facing_env.rules.dice import Dice
from tests.boards import board
from tests.engine_boards import (
    END,
    E,
    ScriptedDice,
    W,
    attack,
    attacks_in,
    begin,
    do,
    expected_dice,
    kinds,
    legal_of,
    move,
    step5,
    turn,
)

# ==========================================================================================
# Attacks: rolls, criticals, damage, sneak attack, death (resolve through apply)
# ==========================================================================================


def _duel(**a_fields: Any) -> Battle:
    """A (facing E) and B (facing W, 100 hp) front to front: no facing modifier."""
    b = board("A B", A={"facing": "E", **a_fields}, B={"facing": "W", "hp": 100})
    begin(b, "A", "B")
    return b


def test_natural_1_always_misses():
    """A natural 1 misses whatever the bonus (+30 against AC 10); no confirmation roll."""
    b = _duel(attacks=[{"bonus": 30}])
    dice = ScriptedDice(1)
    [hit] = attacks_in(do(b, attack("B"), dice=dice))
    assert (hit.roll, hit.total, hit.hit, hit.damage) == (1, 31, False, 0)
    assert b.creatures["B"].hp == 100
    assert dice.script == []


def test_natural_20_always_hits():
    """A natural 20 hits AC 60; the failed confirmation (2) leaves it a normal hit: 1d6
    at its mean 3.5 -> 4."""
    b = board("A B", A={"facing": "E"}, B={"facing": "W", "hp": 100, "ac": 60})
    begin(b, "A", "B")
    dice = ScriptedDice(20, 2)
    [hit] = attacks_in(do(b, attack("B"), dice=dice))
    assert (hit.hit, hit.critical, hit.damage) == (True, False, 4)
    assert b.creatures["B"].hp == 96
    assert dice.script == []


@pytest.mark.parametrize(
    ("confirm", "critical", "damage"),
    [(20, True, 15), (15, True, 15), (10, True, 15), (9, False, 8), (1, False, 8)],
)
def test_critical_threat_and_confirmation(confirm, critical, damage):
    """A natural 20 threatens; the confirmation roll (+0 against AC 10) makes it a critical
    that rolls the damage dice twice: 1d8+3 -> 2 x 7.5 = 15, else 7.5 -> 8."""
    b = _duel(attacks=[{"damage": "1d8+3"}])
    dice = ScriptedDice(20, confirm)
    [hit] = attacks_in(do(b, attack("B"), dice=dice))
    assert (hit.hit, hit.critical, hit.damage) == (True, critical, damage)
    assert b.creatures["B"].hp == 100 - damage
    assert dice.script == []


def test_critical_natural_20_confirms_against_any_ac():
    """The confirmation roll is an attack roll: a natural 20 confirms against AC 60."""
    b = board("A B", A={"facing": "E"}, B={"facing": "W", "hp": 100, "ac": 60})
    begin(b, "A", "B")
    [hit] = attacks_in(do(b, attack("B"), dice=ScriptedDice(20, 20)))
    assert (hit.critical, hit.damage) == (True, 7)


def test_threat_range_19_and_multiplier_x3():
    """An attack threatening on 19-20 with x3: a 19 that hits and a confirmed 12 deal
    3 x (1d8+3) = 3 x 7.5 = 22.5 -> 23."""
    b = _duel(attacks=[{"damage": "1d8+3", "threat_range": 19, "crit_multiplier": 3}])
    [hit] = attacks_in(do(b, attack("B"), dice=ScriptedDice(19, 12)))
    assert (hit.roll, hit.hit, hit.critical, hit.damage) == (19, True, True, 23)


def test_a_threat_that_misses_is_no_critical():
    """A 19 that misses (19 + 0 < AC 30) is a miss: no confirmation roll is made."""
    b = board(
        "A B",
        A={"facing": "E", "attacks": [{"threat_range": 19}]},
        B={"facing": "W", "hp": 100, "ac": 30},
    )
    begin(b, "A", "B")
    dice = ScriptedDice(19)
    [hit] = attacks_in(do(b, attack("B"), dice=dice))
    assert (hit.hit, hit.critical, hit.damage) == (False, False, 0)
    assert dice.script == []


@pytest.mark.parametrize(("rolls", "copies"), [((15,), 1), ((20, 15), 2)])
def test_damage_dice_from_the_seeded_generator(rolls, copies):
    """Damage dice come from the seeded stream: 2d6+1, rolled twice on a critical (the
    test draws the same dice from a twin stream first)."""
    twin = Dice(np.random.default_rng(7), "roll")
    expected = sum(twin.die(6) + twin.die(6) + 1 for _ in range(copies))
    b = _duel(attacks=[{"damage": "2d6+1"}])
    dice = ScriptedDice(*rolls, mode="roll", seed=7)
    [hit] = attacks_in(do(b, attack("B"), dice=dice))
    assert (hit.critical, hit.damage) == (copies == 2, expected)
    assert b.creatures["B"].hp == 100 - expected


ROGUE = {"sneak_attack": "2d6", "rogue_level": 3, "team": "pc"}


@pytest.mark.parametrize(
    ("where", "a_facing", "d_fields", "flat_footed_start", "sneak"),
    [
        ((1, 2), "N", {}, False, True),  # UA-SNK-01: melee from the foe's rear
        ((2, 1), "W", {}, False, False),  # UA-SNK-04 rogue A: the flank is not enough
        ((1, 0), "S", {}, False, False),  # the front
        ((1, 0), "S", {}, True, True),  # UA-SNK-01: a flat-footed foe, from anywhere
        ((1, 2), "N", {"immune_to_sneak_attack": True}, False, False),  # UA-SNK-02
    ],
)
def test_ua_snk_01_sneak_attack_dice_only_when_they_apply(
    where, a_facing, d_fields, flat_footed_start, sneak
):
    """UA-SNK-01/02/04: the rogue's 2d6 are added exactly when ``sneak_attack_applies``:
    1d6 + 2d6 = 3.5 + 7 = 10.5 -> 11, else 4. D faces N at (1, 1)."""
    rows = [[".", ".", "."] for _ in range(3)]
    rows[1][1] = "D"
    rows[where[1]][where[0]] = "A"
    b = board(
        "\n".join(" ".join(r) for r in rows),
        A={**ROGUE, "facing": a_facing},
        D={"facing": "N", "hp": 100, **d_fields},
    )
    begin(b, "A", "D", flat_footed_start=flat_footed_start)
    assert sneak_attack_applies(b, "A", "D") is sneak
    [hit] = attacks_in(do(b, attack("D"), dice=ScriptedDice(15)))
    assert (hit.hit, hit.sneak_attack, hit.damage) == (True, sneak, 11 if sneak else 4)


def test_sneak_attack_dice_are_not_multiplied_on_a_critical():
    """A confirmed critical from the rear: 2 x 1d6 + 2d6 once = 7 + 7 = 14."""
    b = board(". D .\n. A .", A={**ROGUE, "facing": "N"}, D={"facing": "N", "hp": 100})
    begin(b, "A", "D", flat_footed_start=False)
    [hit] = attacks_in(do(b, attack("D"), dice=ScriptedDice(20, 20)))
    assert (hit.critical, hit.sneak_attack, hit.damage) == (True, True, 14)


def test_death_at_0_hp_ends_the_battle():
    """A creature dies at 0 hit points: B (4 hp) takes 4; it leaves the board, the battle
    is over, A's team wins, and nothing is legal any more."""
    b = board("A B .", A={"facing": "E", "team": "pc"}, B={"facing": "W", "hp": 4})
    begin(b, "A", "B")
    events = do(b, attack("B"))
    assert [(e.kind, e.actor) for e in events] == [("attack", "A"), ("death", "B")]
    assert b.creatures["B"].hp == 0
    assert b.occupants((1, 0)) == []
    assert engine.is_over(b) is True
    assert engine.winner(b) == "pc"
    assert engine.actor(b) is None
    assert engine.legal_actions(b) == []
    assert engine.why_illegal(b, END) == "the battle is over"
    with pytest.raises(IllegalActionError, match="the battle is over"):
        engine.apply(b, END, expected_dice())


def test_one_hit_point_left_is_alive():
    """B with 5 hp takes 4 and lives with 1; the battle goes on."""
    b = board("A B", A={"facing": "E"}, B={"facing": "W", "hp": 5})
    begin(b, "A", "B")
    assert kinds(do(b, attack("B"))) == ["attack"]
    assert b.creatures["B"].hp == 1
    assert engine.is_over(b) is False
    assert engine.winner(b) is None


def test_the_dead_leave_the_board_and_the_initiative_order():
    """A kills B (next in the order): B leaves the board (A walks into its square) and
    B's turn is skipped; C then walks up and kills A, and C's team wins."""
    b = board(
        "B A C",
        A={"team": "a", "facing": "W", "hp": 4},
        B={"team": "b", "hp": 4},
        C={"team": "c", "facing": "W", "hp": 50},
    )
    begin(b, "A", "B", "C")
    assert kinds(do(b, attack("B"))) == ["attack", "death"]
    assert engine.why_illegal(b, move(W)) is None
    events = do(b, move(W), END)
    assert [(e.kind, e.actor) for e in events if e.kind != "attack"] == [
        ("move", "A"),
        ("end_turn", "A"),
        ("turn_start", "C"),
    ]
    do(b, move(W))
    assert b.creatures["C"].pos == (1, 0)
    assert kinds(do(b, attack("A"))) == ["attack", "death"]
    assert engine.winner(b) == "c"


def test_killing_an_earlier_creature_keeps_the_rotation():
    """Order A, B, C: C kills A on its turn; the round wraps to B, then C, then B."""
    b = board(
        "A C . . B",
        A={"team": "a", "hp": 4},
        B={"team": "b"},
        C={"team": "c", "facing": "W"},
    )
    begin(b, "A", "B", "C")
    do(b, END, END)
    assert kinds(do(b, attack("A"))) == ["attack", "death"]
    starts = []
    for _ in range(3):
        starts += [(e.actor, e.round) for e in do(b, END) if e.kind == "turn_start"]
    assert starts == [("B", 2), ("C", 2), ("B", 3)]


# ==========================================================================================
# Cleave (UA-FEAT-CLV)
# ==========================================================================================


def _cleave_board(feats: list[str], **fields: Any) -> Battle:
    """A (1,1) facing N; B in its front (4 hp); C in its flank and D in its rear, both
    facing A (no opponent bonus)."""
    foe = {"team": "foe"}
    spec = {
        "A": {"team": "pc", "facing": "N", "feats": feats},
        "B": {**foe, "facing": "S", "hp": 4},
        "C": {**foe, "facing": "W", "hp": 4},
        "D": {**foe, "facing": "NW", "hp": 50},
    }
    for k, v in fields.items():
        spec[k] = {**spec[k], **v}
    b = board(". B .\n. A C\n. . D", **spec)
    begin(b, "A", "B", "C", "D")
    return b


def test_ua_feat_clv_cleave_attack_into_the_flank_without_penalty():
    """UA-FEAT-CLV: after dropping B, the Cleave attack goes into A's flank at 0, not -5
    (UA-ATK-02); it is an extra attack after A's one standard attack."""
    b = _cleave_board(["Cleave"])
    assert kinds(do(b, attack("B"))) == ["attack", "death"]
    assert legal_of(b, engine.ATTACK) == ["C", "D"]
    [hit] = attacks_in(do(b, attack("C")))
    assert (hit.attack_kind, hit.own_area, hit.facing_modifier) == ("cleave", "flank", 0)


def test_ua_feat_clv_cleave_into_the_rear_is_still_minus_10():
    """UA-FEAT-CLV exempts the flank only: a Cleave attack into the rear is -10."""
    b = _cleave_board(["Cleave"])
    do(b, attack("B"))
    [hit] = attacks_in(do(b, attack("D")))
    assert (hit.attack_kind, hit.own_area, hit.facing_modifier) == ("cleave", "rear", -10)


def test_without_cleave_no_extra_attack():
    """Without the feat, dropping B ends A's standard action."""
    b = _cleave_board([])
    do(b, attack("B"))
    assert legal_of(b, engine.ATTACK) == []
    assert engine.why_illegal(b, attack("C")) == "no attack left this turn"


@pytest.mark.parametrize(("feat", "third"), [("Cleave", False), ("Great Cleave", True)])
def test_cleave_once_per_round_great_cleave_without_limit(feat, third):
    """Cleave: one extra attack per round; Great Cleave: one after every foe dropped. A
    drops B, cleaves into C (4 hp, dropped too), and only Great Cleave goes on to D."""
    b = _cleave_board([feat])
    do(b, attack("B"))
    assert kinds(do(b, attack("C"))) == ["attack", "death"]
    assert legal_of(b, engine.ATTACK) == (["D"] if third else [])
    if third:
        [hit] = attacks_in(do(b, attack("D")))
        assert hit.attack_kind == "cleave"


def test_cleave_is_immediate():
    """Cleave's extra attack is immediate: any other action (here a facing change) gives it
    up."""
    b = _cleave_board(["Cleave"])
    do(b, attack("B"), turn(E))
    assert legal_of(b, engine.ATTACK) == []
    assert engine.why_illegal(b, attack("C")) == "no attack left this turn"


def test_cleave_needs_a_melee_attack():
    """Cleave gives 'an extra melee attack against another creature within reach' (3.5
    SRD; UA-FEAT-CLV speaks of flank areas, melee): an archer dropping B with an arrow gets
    no Cleave shot at C, 5 squares away."""
    bow = {"name": "bow", "kind": "ranged", "range": 100}
    b = board(
        "A . . . B C",
        A={"team": "pc", "facing": "E", "feats": ["Cleave"], "attacks": [bow]},
        B={"team": "foe", "hp": 4},
        C={"team": "foe", "hp": 50},
    )
    begin(b, "A", "B", "C")
    assert kinds(do(b, attack("B"))) == ["attack", "death"]
    assert legal_of(b, engine.ATTACK) == []


def test_cleave_unused_when_nobody_else_is_in_reach():
    """Cleave 'can be used once per round': dropping B with no other foe in reach makes no
    extra attack, so it is still there when A, after a 5-foot step, drops C with its
    iterative attack next to D."""
    b = board(
        ". . . . C\n. B A . .\n. . . . D",
        A={
            "team": "pc",
            "facing": "W",
            "feats": ["Cleave"],
            "base_attack_bonus": 6,
            "attacks": [{"bonus": 20}],
        },
        B={"team": "foe", "hp": 4},
        C={"team": "foe", "hp": 4},
        D={"team": "foe", "hp": 50},
    )
    begin(b, "A", "B", "C", "D")
    assert kinds(do(b, attack("B"))) == ["attack", "death"]
    assert legal_of(b, engine.ATTACK) == []
    do(b, step5(E))
    assert kinds(do(b, attack("C"))) == ["attack", "death"]
    assert legal_of(b, engine.ATTACK) == ["D"]
