"""The turn engine through its public functions: ``start``, ``legal_actions``,
``why_illegal``, ``apply``, ``actor``, ``is_over`` and ``winner``.

Rule ids from docs/rules.md: initiative and flat-footed (SRD-INIT-01, SRD-FF-01, SRD-SEQ-01),
the action economy (EP-DBL-01, EP-RUN-01, EP-RUN-02, IC-13, EP-5FT-01..03, EP-TER-01),
facing changes (UA-MOVE-01..06, UA-ATK-04, SR-02..04, IC-20), attacks (UA-ATK-01..02,
UA-OPP-01..02, UA-SNK-01..02, UA-FEAT-CLV), attacks of opportunity (UA-AOO-01..03,
SRD-AOO-02, SRD-AOO-04, SRD-AOO-05, UA-FEAT-CR, IC-09, IC-12) and docs/design.md, turns and actions.

Dice are exact: :class:`ScriptedDice` hands out the d20 rolls a test lists (and fails the
test if the engine asks for one more), damage dice read their expected value (``expected``
mode: the mean rounded half up) or come from a seeded numpy Generator whose draws the test
computes first. ``start`` rolls one initiative d20 per living creature in spec order (the
order the creatures appear on a board, row by row). Square directions and facings are
indexed ``N NE E SE S SW W NW`` = 0..7.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from facing_env import Battle, IllegalActionError, rules
from facing_env.rules import engine, sneak_attack_applies
from facing_env.rules.dice import Dice, mean_damage, parse_dice
from facing_env.rules.engine import Action
from facing_env.rules.turns import AttackSlot
from tests.boards import board

N, NE, E, SE, S, SW, W, NW = range(8)
END = Action(engine.END_TURN)
RUN = Action(engine.RUN)


def move(d: int) -> Action:
    return Action(engine.MOVE, d)


def keep(d: int) -> Action:
    return Action(engine.STEP_KEEP_FACING, d)


def step5(d: int) -> Action:
    return Action(engine.FIVE_FOOT_STEP, d)


def turn(f: int) -> Action:
    return Action(engine.TURN, f)


def attack(target: str) -> Action:
    return Action(engine.ATTACK, target)


class ScriptedDice(Dice):
    """d20 rolls from a script; damage dice at their mean (``expected``) or from a seeded
    generator (``roll``). Asking for a d20 the script does not have fails the test."""

    def __init__(self, *d20s: int, mode: str = "expected", seed: int = 0) -> None:
        super().__init__(np.random.default_rng(seed), mode)
        self.script = list(d20s)

    def d20(self) -> float:
        assert self.script, "the engine rolled a d20 the test did not script"
        return self.script.pop(0)


def expected_dice(seed: int = 0) -> Dice:
    return Dice(np.random.default_rng(seed), "expected")


def begin(b: Battle, *order: str, flat_footed_start: bool = True) -> list:
    """Start ``b`` with the initiative ``order`` (scripted d20s 20, 15, 10, ...)."""
    creatures = [c for c in b.creatures.values() if c.hp > 0]
    assert sorted(order) == sorted(c.id for c in creatures)
    rolls = [20 - 5 * order.index(c.id) for c in creatures]
    events = engine.start(b, ScriptedDice(*rolls), flat_footed_start=flat_footed_start)
    assert initiative_order(events) == list(order)
    return events


def initiative_order(events: list) -> list[str]:
    return [e.actor for e in events if e.kind == "initiative"]


def kinds(events: list) -> list[str]:
    return [e.kind for e in events]


def attacks_in(events: list) -> list:
    return [e for e in events if e.kind == "attack"]


def do(b: Battle, *actions: Action, dice: Dice | None = None) -> list:
    """Apply actions in order (expected dice unless given) and return all their events."""
    out: list = []
    for a in actions:
        out += engine.apply(b, a, dice if dice is not None else expected_dice())
    return out


def legal_of(b: Battle, kind: str) -> list[Any]:
    return sorted(a.arg for a in engine.legal_actions(b) if a.kind == kind)


def row(*cells: str) -> str:
    return " ".join(cells)


# ==========================================================================================
# Initiative (SRD-INIT-01) and the first round (SRD-FF-01, SRD-SEQ-01)
# ==========================================================================================


def test_srd_init_01_order_is_d20_plus_dex_modifier():
    """SRD-INIT-01: 'An initiative check is a Dexterity check': A 15+0 = 15, B 11+3 = 14,
    C 17-1 = 16, so C, A, B; the first turn is C's."""
    b = board("A . B . C", A={"dex": 10}, B={"dex": 16}, C={"dex": 8})
    dice = ScriptedDice(15, 11, 17)
    events = engine.start(b, dice)
    assert dice.script == []
    assert [(e.kind, e.actor, e.round) for e in events] == [
        ("initiative", "C", 1),
        ("initiative", "A", 1),
        ("initiative", "B", 1),
        ("turn_start", "C", 1),
    ]
    assert engine.actor(b).id == "C"


def test_srd_init_01_ties_go_in_order_of_dexterity():
    """SRD-INIT-01: tied results go in order of Dexterity, highest first: all three total
    14 (A 13+1, B 11+3, C 13+1), Dex 12 / 16 / 13 -> B, C, A."""
    b = board("A . B . C", A={"dex": 12}, B={"dex": 16}, C={"dex": 13})
    assert initiative_order(engine.start(b, ScriptedDice(13, 11, 13))) == ["B", "C", "A"]


def test_srd_init_01_full_ties_are_broken_by_the_seeded_generator():
    """SRD-INIT-01 'If there is still a tie, flip a coin': the coin is the battle's seeded
    generator, so one seed always gives the same order and seeds 0..19 give both."""
    orders = set()
    for seed in range(20):
        runs = set()
        for _ in range(2):
            b = board("A . B")
            runs.add(tuple(initiative_order(engine.start(b, ScriptedDice(10, 10, seed=seed)))))
        assert len(runs) == 1
        orders |= runs
    assert orders == {("A", "B"), ("B", "A")}


def test_srd_init_01_improved_initiative_adds_4():
    """SRD-INIT-01 with the Improved Initiative feat (+4): A 10+4 = 14 beats B's 13."""
    b = board("A . B", A={"feats": ["Improved Initiative"]})
    assert initiative_order(engine.start(b, ScriptedDice(10, 13))) == ["A", "B"]
    b = board("A . B")
    assert initiative_order(engine.start(b, ScriptedDice(10, 13))) == ["B", "A"]


def test_srd_init_01_dead_creatures_roll_no_initiative():
    """Only living creatures roll initiative (two d20s for three creatures, one at 0 hp)."""
    b = board("A . B . C", B={"hp": 0})
    dice = ScriptedDice(12, 11)
    assert initiative_order(engine.start(b, dice)) == ["A", "C"]
    assert dice.script == []


def test_srd_init_01_seeded_dice_replay_the_same_battle():
    """The same seed replays the same initiative and the same rolls."""

    def play(seed: int) -> list:
        b = board(
            "A B . C",
            A={"team": "x", "dex": 14},
            B={"team": "y"},
            C={"team": "y", "dex": 12},
        )
        dice = Dice(np.random.default_rng(seed), "roll")
        events = engine.start(b, dice)
        for _ in range(6):
            a = engine.actor(b)
            if a is None:
                break
            foes = legal_of(b, engine.ATTACK)
            events += engine.apply(b, attack(foes[0]) if foes else END, dice)
        return [e.to_dict() for e in events]

    assert play(3) == play(3)
    assert play(3) != play(4)


def test_srd_seq_01_no_surprise_round_everyone_acts_in_round_1():
    """SRD-SEQ-01 'If no one or everyone starts the battle aware, there is no surprise
    round': every creature gets a full turn in round 1 (a full-round RUN is legal for each),
    then round 2 begins with the first creature again."""
    b = board("A . . . B . . . C")
    begin(b, "B", "C", "A")
    for cid in ("B", "C"):
        assert engine.actor(b).id == cid
        assert RUN in engine.legal_actions(b)
        events = do(b, END)
        assert [(e.kind, e.actor, e.round) for e in events] == [
            ("end_turn", cid, 1),
            ("turn_start", "C" if cid == "B" else "A", 1),
        ]
    assert RUN in engine.legal_actions(b)
    assert [(e.kind, e.actor, e.round) for e in do(b, END)] == [
        ("end_turn", "A", 1),
        ("round", "A", 2),
        ("turn_start", "B", 2),
    ]


def test_srd_ff_01_everyone_flat_footed_until_their_first_turn():
    """SRD-FF-01: 'At the start of a battle each combatant is flat-footed'; a creature
    stops being flat-footed when its first turn begins."""
    b = board("A . B . C", A={"flat_footed": False})
    begin(b, "A", "B", "C")

    def flat() -> dict[str, bool]:
        return {c.id: c.flat_footed for c in b.creatures.values()}

    assert flat() == {"A": False, "B": True, "C": True}
    do(b, END)
    assert flat() == {"A": False, "B": False, "C": True}
    do(b, END)
    assert flat() == {"A": False, "B": False, "C": False}
    do(b, END)
    assert flat() == {"A": False, "B": False, "C": False}


def test_srd_ff_01_flat_footed_start_can_be_switched_off():
    """``flat_footed_start=False``: nobody starts flat-footed."""
    b = board("A . B . C")
    begin(b, "C", "B", "A", flat_footed_start=False)
    assert {c.id: c.flat_footed for c in b.creatures.values()} == {
        "A": False,
        "B": False,
        "C": False,
    }


def test_srd_ff_01_flat_footed_defender_loses_its_dex_bonus_to_ac():
    """SRD-FF-01: B (AC 14 with Dex 14) has AC 12 until its first turn, 14 afterwards."""
    b = board("A B", A={"facing": "E"}, B={"facing": "W", "dex": 14, "ac": 14})
    begin(b, "A", "B")
    assert [e.ac for e in attacks_in(do(b, attack("B"), dice=ScriptedDice(5)))] == [12]
    do(b, END, END)
    assert [e.ac for e in attacks_in(do(b, attack("B"), dice=ScriptedDice(5)))] == [14]


@pytest.mark.parametrize(
    ("flat_footed_start", "feats", "expected"),
    [(True, [], []), (False, [], ["F"]), (True, ["Combat Reflexes"], ["F"])],
)
def test_srd_ff_01_flat_footed_creatures_make_no_attacks_of_opportunity(
    flat_footed_start, feats, expected
):
    """SRD-FF-01 'A flat-footed combatant can't make attacks of opportunity': M walks away
    from F before F's first turn; F gets its attack only when not flat-footed, or with
    Combat Reflexes (the 3.5 exception)."""
    b = board("F M . .", F={"feats": feats, "facing": "E"})
    begin(b, "M", "F", flat_footed_start=flat_footed_start)
    events = do(b, move(E))
    assert [e.actor for e in attacks_in(events)] == expected
    assert [e.attack_kind for e in attacks_in(events)] == ["aoo"] * len(expected)
    assert b.creatures["M"].pos == (2, 0)


# ==========================================================================================
# The action economy: move + standard, full attack, double move (EP-DBL-01)
# ==========================================================================================


def test_move_action_then_standard_attack_then_the_turn_ends_by_itself():
    """A move action and a standard action: after walking next to B and attacking, A has
    nothing left but END_TURN (no full attack after moving, no 5-foot step, no facing
    change, UA-MOVE-02), so its turn ends by itself and B's begins."""
    b = board("A . B", A={"facing": "E", "base_attack_bonus": 11})
    begin(b, "A", "B")
    assert [(e.kind, e.cost) for e in do(b, move(E))] == [("move", 1)]
    events = do(b, attack("B"))
    assert [(e.kind, e.actor) for e in events] == [
        ("attack", "A"),
        ("end_turn", "A"),
        ("turn_start", "B"),
    ]
    assert engine.actor(b).id == "B"


def test_standard_attack_then_a_move_action_of_speed_squares():
    """Standard action first, then the move action: 6 squares at speed 30 and no more; no
    second attack after moving."""
    b = board(row(*".......", "A", "B"), A={"facing": "E"})
    begin(b, "A", "B")
    do(b, attack("B"))
    assert engine.why_illegal(b, attack("B")) == "no attack left this turn"
    do(b, *[move(W)] * 6)
    assert b.creatures["A"].pos == (1, 0)
    assert engine.why_illegal(b, move(W)) == "not enough movement left (needs 1, has 0)"
    assert engine.why_illegal(b, attack("B")) == "no attack left this turn"


@pytest.mark.parametrize(
    ("bab", "penalties"),
    [
        (0, [0]),
        (5, [0]),
        (6, [0, -5]),
        (10, [0, -5]),
        (11, [0, -5, -10]),
        (16, [0, -5, -10, -15]),
        (20, [0, -5, -10, -15]),
    ],
)
def test_full_attack_iterative_attacks_at_minus_5(bab, penalties):
    """A full attack makes the iterative attacks of the base attack bonus at
    -5 each (+6/+1, +11/+6/+1, +16/+11/+6/+1); expected dice: totals 10.5 + 2 + penalty."""
    b = board(
        "A B",
        A={"facing": "E", "base_attack_bonus": bab, "attacks": [{"bonus": 2}]},
        B={"facing": "W", "hp": 1000},
    )
    begin(b, "A", "B")
    totals = []
    while attack("B") in engine.legal_actions(b):
        totals += [e.total for e in attacks_in(do(b, attack("B")))]
    assert totals == [12.5 + p for p in penalties]
    assert engine.why_illegal(b, attack("B")) == "no attack left this turn"
    assert engine.actor(b).id == "A"


def test_full_attack_uses_the_move_action_but_allows_a_5_foot_step():
    """A full attack is a full-round action: after the second attack no movement is left,
    but a 5-foot step still is (EP-5FT-01: no other movement this round)."""
    b = board(". A B .", A={"facing": "E", "base_attack_bonus": 6}, B={"hp": 100})
    begin(b, "A", "B")
    do(b, attack("B"))
    assert engine.why_illegal(b, move(W)) is None  # still a move action after one attack
    do(b, attack("B"))
    assert engine.why_illegal(b, move(W)) == "not enough movement left (needs 1, has 0)"
    assert legal_of(b, engine.FIVE_FOOT_STEP) == [W]


def test_no_full_attack_after_moving():
    """Moving uses the move action: only one attack (the standard action) is left, however
    high the base attack bonus."""
    b = board("A . B", A={"facing": "E", "base_attack_bonus": 16}, B={"hp": 100})
    begin(b, "A", "B")
    events = do(b, move(E), attack("B"))
    assert len(attacks_in(events)) == 1
    assert engine.actor(b).id == "B"


def test_5_foot_step_then_full_attack():
    """EP-5FT-01: a 5-foot step is not movement of the move action, so a full attack (+6/+1)
    follows it."""
    b = board("A . B", A={"facing": "E", "base_attack_bonus": 6}, B={"facing": "W", "hp": 100})
    begin(b, "A", "B")
    do(b, step5(E))
    events = do(b, attack("B"), attack("B"))
    assert [e.total for e in attacks_in(events)] == [10.5, 5.5]
    assert engine.why_illegal(b, attack("B")) == "no attack left this turn"


def test_turning_as_a_move_action_leaves_one_attack():
    """UA-MOVE-02: the second facing change costs the move action, so no full attack
    (+11/+6/+1): one attack, then only a 5-foot step is left."""
    b = board(". . .\n. A B\n. . .", A={"facing": "E", "base_attack_bonus": 11}, B={"hp": 100})
    begin(b, "A", "B")
    do(b, turn(N), turn(E), attack("B"))
    assert engine.why_illegal(b, attack("B")) == "no attack left this turn"
    assert {a.kind for a in engine.legal_actions(b)} == {engine.END_TURN, engine.FIVE_FOOT_STEP}


def test_ep_dbl_01_double_move_is_twice_the_speed():
    """EP-DBL-01: a double move covers 2 x 6 squares at speed 30 and spends the standard
    action: A may still attack B after 6 squares, not after the 7th, and cannot take a 13th.
    (B has not acted yet, so it is flat-footed and makes no attack of opportunity.)"""
    rows = ["A ."] + [". ."] * 6 + [". B"] + [". ."] * 6
    b = board("\n".join(rows), A={"facing": "S"})
    begin(b, "A", "B")
    events = do(b, *[move(S)] * 6)
    assert [e.cost for e in events] == [1] * 6
    assert attack("B") in engine.legal_actions(b)
    do(b, move(S))
    assert engine.why_illegal(b, attack("B")) == "no attack left this turn"
    do(b, *[move(S)] * 5)
    assert b.creatures["A"].pos == (0, 12)
    assert engine.why_illegal(b, move(S)) == "not enough movement left (needs 1, has 0)"
    assert engine.actor(b).id == "A"  # a free facing change is still open (UA-MOVE-01)


def test_a_turn_with_nothing_left_ends_by_itself():
    """A turn lasts 'until it ends its turn or has nothing left': under ``standard`` (no
    facing) a double move of 12 squares leaves nothing, so B's turn starts."""
    rows = ["A"] + ["."] * 12 + ["B"]
    b = board("\n".join(rows), "standard")
    begin(b, "A", "B")
    do(b, *[move(S)] * 11)
    assert engine.actor(b).id == "A"
    events = do(b, move(S))
    assert [(e.kind, e.actor) for e in events] == [
        ("move", "A"),
        ("end_turn", "A"),
        ("turn_start", "B"),
    ]


def test_a_creature_that_can_do_nothing_is_skipped():
    """A creature with speed 0, no foe in reach, no melee attack to ready (reach 0) and no
    facing (``standard``) has only END_TURN, so its turn starts and ends by itself."""
    b = board("A . . B . . C", "standard", B={"speed": 0, "attacks": [{"reach": 0}]})
    begin(b, "A", "B", "C")
    assert [(e.kind, e.actor) for e in do(b, END)] == [
        ("end_turn", "A"),
        ("turn_start", "B"),
        ("end_turn", "B"),
        ("turn_start", "C"),
    ]


# ==========================================================================================
# Run (EP-RUN-01, EP-RUN-02, IC-13)
# ==========================================================================================


@pytest.mark.parametrize(
    ("armor", "speed", "squares"),
    [
        ("none", 30, 24),
        ("light", 30, 24),
        ("medium", 20, 16),
        ("heavy", 20, 12),
        ("heavy", 30, 18),
    ],
)
def test_ep_run_01_ic_13_run_is_x4_or_x3_in_heavy_armour(armor, speed, squares):
    """EP-RUN-01, IC-13: a run covers 4 x speed (x3 in heavy armour); the unarmoured x5 of
    EP-RUN-02's encumbrance section is the recorded alternative."""
    b = board("A . . B", A={"armor": armor, "speed": speed})
    begin(b, "A", "B")
    assert [(e.kind, e.cost) for e in do(b, RUN)] == [("run", squares)]


def test_ep_run_01_run_24_squares_then_nothing_else():
    """EP-RUN-01: running at speed 30 moves exactly 24 squares; no attack and no 5-foot
    step in the same round (EP-5FT-01)."""
    b = board(
        "\n".join(["A" + " ." * 25, ". " * 25 + "B"]),
        A={"facing": "E"},
    )
    begin(b, "A", "B")
    do(b, RUN, *[move(E)] * 24)
    assert b.creatures["A"].pos == (24, 0)
    assert engine.why_illegal(b, move(E)) == "not enough movement left (needs 1, has 0)"
    assert engine.why_illegal(b, attack("B")) == "no attack left this turn"
    assert engine.why_illegal(b, step5(W)) == (
        "a 5-foot step needs a turn without other movement (EP-5FT-01)"
    )


@pytest.mark.parametrize(
    ("before", "run_legal"),
    [
        ([], True),
        ([turn(N)], True),  # one free facing change spends nothing (UA-MOVE-02)
        ([turn(N), turn(S)], False),  # the second one is the move action
        ([move(W)], False),
        ([attack("B")], False),
        ([step5(W)], False),
    ],
)
def test_ep_run_01_run_is_a_full_round_action(before, run_legal):
    """EP-RUN-01: a run is a full-round action: only with both actions unspent, no
    movement and no 5-foot step this turn."""
    b = board(". . . . .\n. . A B .\n. . . . .", A={"facing": "E"})
    begin(b, "A", "B")
    do(b, *before)
    reason = engine.why_illegal(b, RUN)
    assert reason == (None if run_legal else "a run is a full-round action (EP-RUN-01)")
    assert (RUN in engine.legal_actions(b)) is run_legal


def test_ep_run_01_a_run_cannot_cross_difficult_terrain():
    """EP-RUN-01 'can't cross difficult terrain'; walking into it costs 2 (EP-TER-01)."""
    text = "A ~ . B"
    b = board(text, A={"facing": "E"})
    begin(b, "A", "B")
    do(b, RUN)
    assert engine.why_illegal(b, move(E)) == "a run cannot cross difficult terrain (EP-RUN-01)"
    b = board(text, A={"facing": "E"})
    begin(b, "A", "B")
    assert [e.cost for e in do(b, move(E))] == [2]


@pytest.mark.parametrize("runner", [False, True])
def test_ep_run_01_runner_is_flat_footed_until_its_next_turn(runner):
    """EP-RUN-01: after running, R is flat-footed until the start of its next turn unless
    it has the Runner feat: rogue A hits its flat-footed AC (14 - 2) with sneak attack
    (UA-SNK-01: 1d6 + 2d6 = 3.5 + 7 -> 11) and R makes no attack of opportunity when A walks
    away (SRD-FF-01). Its next turn starts with it no longer flat-footed."""
    b = board(
        "R . . A .",
        R={"dex": 14, "ac": 14, "hp": 50, "feats": ["Runner"] if runner else []},
        A={"facing": "W", "sneak_attack": "2d6", "rogue_level": 3},
    )
    begin(b, "R", "A")
    do(b, RUN, move(E), move(E), END)
    assert b.creatures["R"].flat_footed is not runner
    hit = attacks_in(do(b, attack("R"), dice=ScriptedDice(15)))
    assert [(e.ac, e.sneak_attack, e.damage) for e in hit] == (
        [(14, False, 4)] if runner else [(12, True, 11)]
    )
    aoo = attacks_in(do(b, move(E)))
    assert [e.actor for e in aoo] == (["R"] if runner else [])
    do(b, END)
    assert engine.actor(b).id == "R"
    assert b.creatures["R"].flat_footed is False


def test_ep_run_01_running_provokes_as_normal():
    """EP-RUN-01 / IC-12: leaving a threatened square while running provokes."""
    b = board("F M . .", F={"facing": "E"})
    begin(b, "M", "F", flat_footed_start=False)
    events = do(b, RUN, move(E))
    assert [(e.kind, e.actor, e.attack_kind) for e in events] == [
        ("run", "M", None),
        ("attack", "F", "aoo"),
        ("move", "M", None),
    ]


# ==========================================================================================
# 5-foot steps (EP-5FT-01..03, UA-MOVE-05, UA-MOVE-06, SRD-AOO-04)
# ==========================================================================================


def test_ep_5ft_01_one_5_foot_step_and_no_other_movement():
    """EP-5FT-01: one 5-foot step, only in a round without other movement."""
    text = ". . . . .\n. . A . .\n. . . . B"
    b = board(text)
    begin(b, "A", "B")
    do(b, step5(E))
    assert legal_of(b, engine.FIVE_FOOT_STEP) == []
    assert engine.why_illegal(b, step5(W)) == (
        "a 5-foot step needs a turn without other movement (EP-5FT-01)"
    )
    assert engine.why_illegal(b, move(N)) == "a 5-foot step was taken this turn (EP-5FT-01)"
    assert engine.why_illegal(b, keep(E)) == "a 5-foot step was taken this turn (EP-5FT-01)"
    assert legal_of(b, engine.MOVE) == legal_of(b, engine.STEP_KEEP_FACING) == []
    b = board(text)
    begin(b, "A", "B")
    do(b, move(N))
    assert legal_of(b, engine.FIVE_FOOT_STEP) == []
    assert engine.why_illegal(b, step5(S)) == (
        "a 5-foot step needs a turn without other movement (EP-5FT-01)"
    )


def test_ep_5ft_01_never_after_a_run():
    """EP-5FT-01 'If a character declares a run action, they may not perform any 5-Foot
    Steps during the same round', even before moving a square."""
    b = board(". . .\n. A .\n. . .\n. . B")
    begin(b, "A", "B")
    do(b, RUN)
    assert legal_of(b, engine.FIVE_FOOT_STEP) == []
    assert engine.why_illegal(b, step5(N)) == (
        "a 5-foot step needs a turn without other movement (EP-5FT-01)"
    )


def test_ua_move_05_06_5_foot_step_any_direction_keeps_facing():
    """UA-MOVE-05: a 5-foot step may go into any adjacent square, flank and rear included,
    for one square; UA-MOVE-06: it does not change facing."""
    b = board(". . .\n. A .\n. . .\n. . .\n. . B")
    begin(b, "A", "B")
    assert legal_of(b, engine.FIVE_FOOT_STEP) == list(range(8))
    events = do(b, step5(S))
    assert [(e.kind, e.pos, e.facing, e.cost) for e in events] == [("five_foot_step", (1, 2), N, 1)]


def test_srd_aoo_04_5_foot_step_does_not_provoke():
    """SRD-AOO-04 / EP-5FT-01: a 5-foot step out of a threatened square provokes nothing;
    walking the same square provokes (IC-12)."""
    text = "F M ."
    b = board(text, F={"facing": "E"})
    begin(b, "M", "F", flat_footed_start=False)
    assert kinds(do(b, step5(E))) == ["five_foot_step"]
    b = board(text, F={"facing": "E"})
    begin(b, "M", "F", flat_footed_start=False)
    assert kinds(do(b, move(E))) == ["attack", "move"]


def test_ep_5ft_03_no_5_foot_step_at_speed_5():
    """EP-5FT-03 'Any creature with a move speed of 5 feet or less cannot ever take a
    5-foot step' (it may still walk its 1 square)."""
    b = board(". . .\n. A .\n. . .\n. . B", A={"speed": 5})
    begin(b, "A", "B")
    assert legal_of(b, engine.FIVE_FOOT_STEP) == []
    assert engine.why_illegal(b, step5(N)) == "no 5-foot step there (EP-5FT-03)"
    assert engine.why_illegal(b, move(N)) is None


def test_ep_5ft_03_no_5_foot_step_into_difficult_or_impeded_terrain():
    """EP-5FT-03 / EP-TER-01 / EP-TER-02: no 5-foot step into difficult or impeded terrain."""
    b = board(". ~ .\n. A %\n. . .\n. . B")
    begin(b, "A", "B")
    assert legal_of(b, engine.FIVE_FOOT_STEP) == [NE, SE, S, SW, W, NW]
    assert engine.why_illegal(b, step5(N)) == "no 5-foot step there (EP-5FT-03)"
    assert engine.why_illegal(b, step5(E)) == "no 5-foot step there (EP-5FT-03)"


def test_ep_5ft_02_engine_does_not_trade_attacks_for_5_foot_steps():
    """EP-5FT-02 (player characters may trade full-attack attacks for extra 5-foot steps;
    monsters may not): the engine has no player/monster distinction and applies the
    monster rule to everyone. Pinned: one 5-foot step per turn, whatever attacks remain."""
    b = board(
        ". . . .\n. A . B\n. . . .",
        A={"facing": "E", "base_attack_bonus": 11},
        B={"hp": 100},
    )
    begin(b, "A", "B")
    do(b, step5(E), attack("B"))
    assert attack("B") in engine.legal_actions(b)  # two iterative attacks are left
    assert legal_of(b, engine.FIVE_FOOT_STEP) == []
    assert engine.why_illegal(b, step5(W)) == (
        "a 5-foot step needs a turn without other movement (EP-5FT-01)"
    )


# ==========================================================================================
# Facing changes under ua35 (UA-MOVE-01, UA-MOVE-02, UA-MOVE-04, UA-ATK-04)
# ==========================================================================================


@pytest.mark.parametrize(
    ("action", "facing", "cost"),
    [
        (move(E), E, 1),  # UA-MOVE-01: turn toward the square, then step at front cost
        (keep(E), N, 2),  # UA-MOVE-04: into the flank without turning costs double
        (keep(S), N, 2),  # UA-MOVE-04: into the rear without turning costs double
        (keep(NE), N, 1),  # UA-MOVE-03: a front square at normal cost
        (move(S), S, 1),
    ],
)
def test_ua_move_01_04_move_turns_for_free_step_keep_facing_pays(action, facing, cost):
    """UA-MOVE-01 (rotate freely before each square), UA-MOVE-03/04 (front 1, flank and
    rear 2): A faces N."""
    b = board(". . .\n. A .\n. . .\n. . .\n. . B")
    begin(b, "A", "B")
    [ev] = do(b, action)
    assert (ev.kind, ev.facing, ev.cost) == ("move", facing, cost)
    assert b.creatures["A"].facing == facing


def test_step_keep_facing_is_only_offered_where_it_differs_from_move():
    """STEP_KEEP_FACING toward the current facing is MOVE; without facing it is never
    offered (``standard``)."""
    b = board(". . .\n. A .\n. . .\n. . B")
    begin(b, "A", "B")
    assert legal_of(b, engine.STEP_KEEP_FACING) == [NE, E, SE, S, SW, W, NW]
    assert engine.why_illegal(b, keep(N)) == "the same as MOVE here: use MOVE"
    b = board(". . .\n. A .\n. . .\n. . B", "standard")
    begin(b, "A", "B")
    assert legal_of(b, engine.STEP_KEEP_FACING) == []
    assert legal_of(b, engine.MOVE) == list(range(8))


def test_ua_move_01_facing_changes_while_moving_are_free():
    """UA-MOVE-01 'As you move, you can freely change your facing': a turn after each of
    the 6 squares of the move action spends neither movement nor the standard action.
    One free change per step (engine.TURNS_WHILE_MOVING): more turns between two steps
    could only end on the last facing, so the second is refused."""
    b = board(row("A", *"......", "B"), A={"facing": "E"})
    begin(b, "A", "B")
    for _ in range(6):
        do(b, move(E), turn(N))
    assert engine.why_illegal(b, turn(S)) == "no facing change left (UA-MOVE-02)"
    assert b.creatures["A"].pos == (6, 0)
    assert b.creatures["A"].facing == N
    assert attack("B") in engine.legal_actions(b)


def test_ua_move_02_one_free_change_then_a_move_action_then_none():
    """UA-MOVE-02: not moving, A changes facing once as a free action (a full-round run is
    still open), a second time as its move action (no run any more, but the standard
    action may still move 6 squares), and never a third time."""
    b = board(". . . . . . . . .\n. A . . . . . . .\n. . . . . . . . B")
    begin(b, "A", "B")
    do(b, turn(E))
    assert RUN in engine.legal_actions(b)
    do(b, turn(S))
    assert engine.why_illegal(b, RUN) == "a run is a full-round action (EP-RUN-01)"
    assert legal_of(b, engine.TURN) == []
    assert engine.why_illegal(b, turn(N)) == "no facing change left (UA-MOVE-02)"
    do(b, *[move(E)] * 6)
    assert b.creatures["A"].pos == (7, 1)
    assert engine.why_illegal(b, move(E)) == "not enough movement left (needs 1, has 0)"


def test_ua_move_02_after_a_5_foot_step_one_free_change():
    """UA-MOVE-02 / UA-MOVE-06: 'if your movement is limited to a 5-foot step, you may change
    facing once ... as a free action': the full attack (+6/+1) is still possible, and then
    A has no second facing change (the move action is spent), so its turn ends."""
    b = board(". . . .\n. A . B\n. . . .", A={"base_attack_bonus": 6}, B={"hp": 100})
    begin(b, "A", "B")
    do(b, step5(E), turn(E))
    assert engine.why_illegal(b, turn(N)) is None  # the second change: the move action
    events = do(b, attack("B"), attack("B"))
    assert kinds(events) == ["attack", "attack", "end_turn", "turn_start"]


def test_ua_move_02_no_facing_change_after_moving_once_the_move_is_over():
    """UA-MOVE-01/02: after moving and attacking, the move is over and the free change of
    UA-MOVE-02 is only for turns without movement: A has nothing left."""
    b = board("A . B", A={"facing": "E"})
    begin(b, "A", "B")
    do(b, move(E))
    assert len(legal_of(b, engine.TURN)) == 7
    events = do(b, attack("B"))
    assert kinds(events) == ["attack", "end_turn", "turn_start"]


def test_ua_move_02_attack_then_free_change_then_move():
    """UA-MOVE-02 'at any point during your turn': attack, change facing once for free,
    then the move action still moves 6 squares (facing changes free again, UA-MOVE-01)."""
    b = board(row(*"......", "A", "B"), A={"facing": "E"})
    begin(b, "A", "B")
    do(b, attack("B"), turn(S))
    do(b, *[move(W)] * 6, turn(E))
    assert b.creatures["A"].pos == (0, 0)
    assert b.creatures["A"].facing == E


def test_ua_move_02_turn_needs_a_new_facing_and_a_creature_with_facing():
    """A TURN to the current facing is no change; faceless creatures (UA-FCL-01) and the
    ``standard`` rule set have no facing to change."""
    b = board("A . B")
    begin(b, "A", "B")
    assert engine.why_illegal(b, turn(N)) == "already facing that way"
    assert legal_of(b, engine.TURN) == [NE, E, SE, S, SW, W, NW]
    assert engine.why_illegal(b, turn(8)) == "facing 8 is not allowed for this creature"
    b = board("A . B", A={"faceless": True})
    begin(b, "A", "B")
    assert legal_of(b, engine.TURN) == []
    assert engine.why_illegal(b, turn(E)) == "this creature has no facing to change"
    b = board("A . B", "standard")
    begin(b, "A", "B")
    assert legal_of(b, engine.TURN) == []


def test_ua_atk_04_kroh_example():
    """UA-ATK-04: 6th-level Kroh (5,5) facing N attacks the bugbear (5,4) in his front (0),
    changes facing to the goblin (5,6) with his free action (-10 before, 0 after), attacks
    it with his iterative attack, and cannot change facing again; on its turn the bugbear
    attacks him from his rear (+4, UA-OPP-02)."""
    text = "\n".join(
        ". . . . . . ." if y not in (4, 5, 6) else ". . . . . " + "BKG"[y - 4] + " ."
        for y in range(8)
    )
    b = board(
        text,
        K={"team": "pc", "base_attack_bonus": 6, "hp": 50, "facing": "N"},
        B={"team": "foe", "facing": "S", "hp": 50},
        G={"team": "foe", "facing": "N", "hp": 50},
    )
    assert b.creatures["K"].pos == (5, 5)
    begin(b, "K", "B", "G")
    first = attacks_in(do(b, attack("B")))
    assert [(e.target, e.facing_modifier, e.total) for e in first] == [("B", 0, 10.5)]
    do(b, turn(S))
    second = attacks_in(do(b, attack("G")))
    assert [(e.target, e.facing_modifier, e.total) for e in second] == [("G", 0, 5.5)]
    assert legal_of(b, engine.TURN) == []
    assert engine.why_illegal(b, turn(N)) == "no facing change left (UA-MOVE-02)"
    assert legal_of(b, engine.ATTACK) == []
    do(b, END)
    bugbear = attacks_in(do(b, attack("K")))
    assert [(e.own_area, e.defender_area, e.facing_modifier) for e in bugbear] == [
        ("front", "rear", 4)
    ]


# ==========================================================================================
# Facing under side_rear (SR-02, SR-03, SR-04, IC-20)
# ==========================================================================================


def test_sr_02_facing_declared_freely_at_the_end_of_movement():
    """SR-02: a moving creature declares its facing at the end of its movement (a free
    change after the step); SR-03: the attack turns it to face B; SR-04: one reaction
    change afterwards, and then A has nothing left, so its turn ends."""
    b = board("A . B", "side_rear", B={"hp": 100})
    begin(b, "A", "B")
    do(b, move(E), turn(N))
    [hit] = attacks_in(do(b, attack("B")))
    assert b.creatures["A"].facing == E
    assert (hit.own_area, hit.defender_area, hit.facing_modifier) == ("front", "side", 2)
    assert len(legal_of(b, engine.TURN)) == 7
    events = do(b, turn(S))
    assert [(e.kind, e.actor) for e in events] == [
        ("turn", "A"),
        ("end_turn", "A"),
        ("turn_start", "B"),
    ]


def test_sr_04_ic_20_one_reaction_change_and_no_move_action_change():
    """SR-04 'as a Reaction on its turn': one change when not moving; unlike ua35
    (UA-MOVE-02) no second change for the move action."""
    b = board("A . . B", "side_rear")
    begin(b, "A", "B")
    do(b, turn(E))
    assert legal_of(b, engine.TURN) == []
    assert engine.why_illegal(b, turn(S)) == "no facing change left (UA-MOVE-02)"
    assert RUN in engine.legal_actions(b)  # the reaction spent no action


def test_sr_04_ic_20_facing_changes_only_on_the_creatures_own_turn():
    """SR-04, IC-20: a creature changes facing only on its own turn: A attacks B from B's
    side and B stays facing N (no reaction on A's turn; the TURN actions of A's turn turn A);
    on its own turn B has its reaction."""
    b = board(". . .\nA B .\n. . .", "side_rear", A={"facing": "E"}, B={"hp": 100})
    begin(b, "A", "B")
    do(b, attack("B"), turn(S))
    assert b.creatures["B"].facing == N
    assert b.creatures["A"].facing == S
    do(b, END)
    assert engine.actor(b).id == "B"
    assert legal_of(b, engine.TURN) == [NE, E, SE, S, SW, W, NW]
    do(b, turn(W))
    assert b.creatures["B"].facing == W


@pytest.mark.parametrize(
    ("ruleset", "facing", "own_area", "modifier"),
    [("side_rear", SE, "front", 0), ("ua35", N, "rear", -10)],
)
def test_sr_03_an_attack_turns_the_attacker_toward_its_target(ruleset, facing, own_area, modifier):
    """SR-03: under side_rear A (facing N) turns to face B at its SE before rolling; under
    ua35 it does not turn and attacks into its rear at -10 (UA-ATK-02; B faces A)."""
    b = board(". . .\n. A .\n. . B", ruleset, B={"facing": "NW", "hp": 100})
    begin(b, "A", "B")
    [hit] = attacks_in(do(b, attack("B")))
    assert b.creatures["A"].facing == facing
    assert (hit.own_area, hit.facing_modifier) == (own_area, modifier)


def test_sr_03_an_attack_of_opportunity_turns_its_maker():
    """SR-03 'When a creature makes an attack roll, it automatically turns to face the
    target': F (facing N) turns E toward M as it makes its attack of opportunity on M's
    turn; this is SR-03, not the SR-04 reaction (IC-20)."""
    b = board("F M . .", "side_rear")
    begin(b, "M", "F", flat_footed_start=False)
    assert [(e.actor, e.attack_kind) for e in attacks_in(do(b, move(E)))] == [("F", "aoo")]
    assert b.creatures["F"].facing == E


def test_sr_02_a_shift_also_declares_facing():
    """SR-02 'any voluntary movement (whether this is from regular movement, a Shift, or a
    Run action) ... declares its facing at the end of the movement': a 5-foot step (the
    Shift) ends with a free facing declaration like a walk does, and the SR-04 reaction is
    still there afterwards."""
    b = board(". . . .\n. A . .\n. . . B", "side_rear")
    begin(b, "A", "B")
    do(b, step5(E), turn(S))
    assert engine.why_illegal(b, turn(E)) is None


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


# ==========================================================================================
# Attacks of opportunity (UA-AOO-01..03, SRD-AOO-05, UA-FEAT-CR, IC-09)
# ==========================================================================================


@pytest.mark.parametrize(
    ("text", "r_facing", "action", "modifier", "cost"),
    [
        ("F R .", "N", move(N), 2, 1),  # UA-AOO-01 (Figure 1): F in R's flank
        ("F R .", "W", keep(N), 0, 2),  # UA-AOO-02 (Figure 2): sideways, F in R's front
        ("R F .", "N", move(N), -8, 1),  # UA-AOO-03 (Figure 3): R in F's rear, F in R's flank
        ("F R .", "N", move(NW), 0, 1),  # UA-MOVE-01: R turns NW first, F now in its front
        ("F R .", "N", keep(NW), 2, 1),  # the same step without turning: +2
    ],
)
def test_ua_aoo_01_03_attack_of_opportunity_facing_modifiers(
    text, r_facing, action, modifier, cost
):
    """UA-AOO-01..03 with IC-09: the fighter F (facing E) gets an attack of opportunity when
    the rogue R leaves the square next to it, with F's own penalty plus the bonus from R's
    facing in the square being left (after R turned toward its step, UA-MOVE-01)."""
    b = board(". . .\n" + text + "\n. . .", F={"facing": "E"}, R={"facing": r_facing})
    begin(b, "R", "F", flat_footed_start=False)
    events = do(b, action)
    assert [(e.kind, e.actor) for e in events] == [("attack", "F"), ("move", "R")]
    assert (events[0].attack_kind, events[0].facing_modifier) == ("aoo", modifier)
    assert events[1].cost == cost


@pytest.mark.parametrize(
    ("where", "m_facing", "away", "feats", "modifier"),
    [
        ((2, 1), "W", E, [], -5),  # M in F's flank: -5
        ((2, 1), "W", E, ["Combat Reflexes"], 0),  # UA-FEAT-CR: flank without penalty
        ((1, 2), "N", S, ["Combat Reflexes"], -10),  # the rear is still -10
    ],
)
def test_ua_feat_cr_attacks_of_opportunity_into_the_flank(where, m_facing, away, feats, modifier):
    """UA-FEAT-CR: Combat Reflexes lets F (facing N) make attacks of opportunity into its
    flank without penalty; M faces F and backs away without turning."""
    rows = [[".", ".", "."] for _ in range(4)]
    rows[1][1] = "F"
    rows[where[1]][where[0]] = "M"
    rows = [[*r, "."] for r in rows]
    b = board(
        "\n".join(" ".join(r) for r in rows),
        F={"facing": "N", "feats": feats},
        M={"facing": m_facing, "hp": 100},
    )
    begin(b, "M", "F", flat_footed_start=False)
    [aoo] = attacks_in(do(b, keep(away)))
    assert (aoo.actor, aoo.attack_kind, aoo.facing_modifier) == ("F", "aoo", modifier)


@pytest.mark.parametrize(
    ("dex", "feats", "makers"),
    [
        (10, [], ["F"]),  # SRD-AOO-05: one per round
        (12, ["Combat Reflexes"], ["F", "F"]),  # UA-FEAT-CR (3.5): 1 + Dex modifier
        (10, ["Combat Reflexes"], ["F"]),  # Dex modifier 0: still one
    ],
)
def test_srd_aoo_05_one_attack_of_opportunity_per_round(dex, feats, makers):
    """SRD-AOO-05 'a combatant can only make one per round': M and N both walk away from F
    in round 1; F strikes only the first, unless Combat Reflexes gives it more."""
    b = board(
        ". . . . .\n. M . N .\n. . F . .",
        F={"team": "f", "dex": dex, "feats": feats},
        M={"team": "mn", "hp": 100},
        N={"team": "mn", "hp": 100},
    )
    begin(b, "M", "N", "F", flat_footed_start=False)
    events = do(b, move(N), END, move(N))
    assert [e.actor for e in attacks_in(events)] == makers
    assert [e.target for e in attacks_in(events)] == ["M", "N"][: len(makers)]


def test_srd_aoo_05_one_per_enemy_per_move_and_again_next_round():
    """One attack of opportunity per enemy per move (EP-DBL-01), even with Combat Reflexes
    (Dex 18): M leaves F's threatened square twice in one turn and provokes once; after F's
    own turn its allowance is back and M provokes again in round 2."""
    b = board(
        "F M . .",
        F={"feats": ["Combat Reflexes"], "dex": 18, "facing": "E"},
        M={"hp": 100},
    )
    begin(b, "M", "F", flat_footed_start=False)
    first = do(b, move(E), move(W), move(E), move(W))
    assert [(e.kind, e.actor) for e in first] == [
        ("attack", "F"),
        ("move", "M"),
        ("move", "M"),
        ("move", "M"),
        ("move", "M"),
    ]
    do(b, END, END)
    assert engine.actor(b).id == "M"
    assert [(e.kind, e.actor) for e in do(b, move(E))] == [("attack", "F"), ("move", "M")]


def test_an_attack_of_opportunity_can_kill_the_mover():
    """The mover dies in the square it was leaving (the AoO hits: 10.5 vs AC 10, 4 damage
    to 4 hp); its turn ends and the next creature's begins."""
    b = board("F M . . X", F={"team": "f", "facing": "E"}, M={"hp": 4}, X={"team": "x"})
    begin(b, "M", "F", "X", flat_footed_start=False)
    events = do(b, move(E))
    assert [(e.kind, e.actor) for e in events] == [
        ("attack", "F"),
        ("death", "M"),
        ("end_turn", "M"),
        ("turn_start", "F"),
    ]
    assert b.creatures["M"].pos == (1, 0)
    assert engine.actor(b).id == "F"


# ==========================================================================================
# Expected-value dice (the scenario setting ``dice: expected``)
# ==========================================================================================


@pytest.mark.parametrize(
    ("damage", "expected"),
    [
        ("1d6", 4),  # 3.5 rounds half up
        ("2d6", 7),
        ("1d8+3", 8),  # 7.5
        ("1d4+1", 4),  # 3.5
        ("1d12", 7),  # 6.5
        ("3d4", 8),  # 7.5
        ("1d3", 2),
        ("4", 4),
        ("1d2-5", 1),  # at least 1
    ],
)
def test_expected_mode_rolls_read_their_mean(damage, expected):
    """``dice: expected``: the d20 reads 10.5 and damage its mean rounded half up (at
    least 1): A (+2) hits AC 10 with 12.5."""
    b = board(
        "A B",
        A={"facing": "E", "attacks": [{"bonus": 2, "damage": damage}]},
        B={"facing": "W", "hp": 100},
    )
    begin(b, "A", "B")
    [hit] = attacks_in(engine.apply(b, attack("B"), expected_dice()))
    assert (hit.roll, hit.total, hit.hit, hit.damage) == (10.5, 12.5, True, expected)


@pytest.mark.parametrize(("ac", "hit"), [(10, True), (11, False)])
def test_expected_mode_hits_iff_10_5_plus_bonus_reaches_ac(ac, hit):
    """``dice: expected``: 10.5 + 0 hits AC 10 and misses AC 11."""
    b = board("A B", A={"facing": "E"}, B={"facing": "W", "ac": ac})
    begin(b, "A", "B")
    [ev] = attacks_in(engine.apply(b, attack("B"), expected_dice()))
    assert (ev.hit, ev.damage) == (hit, 4 if hit else 0)


def test_expected_mode_initiative_and_log_do_not_depend_on_the_seed():
    """``dice: expected``: initiative is 10.5 + Dex modifier (C +4, A +1, B 0) and, with no
    full ties, the whole event log is the same for every seed."""

    def play(seed: int) -> list:
        b = board(
            ". A B .\n. . C .",
            A={"dex": 12, "team": "x", "facing": "E"},
            B={"team": "y", "facing": "W"},
            C={"dex": 18, "team": "y", "facing": "N"},
        )
        dice = expected_dice(seed)
        events = engine.start(b, dice)
        for _ in range(12):
            if engine.actor(b) is None:
                break
            foes = legal_of(b, engine.ATTACK)
            events += engine.apply(b, attack(foes[0]) if foes else END, dice)
        return [e.to_dict() for e in events]

    log = play(0)
    assert [e["actor"] for e in log if e["kind"] == "initiative"] == ["C", "A", "B"]
    assert play(1) == log
    assert play(12345) == log


# ==========================================================================================
# legal_actions, why_illegal, apply and IllegalActionError (docs/design.md, turns and actions)
# ==========================================================================================


def _universe(b: Battle) -> list[Action]:
    """Every action to ask about: all kinds with valid and invalid arguments."""
    dirs = [None, -1, "N", *range(10)]
    out = [END, RUN, Action("fly"), Action("fly", 1)]
    for kind in (engine.MOVE, engine.STEP_KEEP_FACING, engine.FIVE_FOOT_STEP):
        out += [Action(kind, d) for d in dirs]
    out += [Action(engine.TURN, f) for f in [None, -1, "N", *range(14)]]
    for kind in (engine.ATTACK, engine.CHARGE, engine.WITHDRAW):
        out += [Action(kind, t) for t in [None, 0, "nobody", *b.creatures]]
    out += [Action(engine.READY), Action(engine.READY, 1)]
    return out


def _scenarios() -> dict[str, Battle]:
    fighter = {"base_attack_bonus": 11, "feats": ["Cleave"], "hp": 30}
    return {
        "ua35": board(
            ". . . . . .\n. A . ~ . .\n. . B . % .\n. . . C . .\n. . . . . .",
            A={"team": "pc", **fighter},
            B={"team": "foe", "facing": "W", "hp": 8},
            C={"team": "foe", "facing": "NW", "attacks": [{"reach": 10}]},
        ),
        "side_rear": board(
            ". . . . . .\n. A . . L L\n. . B . L L\n. . . . . .",
            "side_rear",
            A={"team": "pc", "sneak_attack": "1d6", **fighter},
            B={"team": "foe", "hp": 8},
            L={"team": "foe", "facing": "W", "hp": 20},
        ),
        "standard": board(
            ". . . . .\n. A B . .\n. . C . .\n. . . . .",
            "standard",
            A={"team": "pc", **fighter},
            B={"team": "foe"},
            C={"team": "foe", "speed": 5},
        ),
        "hex": Battle.from_spec(
            {
                "ruleset": "ua35",
                "grid": {"kind": "hex", "width": 6, "height": 5},
                "creatures": [
                    {"id": "A", "size": "Medium", "pos": [1, 2], "team": "pc", **fighter},
                    {"id": "B", "size": "Medium", "pos": [2, 2], "team": "foe", "facing": "W"},
                    {"id": "C", "size": "Medium", "pos": [1, 3], "team": "foe"},
                ],
            }
        ),
    }


@pytest.mark.parametrize("name", ["ua35", "side_rear", "standard", "hex"])
def test_legal_actions_are_exactly_the_actions_why_illegal_accepts(name):
    """``legal_actions`` lists exactly the actions ``why_illegal`` accepts
    (no duplicates), END_TURN is always among them, ``apply`` raises IllegalActionError
    naming the action and the reason for the others and leaves the battle unchanged.
    Checked along 80 seeded random actions of every creature."""
    b = _scenarios()[name]
    rng = np.random.default_rng(11)
    dice = Dice(np.random.default_rng(5), "roll")
    engine.start(b, dice, flat_footed_start=False)
    steps = 0
    while not engine.is_over(b) and steps < 80:
        legal = engine.legal_actions(b)
        accepted = [a for a in _universe(b) if engine.why_illegal(b, a) is None]
        assert len(legal) == len(set(legal))
        assert set(legal) == set(accepted)
        assert END in legal
        rejected = [a for a in _universe(b) if a not in set(legal)]
        bad = rejected[int(rng.integers(len(rejected)))]
        before = (b.to_spec(), engine.actor(b).id, legal)
        with pytest.raises(IllegalActionError) as err:
            engine.apply(b, bad, dice)
        msg = str(err.value)
        assert bad.kind in msg and repr(bad.arg) in msg
        assert engine.why_illegal(b, bad) in msg
        assert (b.to_spec(), engine.actor(b).id, engine.legal_actions(b)) == before
        weights = np.array([0.2 if a == END else 1.0 for a in legal])
        choice = legal[int(rng.choice(len(legal), p=weights / weights.sum()))]
        engine.apply(b, choice, dice)
        steps += 1
    assert steps >= 20


def test_nothing_is_legal_before_the_battle_starts():
    """Before ``start`` there is no actor and no legal action."""
    b = board("A . B")
    assert engine.actor(b) is None
    assert engine.legal_actions(b) == []


def test_a_battle_of_one_team_is_over_at_once():
    """A battle with one team is over at the start: initiative is rolled, no turn begins."""
    b = board("A . B", A={"team": "pc"}, B={"team": "pc"})
    events = engine.start(b, ScriptedDice(10, 12))
    assert kinds(events) == ["initiative", "initiative"]
    assert engine.is_over(b) and engine.winner(b) == "pc" and engine.actor(b) is None


@pytest.mark.parametrize(
    ("before", "action", "reason"),
    [
        ([step5(W)], step5(W), "a 5-foot step needs a turn without other movement (EP-5FT-01)"),
        ([RUN], step5(W), "a 5-foot step needs a turn without other movement (EP-5FT-01)"),
        ([step5(W)], move(N), "a 5-foot step was taken this turn (EP-5FT-01)"),
        ([move(W)], RUN, "a run is a full-round action (EP-RUN-01)"),
        ([turn(E), turn(S)], turn(W), "no facing change left (UA-MOVE-02)"),
        ([], turn(N), "already facing that way"),
        ([], attack("C"), "C is out of reach of every attack left"),
        ([], attack("A"), "'A' is not a living enemy"),
        ([], attack("Z"), "'Z' is not a living enemy"),
        ([], move(8), "no direction 8 on a square grid"),
        ([], Action("fly"), "unknown action kind 'fly'"),
    ],
)
def test_apply_raises_illegal_action_error_naming_action_and_reason(before, action, reason):
    """``apply`` raises IllegalActionError (a ValueError) whose message names the action
    and gives ``why_illegal``'s reason, citing the rule where there is one."""
    b = board(". . . . .\n. . A B .\n. . . . .\n. . . . C")
    begin(b, "A", "B", "C")
    do(b, *before)
    assert engine.why_illegal(b, action) == reason
    with pytest.raises(IllegalActionError) as err:
        engine.apply(b, action, expected_dice())
    assert isinstance(err.value, ValueError)
    msg = str(err.value)
    assert action.kind in msg and repr(action.arg) in msg and reason in msg


def test_end_turn_and_run_take_no_argument():
    """The mask 'allows exactly what apply accepts' (docs/design.md) for every action value:
    END_TURN(5) and RUN('x') are not in ``legal_actions``, so ``why_illegal`` must reject
    them (and ``apply`` with them)."""
    b = board(". A . . B")
    begin(b, "A", "B")
    legal = engine.legal_actions(b)
    assert Action(engine.END_TURN, 5) not in legal and Action(engine.RUN, "x") not in legal
    assert engine.why_illegal(b, Action(engine.END_TURN, 5)) is not None
    assert engine.why_illegal(b, Action(engine.RUN, "x")) is not None


def test_direction_arguments_may_be_numpy_integers():
    """MOVE(np.int64(6)) == MOVE(6), which ``legal_actions`` lists, so ``why_illegal``
    must accept it as it accepts TURN(np.int64(f)) (an agent's integer often comes from
    numpy)."""
    b = board(". A . . B")
    begin(b, "A", "B")
    legal = engine.legal_actions(b)
    assert move(np.int64(W)) in legal
    assert engine.why_illegal(b, turn(np.int64(E))) is None
    assert engine.why_illegal(b, move(np.int64(W))) is None
    assert engine.why_illegal(b, step5(np.int64(W))) is None


# ==========================================================================================
# Deck dice (``dice: deck``): d20s drawn from a shuffled deck of the twenty faces
# ==========================================================================================


def test_deck_mode_deals_each_face_once_per_twenty_draws():
    """Every run of twenty d20s is a permutation of 1..20, dealt from the seeded
    generator (the same seed deals the same cards); damage still rolls."""
    dice = Dice(np.random.default_rng(7), "deck")
    draws = [dice.d20() for _ in range(60)]
    for k in range(3):
        assert sorted(draws[20 * k : 20 * (k + 1)]) == list(range(1, 21))
    again = Dice(np.random.default_rng(7), "deck")
    assert [again.d20() for _ in range(60)] == draws
    assert len({Dice(np.random.default_rng(s), "deck").d20() for s in range(40)}) > 5
    assert {dice.damage("1d8") for _ in range(200)} == set(range(1, 9))


def test_deck_mode_twenty_attacks_hit_exactly_by_the_faces():
    """``dice: deck``: twenty attacks at +0 against AC 11 hit on the faces 11-19 and the
    natural 20 (ten hits; a 1 always misses), whatever the seed; a +2 attacker hits
    twelve times. (The weapon threatens no critical here, so no confirmation roll draws a
    card in between.)"""
    for bonus, hits in ((0, 10), (2, 12)):
        for seed in (1, 2):
            b = board(
                "A B",
                A={"facing": "E", "attacks": [{"bonus": bonus, "damage": "1"}]},
                B={"facing": "W", "hp": 1000, "ac": 11},
            )
            begin(b, "A", "B")
            dice = Dice(np.random.default_rng(seed), "deck")
            a, d = b.creatures["A"], b.creatures["B"]
            slot = AttackSlot(dataclasses.replace(a.attacks[0], threat_range=21), 0)
            rolls, count = [], 0
            for _ in range(20):
                [ev] = attacks_in(engine.resolve_attack(b, a, d, slot, "attack", dice))
                rolls.append(ev.roll)
                count += ev.hit
            assert sorted(rolls) == list(range(1, 21))
            assert count == hits, (bonus, seed)


def test_the_dice_stream_is_splitmix64_by_counter():
    """The dice are a counter-based stream: draw ``n`` of seed ``s`` is SplitMix64's output
    for the state ``s + (n + 1) * golden`` (seed 0 gives the published first outputs),
    whatever was drawn before; a die reads the top 53 bits as a fraction."""
    from facing_env.rules.dice import stream_die, stream_word

    assert [stream_word(0, n) for n in range(3)] == [
        0xE220A8397B1DCDAF,
        0x6E789E6AA1B965F4,
        0x06C45D188009454F,
    ]
    dice = Dice(12345, "roll")
    draws = [dice.d20(), dice.percent(), dice.die(6), dice.uniform()]
    assert dice.count == 4
    assert draws[:3] == [
        stream_die(12345, 0, 20),
        stream_die(12345, 1, 100),
        stream_die(12345, 2, 6),
    ]
    assert draws[3] == (stream_word(12345, 3) >> 11) / 2.0**53
    faces = [stream_die(99, n, 20) for n in range(20_000)]
    assert set(faces) == set(range(1, 21))
    assert max(faces.count(f) for f in range(1, 21)) < 1.1 * 1000  # uniform within 10%
    with pytest.raises(ValueError, match="dice seed"):
        Dice(-1)
    with pytest.raises(TypeError, match="dice seed"):
        Dice("7")  # type: ignore[arg-type]


def test_dice_modes_are_checked():
    with pytest.raises(
        ValueError, match="dice mode must be one of 'roll', 'expected', 'deck', 'mean'"
    ):
        Dice(np.random.default_rng(0), "loaded")


# ==========================================================================================
# Mean dice (``dice: mean``): every attack deals its mean damage over the rolls
# ==========================================================================================


@pytest.mark.parametrize(
    ("bonus", "kwargs", "expected"),
    [
        # the duel's fighter (+6, 1d8+3, 19-20/x2) against AC 17: hits on 11+ (0.5), a
        # critical on 19-20 confirmed half the time: 0.5 * 7.5 + 0.1 * 0.5 * 7.5
        (6, {"damage": "1d8+3", "threat_range": 19}, 4.125),
        (8, {"damage": "1d8+3", "threat_range": 19}, 4.95),  # +2 from the flank: 9+ (0.6)
        (10, {"damage": "1d8+3", "threat_range": 19}, 5.775),  # +4 from the rear: 7+ (0.7)
        # a natural 20 always hits, a natural 1 always misses
        (-30, {"damage": "4", "threat_range": 21}, 0.2),
        (30, {"damage": "4", "threat_range": 21}, 3.8),
        # sneak attack dice are added once, never multiplied: +0 against AC 11 hits on 11+;
        # 0.5 * (3.5 + 7) + (2 / 20) * 0.5 * 3.5; a 20% miss chance scales it all
        (6 - 6, {"damage": "1d6", "threat_range": 19, "extra": "2d6"}, 5.425),
        (0, {"damage": "1d6", "threat_range": 19, "extra": "2d6", "concealment": 20}, 4.34),
        (0, {"damage": "1d6", "threat_range": 20, "crit_multiplier": 3}, 0.5 * 3.5 + 0.025 * 7),
    ],
)
def test_mean_damage_is_the_mean_over_the_rolls(bonus, kwargs, expected):
    ac = 17 if kwargs["damage"] == "1d8+3" else 11
    assert mean_damage(bonus, ac, **kwargs) == pytest.approx(expected)


@pytest.mark.parametrize(("defender_facing", "damage"), [("W", 1.0), ("E", 1.4)])
def test_mean_mode_attack_deals_mean_damage_by_area(defender_facing, damage):
    """``dice: mean`` (UA-OPP-02 through the attack bonus): a +0 attack for 2 damage
    against AC 11 deals 0.5 * 2 from the defender's front (hits on 11+) and 0.7 * 2 from
    its rear (+4: 7+), every time; hit points become fractions."""
    b = board(
        "A B",
        A={"facing": "E", "attacks": [{"bonus": 0, "damage": "2"}]},
        B={"facing": defender_facing, "hp": 10, "ac": 11},
    )
    begin(b, "A", "B")
    dice = Dice(np.random.default_rng(0), "mean")
    a, d = b.creatures["A"], b.creatures["B"]
    slot = AttackSlot(dataclasses.replace(a.attacks[0], threat_range=21), 0)
    for n in (1, 2):
        [ev] = attacks_in(engine.resolve_attack(b, a, d, slot, "attack", dice))
        assert ev.hit and ev.roll == 10.5 and not ev.critical
        assert ev.damage == pytest.approx(damage)
        assert d.hp == pytest.approx(10 - n * damage)


def test_mean_mode_battle_shows_fractional_hit_points():
    """A whole duel with ``dice="mean"`` plays through the env; the text rendering shows
    the fractions of hit points briefly (``:g``)."""
    import re

    import facing_env

    env = facing_env.env(scenario="duel", dice="mean", render_mode="ansi")
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    for _agent in env.agent_iter(200):
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    hps = [float(h) for h in re.findall(r"hp ([0-9.]+)/52", env.render())]
    assert hps and any(h != int(h) for h in hps)
    assert all(len(str(h).split(".")[-1]) <= 6 for h in hps)


class _FacesDice(Dice):
    """Dice that deal given d20 faces and percentile rolls, damage at the means."""

    def __init__(self, d20s: list[int], percent: int = 100) -> None:
        super().__init__(np.random.default_rng(0))
        self._d20s, self._percent = list(d20s), percent

    def d20(self) -> int:
        return self._d20s.pop(0)

    def percent(self) -> int:
        return self._percent

    def _roll(self, n: int, sides: int) -> float:
        return n * (sides + 1) / 2.0

    def damage(self, expr: str, multiplier: int = 1, extra: str | None = None) -> float:
        n, sides, bonus = parse_dice(expr)
        total = multiplier * (self._roll(n, sides) + bonus)
        if extra is not None:
            en, es, eb = parse_dice(extra)
            total += self._roll(en, es) + eb
        return total


@pytest.mark.parametrize(("bonus", "threat", "multiplier"), [(0, 19, 2), (5, 18, 3), (-8, 20, 2)])
def test_mean_damage_is_the_average_of_resolve_attack_over_every_face(bonus, threat, multiplier):
    """``mean_damage`` against the engine itself: ``resolve_attack`` with every d20 face
    for the attack and every face for the confirmation (damage dice at their means),
    averaged over the 400 pairs, is the mean damage of the attack's modifiers."""
    b = board(
        "A B",
        A={"facing": "E", "attacks": [{"bonus": bonus, "damage": "1d8+2"}]},
        B={"facing": "W", "hp": 10_000, "ac": 14},
    )
    begin(b, "A", "B")
    a, d = b.creatures["A"], b.creatures["B"]
    attack = dataclasses.replace(a.attacks[0], threat_range=threat, crit_multiplier=multiplier)
    slot = AttackSlot(attack, 0)
    total = 0.0
    for face in range(1, 21):
        for confirm in range(1, 21):
            hp = d.hp
            engine.resolve_attack(b, a, d, slot, "attack", _FacesDice([face, confirm]))
            total += hp - d.hp
    mods = rules.attack_breakdown(b, a, d, kind="attack", attack=attack.name)
    expected = mean_damage(
        mods.total,
        mods.target_ac,
        damage="1d8+2",
        threat_range=threat,
        crit_multiplier=multiplier,
    )
    assert total / 400 == pytest.approx(expected)
    assert expected > 0
