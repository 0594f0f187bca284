# cython: annotation_typing=True
"""The compiled legal-action scan: :func:`facing_env.engine._legal_actions` with C locals.

Cython pure Python mode, like :mod:`facing_env._obs_kernel`: compiled with the step path
(:mod:`facing_env._accel`), used by :mod:`facing_env.engine` only when it runs compiled,
otherwise the engine's own scan runs. It is the same scan, read for read and check for
check, with the per-direction helpers (``blocked_or_occupied``, ``walk_cost``) inlined and
the turn state held in C variables. Rows (named tuples) are read as plain tuples:
indexing a tuple subclass from C otherwise goes through ``__getitem__``, and its field
descriptors are slower than a direct item read (``tests/test_kernels.py`` pins the field
order).

``tests/test_mask_exact.py`` proves the scan in use agrees with
:func:`~facing_env.engine.why_illegal` on random states, and ``tests/test_obs_kernel.py``
compares it with the engine's own scan on random states of every scenario.
"""

from __future__ import annotations

from typing import Any

import cython

from facing_env import engine
from facing_env.engine import (
    _END,
    _FIVES,
    _KEEPS,
    _MOVES,
    _RUN,
    _add_attacks,
    _add_maneuvers,
    _facing_rows,
    _turn_actions,
    _turn_cost,
    actor,
)
from facing_env.rules.movement import FULL_ROUND, _steps_over, direction_rows
from facing_env.tables import (
    DIFFICULT_MULTIPLIER,
    FACING_SURCHARGE_MULTIPLIER,
    FEET_PER_SQUARE,
    MIN_SPEED_FOR_FIVE_FOOT_STEP,
)

_DIFFICULT = cython.declare(cython.int, DIFFICULT_MULTIPLIER)
_SURCHARGE = cython.declare(cython.int, FACING_SURCHARGE_MULTIPLIER)
_FEET = cython.declare(cython.int, FEET_PER_SQUARE)
_FIVE_SPEED = cython.declare(cython.int, MIN_SPEED_FOR_FIVE_FOOT_STEP)
_MAX_ACTIONS = cython.declare(cython.int, engine.MAX_ACTIONS_PER_TURN)


@cython.cfunc
def _occupied(battle: Any, m: Any, cells: tuple) -> cython.int:
    """``rules.movement.blocked_or_occupied``: 2 when an enemy bars the cells, 1 when
    another creature is there, else 0."""
    occupancy = battle._occupancy
    occupied: cython.int = 0
    for cell in cells:
        here = occupancy.get(cell)
        if here is None:
            continue
        for other in here:
            if other != m.id:
                o = battle.creatures[other]
                if o.team != m.team and not _steps_over(m, o):
                    return 2
                occupied = 1
    return occupied


def legal_actions(battle: Any, costs: dict) -> list:
    """Every action the acting creature may take now, in the engine scan's order;
    ``costs`` receives the movement cost of every legal MOVE and STEP_KEEP_FACING."""
    c = actor(battle)
    if c is None:
        return []
    ts = battle.turn
    legal: list = [_END]
    if ts.actions_taken >= _MAX_ACTIONS:
        return legal
    move_available: cython.bint = ts.move_available
    standard_available: cython.bint = ts.standard_available
    moved: cython.bint = ts.moved
    running: cython.bint = ts.running
    stepped: cython.bint = ts.five_foot_step_taken
    attacks_made: cython.int = ts.attacks_made
    speed: cython.int = c.speed
    fresh: cython.bint = move_available and standard_available and attacks_made == 0
    if fresh and not (moved or stepped or running) and speed >= _FEET:  # _check_run
        legal.append(_RUN)
    turnable: cython.bint = battle.rules.has_facing and c.has_facing
    walk: cython.bint = not stepped
    capacity: cython.int = 0
    if walk:  # engine.movement_capacity
        left: cython.int = ts.movement_left if ts.moving else 0
        if running:
            capacity = left
        else:
            spare: cython.int = move_available + (standard_available and attacks_made == 0)
            capacity = left + spare * (speed // _FEET)
    full_round_ok: cython.bint = (
        not moved and move_available and standard_available and attacks_made == 0 and not running
    )
    five_ok: cython.bint = not (moved or stepped or running) and speed >= _FIVE_SPEED
    diagonals: cython.int = ts.diagonals
    odd: cython.bint = diagonals % 2 == 1 and battle.diagonal_rule == "alternating"
    # battle.table(c) is not None exactly when the creature turns (has_facing both ways)
    surcharge: cython.bint = battle.rules.movement_surcharge and turnable
    rows = _facing_rows(battle, c) if turnable or surcharge else None
    moves: list = []
    keeps: list = []
    fives: list = []
    occupied: cython.int
    d: cython.int
    cost: cython.int
    keeps_facing: cython.bint
    front: cython.bint
    difficult: cython.bint
    impeded: cython.bint
    t: tuple
    for row in direction_rows(battle, c.shape, c.pos):
        # a DirectionRow (d, open, difficult, impeded, cells, diagonal), read as a tuple
        t = cython.cast(tuple, row)
        if not t[1]:
            continue
        occupied = _occupied(battle, c, t[4])
        if occupied == 2:
            continue
        difficult = t[2]
        impeded = t[3]
        d = t[0]
        if walk and not occupied and not (running and difficult):
            if rows is not None:
                keeps_facing, front = rows[d]
            else:
                keeps_facing, front = True, True
            if impeded:  # EP-TER-02: a full-round action
                if full_round_ok:
                    moves.append(_MOVES[d])
                    costs[_MOVES[d]] = FULL_ROUND
                    if turnable and not keeps_facing:
                        keeps.append(_KEEPS[d])
                        costs[_KEEPS[d]] = FULL_ROUND
            else:
                cost = 2 if t[5] and odd else 1  # rules.movement.walk_cost
                if difficult:
                    cost *= _DIFFICULT
                if cost <= capacity:
                    moves.append(_MOVES[d])
                    costs[_MOVES[d]] = cost
                if turnable and not keeps_facing:
                    if surcharge and not front:
                        cost *= _SURCHARGE
                    if cost <= capacity:
                        keeps.append(_KEEPS[d])
                        costs[_KEEPS[d]] = cost
        if five_ok and not (occupied or difficult or impeded):
            fives.append(_FIVES[d])  # EP-5FT-03
    legal += moves
    legal += keeps
    legal += fives
    if turnable and _turn_cost(battle) is not None:
        legal.extend(_turn_actions(battle.kind, battle.ruleset, c.shape, c.facing))
    _add_maneuvers(battle, c, legal)
    _add_attacks(battle, c, legal)
    return legal
