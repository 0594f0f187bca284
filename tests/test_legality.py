"""``legal_actions``, ``why_illegal``, ``apply`` and :class:`IllegalActionError`: the mask
allows exactly what ``apply`` accepts, and a refused action names its reason
(docs/design.md, turns and actions; the reasons cite EP-5FT-01, EP-RUN-01, UA-MOVE-02).

Boards, actions and dice come from tests/engine_boards.py (:class:`ScriptedDice` hands
out the d20s a test lists; ``begin`` scripts the initiative order). Square directions
and facings are indexed ``N NE E SE S SW W NW`` = 0..7.
"""

from __future__ import annotations

import numpy as np
import pytest

from facing_env import Battle, IllegalActionError
from facing_env.rules import engine
from facing_env.rules.dice import Dice
from facing_env.rules.engine import Action
from tests.boards import board
from tests.engine_boards import (
    END,
    RUN,
    E,
    N,
    S,
    ScriptedDice,
    W,
    attack,
    begin,
    do,
    expected_dice,
    kinds,
    move,
    step5,
    turn,
)

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
