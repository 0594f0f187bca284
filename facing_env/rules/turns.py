"""Turn-structure state: initiative order, round, and the acting creature's action economy.

Plain records that the engine updates in place (docs/design.md, turns and actions).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import NamedTuple

from facing_env.rules import geometry
from facing_env.rules.battle import Attack, Battle, Creature
from facing_env.rules.geometry import Shape
from facing_env.tables import (
    FEET_PER_SQUARE,
)
from facing_env.types import GridKind, Ruleset


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


END_TURN = "end_turn"


MOVE = "move"


STEP_KEEP_FACING = "step_keep_facing"


FIVE_FOOT_STEP = "five_foot_step"


TURN = "turn"


ATTACK = "attack"


RUN = "run"


READY = "ready"


CHARGE = "charge"


WITHDRAW = "withdraw"


ACTION_KINDS = (
    END_TURN,
    MOVE,
    STEP_KEEP_FACING,
    FIVE_FOOT_STEP,
    TURN,
    ATTACK,
    RUN,
    READY,
    CHARGE,
    WITHDRAW,
)


TRIGGER = "trigger"
"""The event kind of a readied attack's trigger (the attack follows as an ``attack`` event
whose ``attack_kind`` is ``readied``)."""


BUMP = "bump"
"""The event kind of a step or charge stopped by a foe the mover did not perceive (issue 36;
``target`` the foe, ``pos`` the space it tried to enter)."""


TURNS_WHILE_MOVING = 1
"""Free facing changes between two steps of a move (UA-MOVE-01 "as you move, you can freely
change your facing"). Turning while moving costs nothing and has no effect but the final
facing, so any sequence of turns between two steps equals one turn to its last facing: one
per step keeps every outcome of the rule while a policy can no longer turn forever."""


MAX_ACTIONS_PER_TURN = 100
"""A safety net, not a rule: after this many atomic actions in one turn only END_TURN is
left (a turn needs at most about three actions per square moved)."""


ITERATIVE_STEP = 5


MAX_ITERATIVES = 3


class Action(NamedTuple):
    """An engine action: a kind and its argument (direction, facing index or target id)."""

    kind: str
    arg: int | str | None = None


END_ACTION = Action(END_TURN)


RUN_ACTION = Action(RUN)


READY_ACTION = Action(READY)


MOVE_ACTIONS = tuple(Action(MOVE, d) for d in range(8))


KEEP_ACTIONS = tuple(Action(STEP_KEEP_FACING, d) for d in range(8))


FIVE_FOOT_ACTIONS = tuple(Action(FIVE_FOOT_STEP, d) for d in range(8))


def attack_sequence(c: Creature) -> list[AttackSlot]:
    """A full attack: the first attack with iteratives (-5 each while the base attack
    bonus stays positive), then each other attack once."""
    first = c.attacks[0]
    slots = [AttackSlot(first, 0)]
    for k in range(1, MAX_ITERATIVES + 1):
        if c.base_attack_bonus - ITERATIVE_STEP * k < 1:
            break
        slots.append(AttackSlot(first, -ITERATIVE_STEP * k))
    slots.extend(AttackSlot(a, 0) for a in c.attacks[1:])
    return slots


def actor(battle: Battle) -> Creature | None:
    """The creature whose turn it is, or None when the battle is over."""
    if battle.turn is None or is_over(battle):
        return None
    return battle.creatures[battle.turn.actor]


def living_teams(battle: Battle) -> set[str]:
    """Teams with at least one living creature."""
    return {c.team for c in battle.creatures.values() if c.hp > 0}


def is_over(battle: Battle) -> bool:
    """A battle ends when at most one team has living creatures."""
    team = None
    for c in battle.creatures.values():
        if c.hp > 0:
            if team is None:
                team = c.team
            elif c.team != team:
                return False
    return True


def winner(battle: Battle) -> str | None:
    """The last team standing, or None (no winner yet, or nobody left)."""
    teams = living_teams(battle)
    return next(iter(teams)) if len(teams) == 1 else None


def _speed_squares(c: Creature) -> int:
    return c.speed // FEET_PER_SQUARE


def movement_capacity(battle: Battle) -> int:
    """Squares the actor could still move, using actions it has left (double move)."""
    ts, c = battle.turn, battle.creatures[battle.turn.actor]
    if ts.five_foot_step_taken:
        return 0
    left = ts.movement_left if ts.moving else 0
    if ts.running or ts.withdrawing is not None:
        return left
    spare = int(ts.move_available) + int(ts.standard_available and ts.attacks_made == 0)
    return left + spare * _speed_squares(c)


def toward_direction(battle: Battle, c: Creature, direction: int) -> int:
    """The allowed facing closest to a movement direction (turning before a step)."""
    return _closest_facing(battle, c, geometry.direction_angle(battle.kind, direction))


def toward_creature(battle: Battle, c: Creature, target: Creature) -> int:
    """The allowed facing pointing most directly at another creature (SR-03)."""
    ax, ay = c.shape.centre_at(c.pos)
    bx, by = target.shape.centre_at(target.pos)
    return _closest_facing(battle, c, geometry.vector_angle(bx - ax, by - ay))


def _closest_facing(battle: Battle, c: Creature, angle: float) -> int:
    return closest_facing(battle.kind, battle.ruleset, c.shape, c.facing, angle)


@cache
def closest_facing(
    kind: GridKind, ruleset: Ruleset, shape: Shape, facing: int, angle: float
) -> int:
    allowed = geometry.allowed_facings(kind, ruleset, shape)

    def gap(f: int) -> tuple[float, int]:
        diff = abs(geometry._norm180(geometry.facing_angle(kind, f) - angle))
        return (round(diff, 6), f != facing)

    return min(allowed, key=gap)


def _turnable(battle: Battle, c: Creature) -> bool:
    return battle.rules.has_facing and c.has_facing
