"""Legality: what the acting creature may do now, and why not otherwise.

``why_illegal(battle, action)`` is the single source of truth: ``legal_actions(battle)``
lists every candidate for which it finds nothing wrong, and :func:`facing_env.rules.resolve.apply`
raises :class:`IllegalActionError` with its reason for anything else. The batched engine's
twin is :mod:`facing_env.fast.legality` (the mask and the step costs), compared with this
module by the tests. The rules are those of :mod:`facing_env.rules.engine`'s docstring.
"""

from __future__ import annotations

import numbers
from functools import lru_cache

from facing_env import rules
from facing_env.rules import geometry
from facing_env.rules.battle import Battle, Creature
from facing_env.rules.movement import (
    FULL_ROUND,
)
from facing_env.rules.turns import (
    ATTACK,
    CHARGE,
    END_TURN,
    FIVE_FOOT_STEP,
    MAX_ACTIONS_PER_TURN,
    MOVE,
    READY,
    RUN,
    STEP_KEEP_FACING,
    TURN,
    WITHDRAW,
    Action,
    AttackSlot,
    _turnable,
    actor,
    movement_capacity,
    toward_direction,
)
from facing_env.tables import (
    FEET_PER_SQUARE,
    MIN_SPEED_FOR_FIVE_FOOT_STEP,
)
from facing_env.types import Terrain


def why_illegal(battle: Battle, action: Action) -> str | None:
    """Why the acting creature may not take ``action`` now, or None if it may."""
    c = actor(battle)
    if c is None:
        return "the battle is over"
    check = _CHECKS.get(action.kind)
    if check is None:
        return f"unknown action kind {action.kind!r}"
    if action.kind != END_TURN and battle.turn.actions_taken >= MAX_ACTIONS_PER_TURN:
        return f"{MAX_ACTIONS_PER_TURN} actions this turn: only END_TURN is left"
    return check(battle, c, action.arg)


def legal_actions(battle: Battle) -> list[Action]:
    """Every action the acting creature may take now (END_TURN always among them): every
    candidate :func:`why_illegal` accepts, in candidate order."""
    return [a for a in _candidates(battle) if why_illegal(battle, a) is None]


def reference_legal_actions(battle: Battle) -> list[Action]:
    """:func:`legal_actions` (the name the differential tests use for the oracle)."""
    return legal_actions(battle)


def _candidates(battle: Battle) -> list[Action]:
    """Every action the acting creature might take (none when the battle is over)."""
    c = actor(battle)
    if c is None:
        return []
    n_dirs = len(geometry.direction_names(battle.kind))
    candidates = [Action(END_TURN), Action(RUN)]
    for kind in (MOVE, STEP_KEEP_FACING, FIVE_FOOT_STEP):
        candidates.extend(Action(kind, d) for d in range(n_dirs))
    candidates.extend(Action(TURN, f) for f in range(len(geometry.facing_names(battle.kind))))
    candidates.extend(Action(ATTACK, e.id) for e in battle.living() if e.team != c.team)
    candidates.append(Action(READY))
    for kind in (CHARGE, WITHDRAW):
        candidates.extend(Action(kind, e.id) for e in battle.living() if e.team != c.team)
    return candidates


def _anything_but_end_turn(battle: Battle) -> bool:
    """Whether the actor may do anything but END_TURN (it stops at the first one)."""
    return any(a.kind != END_TURN and why_illegal(battle, a) is None for a in _candidates(battle))


def _destination(battle: Battle, c: Creature, d: object) -> tuple[int, int]:
    vec = geometry.direction_vectors(battle.kind)[int(d)]  # type: ignore[call-overload]
    return (c.pos[0] + vec[0], c.pos[1] + vec[1])


def _full_round_fresh(battle: Battle) -> bool:
    """Nothing done yet that a full-round action excludes: no movement, no 5-foot step, no
    attack, both actions left (run, charge, withdraw)."""
    ts = battle.turn
    return (
        ts.move_available
        and ts.standard_available
        and not ts.attacks_made
        and not ts.moved
        and not ts.five_foot_step_taken
        and not ts.running
        and ts.withdrawing is None
        and ts.traded_steps == 0
    )


def _free_five_foot_step(battle: Battle) -> bool:
    """The free 5-foot step is left: no other movement this turn (EP-5FT-01, EP-WDR-01)."""
    ts = battle.turn
    return not (ts.moved or ts.five_foot_step_taken or ts.running or ts.withdrawing is not None)


def _tradeable_slot(battle: Battle, c: Creature) -> AttackSlot | None:
    """The attack a player character would give up for a 5-foot step: the worst iterative
    of its first attack left (EP-5FT-02: steps use up the worst to-hit numbers first)."""
    first = c.attacks[0]
    worst = None
    for slot in battle.turn.remaining:
        if slot.attack is first and (worst is None or slot.penalty < worst.penalty):
            worst = slot
    return worst


def _may_trade_step(battle: Battle, c: Creature) -> bool:
    """EP-5FT-02: a player character whose free 5-foot step is used may trade an attack of
    a full attack (begun, or still open to it) for another 5-foot step."""
    ts = battle.turn
    if not c.player_character or _free_five_foot_step(battle) or ts.cleave is not None:
        return False
    if c.speed < MIN_SPEED_FOR_FIVE_FOOT_STEP or ts.moved or ts.running:
        return False
    if ts.attacks_made == 0:
        open_to_full = ts.move_available and ts.standard_available
    else:
        open_to_full = ts.full_attack or ts.move_available
    return open_to_full and _tradeable_slot(battle, c) is not None


def _five_foot_target_ok(battle: Battle, c: Creature, d: int) -> bool:
    """A 5-foot step in direction ``d`` is allowed by the terrain and space (EP-5FT-03)."""
    return rules.step_cost(battle, c, d, five_foot_step=True) is not None


@lru_cache(maxsize=4096)
def attack_action(target: str) -> Action:
    return Action(ATTACK, target)


def _check_end_turn(battle: Battle, c: Creature, arg: object) -> str | None:
    return None if arg is None else "END_TURN takes no argument"


def _direction(battle: Battle, arg: object) -> int | None:
    n = len(geometry.direction_names(battle.kind))
    ok = isinstance(arg, numbers.Integral) and not isinstance(arg, bool) and 0 <= arg < n
    return int(arg) if ok else None  # type: ignore[call-overload]


def _step(
    battle: Battle, c: Creature, d: int, turn_first: bool
) -> tuple[int | str | None, str | None]:
    ts = battle.turn
    if ts.five_foot_step_taken:
        return None, "a 5-foot step was taken this turn (EP-5FT-01)"
    cost = rules.step_cost(battle, c, d, turn_first=turn_first, diagonals_so_far=ts.diagonals)
    if cost is None:
        return None, "that space cannot be entered"
    vec = geometry.direction_vectors(battle.kind)[d]
    here = set(battle.cells_of(c))
    hidden = rules.unseen(battle, c)  # not there to c (issue 36): a bump when it steps
    for cell in c.shape.cells((c.pos[0] + vec[0], c.pos[1] + vec[1])):
        if any(o != c.id and o not in hidden for o in battle.occupants(cell)):
            return None, "a step cannot end in another creature's space"
        if ts.running and cell not in here and battle.terrain_at(cell) is Terrain.DIFFICULT:
            return None, "a run cannot cross difficult terrain (EP-RUN-01)"
    if cost == FULL_ROUND:
        fresh = not ts.moved and ts.move_available and ts.standard_available
        if not fresh or ts.attacks_made or ts.running or ts.withdrawing is not None:
            return None, "impeded terrain takes a full-round action (EP-TER-02)"
        return cost, None
    if cost > movement_capacity(battle):
        return None, f"not enough movement left (needs {cost}, has {movement_capacity(battle)})"
    if ts.withdrawing is not None and not rules.withdraw_step_allowed(
        battle, c, ts.withdrawing, _destination(battle, c, d)
    ):
        return None, f"a withdrawal must move further from {ts.withdrawing} (EP-WDR-01)"
    return cost, None


def _check_move(battle: Battle, c: Creature, arg: object) -> str | None:
    d = _direction(battle, arg)
    if d is None:
        return f"no direction {arg!r} on a {battle.kind.value} grid"
    return _step(battle, c, d, turn_first=True)[1]


def _check_step_keep_facing(battle: Battle, c: Creature, arg: object) -> str | None:
    d = _direction(battle, arg)
    if d is None:
        return f"no direction {arg!r} on a {battle.kind.value} grid"
    if not _turnable(battle, c) or toward_direction(battle, c, d) == c.facing:
        return "the same as MOVE here: use MOVE"
    return _step(battle, c, d, turn_first=False)[1]


def _check_five_foot_step(battle: Battle, c: Creature, arg: object) -> str | None:
    d = _direction(battle, arg)
    if d is None:
        return f"no direction {arg!r} on a {battle.kind.value} grid"
    if not _free_five_foot_step(battle) and not _may_trade_step(battle, c):
        if battle.turn.withdrawing is not None:
            return "no 5-foot step in a turn with a withdrawal (EP-WDR-01)"
        return "a 5-foot step needs a turn without other movement (EP-5FT-01)"
    if c.speed < MIN_SPEED_FOR_FIVE_FOOT_STEP or not _five_foot_target_ok(battle, c, d):
        return "no 5-foot step there (EP-5FT-03)"
    return None


def _check_turn(battle: Battle, c: Creature, arg: object) -> str | None:
    if not _turnable(battle, c):
        return "this creature has no facing to change"
    allowed = geometry.allowed_facings(battle.kind, battle.ruleset, c.shape)
    if arg not in allowed:
        return f"facing {arg!r} is not allowed for this creature"
    if arg == c.facing:
        return "already facing that way"
    return None if _turn_cost(battle) is not None else "no facing change left (UA-MOVE-02)"


def _turn_cost(battle: Battle) -> str | None:
    """How a facing change would be paid: ``free``, ``free_once``, ``move_action``, None."""
    ts = battle.turn
    if (ts.moving or ts.declaring) and not ts.turned_after_step:
        return "free"  # UA-MOVE-01, SR-02 (one change per step: see TURNS_WHILE_MOVING)
    if battle.rules.auto_turn_on_attack:  # side_rear: a reaction on its turn (SR-04)
        return None if ts.free_turn_used else "free_once"
    if ts.moved:
        return None
    if not ts.free_turn_used:
        return "free_once"
    return "move_action" if ts.move_available else None


def _check_run(battle: Battle, c: Creature, arg: object) -> str | None:
    if arg is not None:
        return "RUN takes no argument"
    ts = battle.turn
    fresh = ts.move_available and ts.standard_available and not ts.attacks_made
    if not fresh or ts.moved or ts.five_foot_step_taken or ts.running:
        return "a run is a full-round action (EP-RUN-01)"
    if c.speed < FEET_PER_SQUARE:
        return "this creature cannot move"
    return None


def _attack_slots(battle: Battle) -> tuple[list[AttackSlot], str]:
    ts = battle.turn
    if ts.cleave is not None:
        return [ts.cleave], "cleave"
    if ts.attacks_made == 0:
        return (ts.remaining, "attack") if ts.standard_available else ([], "attack")
    if ts.full_attack or (not ts.moved and ts.move_available and not ts.running):
        return ts.remaining, "attack"
    return [], "attack"


def slot_reaches(battle: Battle, c: Creature, target: Creature, slot: AttackSlot) -> bool:
    """Whether an attack can hit the target from here: reach or range, and a monster
    attack's zones (UA-MON-01, UA-MON-02: those attacks go only into their areas)."""
    if not rules.opportunity.within_reach(battle, c, target, slot.attack):
        return False
    if slot.attack.zones and battle.table(c) is not None:
        zones = {z.value for z in slot.attack.zones}
        feet = slot.attack.range if slot.attack.ranged else slot.attack.reach
        own = battle.cells_of(c)
        return any(
            rules.area_of(battle, c, cell) in zones
            for cell in battle.cells_of(target)
            if min(battle.distance(cell, o) for o in own) * FEET_PER_SQUARE <= feet
        )
    return True


def _melee_slot(battle: Battle, attacker: Creature, defender: Creature) -> AttackSlot | None:
    """The first melee attack of ``attacker`` that reaches ``defender`` (no iterative
    penalty): the attack of opportunity, a readied attack, the attack of a charge."""
    for a in attacker.attacks:
        if not a.ranged:
            slot = AttackSlot(a, 0)
            if slot_reaches(battle, attacker, defender, slot):
                return slot
    return None


def _usable_slot(battle: Battle, c: Creature, target: Creature) -> AttackSlot | None:
    slots, _ = _attack_slots(battle)
    return next((s for s in slots if slot_reaches(battle, c, target, s)), None)


def _check_attack(battle: Battle, c: Creature, arg: object) -> str | None:
    target = battle.creatures.get(arg) if isinstance(arg, str) else None
    if target is None or target.hp <= 0 or target.team == c.team:
        return f"{arg!r} is not a living enemy"
    if not rules.perceives(battle, c, target):
        return f"{target.id} is not perceived (issue 36: in the rear area, not heard)"
    if not _attack_slots(battle)[0]:
        return "no attack left this turn"
    if _usable_slot(battle, c, target) is None:
        return f"{target.id} is out of reach of every attack left"
    return None


def _check_ready(battle: Battle, c: Creature, arg: object) -> str | None:
    if arg is not None:
        return "READY takes no argument"
    ts = battle.turn
    if not ts.standard_available or ts.attacks_made or ts.running or ts.cleave is not None:
        return "readying takes the standard action (UA-PER-02)"
    if ts.withdrawing is not None or ts.traded_steps:
        return "no standard action left in a withdrawal or a full attack"
    if c.readied:
        return "an attack is readied already"
    if rules.opportunity.melee_reach(c) <= 0:
        return "no melee attack to ready"
    return None


def _maneuver_target(battle: Battle, c: Creature, arg: object, what: str) -> Creature | str:
    target = battle.creatures.get(arg) if isinstance(arg, str) else None
    if target is None or target.hp <= 0 or target.team == c.team:
        return f"{arg!r} is not a living enemy"
    if not rules.perceives(battle, c, target):
        return f"{target.id} is not perceived (issue 36: in the rear area, not heard)"
    if not _full_round_fresh(battle):
        return f"a {what} is a full-round action at the start of a turn"
    if c.speed < FEET_PER_SQUARE:
        return "this creature cannot move"
    return target


def _check_charge(battle: Battle, c: Creature, arg: object) -> str | None:
    target = _maneuver_target(battle, c, arg, "charge")
    if isinstance(target, str):
        return target
    if not rules.charge_destinations(battle, c, target):
        return f"no charge lane to {target.id} (EP-CHG-01)"
    return None


def _check_withdraw(battle: Battle, c: Creature, arg: object) -> str | None:
    target = _maneuver_target(battle, c, arg, "withdrawal")
    if isinstance(target, str):
        return target
    if not rules.may_withdraw_from(battle, c, target):
        return f"{target.id} does not threaten this creature (EP-WDR-01)"
    return None


_CHECKS = {
    END_TURN: _check_end_turn,
    MOVE: _check_move,
    STEP_KEEP_FACING: _check_step_keep_facing,
    FIVE_FOOT_STEP: _check_five_foot_step,
    TURN: _check_turn,
    ATTACK: _check_attack,
    RUN: _check_run,
    READY: _check_ready,
    CHARGE: _check_charge,
    WITHDRAW: _check_withdraw,
}
