"""Resolving actions: moving, turning, attacking, and what follows (attacks of
opportunity, readied attacks, Cleave, deaths, the end of a turn and the start of the next).

:func:`apply` checks an action with :func:`facing_env.rules.legality.why_illegal` and
applies it; the batched engine's twin is :mod:`facing_env.fast.resolve`. The rules are
those of :mod:`facing_env.rules.engine`'s docstring.
"""

from __future__ import annotations

from facing_env import rules
from facing_env.errors import IllegalActionError
from facing_env.events import Event
from facing_env.rules import geometry
from facing_env.rules.battle import Battle, Creature
from facing_env.rules.dice import Dice, mean_damage, roll_hits
from facing_env.rules.legality import (
    _anything_but_end_turn,
    _check_attack,
    _free_five_foot_step,
    _melee_slot,
    _step,
    _tradeable_slot,
    _turn_cost,
    _usable_slot,
    why_illegal,
)
from facing_env.rules.movement import (
    FULL_ROUND,
)
from facing_env.rules.turns import (
    ATTACK,
    BUMP,
    CHARGE,
    END_TURN,
    FIVE_FOOT_STEP,
    MOVE,
    READY,
    RUN,
    STEP_KEEP_FACING,
    TRIGGER,
    TURN,
    WITHDRAW,
    Action,
    AttackSlot,
    TurnState,
    _speed_squares,
    _turnable,
    attack_sequence,
    is_over,
    toward_creature,
    toward_direction,
)
from facing_env.types import GridKind, Pos


def begin_turn(battle: Battle) -> list[Event]:
    init = battle.initiative
    actor = battle.creatures[init.order[init.index]]
    actor.flat_footed = False
    actor.readied = actor.charging = False  # both last until the creature's next turn
    init.aoo_used[actor.id] = 0
    battle.turn = TurnState(actor.id, remaining=attack_sequence(actor))
    events = [Event("turn_start", actor.id, round=init.round)]
    return events + _auto_end(battle)


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
    rules.roll_spot(battle, dice, start=False)  # a turn that began: its Spot checks
    rules.look(battle)  # where each creature last perceived each foe (issue 36)
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
    rules.forget(battle, c)  # what it heard since its last turn (rules.perception)
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
    return events + begin_turn(battle)


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
    vec = geometry.direction_vectors(battle.kind)[d]
    dest = (c.pos[0] + vec[0], c.pos[1] + vec[1])
    foe = rules.bumped(battle, c, c.shape.cells(dest), rules.unseen(battle, c))  # before it turns
    if turn_first and _turnable(battle, c):
        c.facing = toward_direction(battle, c, d)
    if foe is not None:  # issue 36: it stays, and the rest of this movement is lost
        ts.movement_left = 0
        ts.moved = True
        ts.turned_after_step = False
        return [_bump(battle, c, foe, dest)]
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


def _bump(battle: Battle, c: Creature, foe: Creature, dest: Pos) -> Event:
    """``c`` tried to enter ``dest``, where ``foe`` stands unperceived (issue 36): the two
    hear each other, and the event says so."""
    rules.hear(battle, c, foe)
    return Event(BUMP, c.id, foe.id, pos=dest, facing=c.facing, round=battle.initiative.round)


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
    foe = rules.bumped(battle, c, c.shape.cells(dest), rules.unseen(battle, c))
    if foe is not None:  # issue 36: the step is spent where it stands
        ts.five_foot_step_taken = True
        ts.turned_after_step = False
        ts.declaring = battle.rules.auto_turn_on_attack  # SR-02, as after any Shift
        return [_bump(battle, c, foe, dest)]
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
        if not rules.perceives(battle, e, mover):
            continue  # a trigger it does not perceive (issue 36)
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
    hidden = rules.unseen(battle, c)  # what it did not perceive when it set off (issue 36)
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
    foe = rules.bumped(battle, c, rules.charge_route(battle, c, dest), hidden)
    if foe is not None:  # issue 36: its lane meets a foe it did not perceive: it stays
        return [*events, _bump(battle, c, foe, path[0])]
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
    rules.hear(battle, a, d)  # perception (issue 36): each hears the other
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
        if not rules.perceives(battle, e, mover):
            continue  # total concealment: no attack of opportunity (issue 36)
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
