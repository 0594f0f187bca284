"""The turn sequence through the engine's public functions (``start``, ``legal_actions``,
``why_illegal``, ``apply``, ``actor``): initiative, the first round, the action economy,
runs and 5-foot steps.

Rule ids from docs/rules.md: initiative and flat-footed (SRD-INIT-01, SRD-FF-01,
SRD-SEQ-01), the action economy (EP-DBL-01), the run (EP-RUN-01, EP-RUN-02, IC-13,
EP-TER-01) and 5-foot steps (EP-5FT-01..03, UA-MOVE-05, UA-MOVE-06, SRD-AOO-04).

Boards, actions and dice come from tests/engine_boards.py (:class:`ScriptedDice` hands
out the d20s a test lists; ``begin`` scripts the initiative order). Square directions
and facings are indexed ``N NE E SE S SW W NW`` = 0..7.
"""

from __future__ import annotations

import numpy as np
import pytest

from facing_env.rules import engine
from facing_env.rules.dice import Dice
from tests.boards import board
from tests.engine_boards import (
    END,
    NE,
    NW,
    RUN,
    SE,
    SW,
    E,
    N,
    S,
    ScriptedDice,
    W,
    attack,
    attacks_in,
    begin,
    do,
    initiative_order,
    keep,
    kinds,
    legal_of,
    move,
    row,
    step5,
    turn,
)

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
