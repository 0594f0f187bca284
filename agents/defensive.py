"""The ``defensive`` agent: hold the line, keep enemies in front, strike what comes.

Its decision kernels (:func:`_defensive`, with :func:`_withdrawal`, :func:`_retreat`,
:func:`_defensive_step` and :func:`_walls_behind`) and its batch kernel
(:func:`_defensive_batch`) are here (it has no parameters); :class:`DefensiveAgent`, last,
runs them (``act``: a batch of one)."""

from __future__ import annotations

import numpy as np
from numba import njit

from facing_env.agents.base import ScriptedAgent
from facing_env.agents.kernels.geometry import (
    _FLANK,
    _REAR,
    _angle_between,
    _area_of_cell,
    _centre,
    _contains,
    _gap,
)
from facing_env.agents.kernels.paths import _threat_sum, _threatened
from facing_env.agents.kernels.runner import BatchAgent
from facing_env.agents.kernels.spec import _spec
from facing_env.agents.kernels.tactics import _face, _guard, _nearest
from facing_env.agents.kernels.view import (
    _BIG,
    _CN,
    _DIR_X,
    _DIR_Y,
    _ENEMIES,
    _FREE,
    _NO,
    _at,
    _legal,
    _on,
    _row,
    _scalar,
    _value,
    _workspace,
)


@njit(cache=True)
def _defensive(s, geo, obs, mask, cells, slots, anchors, turns):
    """``DefensiveAgent``: withdraws when two or more enemies threaten it (from the most
    dangerous) and then walks out of every threat; otherwise attacks whatever is in reach
    (best facing modifier, then the most wounded), turning to face it first; otherwise
    takes a 5-foot step that brings a foe into reach without entering any foe's threat, or
    that puts more walls behind it; turns to face the nearest enemy; readies an attack."""
    if geo.n_enemies == 0:
        return _NO
    if np.float64(obs[s.tactic_scalars + s.tsc_withdrawing]) > 0.5:
        return _retreat(s, geo, obs, mask, cells, slots, anchors, turns)
    away = _withdrawal(s, geo, obs, mask, slots)
    if away != _NO:
        return away
    hit = _NO
    best_mod = 0.0
    best_hp = 0.0
    for k in range(geo.n_enemies):
        e = slots[_ENEMIES, k]
        if not _legal(mask, s.attack_base + e):
            continue
        mod = _value(s, obs, e, s.col_my_facing_modifier)
        hp = -_value(s, obs, e, s.col_hp_fraction)
        if hit == _NO or mod > best_mod or (mod == best_mod and hp > best_hp):
            hit = e
            best_mod = mod
            best_hp = hp
    if hit != _NO:
        turn = _face(s, geo, obs, mask, cells, slots, turns, hit)
        return turn if turn != _NO else s.attack_base + hit
    nearest = _nearest(s, geo, obs, slots)
    step = _defensive_step(s, geo, obs, mask, cells, slots, anchors, nearest)
    if step != _NO:
        return step
    turn = _face(s, geo, obs, mask, cells, slots, turns, nearest)
    if turn != _NO:
        return turn
    if _legal(mask, s.ready):
        return s.ready
    return _guard(s, geo, mask, cells, slots, turns)


@njit(cache=True)
def _withdrawal(s, geo, obs, mask, slots):
    """WITHDRAW from the most dangerous of two or more threatening enemies."""
    threats = 0
    for k in range(geo.n_enemies):
        if _value(s, obs, slots[_ENEMIES, k], s.col_threatens_me) > 0.5:
            threats += 1
    if threats < 2:
        return _NO
    withdraw = s.attack_base + 2 * s.n_slots
    worst = _NO
    worst_mod = 0.0
    for k in range(geo.n_enemies):
        e = slots[_ENEMIES, k]
        if _value(s, obs, e, s.col_threatens_me) > 0.5 and _legal(mask, withdraw + e):
            mod = _value(s, obs, e, s.col_its_facing_modifier)
            if worst == _NO or mod > worst_mod:  # ties: the lower slot (key -slot)
                worst = e
                worst_mod = mod
    return _NO if worst == _NO else withdraw + worst


@njit(cache=True)
def _retreat(s, geo, obs, mask, cells, slots, anchors, turns):
    """During a withdrawal: the legal step to the least threatened free square (then the
    furthest from the nearest enemy) while here is threatened; then face the nearest."""
    nearest = _nearest(s, geo, obs, slots)
    if _threat_sum(s, geo, obs, cells, slots, 0, 0) > 0:
        best = _NO
        k0 = 0.0
        k1 = 0
        k2 = 0
        for d in range(geo.n_dir):
            vx = slots[_DIR_X, d]
            vy = slots[_DIR_Y, d]
            if not _legal(mask, s.move_base + d) or not _on(geo, anchors, _FREE, vx, vy):
                continue
            a0 = -_threat_sum(s, geo, obs, cells, slots, vx, vy)
            a1 = _BIG
            for k in range(geo.n_enemies):
                a1 = min(a1, _gap(geo, cells, slots, 0, vx, vy, slots[_ENEMIES, k], 0, 0))
            a2 = -d
            if best == _NO or a0 > k0 or (a0 == k0 and (a1 > k1 or (a1 == k1 and a2 > k2))):
                best = s.move_base + d
                k0 = a0
                k1 = a1
                k2 = a2
        if best != _NO:
            return best
    return _face(s, geo, obs, mask, cells, slots, turns, nearest)


@njit(cache=True)
def _defensive_step(s, geo, obs, mask, cells, slots, anchors, nearest):
    """A 5-foot step into reach of a foe from outside every foe's threat, or to a square
    with more walls behind (facing the nearest enemy)."""
    here = _walls_behind(s, geo, obs, cells, slots, 0, 0, nearest)
    can_strike = _scalar(s, obs, s.sc_standard_available) > 0.5 and (
        _scalar(s, obs, s.sc_attacks_made) == 0
    )
    best = _NO
    k0 = 0
    k1 = here
    for d in range(geo.n_dir):
        vx = slots[_DIR_X, d]
        vy = slots[_DIR_Y, d]
        if not _legal(mask, s.five_foot_base + d) or not _on(geo, anchors, _FREE, vx, vy):
            continue
        if _threatened(s, geo, obs, cells, slots, vx, vy):
            continue
        in_reach = 0
        if can_strike:
            for k in range(geo.n_enemies):
                if _gap(geo, cells, slots, 0, vx, vy, slots[_ENEMIES, k], 0, 0) <= geo.reach:
                    in_reach = 1
                    break
        walls = _walls_behind(s, geo, obs, cells, slots, vx, vy, nearest)
        if in_reach > k0 or (in_reach == k0 and walls > k1):
            best = s.five_foot_base + d
            k0 = in_reach
            k1 = walls
    return best


@njit(cache=True)
def _walls_behind(s, geo, obs, cells, slots, ax, ay, nearest):
    """Blocked cells around the footprint at an anchor that would be in the observer's
    flank or rear when it faces the nearest enemy (each ring cell counted once)."""
    facing = _angle_between(geo, cells, slots, 0, ax, ay, nearest, 0, 0)
    ocx, ocy = _centre(geo, cells, slots, 0, ax, ay)
    n_self = slots[_CN, 0]
    ring = np.empty((n_self * geo.n_dir, 2), dtype=np.int64)
    n_ring = 0
    count = 0
    for i in range(n_self):
        for d in range(geo.n_dir):
            x = cells[0, i, 0] + ax + slots[_DIR_X, d]
            y = cells[0, i, 1] + ay + slots[_DIR_Y, d]
            if _contains(cells, slots, 0, ax, ay, x, y):
                continue
            seen = False
            for j in range(n_ring):
                if ring[j, 0] == x and ring[j, 1] == y:
                    seen = True
                    break
            if seen:
                continue
            ring[n_ring, 0] = x
            ring[n_ring, 1] = y
            n_ring += 1
            if _at(s, geo, obs, s.ch_blocked, x, y) != 0:
                found = _area_of_cell(geo, facing, ocx, ocy, x, y)
                if found in (_FLANK, _REAR):
                    count += 1
    return count


# -- the batch kernel (runner.BatchAgent runs it) -------------------------------------------


@njit(cache=True)
def _defensive_batch(ints, floats, shapes, shape_cells, directions, observations, masks, out):
    s = _spec(ints, floats)
    cells, slots, anchors, turns = _workspace(s, shapes)
    for i in range(observations.shape[0]):
        obs, mask = observations[i], masks[i]
        geo = _row(s, shapes, shape_cells, directions, obs, mask, cells, slots, anchors, turns)
        action = _defensive(s, geo, obs, mask, cells, slots, anchors, turns)
        out[i] = action if _legal(mask, action) else s.end_turn


class DefensiveAgent(ScriptedAgent):
    """Withdraws when flanked (two or more enemies threaten it; from the most dangerous,
    EP-WDR-01) and then walks out of every threat (the legal step to the least threatened
    free square, then the one furthest from the enemies); otherwise attacks whatever is in
    reach (best facing modifier, then the most wounded), turning to face it first;
    otherwise takes a 5-foot step that brings a foe into its reach without entering any
    foe's threat (reach), or that puts more walls in its flank or rear when it faces the
    nearest enemy, turns to face the nearest enemy and readies an attack against whoever
    comes (UA-PER-02), else turns to lower its exposure (``tactics.guard``: the ``_guard``
    kernel). It never walks toward the enemy."""

    name = "defensive"
    batch = BatchAgent(name, _defensive_batch)
