"""Turn-structure state: initiative order, round, and the acting creature's action economy.

Plain records that the engine updates in place (docs/design.md, turns and actions).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from facing_env.rules.battle import Attack


class AttackSlot(NamedTuple):
    """One attack still available this turn: the attack and its iterative penalty."""

    attack: Attack
    penalty: int


@dataclass(slots=True)
class TurnState:
    """What the acting creature has left this turn.

    ``move_available`` / ``standard_available``: the two actions of a turn (a full-round
    action uses both). ``movement_left`` squares remain in the open movement (``moving``).
    ``withdrawing`` names the primary target of a withdrawal in progress; ``traded_steps``
    counts the 5-foot steps a player character bought with attacks (EP-5FT-02).
    """

    actor: str
    move_available: bool = True
    standard_available: bool = True
    moving: bool = False
    moved: bool = False
    running: bool = False
    movement_left: int = 0
    diagonals: int = 0
    five_foot_step_taken: bool = False
    free_turn_used: bool = False
    turned_after_step: bool = False  # the free facing change since the last step is used
    actions_taken: int = 0  # atomic actions this turn (engine.MAX_ACTIONS_PER_TURN)
    declaring: bool = False  # side_rear: facing is declared at the end of a Shift (SR-02)
    withdrawing: str | None = None  # the primary target of a withdrawal (EP-WDR-01)
    attacks_made: int = 0
    full_attack: bool = False
    remaining: list[AttackSlot] = field(default_factory=list)
    cleave: AttackSlot | None = None
    cleaved: bool = False
    traded_steps: int = 0
    provoked: set[str] = field(default_factory=set)


@dataclass(slots=True)
class Initiative:
    """Initiative order (living creatures), the round number and the turn in progress."""

    order: list[str]
    round: int = 1
    index: int = 0
    aoo_used: dict[str, int] = field(default_factory=dict)
