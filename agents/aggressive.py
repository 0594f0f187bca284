"""The ``aggressive`` agent: charge the closest enemy and hit it.

Its parameter (:data:`FAR`), its decision kernel (:func:`_aggressive`, with
:func:`_closer` and :func:`_toward`) and its batch kernel (:func:`_aggressive_batch`) are
here; :class:`AggressiveAgent`, last, runs them (``act``: a batch of one)."""

from __future__ import annotations

from numba import njit

from facing_env.agents.base import ScriptedAgent
from facing_env.agents.kernels.geometry import _gap
from facing_env.agents.kernels.paths import _paths, _routes
from facing_env.agents.kernels.runner import BatchAgent
from facing_env.agents.kernels.spec import _spec
from facing_env.agents.kernels.tactics import _face
from facing_env.agents.kernels.view import (
    _ENEMIES,
    _NO,
    _distance,
    _legal,
    _row,
    _value,
    _workspace,
)

FAR = 1e6
"""The cost limit of its walks (squares): the whole window."""

PARAMETERS = {"far": FAR}
"""The :class:`~facing_env.agents.kernels.spec.Spec` fields it sets."""


@njit(cache=True)
def _closer(s, obs, a, b):
    """Whether enemy ``a`` ranks before ``b`` for the aggressive agent: by (distance, hp
    fraction, slot)."""
    da = _distance(s, obs, a)
    db = _distance(s, obs, b)
    if da != db:
        return da < db
    ha = _value(s, obs, a, s.col_hp_fraction)
    hb = _value(s, obs, b, s.col_hp_fraction)
    if ha != hb:
        return ha < hb
    return a < b


@njit(cache=True)
def _aggressive(s, geo, obs, mask, cells, slots, anchors, turns, paths):
    """``AggressiveAgent``: targets the closest enemy (ties: lowest hp fraction, then
    slot); attacks it when ATTACK is legal (another enemy in reach if not), turning to face
    it first; else charges it (the closest enemy it can charge if not); else walks toward
    it with MOVE, ignoring attacks of opportunity; ends the turn when nothing helps."""
    if geo.n_enemies == 0:
        return _NO
    enemies = slots[_ENEMIES, : geo.n_enemies]
    target = enemies[0]
    for e in enemies:
        if _closer(s, obs, e, target):
            target = e
    hit = _NO
    for e in enemies:
        if _legal(mask, s.attack_base + e) and (hit == _NO or _closer(s, obs, e, hit)):
            hit = e
    if hit != _NO:
        if _legal(mask, s.attack_base + target):
            hit = target
        turn = _face(s, geo, obs, mask, cells, slots, turns, hit)
        return turn if turn != _NO else s.attack_base + hit
    charge = s.attack_base + s.n_slots
    rush = _NO
    for e in enemies:
        if _legal(mask, charge + e) and (rush == _NO or _closer(s, obs, e, rush)):
            rush = e
    if rush != _NO:
        if _legal(mask, charge + target):
            rush = target
        return charge + rush
    if _distance(s, obs, target) > geo.reach:
        step = _toward(s, geo, obs, mask, cells, slots, anchors, paths, target)
        if step != _NO:
            return step
    return _face(s, geo, obs, mask, cells, slots, turns, target)


@njit(cache=True)
def _toward(s, geo, obs, mask, cells, slots, anchors, paths, target):
    """The first MOVE of the shortest walk into reach of ``target`` (or toward the
    reachable spot nearest to it), ignoring attacks of opportunity."""
    n_order = _routes(s, geo, obs, mask, cells, slots, anchors, paths, s.far, 0.0)
    _, cost_of, _, first_of, order = paths[:5]
    ao = geo.ao
    best_d = -1
    best_cost = 0.0
    first = _NO
    for i in range(n_order):
        x = order[i, 0]
        y = order[i, 1]
        d = max(_gap(geo, cells, slots, 0, x, y, target, 0, 0) - geo.reach, 0)
        cost = cost_of[y + ao, x + ao]
        if best_d < 0 or d < best_d or (d == best_d and cost < best_cost):
            best_d = d
            best_cost = cost
            first = first_of[y + ao, x + ao]
    return _NO if first < 0 else s.move_base + first


# -- the batch kernel (runner.BatchAgent runs it) -------------------------------------------


@njit(cache=True)
def _aggressive_batch(ints, floats, shapes, shape_cells, directions, observations, masks, out):
    s = _spec(ints, floats)
    cells, slots, anchors, turns = _workspace(s, shapes)
    paths = _paths(s)
    for i in range(observations.shape[0]):
        obs, mask = observations[i], masks[i]
        geo = _row(s, shapes, shape_cells, directions, obs, mask, cells, slots, anchors, turns)
        action = _aggressive(s, geo, obs, mask, cells, slots, anchors, turns, paths)
        out[i] = action if _legal(mask, action) else s.end_turn


class AggressiveAgent(ScriptedAgent):
    """Targets the closest enemy (ties: lowest hp fraction, then slot). Attacks it whenever
    ATTACK is legal (another enemy in reach if it is not), turning to face it first; else
    charges it when CHARGE is legal (the closest enemy it can charge if not: EP-CHG-01);
    else walks toward it with MOVE, ignoring attacks of opportunity (the first step of the
    shortest walk into its reach, or toward the reachable spot nearest to it); ends the
    turn when nothing helps."""

    name = "aggressive"
    batch = BatchAgent(name, _aggressive_batch, PARAMETERS)
