"""The ``flanker`` agent: strike foes from their flank or rear (UA-OPP-01, UA-OPP-02,
UA-SNK-01) and never walk out of a threatened square when a 5-foot step will do.

Each action it scores every way to attack this turn (from here; after a 5-foot step, which
provokes nothing, SRD-AOO-04; after a walk along the route that draws the fewest attacks of
opportunity) by the area of the target it attacks from, the target's wounds and armour, an
ally on the far side of the target (the foe can face only one of them), the exposure of
the spot to other foes, and the attacks of opportunity of the way there. Without an attack
this turn it waits just outside every foe's striking distance (so a charging foe arrives
with no attack left) or closes in; it ends each turn facing the foes that threaten it.

Its logic is the ``_flanker`` kernel below (with its helpers and the batch kernel
:func:`_flanker_batch`), which reads the values below through the ``Spec``
(:data:`PARAMETERS`); :class:`FlankerAgent`, last, runs it (``act``: a batch of one).
"""

from __future__ import annotations

from numba import njit

from facing_env.agents.base import ScriptedAgent
from facing_env.agents.kernels.geometry import (
    _FLANK,
    _FRONT,
    _REAR,
    _angle_between,
    _angle_gap,
    _area,
    _danger,
    _gap,
)
from facing_env.agents.kernels.paths import _paths, _routes
from facing_env.agents.kernels.runner import BatchAgent
from facing_env.agents.kernels.spec import _spec
from facing_env.agents.kernels.tactics import (
    ASSUMED_SPEED,
    _face,
    _guard,
    _move_budget,
    _total_budget,
)
from facing_env.agents.kernels.view import (
    _ALLIES,
    _BIG,
    _CN,
    _DIR_X,
    _DIR_Y,
    _ENEMIES,
    _FREE,
    _NO,
    _at,
    _distance,
    _facing,
    _legal,
    _on,
    _row,
    _scalar,
    _value,
    _workspace,
)

AREA_VALUE = {"rear": 4.0, "flank": 2.0, "front": 0.0, "none": 0.0}
SNEAK_VALUE = 5.0  # sneak attack damage, in attack-bonus points, if it may apply
AOO_COST = 12.0  # one attack of opportunity drawn
WOUND_VALUE = 4.0  # a foe at 0 hp fraction vs an unhurt one
OPPOSITE_VALUE = 2.0  # an ally straight across the target
EXPOSURE = 0.5  # per point of ``tactics.danger`` (the ``_danger`` kernel) at the attack spot
HOW_BONUS = {"stay": 0.6, "five": 0.4, "move": 0.0}
STANDOFF_ROUNDS = 0.2  # wait for a charge only in the first fifth of the battle
FOLLOW = 2  # squares a follower keeps behind its leader, measured to the nearest foe
STRIKE_DISTANCE = ASSUMED_SPEED + 1  # a foe this close may walk up and attack

PARAMETERS = {
    "follow": FOLLOW,
    "strike_distance": STRIKE_DISTANCE,
    "value_none": AREA_VALUE["none"],
    "value_front": AREA_VALUE["front"],
    "value_flank": AREA_VALUE["flank"],
    "value_rear": AREA_VALUE["rear"],
    "bonus_stay": HOW_BONUS["stay"],
    "bonus_five": HOW_BONUS["five"],
    "bonus_move": HOW_BONUS["move"],
    "sneak_value": SNEAK_VALUE,
    "aoo_cost": AOO_COST,
    "wound_value": WOUND_VALUE,
    "opposite_value": OPPOSITE_VALUE,
    "exposure": EXPOSURE,
    "standoff_rounds": STANDOFF_ROUNDS,
}
"""The :class:`~facing_env.agents.kernels.spec.Spec` fields it sets: the values above."""

# how the flanker reaches an attack (HOW_BONUS)
_STAY, _FIVE, _MOVE = 0, 1, 2


@njit(cache=True)
def _flanker(s, geo, obs, mask, cells, slots, anchors, turns, paths):
    """``FlankerAgent``: scores every way to attack this turn (from here, after a 5-foot
    step, after a walk along the route drawing the fewest attacks of opportunity) and
    takes the best (turning to face the target first when it attacks from here); without
    one it closes in (or waits out of striking distance early on), steps back out of reach
    after attacking when an ally holds the foes, or turns to guard."""
    if geo.n_enemies == 0:
        return _NO
    action, target = _best_attack(s, geo, obs, mask, cells, slots, anchors, turns, paths)
    if action != _NO:
        if action == s.attack_base + target:
            turn = _face(s, geo, obs, mask, cells, slots, turns, target)
            return turn if turn != _NO else action
        return action
    if _scalar(s, obs, s.sc_attacks_made) == 0 and _scalar(s, obs, s.sc_standard_available) > 0.5:
        step = _approach(s, geo, obs, mask, cells, slots, anchors, paths)
    else:
        step = _step_back(s, geo, obs, mask, cells, slots, anchors)
    return step if step != _NO else _guard(s, geo, mask, cells, slots, turns)


# complexity above 15 on purpose: the attack options of the Python agent, scored in one
# pass in its order (a call passing the row's arrays costs more than a branch)
@njit(cache=True)
def _best_attack(s, geo, obs, mask, cells, slots, anchors, turns, paths):  # noqa: C901
    """(action, target) of the best-scored way to attack this turn, the first of equal
    ones in ``FlankerAgent.attack_options``' order; (_NO, _NO) if there is none."""
    sneak = _may_sneak(s, geo, obs, slots)
    best_action = _NO
    best_target = _NO
    best = 0.0
    for k in range(geo.n_enemies):
        e = slots[_ENEMIES, k]
        if _legal(mask, s.attack_base + e):
            v = _worth(s, geo, obs, mask, cells, slots, turns, e, 0, 0, _STAY, sneak)
            if best_action == _NO or v > best:
                best, best_action, best_target = v, s.attack_base + e, e
    if _scalar(s, obs, s.sc_attacks_made) > 0 or _scalar(s, obs, s.sc_standard_available) < 0.5:
        return best_action, best_target  # iterative attacks strike from here
    for d in range(geo.n_dir):
        vx = slots[_DIR_X, d]
        vy = slots[_DIR_Y, d]
        if _legal(mask, s.five_foot_base + d) and _on(geo, anchors, _FREE, vx, vy):
            for k in range(geo.n_enemies):
                e = slots[_ENEMIES, k]
                if _gap(geo, cells, slots, 0, vx, vy, e, 0, 0) <= geo.reach:
                    v = _worth(s, geo, obs, mask, cells, slots, turns, e, vx, vy, _FIVE, sneak)
                    if best_action == _NO or v > best:
                        best, best_action, best_target = v, s.five_foot_base + d, e
    budget = _move_budget(s, geo, obs)
    if budget > 0:
        n_order = _routes(s, geo, obs, mask, cells, slots, anchors, paths, budget + 1e-3, 10.0)
        _, cost_of, provoked_of, first_of, order = paths[:5]
        ao = geo.ao
        for i in range(n_order):
            x = order[i, 0]
            y = order[i, 1]
            first = first_of[y + ao, x + ao]
            if first < 0:
                continue
            cost = s.aoo_cost * provoked_of[y + ao, x + ao] + 0.1 * cost_of[y + ao, x + ao]
            for k in range(geo.n_enemies):
                e = slots[_ENEMIES, k]
                if _gap(geo, cells, slots, 0, x, y, e, 0, 0) <= geo.reach:
                    v = _worth(s, geo, obs, mask, cells, slots, turns, e, x, y, _MOVE, sneak)
                    v -= cost
                    if best_action == _NO or v > best:
                        best, best_action, best_target = v, s.move_base + first, e
    return best_action, best_target


@njit(cache=True)
def _area_value(s, area):
    """``flanker.AREA_VALUE``."""
    if area == _REAR:
        return s.value_rear
    if area == _FLANK:
        return s.value_flank
    if area == _FRONT:
        return s.value_front
    return s.value_none


@njit(cache=True)
def _worth(s, geo, obs, mask, cells, slots, turns, target, ax, ay, how, sneak):
    """``FlankerAgent.value``: worth of attacking ``target`` from the anchor (in
    attack-bonus points); ``sneak``: :func:`_may_sneak`."""
    has, facing_t = _facing(s, obs, target)
    where = _area(geo, cells, slots, has, facing_t, target, 0, 0, 0, ax, ay)
    bonus = s.bonus_stay if how == _STAY else (s.bonus_five if how == _FIVE else s.bonus_move)
    value = _area_value(s, where) + bonus
    flat = _value(s, obs, target, s.col_flat_footed) > 0.5
    if (where == _REAR or flat) and sneak:
        value += s.sneak_value
    value += s.wound_value * (1.0 - _value(s, obs, target, s.col_hp_fraction))
    value -= 30.0 * _value(s, obs, target, s.col_ac)
    value += s.opposite_value * _opposite(geo, cells, slots, target, ax, ay)
    facing = _angle_between(geo, cells, slots, 0, ax, ay, target, 0, 0)
    if (
        how == _STAY
        and _face(s, geo, obs, mask, cells, slots, turns, target) == _NO
        and geo.own_has
    ):
        facing = geo.own  # cannot turn: attack from the current facing
        mod = _value(s, obs, target, s.col_my_facing_modifier)
        value += 10.0 * mod - _area_value(s, where)
    near = s.assumed_speed + 1
    return value - s.exposure * _danger(geo, cells, slots, near, facing, ax, ay)


@njit(cache=True)
def _may_sneak(s, geo, obs, slots):
    """Whether sneak attack may apply from a rear (unknown unless seen: assume yes)."""
    seen = False
    rear = False
    for k in range(geo.n_enemies):
        e = slots[_ENEMIES, k]
        if obs[s.table + e * s.n_features + s.col_my_sneak_attack] != 0:
            seen = True
        if _value(s, obs, e, s.col_me_in_its_rear) > 0.5:
            rear = True
    return seen or not rear


@njit(cache=True)
def _opposite(geo, cells, slots, target, ax, ay):
    """1 when an ally next to ``target`` stands straight across it from the anchor."""
    best = 0.0
    for k in range(geo.n_allies):
        a = slots[_ALLIES, k]
        if _gap(geo, cells, slots, a, 0, 0, target, 0, 0) > 1:
            continue
        me = _angle_between(geo, cells, slots, target, 0, 0, 0, ax, ay)
        ally = _angle_between(geo, cells, slots, target, 0, 0, a, 0, 0)
        v = _angle_gap(me, ally) / 180.0
        if v > best:
            best = v
    return best


@njit(cache=True)
def _threat_max(s, geo, obs, cells, slots, ax, ay):
    """``FlankerAgent.threat``: enemies threatening the footprint at an anchor."""
    best = 0.0
    for i in range(slots[_CN, 0]):
        v = 4.0 * _at(s, geo, obs, s.ch_threat, cells[0, i, 0] + ax, cells[0, i, 1] + ay)
        if i == 0 or v > best:
            best = v
    return best


@njit(cache=True)
def _step_back(s, geo, obs, mask, cells, slots, anchors):
    """After attacking, a 5-foot step out of the foes' reach when an ally holds them: to
    the least threatened square, if less threatened than here."""
    if _scalar(s, obs, s.sc_attacks_made) == 0:
        return _NO
    here = _threat_max(s, geo, obs, cells, slots, 0, 0)
    if here == 0 or not _ally_engaged(s, geo, obs, cells, slots):
        return _NO
    best = _NO
    best_threat = here
    for d in range(geo.n_dir):
        vx = slots[_DIR_X, d]
        vy = slots[_DIR_Y, d]
        if _legal(mask, s.five_foot_base + d) and _on(geo, anchors, _FREE, vx, vy):
            threat = _threat_max(s, geo, obs, cells, slots, vx, vy)
            if threat < best_threat:
                best = s.five_foot_base + d
                best_threat = threat
    return best


@njit(cache=True)
def _ally_engaged(s, geo, obs, cells, slots):
    """Whether an ally that should hold (the leader, or a less wounded ally) stands next
    to an enemy that threatens the observer."""
    mine = _value(s, obs, 0, s.col_hp_fraction)
    lead = _leader(s, geo, obs, slots)
    for i in range(geo.n_allies):
        a = slots[_ALLIES, i]
        for k in range(geo.n_enemies):
            e = slots[_ENEMIES, k]
            threatens = _value(s, obs, e, s.col_threatens_me) > 0.5
            if (
                threatens
                and _gap(geo, cells, slots, a, 0, 0, e, 0, 0) <= 1
                and (a == lead or _value(s, obs, a, s.col_hp_fraction) >= mine)
            ):
                return True
    return False


@njit(cache=True)
def _leader(s, geo, obs, slots):
    """The ally that leads the approach (highest AC, then hit points, then the
    north-west-most), or _NO when the observer leads."""
    w = s.window
    best = 0
    b0 = -_value(s, obs, 0, s.col_ac)
    b1 = -_value(s, obs, 0, s.col_hp)
    b2 = round(_value(s, obs, 0, s.col_dy) * w)
    b3 = round(_value(s, obs, 0, s.col_dx) * w)
    for i in range(geo.n_allies):
        a = slots[_ALLIES, i]
        k0 = -_value(s, obs, a, s.col_ac)
        k1 = -_value(s, obs, a, s.col_hp)
        k2 = round(_value(s, obs, a, s.col_dy) * w)
        k3 = round(_value(s, obs, a, s.col_dx) * w)
        if k0 != b0:
            better = k0 < b0
        elif k1 != b1:
            better = k1 < b1
        elif k2 != b2:
            better = k2 < b2
        else:
            better = k3 < b3
        if better:
            best, b0, b1, b2, b3 = a, k0, k1, k2, k3
    return _NO if best == 0 else best


@njit(cache=True)
def _enemy_gap(geo, cells, slots, a, ax, ay):
    """Distance from slot ``a``'s cells (moved) to the nearest enemy."""
    best = _BIG
    for k in range(geo.n_enemies):
        best = min(best, _gap(geo, cells, slots, a, ax, ay, slots[_ENEMIES, k], 0, 0))
    return best


@njit(cache=True)
def _approach(s, geo, obs, mask, cells, slots, anchors, paths):
    """A MOVE toward the spot that keeps every foe out of striking distance (early in the
    battle) while nearest the weakest foe; a follower keeps ``follow`` squares further
    from the foes than its leader. _NO to stay."""
    target = slots[_ENEMIES, 0]
    t_key = _distance(s, obs, target) + 3 * _value(s, obs, target, s.col_hp_fraction)
    for k in range(geo.n_enemies):
        e = slots[_ENEMIES, k]
        key = _distance(s, obs, e) + 3 * _value(s, obs, e, s.col_hp_fraction)
        if key < t_key:
            target = e
            t_key = key
    wait = 1 if _scalar(s, obs, s.sc_round_fraction) <= s.standoff_rounds else 0
    lead = _leader(s, geo, obs, slots)
    lead_gap = _enemy_gap(geo, cells, slots, lead, 0, 0) if lead != _NO else 0
    budget = _total_budget(s, geo, obs) + 1e-3
    n_order = _routes(s, geo, obs, mask, cells, slots, anchors, paths, budget, 10.0)
    _, cost_of, provoked_of, first_of, order = paths[:5]
    ao = geo.ao
    best = _NO
    b0 = 0.0
    b1 = 0
    b2 = 0
    b3 = 0
    b4 = 0.0
    for i in range(n_order):
        x = order[i, 0]
        y = order[i, 1]
        close = 0
        for k in range(geo.n_enemies):
            if _gap(geo, cells, slots, 0, x, y, slots[_ENEMIES, k], 0, 0) <= s.strike_distance:
                close += 1
        close *= wait
        behind = 0
        if lead != _NO:
            behind = max(0, lead_gap + s.follow - _enemy_gap(geo, cells, slots, 0, x, y))
        k0 = -provoked_of[y + ao, x + ao]
        k1 = -close
        k2 = -behind
        k3 = -_gap(geo, cells, slots, 0, x, y, target, 0, 0)
        k4 = -cost_of[y + ao, x + ao]
        if k0 != b0:
            better = k0 > b0
        elif k1 != b1:
            better = k1 > b1
        elif k2 != b2:
            better = k2 > b2
        elif k3 != b3:
            better = k3 > b3
        else:
            better = k4 > b4
        if i == 0 or better:
            best = first_of[y + ao, x + ao]
            b0, b1, b2, b3, b4 = k0, k1, k2, k3, k4
    return _NO if best < 0 else s.move_base + best


# -- the batch kernel (runner.BatchAgent runs it) -------------------------------------------


@njit(cache=True)
def _flanker_batch(ints, floats, shapes, shape_cells, directions, observations, masks, out):
    s = _spec(ints, floats)
    cells, slots, anchors, turns = _workspace(s, shapes)
    paths = _paths(s)
    for i in range(observations.shape[0]):
        obs, mask = observations[i], masks[i]
        geo = _row(s, shapes, shape_cells, directions, obs, mask, cells, slots, anchors, turns)
        action = _flanker(s, geo, obs, mask, cells, slots, anchors, turns, paths)
        out[i] = action if _legal(mask, action) else s.end_turn


class FlankerAgent(ScriptedAgent):
    """Seeks the flank or rear of a foe before striking (see the module docstring).

    Scoring an attack (in attack-bonus points): the value of the target's area the
    observer strikes from (:data:`AREA_VALUE`) plus :data:`HOW_BONUS` for how it gets
    there, :data:`SNEAK_VALUE` when sneak attack may apply from there (from the rear or on
    a flat-footed foe; unknown until seen, so assumed), :data:`WOUND_VALUE` times the
    target's missing hit points, minus 30 times its AC / 30, plus :data:`OPPOSITE_VALUE`
    for an ally across the target, minus :data:`EXPOSURE` times ``tactics.danger`` (the
    ``_danger`` kernel) at the spot; an attack from here that cannot turn to face the
    target counts its facing modifier instead of its area; a walk costs :data:`AOO_COST`
    per attack of opportunity and 0.1 per square. The best score wins (the first of equals:
    attacks from here, then 5-foot steps, then walks, in route order).

    Without an attack: while it may still attack this turn it walks toward the spot that
    draws the fewest attacks of opportunity, then (in the first :data:`STANDOFF_ROUNDS` of
    the battle) stays out of :data:`STRIKE_DISTANCE` of the most foes, then keeps
    :data:`FOLLOW` squares behind its leader (the ally with the highest AC, then hit points,
    then the north-west-most, if sturdier than itself), then nears the weakest foe, then
    walks the least; after attacking it takes a 5-foot step out of the foes' reach when a
    less wounded ally (or its leader) holds them; else it turns to lower its exposure."""

    name = "flanker"
    batch = BatchAgent(name, _flanker_batch, PARAMETERS)
