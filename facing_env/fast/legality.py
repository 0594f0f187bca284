"""The legal-action scan of the batched engine: the action mask and the step costs.

:func:`legal_mask` writes the int8 mask of battle ``i``'s acting creature, laid out as
:class:`facing_env.rules.codec.ActionCodec` lays it out (``ActionCodec.mask``: the encoding of
``engine.legal_actions``), and the movement cost of every legal MOVE and
STEP_KEEP_FACING (``legality._step``'s; :data:`FULL_ROUND` for impeded terrain). It is
``engine.why_illegal`` applied to every candidate, check for check, in one pass:
the steps of every direction (terrain, creatures in the way, stepover, cut corners, the
alternating diagonal, difficult terrain, the facing surcharge of ``ua35``, runs, the
full-round step into impeded terrain), 5-foot steps, facing changes and what they cost
(``legality._turn_cost``), RUN, a withdrawal's limits (EP-WDR-01), the 5-foot steps a
player character buys with attacks (EP-5FT-02), READY, CHARGE and WITHDRAW (full-round
actions at the start of a turn), ATTACK (``legality._check_attack``) and
``engine.MAX_ACTIONS_PER_TURN``. :func:`mask_batch` scans every row (a battle that is
over gets an all-zero mask).

Creature-slot actions (ATTACK, CHARGE, WITHDRAW) index the acting creature's rows of
``codec.creature_slots``: itself, its allies, its enemies, each in spec order (dead
creatures keep their rows). ``tests/test_fast_scan.py`` compares the mask with the
reference env's (``why_illegal``) and the costs with ``legality._step``'s on states of every
scenario.

:func:`legal_mask` and :func:`mask_batch` are the entry points; the other functions are
kernel helpers without a Python entry point, inlined by numba into their callers
(:data:`facing_env.fast.jit.inline`: the scan calls them per direction or per enemy, and
a call passing the State cost more than their work).
"""

from __future__ import annotations

import numpy as np

from facing_env.actions import (
    ATTACK_BASE,
    END_TURN_INDEX,
    FIVE_FOOT_BASE,
    MOVE_BASE,
    READY_INDEX,
    RUN_INDEX,
    SLOT_KINDS,
    STEP_BASE,
    TURN_BASE,
)
from facing_env.fast.geometry import (
    BLOCKED,
    DIFFICULT,
    IMPEDED,
    PILLAR,
    alive,
    has_facing,
    is_over,
    steps_over,
    terrain_at,
)
from facing_env.fast.jit import inline, kernel
from facing_env.fast.maneuvers import can_charge, may_withdraw_from, withdraw_step_allowed
from facing_env.fast.opportunity import FEET, has_attack_slots, melee_reach, usable_slot
from facing_env.fast.perception import perceives
from facing_env.fast.state import RULESETS, SHAPE_CELLS, SHAPE_OFFSETS
from facing_env.rules import engine
from facing_env.tables import (
    DIFFICULT_MULTIPLIER,
    FACING_SURCHARGE_MULTIPLIER,
    MIN_SPEED_FOR_FIVE_FOOT_STEP,
)
from facing_env.tables import RULESETS as RULESET_ROWS

FULL_ROUND = -1
"""The cost of a step into impeded terrain (``rules.FULL_ROUND``: a full-round action)."""
N_SLOT_KINDS = len(SLOT_KINDS)
ATTACK_BLOCK = SLOT_KINDS.index(engine.ATTACK)
CHARGE_BLOCK = SLOT_KINDS.index(engine.CHARGE)
WITHDRAW_BLOCK = SLOT_KINDS.index(engine.WITHDRAW)
MAX_ACTIONS = engine.MAX_ACTIONS_PER_TURN
MIN_FIVE_SPEED = MIN_SPEED_FOR_FIVE_FOOT_STEP
SURCHARGE = FACING_SURCHARGE_MULTIPLIER
DIFFICULT_COST = DIFFICULT_MULTIPLIER
RULE_SURCHARGE = np.array([RULESET_ROWS[r].movement_surcharge for r in RULESETS])
"""``[ruleset]``: a step into the flank or rear costs double without turning first."""
RULE_AUTO_TURN = np.array([RULESET_ROWS[r].auto_turn_on_attack for r in RULESETS])
"""``[ruleset]``: side_rear's facing change as a reaction (SR-04)."""

_OFFSETS = SHAPE_OFFSETS
_CELLS = SHAPE_CELLS

# what a step in one direction meets (rules.movement.step_entry)
_CLOSED = 0  # off the board, blocked, a cut wall corner, or an enemy in the way
_FREE = 1
_OCCUPIED = 2  # another creature there (an ally, or one stepped over: EP-STEP-01)


@inline
def acting(s, i):
    """``engine.actor``: the acting creature's slot, -1 when the battle is over."""
    if s.actor[i] < 0 or is_over(s, i):
        return -1
    return s.actor[i]


@inline
def _entry(t, s, i, c, d):
    """``rules.movement.step_entry`` of a step of ``c`` in direction ``d``, as
    (:data:`_CLOSED` / :data:`_FREE` / :data:`_OCCUPIED`, difficult, impeded)."""
    shape = s.shape[i, c]
    x = s.x[i, c]
    y = s.y[i, c]
    difficult = False
    impeded = False
    for j in range(t.n_entered[shape, d]):
        terrain = terrain_at(s, i, x + t.entered[shape, d, j, 0], y + t.entered[shape, d, j, 1])
        if terrain == BLOCKED or terrain == PILLAR:
            return _CLOSED, False, False
        difficult |= terrain == DIFFICULT
        impeded |= terrain == IMPEDED
    for j in range(t.n_corners[shape, d]):
        if terrain_at(s, i, x + t.corners[shape, d, j, 0], y + t.corners[shape, d, j, 1]) == (
            BLOCKED
        ):
            return _CLOSED, False, False
    occupied = False
    for j in range(t.n_entered[shape, d]):
        cx = x + t.entered[shape, d, j, 0]
        cy = y + t.entered[shape, d, j, 1]
        for k in range(s.n_creatures[i]):
            if k == c or not alive(s, i, k) or not perceives(t, s, i, c, k):
                continue  # a foe it does not perceive is not there to it (issue 36)
            other = s.shape[i, k]
            for p in range(_CELLS[other]):
                if (
                    s.x[i, k] + _OFFSETS[other, p, 0] == cx
                    and s.y[i, k] + _OFFSETS[other, p, 1] == cy
                ):
                    if s.team[i, k] != s.team[i, c] and not steps_over(s, i, c, k):
                        return _CLOSED, False, False
                    occupied = True
                    break
    return (_OCCUPIED if occupied else _FREE), difficult, impeded


@inline
def movement_capacity(s, i, c):
    """``engine.movement_capacity``: squares the actor could still move (double move)."""
    if s.turn_five_foot_step_taken[i]:
        return 0
    left = s.turn_movement_left[i] if s.turn_moving[i] else 0
    if s.turn_running[i] or s.turn_withdrawing[i] >= 0:
        return left
    spare = int(s.turn_move_available[i]) + int(
        s.turn_standard_available[i] and s.turn_attacks_made[i] == 0
    )
    return left + spare * (s.speed[i, c] // FEET)


@inline
def turn_allowed(s, i):
    """``legality._turn_cost(battle) is not None``: a facing change is left (free while
    moving or declaring, once free, or for the move action; side_rear: once)."""
    if (s.turn_moving[i] or s.turn_declaring[i]) and not s.turn_turned_after_step[i]:
        return True
    if RULE_AUTO_TURN[s.ruleset[i]]:
        return not s.turn_free_turn_used[i]
    if s.turn_moved[i]:
        return False
    return not s.turn_free_turn_used[i] or s.turn_move_available[i]


@inline
def full_round_fresh(s, i):
    """``legality._full_round_fresh``: nothing done yet that a full-round action excludes."""
    return (
        s.turn_move_available[i]
        and s.turn_standard_available[i]
        and s.turn_attacks_made[i] == 0
        and not s.turn_moved[i]
        and not s.turn_five_foot_step_taken[i]
        and not s.turn_running[i]
        and s.turn_withdrawing[i] < 0
        and s.turn_traded_steps[i] == 0
    )


@inline
def free_five_foot_step(s, i):
    """``legality._free_five_foot_step``: no other movement this turn."""
    return not (
        s.turn_moved[i]
        or s.turn_five_foot_step_taken[i]
        or s.turn_running[i]
        or s.turn_withdrawing[i] >= 0
    )


@inline
def tradeable_slot(s, i):
    """``legality._tradeable_slot``: the position in ``remaining`` of the worst iterative of
    the actor's first attack (the first of equal penalties), -1 if none."""
    worst = -1
    for r in range(s.n_remaining[i]):
        if s.remaining[i, r, 0] == 0 and (
            worst < 0 or s.remaining[i, r, 1] < s.remaining[i, worst, 1]
        ):
            worst = r
    return worst


@inline
def may_trade_step(s, i, c):
    """``legality._may_trade_step`` (EP-5FT-02): a player character whose free 5-foot step
    is used may trade an attack of a full attack for another one."""
    if not s.player_character[i, c] or free_five_foot_step(s, i) or s.turn_cleave[i, 0] >= 0:
        return False
    if s.speed[i, c] < MIN_FIVE_SPEED or s.turn_moved[i] or s.turn_running[i]:
        return False
    if s.turn_attacks_made[i] == 0:
        open_to_full = s.turn_move_available[i] and s.turn_standard_available[i]
    else:
        open_to_full = s.turn_full_attack[i] or s.turn_move_available[i]
    return open_to_full and tradeable_slot(s, i) >= 0


@inline
def ready_allowed(s, i, c):
    """``legality._check_ready`` finds nothing wrong (UA-PER-02)."""
    if (
        not s.turn_standard_available[i]
        or s.turn_attacks_made[i] != 0
        or s.turn_running[i]
        or s.turn_cleave[i, 0] >= 0
    ):
        return False
    if s.turn_withdrawing[i] >= 0 or s.turn_traded_steps[i] != 0:
        return False
    return not s.readied[i, c] and melee_reach(s, i, c) > 0


@inline
def creature_slot(s, i, c, k):
    """``codec.creature_slots(battle, c).index(k)``: itself, its allies, its enemies."""
    if k == c:
        return 0
    allies = 0
    before = 0
    ally = s.team[i, k] == s.team[i, c]
    for j in range(s.n_creatures[i]):
        if j == c:
            continue
        same = s.team[i, j] == s.team[i, c]
        allies += same
        if j < k and same == ally:
            before += 1
    return 1 + before if ally else 1 + allies + before


# complexity above 15 on purpose: the step path's hottest loop: one pass over the candidates with
# every block inline (a call passing the State costs 1-4 us, fast/jit.py)
@kernel
def legal_mask(t, s, i, out, cost):  # noqa: C901
    """The action mask of battle ``i``'s acting creature into ``out`` (int8, the codec's
    length) and the movement cost of every legal MOVE / STEP_KEEP_FACING into ``cost``
    (same length, 0 elsewhere; :data:`FULL_ROUND` for impeded terrain). All zero when
    the battle is over."""
    out[:] = 0
    cost[:] = 0
    c = acting(s, i)
    if c < 0:
        return
    out[END_TURN_INDEX] = 1
    if s.turn_actions_taken[i] >= MAX_ACTIONS:
        return
    moved = s.turn_moved[i]
    running = s.turn_running[i]
    five_taken = s.turn_five_foot_step_taken[i]
    attacks_made = s.turn_attacks_made[i] != 0
    move_available = s.turn_move_available[i]
    standard_available = s.turn_standard_available[i]
    withdrawing = s.turn_withdrawing[i]
    speed = s.speed[i, c]
    # legality._check_run
    fresh = move_available and standard_available and not attacks_made
    if fresh and not (moved or five_taken or running) and speed >= FEET:
        out[RUN_INDEX] = 1
    turnable = has_facing(s, i, c)
    walk = not five_taken
    capacity = movement_capacity(s, i, c) if walk else 0
    full_round_ok = not moved and move_available and standard_available
    full_round_ok = full_round_ok and not attacks_made and not running
    five_ok = not (moved or five_taken or running)
    five_speed = speed >= MIN_FIVE_SPEED
    odd = s.turn_diagonals[i] % 2 == 1 and s.diagonal[i] == 0
    surcharge = RULE_SURCHARGE[s.ruleset[i]] and turnable
    trade = withdrawing < 0 and may_trade_step(s, i, c)
    shape = s.shape[i, c]
    facing = s.facing[i, c]
    for d in range(t.vectors.shape[0]):
        entry, difficult, impeded = _entry(t, s, i, c, d)
        if entry == _CLOSED:
            continue
        occupied = entry == _OCCUPIED
        if walk and not occupied and not (running and difficult):
            keeps_facing = True
            front = True
            if turnable:
                keeps_facing = t.toward[shape, facing, d] == facing
                front = t.step_front[facing, d]
            if impeded:  # EP-TER-02: a full-round action
                if full_round_ok:
                    out[MOVE_BASE + d] = 1
                    cost[MOVE_BASE + d] = FULL_ROUND
                    if turnable and not keeps_facing:
                        out[STEP_BASE + d] = 1
                        cost[STEP_BASE + d] = FULL_ROUND
            else:
                step = 2 if t.diagonal[d] and odd else 1
                if difficult:
                    step *= DIFFICULT_COST
                if step <= capacity:
                    out[MOVE_BASE + d] = 1
                    cost[MOVE_BASE + d] = step
                if turnable and not keeps_facing:
                    if surcharge and not front:
                        step *= SURCHARGE
                    if step <= capacity:
                        out[STEP_BASE + d] = 1
                        cost[STEP_BASE + d] = step
        if five_speed and not (occupied or difficult or impeded) and (five_ok or trade):
            out[FIVE_FOOT_BASE + d] = 1  # EP-5FT-03; EP-5FT-02 when traded
    if turnable and turn_allowed(s, i):
        slot = 0
        for f in range(t.allowed.shape[1]):
            if t.allowed[shape, f]:
                if f != facing:
                    out[TURN_BASE + slot] = 1
                slot += 1
    # the tactical checks: withdrawal limits, traded steps, READY, CHARGE, WITHDRAW
    if withdrawing >= 0:  # EP-WDR-01: no 5-foot step, every step further from the target
        for d in range(t.vectors.shape[0]):
            out[FIVE_FOOT_BASE + d] = 0
            x = s.x[i, c] + t.vectors[d, 0]
            y = s.y[i, c] + t.vectors[d, 1]
            if (out[MOVE_BASE + d] or out[STEP_BASE + d]) and not withdraw_step_allowed(
                s, i, c, withdrawing, x, y
            ):
                out[MOVE_BASE + d] = 0
                out[STEP_BASE + d] = 0
                cost[MOVE_BASE + d] = 0
                cost[STEP_BASE + d] = 0
    if ready_allowed(s, i, c):
        out[READY_INDEX] = 1
    n_slots = (out.shape[0] - ATTACK_BASE) // N_SLOT_KINDS
    full_round = full_round_fresh(s, i) and speed >= FEET
    attacks = has_attack_slots(s, i)
    for e in range(s.n_creatures[i]):
        if not alive(s, i, e) or s.team[i, e] == s.team[i, c]:
            continue
        if not perceives(t, s, i, c, e):
            continue  # no target it does not perceive (issue 36)
        slot = creature_slot(s, i, c, e)
        if slot >= n_slots:
            continue
        if full_round:
            if can_charge(t, s, i, c, e):
                out[ATTACK_BASE + CHARGE_BLOCK * n_slots + slot] = 1
            if may_withdraw_from(s, i, c, e):
                out[ATTACK_BASE + WITHDRAW_BLOCK * n_slots + slot] = 1
        # legality._check_attack
        if attacks and usable_slot(t, s, i, e)[0] >= 0:
            out[ATTACK_BASE + ATTACK_BLOCK * n_slots + slot] = 1


@kernel
def mask_batch(t, s, out, cost):
    """:func:`legal_mask` of every battle: ``out`` and ``cost`` are ``(N, A)``."""
    for i in range(out.shape[0]):
        legal_mask(t, s, i, out[i], cost[i])
