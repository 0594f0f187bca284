"""What a creature perceives of its foes (issue 36; UA-PER-01, UA-PER-02): the rule query
``rules.perceives`` and what it changes in the readable engine (targets, attacks of
opportunity, readied attacks, hearing).

Boards: letters are creatures, each its own team unless a test says otherwise; facings
``N NE E SE S SW W NW``.
"""

from __future__ import annotations

import pytest

from facing_env.rules import engine, perceives
from facing_env.types import Perception
from tests.boards import board
from tests.engine_boards import END, E, S, attack, begin, expected_dice, move

# O faces N: F is in its front, W and E in its flank, R and B in its rear (or beyond).
_AROUND = """
    . . . . . . .
    . . . F . . .
    . . . . . . .
    . W . O . . E
    . . . R . . .
    . . . . . . .
    . . . B . . .
"""


def _around(perception: Perception = Perception.FACING, ruleset: str = "ua35", **observer):
    b = board(_AROUND, ruleset, O={"facing": "N", **observer})
    b.perception = perception
    return b


def _seen(b, observer: str = "O") -> set[str]:
    return {cid for cid in b.creatures if cid != observer and perceives(b, observer, cid)}


def test_ua_per_01_facing_perception_hides_the_foes_wholly_in_the_rear_area():
    """UA-PER-01 (issue 36, ``facing``): the rear area and beyond is unseen; front and
    flank are seen."""
    assert _seen(_around()) == {"F", "W", "E"}
    assert _seen(_around(facing="S")) == {"W", "E", "R", "B"}


def test_full_perception_sees_everyone():
    assert _seen(_around(Perception.FULL)) == {"F", "W", "E", "R", "B"}


@pytest.mark.parametrize(
    "observer",
    [{"faceless": True}, {"all_around_vision": True}, {"size": "Tiny"}],
)
def test_ua_per_01_no_facing_or_all_around_vision_sees_everyone(observer):
    """UA-PER-01's exemptions: faceless creatures (Tiny ones too, UA-FCL-02) and
    all-around vision."""
    assert _seen(_around(**observer)) == {"F", "W", "E", "R", "B"}


def test_without_facing_rules_everyone_is_seen():
    """The ``standard`` rule set has no facing, so no rear area."""
    assert _seen(_around(ruleset="standard")) == {"F", "W", "E", "R", "B"}


def test_allies_are_always_perceived():
    b = board(_AROUND, O={"facing": "N", "team": "t"}, R={"team": "t"})
    b.perception = Perception.FACING
    assert _seen(b) == {"F", "W", "E", "R"}


def test_a_creature_partly_outside_the_rear_area_is_seen():
    """Wholly in the rear area: a Large foe with one square in the flank is seen (its
    least exposed square)."""
    text = """
        . . . . .
        . . O . .
        . . . . .
        L L . . .
        L L . . .
    """
    b = board(text, O={"facing": "N"})
    b.perception = Perception.FACING
    assert perceives(b, "O", "L") is False
    b = board(text.replace(". . O . .", ". . . O ."), O={"facing": "N"})
    b.perception = Perception.FACING
    assert perceives(b, "O", "L") is True  # one square in O's flank


_BEHIND = """
    . . . .
    . A . .
    . B . .
    . . . .
"""


def test_an_unseen_foe_is_no_target_and_is_heard_once_it_attacks():
    """A faces N with B behind it: A may not attack B, nor charge or withdraw from it
    (the mask names nothing it does not perceive). B attacks A; from then until the end of
    its next turn A hears B and may attack it; then A forgets it."""
    b = board(_BEHIND, A={"facing": "N"}, B={"facing": "N"})
    b.perception = Perception.FACING
    dice = expected_dice()
    begin(b, "A", "B")
    assert attack("B") not in engine.legal_actions(b)
    assert "B is not perceived" in engine.why_illegal(b, attack("B"))
    assert not any(a.arg == "B" for a in engine.legal_actions(b))
    engine.apply(b, END, dice)  # B's turn: it attacks A from behind
    engine.apply(b, attack("A"), dice)
    assert b.heard == {"A": {"B"}, "B": {"A"}}
    engine.apply(b, END, dice)  # B's turn ends: B forgets A (it still sees it: A's front)
    assert b.heard == {"A": {"B"}}
    assert attack("B") in engine.legal_actions(b)  # A heard B
    engine.apply(b, END, dice)  # A ends its turn without turning: B is unseen again
    assert b.heard == {} and not perceives(b, "A", "B")


def test_no_attack_of_opportunity_against_an_unseen_mover():
    """Total concealment (issue 36): B behind A walks away; A does not perceive it and
    makes no attack of opportunity. Under ``full`` the same walk draws one."""
    events = {}
    for perception in (Perception.FULL, Perception.FACING):
        b = board(_BEHIND + ". . . .\n", A={"facing": "N"}, B={"facing": "S"})
        b.perception = perception
        begin(b, "B", "A", flat_footed_start=False)
        events[perception] = engine.apply(b, move(S), expected_dice())
    assert any(e.kind == "attack" and e.attack_kind == "aoo" for e in events[Perception.FULL])
    assert not any(e.kind == "attack" for e in events[Perception.FACING])


@pytest.mark.parametrize(
    ("ruleset", "perception", "facing", "fires"),
    [
        ("ua35", Perception.FACING, "E", False),
        ("ua35", Perception.FACING, "W", True),
        ("side_rear", Perception.FULL, "E", True),  # UA-PER-02 is a ua35 rule
        ("side_rear", Perception.FACING, "E", False),
        ("side_rear", Perception.FACING, "W", True),
    ],
)
def test_no_readied_attack_against_an_unseen_mover(ruleset, perception, facing, fires):
    """Issue 36: A readied; B comes in from the west. Facing E, A does not perceive it (its
    rear), so nothing triggers; facing W, A sees it come and strikes. Under side_rear
    with ``full`` perception the rear trigger fires (UA-PER-02 is a ua35 rule)."""
    text = """
        . . . . .
        B . . A .
        . . . . .
    """
    b = board(text, ruleset, A={"facing": facing}, B={"facing": "E"})
    b.perception = perception
    begin(b, "A", "B", flat_footed_start=False)
    engine.apply(b, engine.Action(engine.READY), expected_dice())
    engine.apply(b, END, expected_dice())
    events = engine.apply(b, move(E), expected_dice())
    events += engine.apply(b, move(E), expected_dice())
    assert any(e.kind == "trigger" for e in events) is fires


def test_a_new_episode_hears_nothing_and_a_snapshot_hears_alike():
    """``Battle.clone`` (a new episode) starts with nothing heard; a snapshot carries what
    was heard, in copies of its own."""
    b = board(_BEHIND, A={"facing": "N"}, B={"facing": "N"})
    b.perception = Perception.FACING
    b.heard = {"A": {"B"}}
    assert b.clone().heard == {} and b.clone().perception is Perception.FACING
    snap = b.snapshot()
    assert snap.heard == {"A": {"B"}} and snap.heard["A"] is not b.heard["A"]
