"""Shared helpers of the turn-engine tests (test_turns.py, test_turns_facing.py,
test_resolve.py, test_opportunity.py, test_dice.py, test_legality.py, and test_maneuvers.py,
test_fast_scan.py): actions by name, scripted dice, starting a battle in a given initiative
order and applying actions.

Dice are exact: :class:`ScriptedDice` hands out the d20 rolls a test lists (and fails the
test if the engine asks for one more), damage dice read their expected value (``expected``
mode: the mean rounded half up) or come from a seeded numpy Generator whose draws the test
computes first. ``start`` rolls one initiative d20 per living creature in spec order (the
order the creatures appear on a board, row by row). Square directions and facings are
indexed ``N NE E SE S SW W NW`` = 0..7.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from facing_env import Battle
from facing_env.rules import engine
from facing_env.rules.dice import Dice
from facing_env.rules.engine import Action

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
