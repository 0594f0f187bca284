"""Facing changes on a creature's turn, through ``legal_actions``, ``why_illegal`` and
``apply``.

Rule ids from docs/rules.md: under ua35 UA-MOVE-01..04 and UA-ATK-04 (the Kroh example);
under side_rear SR-02, SR-03, SR-04 and IC-20.

Boards, actions and dice come from tests/engine_boards.py (:class:`ScriptedDice` hands
out the d20s a test lists; ``begin`` scripts the initiative order). Square directions
and facings are indexed ``N NE E SE S SW W NW`` = 0..7.
"""

from __future__ import annotations

import pytest

from facing_env.rules import engine
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
    W,
    attack,
    attacks_in,
    begin,
    do,
    keep,
    kinds,
    legal_of,
    move,
    row,
    step5,
    turn,
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
