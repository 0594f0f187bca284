"""The turn engine: initiative, the d20 action economy, attacks and their outcomes.

``why_illegal(battle, action)`` is the single source of truth: ``legal_actions(battle)``
lists every candidate for which it finds nothing wrong, and ``apply`` raises
:class:`IllegalActionError` with its reason for anything else. This is the readable
reference; the env's masks come from the batched engine's scan (:mod:`facing_env.fast.legality`),
which the tests compare with it. All rules come from :mod:`facing_env.rules`; the
engine only sequences them (docs/design.md, turns and actions):

- a turn is a move action plus a standard action, or a full-round action (a full attack
  with iterative attacks, a double move, a run at x4 / x3 in heavy armour that leaves the
  runner flat-footed until its next turn, EP-RUN-01, IC-13);
- one 5-foot step when there is no other movement (EP-5FT-01, UA-MOVE-05, UA-MOVE-06);
- facing: free while moving and at the end of a move (UA-MOVE-01), once as a free action
  when not moving or only stepping, else as a move action (UA-MOVE-02); under ``side_rear``
  once as a reaction at any time in the turn (SR-04, IC-20) and automatically toward the
  target of every attack (SR-03);
- attacks of opportunity resolve automatically for every enemy that may take one when the
  mover leaves a threatened square (``rules.provokers``; one per enemy per turn, one per
  round per enemy or more with Combat Reflexes, SRD-AOO-05, UA-FEAT-CR);
- Cleave / Great Cleave: after dropping a foe, one extra attack (UA-FEAT-CLV);
- charge (EP-CHG-01, EP-CHG-02; :mod:`facing_env.rules.maneuvers`): a full-round action
  against a chosen enemy, straight to the first of ``rules.charge_destinations``, one
  attack at +2, -2 AC until the charger's next turn, no attack of opportunity from the
  target; withdraw (EP-WDR-01): a full-round action naming a primary target that threatens
  the mover, then up to ``movement_allowance(..., "withdraw")`` squares, each further from
  that target, which makes no attack of opportunity; no 5-foot step in that turn;
- ready (UA-PER-02): a standard action that readies one melee attack against the first
  enemy whose step ends within reach and outside the readier's rear area; it interrupts
  that movement and lapses at the readier's next turn;
- a player character in a full attack may trade its worst attack left for a 5-foot step
  once its free 5-foot step is used (EP-5FT-02);
- every creature is flat-footed until its first turn (SRD-FF-01); initiative is d20 + Dex
  modifier, ties by Dex, then the seeded generator (SRD-INIT-01).

Steps always end in a free space: moving through an ally's space (EP-WALK-01) would leave
two creatures in one space between atomic actions, so the engine does not offer it.
"""

from __future__ import annotations

import numbers
from functools import cache, lru_cache
from typing import NamedTuple

from facing_env import rules
from facing_env.errors import IllegalActionError
from facing_env.events import Event
from facing_env.rules import geometry
from facing_env.rules.battle import Battle, Creature
from facing_env.rules.dice import Dice, mean_damage, roll_hits
from facing_env.rules.geometry import Shape
from facing_env.rules.movement import (
    FULL_ROUND,
)
from facing_env.rules.turns import AttackSlot, Initiative, TurnState
from facing_env.tables import (
    FEET_PER_SQUARE,
    MIN_SPEED_FOR_FIVE_FOOT_STEP,
)
from facing_env.types import GridKind, Ruleset, Terrain

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


_END = Action(END_TURN)
_RUN = Action(RUN)
_READY = Action(READY)
_MOVES = tuple(Action(MOVE, d) for d in range(8))
_KEEPS = tuple(Action(STEP_KEEP_FACING, d) for d in range(8))
_FIVES = tuple(Action(FIVE_FOOT_STEP, d) for d in range(8))


# -- setting up ---------------------------------------------------------------------------


def start(battle: Battle, dice: Dice, *, flat_footed_start: bool = True) -> list[Event]:
    """Roll initiative and begin the first turn (SRD-INIT-01, SRD-FF-01)."""
    keyed = []
    for c in battle.living():
        bonus = c.dex_modifier + (4 if c.has_feat("Improved Initiative") else 0)
        keyed.append((-(dice.d20() + bonus), -c.dex, dice.uniform(), c.id))
        if flat_footed_start:
            c.flat_footed = True
    order = [k[3] for k in sorted(keyed)]
    battle.initiative = Initiative(order, aoo_used={cid: 0 for cid in order})
    events = [Event("initiative", cid, round=1) for cid in order]
    if not is_over(battle):
        events += _begin_turn(battle)
    return events


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


def _begin_turn(battle: Battle) -> list[Event]:
    init = battle.initiative
    actor = battle.creatures[init.order[init.index]]
    actor.flat_footed = False
    actor.readied = actor.charging = False  # both last until the creature's next turn
    init.aoo_used[actor.id] = 0
    battle.turn = TurnState(actor.id, remaining=attack_sequence(actor))
    events = [Event("turn_start", actor.id, round=init.round)]
    return events + _auto_end(battle)


# -- queries ------------------------------------------------------------------------------


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
    return _closest_facing_cached(battle.kind, battle.ruleset, c.shape, c.facing, angle)


@cache
def _closest_facing_cached(
    kind: GridKind, ruleset: Ruleset, shape: Shape, facing: int, angle: float
) -> int:
    allowed = geometry.allowed_facings(kind, ruleset, shape)

    def gap(f: int) -> tuple[float, int]:
        diff = abs(geometry._norm180(geometry.facing_angle(kind, f) - angle))
        return (round(diff, 6), f != facing)

    return min(allowed, key=gap)


def _turnable(battle: Battle, c: Creature) -> bool:
    return battle.rules.has_facing and c.has_facing


# -- legality -----------------------------------------------------------------------------


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


def state_key(battle: Battle) -> tuple:
    """A fingerprint of everything legality depends on: every creature's position, facing,
    hit points and flat-footedness, and the acting creature's turn state (the tests use it
    to check that a refused action changes nothing)."""
    ts = battle.turn
    return (
        tuple(
            [
                (c.pos, c.facing, c.hp, c.flat_footed, c.readied, c.charging)
                for c in battle.creatures.values()
            ]
        ),
        None
        if ts is None
        else (
            ts.actor,
            ts.move_available,
            ts.standard_available,
            ts.moving,
            ts.moved,
            ts.running,
            ts.movement_left,
            ts.diagonals,
            ts.five_foot_step_taken,
            ts.free_turn_used,
            ts.withdrawing,
            ts.traded_steps,
            ts.attacks_made,
            ts.full_attack,
            tuple(ts.remaining),
            ts.cleave,
            ts.declaring,
            ts.turned_after_step,
            ts.actions_taken >= MAX_ACTIONS_PER_TURN,
        ),
    )


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
def _attack_action(target: str) -> Action:
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
    for cell in c.shape.cells((c.pos[0] + vec[0], c.pos[1] + vec[1])):
        if any(o != c.id for o in battle.occupants(cell)):
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


# -- applying -----------------------------------------------------------------------------


def apply(battle: Battle, action: Action, dice: Dice) -> list[Event]:
    """Apply one action of the acting creature and return what happened.

    Raises :class:`IllegalActionError` naming the action and the reason
    :func:`why_illegal` gives. When the actor has nothing left but END_TURN, or dies, its
    turn ends by itself.
    """
    if type(action) is not Action:
        action = Action(*action)
    reason = why_illegal(battle, action)
    if reason is not None:
        raise IllegalActionError(f"illegal action {action.kind}({action.arg!r}): {reason}")
    c = battle.creatures[battle.turn.actor]
    if action.kind != ATTACK:
        battle.turn.cleave = None
    if action.kind != TURN:
        battle.turn.declaring = False
    battle.turn.actions_taken += 1
    if action.kind == MOVE or action.kind == STEP_KEEP_FACING:
        turn_first = action.kind == MOVE
        events = _apply_step(battle, c, action.arg, dice, turn_first, None)
    else:
        events = _APPLY[action.kind](battle, c, action.arg, dice)
    if not is_over(battle):
        events += _auto_end(battle)
    return events


def _auto_end(battle: Battle) -> list[Event]:
    events: list[Event] = []
    while not is_over(battle):
        c = battle.creatures[battle.turn.actor]
        if c.hp > 0 and _anything_but_end_turn(battle):
            break
        events += _end_turn(battle, c, None, None)
    return events


def _end_turn(battle: Battle, c: Creature, arg: object, dice: Dice | None) -> list[Event]:
    ts, init = battle.turn, battle.initiative
    if ts.running and not c.has_feat("Runner") and c.hp > 0:
        c.flat_footed = True  # EP-RUN-01: until the start of its next turn
    events = [Event("end_turn", c.id, round=init.round)]
    if c.hp <= 0:
        init.order.remove(c.id)
    else:
        init.index += 1
    if is_over(battle):
        return events
    if init.index >= len(init.order):
        init.index = 0
        init.round += 1
        events.append(Event("round", c.id, round=init.round))
    return events + _begin_turn(battle)


def _open_movement(battle: Battle, c: Creature, cost: int) -> None:
    """Spend move (then standard) actions until the step is paid for (double move)."""
    ts = battle.turn
    if not ts.moving:
        ts.moving, ts.movement_left = True, 0
    while ts.movement_left < cost and not ts.running and ts.withdrawing is None:
        if ts.move_available:
            ts.move_available = False
        else:
            ts.standard_available = False
        ts.movement_left += _speed_squares(c)


def _apply_step(
    battle: Battle,
    c: Creature,
    arg: object,
    dice: Dice,
    turn_first: bool,
    cost: int | str | None = None,
) -> list[Event]:
    """A step of a move; ``cost`` is :func:`_step`'s when the caller has it."""
    d = int(arg)  # type: ignore[arg-type]
    ts = battle.turn
    if cost is None:
        cost, _ = _step(battle, c, d, turn_first)
    events: list[Event] = []
    if cost == FULL_ROUND:
        ts.move_available = ts.standard_available = False
        ts.moving, ts.movement_left, cost = True, 0, 0
    else:
        _open_movement(battle, c, int(cost))  # type: ignore[arg-type]
    if turn_first and _turnable(battle, c):
        c.facing = toward_direction(battle, c, d)
    vec = geometry.direction_vectors(battle.kind)[d]
    dest = (c.pos[0] + vec[0], c.pos[1] + vec[1])
    # walking and running provoke alike (EP-RUN-01): rules.provokers(..., [dest], mode=...)
    makers = rules.opportunity.step_provokers(battle, c, dest)
    if makers and ts.withdrawing is not None:  # EP-WDR-01: never the primary target
        makers = [m for m in makers if m != ts.withdrawing]
    if makers:
        events += _opportunity_attacks(battle, c, makers, dice)
    if c.hp <= 0:
        return events
    battle.place(c, dest)
    ts.movement_left -= int(cost)
    ts.turned_after_step = False
    ts.moved = True
    if battle.kind is GridKind.SQUARE and vec[0] and vec[1]:
        ts.diagonals += 1
    events.append(
        Event(MOVE, c.id, pos=dest, facing=c.facing, cost=int(cost), round=battle.initiative.round)
    )
    events += _readied_attacks(battle, c, dice)
    return events


def _apply_move(battle: Battle, c: Creature, arg: object, dice: Dice) -> list[Event]:
    return _apply_step(battle, c, arg, dice, turn_first=True)


def _apply_step_keep_facing(battle: Battle, c: Creature, arg: object, dice: Dice) -> list[Event]:
    return _apply_step(battle, c, arg, dice, turn_first=False)


def _apply_five_foot_step(battle: Battle, c: Creature, arg: object, dice: Dice) -> list[Event]:
    ts = battle.turn
    traded = not _free_five_foot_step(battle)
    if traded:  # EP-5FT-02: the worst attack left pays for it, and the full attack is on
        slot = _tradeable_slot(battle, c)
        assert slot is not None
        ts.remaining.remove(slot)
        ts.traded_steps += 1
        ts.full_attack, ts.move_available = True, False
    vec = geometry.direction_vectors(battle.kind)[int(arg)]  # type: ignore[arg-type]
    dest = (c.pos[0] + vec[0], c.pos[1] + vec[1])
    battle.place(c, dest)
    ts.five_foot_step_taken = True
    ts.turned_after_step = False
    ts.declaring = battle.rules.auto_turn_on_attack  # SR-02: a Shift declares facing
    events = [
        Event(
            FIVE_FOOT_STEP,
            c.id,
            pos=dest,
            facing=c.facing,
            cost=1,
            attack_kind="traded" if traded else None,
            round=battle.initiative.round,
        )
    ]
    events += _readied_attacks(battle, c, dice)
    return events


def _apply_turn(battle: Battle, c: Creature, arg: object, dice: Dice) -> list[Event]:
    ts = battle.turn
    how = _turn_cost(battle)
    if how == "free":
        ts.turned_after_step = True
    elif how == "free_once":
        ts.free_turn_used = True
    elif how == "move_action":
        ts.move_available = False
    c.facing = int(arg)  # type: ignore[arg-type]
    return [Event(TURN, c.id, facing=c.facing, round=battle.initiative.round)]


def _apply_run(battle: Battle, c: Creature, arg: object, dice: Dice) -> list[Event]:
    ts = battle.turn
    ts.move_available = ts.standard_available = False
    ts.running = ts.moving = True
    ts.movement_left = rules.movement_allowance(battle, c, "run")
    return [Event(RUN, c.id, cost=ts.movement_left, round=battle.initiative.round)]


def _apply_ready(battle: Battle, c: Creature, arg: object, dice: Dice) -> list[Event]:
    ts = battle.turn
    ts.standard_available = False
    ts.moving, ts.movement_left = False, 0  # the standard action closes an open move
    c.readied = True
    return [Event(READY, c.id, facing=c.facing, round=battle.initiative.round)]


def _readied_attacks(battle: Battle, mover: Creature, dice: Dice) -> list[Event]:
    """Readied attacks triggered by ``mover``'s step (UA-PER-02): each enemy holding one
    whose melee attack now reaches the mover, unless the mover stands in (or beyond) its
    rear area, attacks with the facing modifiers of the moment; the attack is spent. The
    movement stops if the mover drops."""
    events: list[Event] = []
    for e in battle.creatures.values():
        if not e.readied or e.hp <= 0 or e.team == mover.team:
            continue
        slot = _melee_slot(battle, e, mover)
        if slot is None or not rules.can_ready_against(battle, e, mover):
            continue
        e.readied = False
        events.append(Event(TRIGGER, e.id, mover.id, pos=mover.pos, round=battle.initiative.round))
        events += resolve_attack(battle, e, mover, slot, "readied", dice)
        if mover.hp <= 0:
            break
    return events


def _apply_charge(battle: Battle, c: Creature, arg: object, dice: Dice) -> list[Event]:
    """EP-CHG-01, EP-CHG-02: straight to the best destination, one attack at +2."""
    ts, target = battle.turn, battle.creatures[str(arg)]
    dest = rules.charge_destinations(battle, c, target)[0]
    path = rules.charge_path(battle, c, dest)
    ts.move_available = ts.standard_available = False
    ts.moved, ts.moving, ts.movement_left = True, False, 0
    ts.remaining = []
    c.charging = True
    if _turnable(battle, c):
        c.facing = toward_creature(battle, c, target)
    events = [
        Event(
            CHARGE,
            c.id,
            target.id,
            pos=dest,
            facing=c.facing,
            cost=battle.distance(c.pos, dest),
            round=battle.initiative.round,
        )
    ]
    for here in path:
        makers = [m for m in rules.opportunity.step_provokers(battle, c, here) if m != target.id]
        if makers:
            events += _opportunity_attacks(battle, c, makers, dice)
        if c.hp <= 0:
            return events
        battle.place(c, here)
        events += _readied_attacks(battle, c, dice)
        if c.hp <= 0 or target.hp <= 0:
            return events
    if _turnable(battle, c):
        c.facing = toward_creature(battle, c, target)
    slot = _melee_slot(battle, c, target)
    if slot is None:
        return events
    ts.attacks_made = 1
    events += resolve_attack(battle, c, target, slot, CHARGE, dice)
    _offer_cleave(battle, c, target, slot)
    return events


def _apply_withdraw(battle: Battle, c: Creature, arg: object, dice: Dice) -> list[Event]:
    """EP-WDR-01: the full-round action opens a movement away from the primary target."""
    ts = battle.turn
    ts.move_available = ts.standard_available = False
    ts.withdrawing = str(arg)
    ts.moving = True
    ts.movement_left = rules.movement_allowance(battle, c, "withdraw")
    return [
        Event(WITHDRAW, c.id, ts.withdrawing, cost=ts.movement_left, round=battle.initiative.round)
    ]


def _apply_attack(battle: Battle, c: Creature, arg: object, dice: Dice) -> list[Event]:
    ts = battle.turn
    target = battle.creatures[str(arg)]
    slot = _usable_slot(battle, c, target)
    assert slot is not None
    kind = "attack"
    if ts.cleave is not None:
        kind, ts.cleave, ts.cleaved = "cleave", None, True
    else:
        if ts.attacks_made == 0:
            ts.standard_available = False
            ts.moving, ts.movement_left = False, 0
            ts.remaining = [s for s in ts.remaining if s.attack.kind == slot.attack.kind]
        elif not ts.full_attack:
            ts.full_attack, ts.move_available = True, False
        ts.remaining.remove(slot)
        ts.attacks_made += 1
    events = resolve_attack(battle, c, target, slot, kind, dice)
    _offer_cleave(battle, c, target, slot)
    return events


def _offer_cleave(battle: Battle, c: Creature, target: Creature, slot: AttackSlot) -> None:
    """After a melee attack drops its target, Cleave offers one more attack (UA-FEAT-CLV)
    when some enemy is in reach."""
    ts = battle.turn
    if target.hp <= 0 and not slot.attack.ranged and _may_cleave(c, ts):  # melee only
        ts.cleave = slot
        if not any(
            _check_attack(battle, c, e.id) is None for e in battle.living() if e.team != c.team
        ):
            ts.cleave = None


def _may_cleave(c: Creature, ts: TurnState) -> bool:
    return c.has_feat("Great Cleave") or (c.has_feat("Cleave") and not ts.cleaved)


def resolve_attack(
    battle: Battle, a: Creature, d: Creature, slot: AttackSlot, kind: str, dice: Dice
) -> list[Event]:
    """Roll one attack with every modifier from ``rules.attack_breakdown`` and apply it."""
    if battle.rules.auto_turn_on_attack and _turnable(battle, a):
        a.facing = toward_creature(battle, a, d)  # SR-03
    mods = rules.attack_breakdown(
        battle, a, d, kind=kind, attack=slot.attack.name, ranged=slot.attack.ranged
    )
    bonus, ac = mods.total + slot.penalty, mods.target_ac
    attack = slot.attack
    extra = a.sneak_attack if mods.sneak_attack else None
    critical = False
    if dice.mean:  # the mean over every roll (hit points become fractions)
        roll = 10.5
        damage = mean_damage(
            bonus,
            ac,
            damage=attack.damage,
            threat_range=attack.threat_range,
            crit_multiplier=attack.crit_multiplier,
            concealment=mods.concealment,
            extra=extra,
        )
        hit = damage > 0
    else:
        roll = dice.d20()
        hit = roll_hits(roll, bonus, ac)
        if hit and mods.concealment and dice.percent() <= mods.concealment:
            hit = False  # SR-11 concealment from behind
        if hit and roll >= attack.threat_range:
            critical = roll_hits(dice.d20(), bonus, ac)
        damage = 0
        if hit:
            damage = dice.damage(attack.damage, attack.crit_multiplier if critical else 1, extra)
    d.hp -= damage  # type: ignore[assignment]  # fractions with mean dice only
    events = [
        Event(
            ATTACK,
            a.id,
            d.id,
            attack=attack.name,
            attack_kind=kind,
            roll=roll,
            total=roll + bonus,
            ac=ac,
            hit=hit,
            critical=critical,
            damage=damage,
            sneak_attack=hit and mods.sneak_attack,
            own_area=mods.own_area,
            defender_area=mods.defender_area,
            facing_modifier=mods.facing,
            round=battle.initiative.round,
        )
    ]
    if d.hp <= 0:
        events += _kill(battle, d)
    return events


def _kill(battle: Battle, d: Creature) -> list[Event]:
    """Take a dead creature off the board and out of the initiative order. An actor that
    dies on its own turn (an attack of opportunity) leaves the order when its turn ends."""
    battle.remove_dead(d)
    init = battle.initiative
    if d.id in init.order and d.id != battle.turn.actor:
        if init.order.index(d.id) < init.index:
            init.index -= 1
        init.order.remove(d.id)
    return [Event("death", d.id, round=init.round)]


def _opportunity_attacks(
    battle: Battle, mover: Creature, makers: list[str], dice: Dice
) -> list[Event]:
    ts, init = battle.turn, battle.initiative
    events: list[Event] = []
    for eid in makers:
        e = battle.creatures[eid]
        allowed = 1 + (max(0, e.dex_modifier) if e.has_feat("Combat Reflexes") else 0)
        if eid in ts.provoked or init.aoo_used.get(eid, 0) >= allowed:
            continue
        slot = _melee_slot(battle, e, mover)
        if slot is None:
            continue
        ts.provoked.add(eid)
        init.aoo_used[eid] = init.aoo_used.get(eid, 0) + 1
        events += resolve_attack(battle, e, mover, slot, "aoo", dice)
        if mover.hp <= 0:
            break
    return events


_APPLY = {
    END_TURN: _end_turn,
    MOVE: _apply_move,
    STEP_KEEP_FACING: _apply_step_keep_facing,
    FIVE_FOOT_STEP: _apply_five_foot_step,
    TURN: _apply_turn,
    ATTACK: _apply_attack,
    RUN: _apply_run,
    READY: _apply_ready,
    CHARGE: _apply_charge,
    WITHDRAW: _apply_withdraw,
}
