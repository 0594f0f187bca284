"""Applying actions in the batched engine: :func:`facing_env.rules.engine.apply` over arrays.

:func:`apply` takes one decoded action of battle ``i``'s acting creature (a kind code
and its argument: a direction, a facing or a creature slot), changes the state row as
the object engine changes its ``Battle``, appends the events to the :class:`Events`
row, and ends turns that have nothing left but END_TURN (``resolve._auto_end``), which
needs the legal scan (:mod:`facing_env.fast.legality`). Each function mirrors the engine
function of the same name (``_apply_step``, ``_readied_attacks``, ``resolve_attack``,
``_kill``, ``_end_turn``, ``_begin_turn``...); ``tests/test_fast_apply.py`` steps both
engines side by side on every scenario and compares states and events.

Legality is the caller's: the action must be one the scan's mask allows, and ``cost``
the scan's movement cost for a MOVE or STEP_KEEP_FACING (``scan.FULL_ROUND`` for
impeded terrain).
"""

from __future__ import annotations

import numpy as np

from facing_env.fast import attacks as fattack
from facing_env.fast import dice as fdice
from facing_env.fast import geometry as geo
from facing_env.fast import legality as scan
from facing_env.fast import maneuvers as fcharge
from facing_env.fast import opportunity as reach
from facing_env.fast import perception as seeing
from facing_env.fast.events import (
    ATTACK_KINDS,
    E_ATTACK,
    E_BUMP,
    E_CHARGE,
    E_DEATH,
    E_END_TURN,
    E_FIVE,
    E_MOVE,
    E_READY,
    E_ROUND,
    E_RUN,
    E_TRIGGER,
    E_TURN,
    E_TURN_START,
    E_WITHDRAW,
    emit,
    emit_at,
)
from facing_env.fast.geometry import is_over
from facing_env.fast.jit import helper, kernel
from facing_env.fast.state import ARMOR_KINDS
from facing_env.rules import engine
from facing_env.tables import (
    FEATS,
    FEET_PER_SQUARE,
    RUN_MULTIPLIER,
    RUN_MULTIPLIER_HEAVY_ARMOR,
)
from facing_env.types import AttackKind, Ruleset

# -- action kinds, as codes (engine.ACTION_KINDS order) -----------------------------------
END_TURN = engine.ACTION_KINDS.index(engine.END_TURN)
MOVE = engine.ACTION_KINDS.index(engine.MOVE)
STEP_KEEP_FACING = engine.ACTION_KINDS.index(engine.STEP_KEEP_FACING)
FIVE_FOOT_STEP = engine.ACTION_KINDS.index(engine.FIVE_FOOT_STEP)
TURN = engine.ACTION_KINDS.index(engine.TURN)
ATTACK = engine.ACTION_KINDS.index(engine.ATTACK)
RUN = engine.ACTION_KINDS.index(engine.RUN)
READY = engine.ACTION_KINDS.index(engine.READY)
CHARGE = engine.ACTION_KINDS.index(engine.CHARGE)
WITHDRAW = engine.ACTION_KINDS.index(engine.WITHDRAW)

K_ATTACK = ATTACK_KINDS.index(AttackKind.ATTACK.value)
K_AOO = ATTACK_KINDS.index(AttackKind.AOO.value)
K_CLEAVE = ATTACK_KINDS.index(AttackKind.CLEAVE.value)
K_CHARGE = ATTACK_KINDS.index(AttackKind.CHARGE.value)
K_READIED = ATTACK_KINDS.index(AttackKind.READIED.value)
K_TRADED = ATTACK_KINDS.index("traded")

SIDE_REAR = 1  # state.RULESETS.index(Ruleset.SIDE_REAR): facing turns toward attacks (SR-03)
assert Ruleset.SIDE_REAR.value == "side_rear"
HEAVY = ARMOR_KINDS.index("heavy")
CLEAVE_FEAT = 1 << FEATS.index("Cleave")
GREAT_CLEAVE_FEAT = 1 << FEATS.index("Great Cleave")
COMBAT_REFLEXES_FEAT = 1 << FEATS.index("Combat Reflexes")
RUNNER_FEAT = 1 << FEATS.index("Runner")
ITERATIVE_STEP = engine.ITERATIVE_STEP
MAX_ITERATIVES = engine.MAX_ITERATIVES
FEET = FEET_PER_SQUARE


# -- the battle -----------------------------------------------------------------------------


@helper
def turnable(s, i, k):
    """``turns._turnable``: the rule set and the creature have facing."""
    return geo.has_facing(s, i, k)


@helper
def _dex_modifier(s, i, k):
    return (s.dex[i, k] - 10) // 2


@helper
def _attack_sequence(s, i, k):
    """``engine.attack_sequence`` into the turn's ``remaining``."""
    n = 0
    s.remaining[i, n, 0] = 0
    s.remaining[i, n, 1] = 0
    n += 1
    for j in range(1, MAX_ITERATIVES + 1):
        if s.base_attack_bonus[i, k] - ITERATIVE_STEP * j < 1:
            break
        s.remaining[i, n, 0] = 0
        s.remaining[i, n, 1] = -ITERATIVE_STEP * j
        n += 1
    for a in range(1, s.n_attacks[i, k]):
        s.remaining[i, n, 0] = a
        s.remaining[i, n, 1] = 0
        n += 1
    s.n_remaining[i] = n


@helper
def _remove_remaining(s, i, k, attack, penalty):
    """``ts.remaining.remove(AttackSlot(attack, penalty))``: the first slot equal to it
    (an attack equal to another counts as that one: ``State.attack_equal``)."""
    same = s.attack_equal[i, k, attack]
    n = s.n_remaining[i]
    for r in range(n):
        if s.attack_equal[i, k, s.remaining[i, r, 0]] == same and s.remaining[i, r, 1] == penalty:
            for q in range(r, n - 1):
                s.remaining[i, q, 0] = s.remaining[i, q + 1, 0]
                s.remaining[i, q, 1] = s.remaining[i, q + 1, 1]
            s.n_remaining[i] = n - 1
            return


# -- turns ----------------------------------------------------------------------------------


@helper
def begin_turn(s, i, ev):
    """``resolve.begin_turn`` without its automatic end of turn (the caller's
    :func:`auto_end` follows): the next creature in the order starts its turn."""
    k = s.order[i, s.index[i]]
    s.flat_footed[i, k] = False
    s.readied[i, k] = False
    s.charging[i, k] = False
    s.aoo_used[i, k] = 0
    s.actor[i] = k
    s.turn_move_available[i] = True
    s.turn_standard_available[i] = True
    s.turn_moving[i] = False
    s.turn_moved[i] = False
    s.turn_running[i] = False
    s.turn_movement_left[i] = 0
    s.turn_diagonals[i] = 0
    s.turn_five_foot_step_taken[i] = False
    s.turn_free_turn_used[i] = False
    s.turn_turned_after_step[i] = False
    s.turn_actions_taken[i] = 0
    s.turn_declaring[i] = False
    s.turn_withdrawing[i] = -1
    s.turn_attacks_made[i] = 0
    s.turn_full_attack[i] = False
    s.turn_cleave[i, 0] = -1
    s.turn_cleave[i, 1] = 0
    s.turn_cleaved[i] = False
    s.turn_traded_steps[i] = 0
    for j in range(s.provoked.shape[1]):
        s.provoked[i, j] = False
    _attack_sequence(s, i, k)
    emit(ev, i, E_TURN_START, k, s.round[i])


@helper
def end_turn(s, i, ev):
    """``resolve._end_turn`` (the next turn begins; the caller's :func:`auto_end`
    follows)."""
    c = s.actor[i]
    alive = s.hp[i, c] > 0
    if s.turn_running[i] and not (s.feats[i, c] & RUNNER_FEAT) and alive:
        s.flat_footed[i, c] = True  # EP-RUN-01: until the start of its next turn
    emit(ev, i, E_END_TURN, c, s.round[i])
    seeing.forget(s, i, c)  # what it heard since its last turn (issue 36)
    if not alive:
        _remove_from_order(s, i, c)
    else:
        s.index[i] += 1
    if is_over(s, i):
        s.actor[i] = -1
        return
    if s.index[i] >= s.n_order[i]:
        s.index[i] = 0
        s.round[i] += 1
        emit(ev, i, E_ROUND, c, s.round[i])
    begin_turn(s, i, ev)


@helper
def _remove_from_order(s, i, k):
    n = s.n_order[i]
    for p in range(n):
        if s.order[i, p] == k:
            for q in range(p, n - 1):
                s.order[i, q] = s.order[i, q + 1]
            s.order[i, n - 1] = -1
            s.n_order[i] = n - 1
            return


@kernel
def auto_end(t, s, i, ev, mask, cost):
    """``resolve._auto_end``: end turns with nothing but END_TURN left (a loop where the
    engine recurses through ``_begin_turn``; the same events in the same order). The
    scan writes the acting creature's mask and costs into row ``i`` of ``mask`` and
    ``cost``, so they describe the state left."""
    while not is_over(s, i):
        c = s.actor[i]
        if s.hp[i, c] > 0:
            scan.legal_mask(t, s, i, mask[i], cost[i])
            legal = 0
            for a in range(mask.shape[1]):
                legal += mask[i, a]
            if legal > 1:
                return
        end_turn(s, i, ev)
    s.actor[i] = -1


# -- attacks --------------------------------------------------------------------------------


@helper
def _hits(roll, bonus, ac):
    """``dice.roll_hits``."""
    return roll == 20 or (roll != 1 and roll + bonus >= ac)


@helper
def _faces(bonus, ac, low):
    n = 0
    for r in range(max(low, 1), 21):
        if _hits(r, bonus, ac):
            n += 1
    return n


@kernel
def mean_damage(bonus, ac, n, sides, plus, threat, multiplier, concealment, en, es, eb, extra):
    """``dice.mean_damage``."""
    base = n * (sides + 1) / 2.0 + plus
    sneak = 0.0
    if extra:
        sneak = en * (es + 1) / 2.0 + eb
    p_hit = _faces(bonus, ac, 1) / 20.0
    p_critical = _faces(bonus, ac, threat) / 20.0 * p_hit
    mean = p_hit * (base + sneak) + p_critical * (multiplier - 1) * base
    return (1.0 - concealment / 100.0) * mean


@helper
def resolve_attack(t, s, i, ev, a, d, attack, penalty, kind, mode):
    """``engine.resolve_attack``: roll one attack with every modifier and apply it."""
    if s.ruleset[i] == SIDE_REAR and turnable(s, i, a):
        s.facing[i, a] = toward_creature(t, s, i, a, d)  # SR-03
    ranged = s.attack_ranged[i, a, attack]
    total, target_ac, facing, own, opp, sneak, concealment = fattack.breakdown(
        t, s, i, a, d, attack, kind, ranged
    )  # the modifiers of the first attack of its name (attack_breakdown takes the name)
    bonus = total + penalty
    n, sides, plus = s.attack_damage[i, a, attack]  # the slot's own attack rolls damage
    threat = s.attack_threat[i, a, attack]
    multiplier = s.attack_multiplier[i, a, attack]
    en, es, eb = s.sneak_attack[i, a]
    critical = False
    if mode == fdice.MEAN:
        roll = 10.5
        damage = mean_damage(
            bonus, target_ac, n, sides, plus, threat, multiplier, concealment, en, es, eb, sneak
        )
        hit = damage > 0
    else:
        roll = fdice.d20(s, i, mode)
        hit = _hits(roll, bonus, target_ac)
        if hit and concealment and fdice.percent(s, i, mode) <= concealment:
            hit = False  # SR-11 concealment from behind
        if hit and roll >= threat:
            critical = _hits(fdice.d20(s, i, mode), bonus, target_ac)
        damage = 0.0
        if hit:
            damage = np.float64(
                fdice.damage(
                    s, i, mode, n, sides, plus, multiplier if critical else 1, en, es, eb, sneak
                )
            )
    s.hp[i, d] -= damage
    seeing.hear(s, i, a, d)  # perception (issue 36): each hears the other
    e = emit(ev, i, E_ATTACK, a, s.round[i])
    if e >= 0:
        ev.target[i, e] = d
        ev.attack[i, e] = attack
        ev.attack_kind[i, e] = kind
        ev.roll[i, e] = roll
        ev.total[i, e] = roll + bonus
        ev.ac[i, e] = target_ac
        ev.hit[i, e] = hit
        ev.critical[i, e] = critical
        ev.damage[i, e] = damage
        ev.sneak_attack[i, e] = hit and sneak
        ev.own_area[i, e] = own
        ev.defender_area[i, e] = opp
        ev.facing_modifier[i, e] = facing
    if s.hp[i, d] <= 0:
        kill(s, i, ev, d)


@helper
def kill(s, i, ev, d):
    """``resolve._kill``: out of the initiative order (an actor dying on its own turn
    leaves it when its turn ends)."""
    if d != s.actor[i]:
        for p in range(s.n_order[i]):
            if s.order[i, p] == d:
                if p < s.index[i]:
                    s.index[i] -= 1
                _remove_from_order(s, i, d)
                break
    emit(ev, i, E_DEATH, d, s.round[i])


@helper
def toward_creature(t, s, i, c, target):
    """``engine.toward_creature``."""
    r = t.radius
    return t.facing_to[
        s.shape[i, c],
        s.facing[i, c],
        s.shape[i, target],
        s.y[i, target] - s.y[i, c] + r,
        s.x[i, target] - s.x[i, c] + r,
    ]


@helper
def _left_threatened(t, s, i, e, m, fx, fy, tx, ty):
    """Whether ``e`` threatens a square ``m``'s footprint leaves moving from ``(fx, fy)``
    to ``(tx, ty)`` (``rules.opportunity._left_cells``)."""
    shape = s.shape[i, m]
    for p in range(geo._CELLS[shape]):
        cx = fx + geo._OFFSETS[shape, p, 0]
        cy = fy + geo._OFFSETS[shape, p, 1]
        stays = False
        for q in range(geo._CELLS[shape]):
            if tx + geo._OFFSETS[shape, q, 0] == cx and ty + geo._OFFSETS[shape, q, 1] == cy:
                stays = True
                break
        if not stays and reach.threatens_cell(s, i, e, cx, cy):
            return True
    return False


@helper
def opportunity_attacks(t, s, i, ev, m, tx, ty, excluded, mode):
    """``rules.opportunity.step_provokers`` then ``resolve._opportunity_attacks``: the
    enemies threatening a square ``m`` leaves stepping to ``(tx, ty)``, in spec order,
    but ``excluded``, each once per move and within its allowance."""
    fx, fy = s.x[i, m], s.y[i, m]
    for e in range(s.n_creatures[i]):
        if e == m or e == excluded or not geo.alive(s, i, e) or s.team[i, e] == s.team[i, m]:
            continue
        if not _left_threatened(t, s, i, e, m, fx, fy, tx, ty):
            continue
        allowed = 1
        if s.feats[i, e] & COMBAT_REFLEXES_FEAT:
            allowed += max(0, _dex_modifier(s, i, e))
        if s.provoked[i, e] or s.aoo_used[i, e] >= allowed:
            continue
        if not seeing.perceives(t, s, i, e, m):
            continue  # total concealment: no attack of opportunity (issue 36)
        slot = reach.melee_slot(t, s, i, e, m)
        if slot < 0:
            continue
        s.provoked[i, e] = True
        s.aoo_used[i, e] += 1
        resolve_attack(t, s, i, ev, e, m, slot, 0, K_AOO, mode)
        if s.hp[i, m] <= 0:
            break


@helper
def readied_attacks(t, s, i, ev, m, mode):
    """``resolve._readied_attacks``: enemies holding a readied attack that now reaches the
    mover, unless it stands in their rear (UA-PER-02)."""
    for e in range(s.n_creatures[i]):
        if not s.readied[i, e] or not geo.alive(s, i, e) or s.team[i, e] == s.team[i, m]:
            continue
        slot = reach.melee_slot(t, s, i, e, m)
        if slot < 0 or not fattack.can_ready_against(t, s, i, e, m):
            continue
        if not seeing.perceives(t, s, i, e, m):
            continue  # a trigger it does not perceive (issue 36)
        s.readied[i, e] = False
        x = emit(ev, i, E_TRIGGER, e, s.round[i])
        if x >= 0:
            ev.target[i, x] = m
            ev.has_pos[i, x] = True
            ev.x[i, x] = s.x[i, m]
            ev.y[i, x] = s.y[i, m]
        resolve_attack(t, s, i, ev, e, m, slot, 0, K_READIED, mode)
        if s.hp[i, m] <= 0:
            break


@helper
def offer_cleave(t, s, i, c, target, attack, penalty):
    """``resolve._offer_cleave``: after a melee attack drops its target, one more attack
    (UA-FEAT-CLV) while some enemy is in reach of it."""
    may = (s.feats[i, c] & GREAT_CLEAVE_FEAT) or (
        (s.feats[i, c] & CLEAVE_FEAT) and not s.turn_cleaved[i]
    )
    if s.hp[i, target] > 0 or s.attack_ranged[i, c, attack] or not may:
        return
    s.turn_cleave[i, 0] = attack
    s.turn_cleave[i, 1] = penalty
    for e in range(s.n_creatures[i]):
        if reach.can_attack(t, s, i, e) and seeing.perceives(t, s, i, c, e):
            return
    s.turn_cleave[i, 0] = -1
    s.turn_cleave[i, 1] = 0


# -- the actions ----------------------------------------------------------------------------


@helper
def _open_movement(s, i, c, cost):
    """``resolve._open_movement``: spend move (then standard) actions for the step."""
    if not s.turn_moving[i]:
        s.turn_moving[i] = True
        s.turn_movement_left[i] = 0
    while s.turn_movement_left[i] < cost and not s.turn_running[i] and s.turn_withdrawing[i] < 0:
        if s.turn_move_available[i]:
            s.turn_move_available[i] = False
        else:
            s.turn_standard_available[i] = False
        s.turn_movement_left[i] += s.speed[i, c] // FEET


@helper
def apply_step(t, s, i, ev, c, d, turn_first, step_cost, mode):
    """``resolve._apply_step``: one step of a move."""
    if step_cost == scan.FULL_ROUND:
        s.turn_move_available[i] = False
        s.turn_standard_available[i] = False
        s.turn_moving[i] = True
        s.turn_movement_left[i] = 0
        step_cost = 0
    else:
        _open_movement(s, i, c, step_cost)
    tx = s.x[i, c] + t.vectors[d, 0]
    ty = s.y[i, c] + t.vectors[d, 1]
    foe = seeing.bumped(s, i, c, tx, ty, seeing.hidden_from(t, s, i, c))  # before it turns
    if turn_first and turnable(s, i, c):
        s.facing[i, c] = t.toward[s.shape[i, c], s.facing[i, c], d]
    if foe >= 0:  # issue 36: it stays, and the rest of this movement is lost
        s.turn_movement_left[i] = 0
        s.turn_moved[i] = True
        s.turn_turned_after_step[i] = False
        _bump(s, i, ev, c, foe, tx, ty)
        return
    opportunity_attacks(t, s, i, ev, c, tx, ty, s.turn_withdrawing[i], mode)
    if s.hp[i, c] <= 0:
        return
    s.x[i, c] = tx
    s.y[i, c] = ty
    s.turn_movement_left[i] -= step_cost
    s.turn_turned_after_step[i] = False
    s.turn_moved[i] = True
    if t.diagonal[d]:
        s.turn_diagonals[i] += 1
    e = emit_at(ev, i, E_MOVE, c, s.round[i], -1, tx, ty, s.facing[i, c])
    if e >= 0:
        ev.cost[i, e] = step_cost
    readied_attacks(t, s, i, ev, c, mode)


@helper
def _bump(s, i, ev, c, foe, x, y):
    """``resolve._bump``: ``c`` tried to enter ``(x, y)``, where ``foe`` stands unperceived
    (issue 36): the two hear each other, and the event says so."""
    seeing.hear(s, i, c, foe)
    emit_at(ev, i, E_BUMP, c, s.round[i], foe, x, y, s.facing[i, c])


@helper
def apply_five_foot_step(t, s, i, ev, c, d, mode):
    """``resolve._apply_five_foot_step`` (EP-5FT-01, EP-5FT-02)."""
    traded = not scan.free_five_foot_step(s, i)
    if traded:  # EP-5FT-02: the worst attack left pays for it, and the full attack is on
        r = scan.tradeable_slot(s, i)
        _remove_remaining(s, i, c, s.remaining[i, r, 0], s.remaining[i, r, 1])
        s.turn_traded_steps[i] += 1
        s.turn_full_attack[i] = True
        s.turn_move_available[i] = False
    tx = s.x[i, c] + t.vectors[d, 0]
    ty = s.y[i, c] + t.vectors[d, 1]
    foe = seeing.bumped(s, i, c, tx, ty, seeing.hidden_from(t, s, i, c))
    if foe >= 0:  # issue 36: the step is spent where it stands
        s.turn_five_foot_step_taken[i] = True
        s.turn_turned_after_step[i] = False
        s.turn_declaring[i] = s.ruleset[i] == SIDE_REAR  # SR-02, as after any Shift
        _bump(s, i, ev, c, foe, tx, ty)
        return
    s.x[i, c] = tx
    s.y[i, c] = ty
    s.turn_five_foot_step_taken[i] = True
    s.turn_turned_after_step[i] = False
    s.turn_declaring[i] = s.ruleset[i] == SIDE_REAR  # SR-02: a Shift declares facing
    e = emit_at(ev, i, E_FIVE, c, s.round[i], -1, tx, ty, s.facing[i, c])
    if e >= 0:
        ev.cost[i, e] = 1
        if traded:
            ev.attack_kind[i, e] = K_TRADED
    readied_attacks(t, s, i, ev, c, mode)


@helper
def apply_turn(s, i, ev, c, facing):
    """``resolve._apply_turn`` (how the facing change is paid: ``legality._turn_cost``)."""
    if (s.turn_moving[i] or s.turn_declaring[i]) and not s.turn_turned_after_step[i]:
        s.turn_turned_after_step[i] = True  # free
    elif s.ruleset[i] == SIDE_REAR or (not s.turn_moved[i] and not s.turn_free_turn_used[i]):
        s.turn_free_turn_used[i] = True  # free once
    else:
        s.turn_move_available[i] = False  # a move action
    s.facing[i, c] = facing
    e = emit(ev, i, E_TURN, c, s.round[i])
    if e >= 0:
        ev.facing[i, e] = facing


@helper
def apply_run(s, i, ev, c):
    """``resolve._apply_run``: x4 speed (x3 in heavy armour), a full-round action."""
    s.turn_move_available[i] = False
    s.turn_standard_available[i] = False
    s.turn_running[i] = True
    s.turn_moving[i] = True
    mult = RUN_MULTIPLIER_HEAVY_ARMOR if s.armor[i, c] == HEAVY else RUN_MULTIPLIER
    s.turn_movement_left[i] = s.speed[i, c] // FEET * mult
    e = emit(ev, i, E_RUN, c, s.round[i])
    if e >= 0:
        ev.cost[i, e] = s.turn_movement_left[i]


@helper
def apply_ready(s, i, ev, c):
    """``resolve._apply_ready`` (UA-PER-02)."""
    s.turn_standard_available[i] = False
    s.turn_moving[i] = False
    s.turn_movement_left[i] = 0
    s.readied[i, c] = True
    e = emit(ev, i, E_READY, c, s.round[i])
    if e >= 0:
        ev.facing[i, e] = s.facing[i, c]


@helper
def apply_charge(t, s, i, ev, c, target, mode):
    """``resolve._apply_charge`` (EP-CHG-01, EP-CHG-02)."""
    dx, dy = fcharge.first_destination(t, s, i, c, target)
    hidden = seeing.hidden_from(t, s, i, c)  # what it did not perceive when it set off
    s.turn_move_available[i] = False
    s.turn_standard_available[i] = False
    s.turn_moved[i] = True
    s.turn_moving[i] = False
    s.turn_movement_left[i] = 0
    s.n_remaining[i] = 0
    s.charging[i, c] = True
    if turnable(s, i, c):
        s.facing[i, c] = toward_creature(t, s, i, c, target)
    e = emit_at(ev, i, E_CHARGE, c, s.round[i], target, dx, dy, s.facing[i, c])
    if e >= 0:
        ev.cost[i, e] = geo.cell_distance(s, i, s.x[i, c], s.y[i, c], dx, dy)
    sx, sy = s.x[i, c], s.y[i, c]
    steps = fcharge.path_length(t, s, i, c, sx, sy, dx, dy)
    foe = fcharge.route_meets(t, s, i, c, dx - sx, dy - sy, hidden)
    if foe >= 0:  # issue 36: its lane meets a foe it did not perceive: it stays
        hx, hy = fcharge.path_square(t, s, i, c, sx, sy, dx, dy, 0)
        _bump(s, i, ev, c, foe, hx, hy)
        return
    for p in range(steps):
        hx, hy = fcharge.path_square(t, s, i, c, sx, sy, dx, dy, p)
        opportunity_attacks(t, s, i, ev, c, hx, hy, target, mode)
        if s.hp[i, c] <= 0:
            return
        s.x[i, c] = hx
        s.y[i, c] = hy
        readied_attacks(t, s, i, ev, c, mode)
        if s.hp[i, c] <= 0 or s.hp[i, target] <= 0:
            return
    if turnable(s, i, c):
        s.facing[i, c] = toward_creature(t, s, i, c, target)
    slot = reach.melee_slot(t, s, i, c, target)
    if slot < 0:
        return
    s.turn_attacks_made[i] = 1
    resolve_attack(t, s, i, ev, c, target, slot, 0, K_CHARGE, mode)
    offer_cleave(t, s, i, c, target, slot, 0)


@helper
def apply_withdraw(s, i, ev, c, target):
    """``resolve._apply_withdraw`` (EP-WDR-01): a movement away from the primary target."""
    s.turn_move_available[i] = False
    s.turn_standard_available[i] = False
    s.turn_withdrawing[i] = target
    s.turn_moving[i] = True
    s.turn_movement_left[i] = s.speed[i, c] // FEET
    e = emit(ev, i, E_WITHDRAW, c, s.round[i])
    if e >= 0:
        ev.target[i, e] = target
        ev.cost[i, e] = s.turn_movement_left[i]


@helper
def apply_attack(t, s, i, ev, c, target, mode):
    """``resolve._apply_attack``."""
    attack, penalty, _ = reach.usable_slot(t, s, i, target)
    kind = K_ATTACK
    if s.turn_cleave[i, 0] >= 0:
        kind = K_CLEAVE
        s.turn_cleave[i, 0] = -1
        s.turn_cleave[i, 1] = 0
        s.turn_cleaved[i] = True
    else:
        if s.turn_attacks_made[i] == 0:
            s.turn_standard_available[i] = False
            s.turn_moving[i] = False
            s.turn_movement_left[i] = 0
            ranged = s.attack_ranged[i, c, attack]
            kept = 0
            for q in range(s.n_remaining[i]):
                if s.attack_ranged[i, c, s.remaining[i, q, 0]] == ranged:
                    s.remaining[i, kept, 0] = s.remaining[i, q, 0]
                    s.remaining[i, kept, 1] = s.remaining[i, q, 1]
                    kept += 1
            s.n_remaining[i] = kept
        elif not s.turn_full_attack[i]:
            s.turn_full_attack[i] = True
            s.turn_move_available[i] = False
        _remove_remaining(s, i, c, attack, penalty)
        s.turn_attacks_made[i] += 1
    resolve_attack(t, s, i, ev, c, target, attack, penalty, kind, mode)
    offer_cleave(t, s, i, c, target, attack, penalty)


@kernel
def apply(t, s, i, ev, kind, arg, step_cost, mask, cost, mode):
    """``engine.apply`` of a legal action: ``kind`` an action-kind code, ``arg`` its
    direction, facing or creature slot (-1: none), ``step_cost`` the scan's cost of a
    step; ``mask`` and ``cost`` are the scan's buffers (row ``i`` is rewritten for the
    state the action leaves)."""
    c = s.actor[i]
    if kind != ATTACK:
        s.turn_cleave[i, 0] = -1
        s.turn_cleave[i, 1] = 0
    if kind != TURN:
        s.turn_declaring[i] = False
    s.turn_actions_taken[i] += 1
    if kind == MOVE:
        apply_step(t, s, i, ev, c, arg, True, step_cost, mode)
    elif kind == STEP_KEEP_FACING:
        apply_step(t, s, i, ev, c, arg, False, step_cost, mode)
    elif kind == END_TURN:
        end_turn(s, i, ev)
    elif kind == FIVE_FOOT_STEP:
        apply_five_foot_step(t, s, i, ev, c, arg, mode)
    elif kind == TURN:
        apply_turn(s, i, ev, c, arg)
    elif kind == ATTACK:
        apply_attack(t, s, i, ev, c, arg, mode)
    elif kind == RUN:
        apply_run(s, i, ev, c)
    elif kind == READY:
        apply_ready(s, i, ev, c)
    elif kind == CHARGE:
        apply_charge(t, s, i, ev, c, arg, mode)
    elif kind == WITHDRAW:
        apply_withdraw(s, i, ev, c, arg)
    if is_over(s, i):
        s.actor[i] = -1
    else:
        auto_end(t, s, i, ev, mask, cost)
    if seeing.roll_spot(s, i, mode, False):  # a turn that began: its Spot checks
        scan.legal_mask(t, s, i, mask[i], cost[i])
    seeing.look(t, s, i)  # where each creature last perceived each foe (issue 36)
