"""Turning, movement budgets and the nearest foe in a kernel (what the reference
``tactics`` of ``tests/reference/tactics.py`` computes), and :data:`ASSUMED_SPEED`."""

from __future__ import annotations

from numba import njit

from facing_env.agents.kernels.geometry import _angle_between, _angle_gap, _danger
from facing_env.agents.kernels.view import _ENEMIES, _NO, _distance, _legal, _scalar, _value

ASSUMED_SPEED = 6
"""Squares per move action assumed for a foe when judging how far it can strike (30 ft)."""


@njit(cache=True)
def _turn_toward(s, geo, mask, turns, angle):
    """``tactics.turn_toward``: the legal TURN closest to ``angle`` if it points there
    better than now."""
    if not geo.own_has:
        return _NO
    best = _NO
    best_gap = _angle_gap(geo.own, angle) - 1e-6
    for i in range(min(geo.n_turn, s.n_directions)):
        gap = _angle_gap(turns[i], angle)
        if _legal(mask, s.turn_base + i) and gap < best_gap:
            best = s.turn_base + i
            best_gap = gap
    return best


@njit(cache=True)
def _face(s, geo, obs, mask, cells, slots, turns, slot):
    """``tactics.face``: a TURN that puts ``slot`` in the observer's front."""
    if _value(s, obs, slot, s.col_in_my_front) > 0.5 or not geo.own_has:
        return _NO
    angle = _angle_between(geo, cells, slots, 0, 0, 0, slot, 0, 0)
    return _turn_toward(s, geo, mask, turns, angle)


@njit(cache=True)
def _guard(s, geo, mask, cells, slots, turns):
    """``tactics.guard``: a TURN that lowers the danger here, if one is legal."""
    if not geo.own_has:
        return _NO
    best = _NO
    near = s.assumed_speed + 1
    best_score = _danger(geo, cells, slots, near, geo.own, 0, 0) - 1e-6
    for i in range(min(geo.n_turn, s.n_directions)):
        if _legal(mask, s.turn_base + i):
            score = _danger(geo, cells, slots, near, turns[i], 0, 0)
            if score < best_score:
                best = s.turn_base + i
                best_score = score
    return best


@njit(cache=True)
def _move_budget(s, geo, obs):
    """``tactics.move_budget``: squares to walk and still attack."""
    if _scalar(s, obs, s.sc_standard_available) < 0.5 or _scalar(s, obs, s.sc_attacks_made) > 0:
        return 0.0
    if _scalar(s, obs, s.sc_running) > 0.5:
        return 0.0
    if _scalar(s, obs, s.sc_moving) > 0.5:
        return max(0.0, (4.0 * _scalar(s, obs, s.sc_movement_left) - 1.0) * geo.speed)
    fresh = _scalar(s, obs, s.sc_five_foot_step_available) > 0.5 and (
        _scalar(s, obs, s.sc_move_available) > 0.5
    )
    return float(geo.speed) if fresh else 0.0


@njit(cache=True)
def _total_budget(s, geo, obs):
    """``tactics.total_budget``: squares the observer can still walk."""
    return 4.0 * _scalar(s, obs, s.sc_movement_left) * geo.speed


@njit(cache=True)
def _nearest(s, geo, obs, slots):
    """The nearest enemy, by the table's distance (ties: the lowest slot)."""
    nearest = slots[_ENEMIES, 0]
    for k in range(geo.n_enemies):
        e = slots[_ENEMIES, k]
        if _distance(s, obs, e) < _distance(s, obs, nearest):
            nearest = e
    return nearest
