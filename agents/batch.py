"""The scripted agents over batches of observations: numba kernels (issue 18).

:func:`make_batch_agent` gives a :class:`BatchAgent` by name (one of
:data:`BATCH_AGENT_NAMES`, the scripted names of ``make_agent``)::

    agent = make_batch_agent("flanker")
    actions = agent.act_batch(observations, masks, rng)  # (N, D) float32, (N, A) int8 -> (N,)

``aggressive``, ``flanker`` and ``defensive`` are deterministic. Their logic is written
once, here, as ``@njit(cache=True)`` kernels (nopython) that loop over the rows of a batch;
``AggressiveAgent.act``, ``FlankerAgent.act`` and ``DefensiveAgent.act`` run the same
kernels on a batch of one, so row ``i`` of ``act_batch`` is exactly
``make_agent(name).act(observations[i], masks[i], rng)``. ``tests/test_batch_agents.py``
checks that, and checks the kernels against ``tests/reference_agents.py`` (the agents as
they were written over an :class:`~facing_env.agents.ObservationView` before the kernels,
kept as the kernels' differential oracle), on hundreds of states of every built-in
scenario.

``random`` draws ``rng.integers(0, n_legal)`` for all rows in one call: the draws
``RandomAgent.act`` (``rng.choice`` of the legal indices) makes row after row with the
same generator, so its actions are identical too.

The kernels read the observation by the named offsets of :mod:`facing_env.observation`
(``Column.DISTANCE``, ``Scalar.HEX_GRID``...) and the action layout of
:mod:`facing_env.actions`. Those, the footprints of :mod:`facing_env.rules.geometry`, the angle
thresholds of :mod:`facing_env.tables` and the agents' parameters (the ``flanker``
module's values, ``pathing.DIAGONAL_COST``, ``tactics.ASSUMED_SPEED``) reach the kernels
as arrays built at run time (:func:`spec_for`), never as frozen globals: numba's disk cache
is keyed by this file alone and would otherwise run stale offsets after an edit elsewhere.
Inside a kernel they are a :class:`Spec`, a named tuple of scalars.

``NUMBA_DISABLE_JIT=1`` runs the same source as plain Python, for debuggers (1-4 ms a
row: a few times slower than the former Python agents).

Conventions: a cell set is the cells of one table slot (slot 0, the observer, read off
the window's ``self`` channel; the others the default footprint of their size at their
offset, as :meth:`ObservationView.cells_of`), moved by ``(dx, dy)``. Where the observer
could stand are *anchors* (its footprint moved there), on a grid covering
``[-2h-2, 2h+2]^2`` (``h``: the window's half width). A kernel returns action indices,
``-1`` (:data:`_NO`) standing for the Python agents' ``None``. Helpers take the row's
arrays explicitly (``obs``, ``mask``, ``cells``, ``slots``, ``anchors``, ``turns``) and
its scalars as :class:`_Geo`: numba passes tuples of arrays to a call at a real cost.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

__all__ = [
    "BATCH_AGENT_NAMES",
    "BatchAgent",
    "Spec",
    "make_batch_agent",
    "random_actions",
    "spec_for",
]

BATCH_AGENT_NAMES: tuple[str, ...] = ("random", "aggressive", "flanker", "defensive")
"""Names :func:`make_batch_agent` accepts (the scripted names of ``make_agent``)."""

_SQRT3 = math.sqrt(3.0)
_RAD_TO_DEG = 180.0 / math.pi  # math.degrees(x) is x * (180 / pi), to the last bit
_NO = -1  # no action: the Python agents' None
_BIG = 1 << 30

# areas, as tactics.area names them
_NONE, _FRONT, _FLANK, _REAR = 0, 1, 2, 3
# how the flanker reaches an attack (flanker.HOW_BONUS)
_STAY, _FIVE, _MOVE = 0, 1, 2
# rows of a row's ``slots`` array
_CN, _ENEMIES, _ALLIES, _DIR_X, _DIR_Y = 0, 1, 2, 3, 4
# planes of a row's ``anchors`` array
_FREE, _CLEAR, _ROUGH, _PROV = 0, 1, 2, 3

_INT_FIELDS = (
    # layout
    "window",
    "n_slots",
    "n_channels",
    "n_features",
    "table",  # offset of the creature table
    "scalars",  # offset of the turn scalars
    "tactic_scalars",  # offset of the tactic scalars
    # window channels (observation.Channel)
    "ch_blocked",
    "ch_difficult",
    "ch_impeded",
    "ch_self",
    "ch_ally",
    "ch_enemy",
    "ch_threat",
    # table columns (observation.Column)
    "col_present",
    "col_ally",
    "col_enemy",
    "col_dx",
    "col_dy",
    "col_size",
    "col_has_facing",
    "col_facing_x",
    "col_facing_y",
    "col_hp_fraction",
    "col_hp",
    "col_ac",
    "col_in_my_front",
    "col_me_in_its_rear",
    "col_distance",
    "col_flat_footed",
    "col_threatens_me",
    "col_my_facing_modifier",
    "col_its_facing_modifier",
    "col_my_sneak_attack",
    "col_aoo_left",
    "col_speed",
    "col_reach",
    # turn scalars (observation.Scalar, observation.TacticScalar)
    "sc_movement_left",
    "sc_move_available",
    "sc_standard_available",
    "sc_five_foot_step_available",
    "sc_moving",
    "sc_running",
    "sc_attacks_made",
    "sc_round_fraction",
    "sc_hex_grid",
    "sc_side_rear_rules",
    "tsc_withdrawing",
    # actions (facing_env.actions)
    "end_turn",
    "move_base",
    "five_foot_base",
    "turn_base",
    "ready",
    "attack_base",
    "n_directions",
    # the agents' integer parameters
    "assumed_speed",  # tactics.ASSUMED_SPEED
    "follow",  # flanker.FOLLOW
    "strike_distance",  # flanker.STRIKE_DISTANCE
)
_FLOAT_FIELDS = (
    # angle thresholds of the ua35 row (tactics.area_by_angle), square then hex
    "front_max_square",
    "front_max_hex",
    "rear_min_square",
    "rear_min_hex",
    # the agents' parameters
    "diagonal_cost",  # pathing.DIAGONAL_COST
    "far",  # aggressive.FAR: the cost limit of its walks
    "value_none",  # flanker.AREA_VALUE by area
    "value_front",
    "value_flank",
    "value_rear",
    "bonus_stay",  # flanker.HOW_BONUS
    "bonus_five",
    "bonus_move",
    "sneak_value",
    "aoo_cost",
    "wound_value",
    "opposite_value",
    "exposure",
    "standoff_rounds",
)
Spec = namedtuple("Spec", _INT_FIELDS + _FLOAT_FIELDS)
Spec.__doc__ = """Everything a kernel reads besides the rows, as scalars: the layout's offsets
(from :mod:`facing_env.observation` and :mod:`facing_env.actions`), the angle thresholds
and the agents' parameters. Kernels get it as two arrays (:func:`spec_for`) and rebuild it
(:func:`_spec`): a tuple argument costs numba a per-call unboxing, an array almost none."""

_Geo = namedtuple(
    "_Geo",
    [
        "g",  # 0 square, 1 hex
        "strict",  # only cells beyond 135 degrees are rear (side_rear squares)
        "half",  # the window's half width
        "ao",  # index of anchor (0, 0) on the anchor grid
        "front_max",  # area thresholds of this grid
        "rear_min",
        "n_enemies",  # living enemies (slots[_ENEMIES, :n_enemies])
        "n_allies",
        "n_dir",  # movement directions (slots[_DIR_X, :n_dir])
        "n_turn",  # TURN slots with an angle (turns[:n_turn])
        "own_has",  # whether the observer has a facing
        "own",  # its facing angle (degrees, counter-clockwise from east)
        "reach",  # the observer's reach (cells)
        "speed",  # its squares per move action
    ],
)
_Geo.__doc__ = "The scalars of one row (what ObservationView computes once per view)."


_Tables = namedtuple("_Tables", ["ints", "floats", "shapes", "shape_cells", "directions"])
_Tables.__doc__ = """A kernel's arguments besides the rows: the :class:`Spec` as its int and
float fields, the default footprints by grid and size (``shapes[g, size, :n]``, ``n`` in
``shape_cells``) and the movement directions by grid (``directions[g, 0, 0]`` of them,
from row 1)."""


_TABLES: dict[tuple[int, int], _Tables] = {}


def spec_for(n_observation: int, n_actions: int) -> Spec:
    """The :class:`Spec` of observation vectors and masks of these lengths (ValueError if
    no layout has them)."""
    return _spec(*_tables(n_observation, n_actions)[:2])


def _tables(n_observation: int, n_actions: int) -> _Tables:
    key = (n_observation, n_actions)
    tables = _TABLES.get(key)
    if tables is None:
        tables = _TABLES[key] = _build_tables(n_observation, n_actions)
    return tables


def _build_tables(n_observation: int, n_actions: int) -> _Tables:
    from facing_env import actions
    from facing_env.agents import aggressive, flanker, pathing, tactics
    from facing_env.agents.view import layout_of
    from facing_env.observation import (
        CHANNELS,
        FEATURES,
        TACTICS,
        Channel,
        Column,
        Scalar,
        TacticScalar,
    )
    from facing_env.rules import geometry
    from facing_env.tables import RULESETS
    from facing_env.types import GridKind, Ruleset, Size

    layout = layout_of(n_observation, n_actions)
    square, hexes = GridKind.SQUARE, GridKind.HEX
    ua = RULESETS[Ruleset.UA35]  # the thresholds tactics.area_by_angle uses
    values = {
        "window": layout.window,
        "n_slots": layout.n_slots,
        "n_channels": len(CHANNELS),
        "n_features": len(FEATURES),
        "table": layout.window_size,
        "scalars": layout.window_size + layout.table_size,
        "tactic_scalars": layout.tactics_offset + layout.n_slots * len(TACTICS),
        "ch_blocked": Channel.BLOCKED,
        "ch_difficult": Channel.DIFFICULT,
        "ch_impeded": Channel.IMPEDED,
        "ch_self": Channel.SELF,
        "ch_ally": Channel.ALLY,
        "ch_enemy": Channel.ENEMY,
        "ch_threat": Channel.THREATENED_BY_ENEMIES,
        "col_present": Column.PRESENT,
        "col_ally": Column.ALLY,
        "col_enemy": Column.ENEMY,
        "col_dx": Column.DX,
        "col_dy": Column.DY,
        "col_size": Column.SIZE,
        "col_has_facing": Column.HAS_FACING,
        "col_facing_x": Column.FACING_X,
        "col_facing_y": Column.FACING_Y,
        "col_hp_fraction": Column.HP_FRACTION,
        "col_hp": Column.HP,
        "col_ac": Column.AC,
        "col_in_my_front": Column.IN_MY_FRONT,
        "col_me_in_its_rear": Column.ME_IN_ITS_REAR,
        "col_distance": Column.DISTANCE,
        "col_flat_footed": Column.FLAT_FOOTED,
        "col_threatens_me": Column.THREATENS_ME,
        "col_my_facing_modifier": Column.MY_FACING_MODIFIER,
        "col_its_facing_modifier": Column.ITS_FACING_MODIFIER,
        "col_my_sneak_attack": Column.MY_SNEAK_ATTACK,
        "col_aoo_left": Column.ATTACKS_OF_OPPORTUNITY_LEFT,
        "col_speed": Column.SPEED,
        "col_reach": Column.REACH,
        "sc_movement_left": Scalar.MOVEMENT_LEFT,
        "sc_move_available": Scalar.MOVE_AVAILABLE,
        "sc_standard_available": Scalar.STANDARD_AVAILABLE,
        "sc_five_foot_step_available": Scalar.FIVE_FOOT_STEP_AVAILABLE,
        "sc_moving": Scalar.MOVING,
        "sc_running": Scalar.RUNNING,
        "sc_attacks_made": Scalar.ATTACKS_MADE,
        "sc_round_fraction": Scalar.ROUND_FRACTION,
        "sc_hex_grid": Scalar.HEX_GRID,
        "sc_side_rear_rules": Scalar.SIDE_REAR_RULES,
        "tsc_withdrawing": TacticScalar.WITHDRAWING,
        "end_turn": actions.END_TURN_INDEX,
        "move_base": actions.MOVE_BASE,
        "five_foot_base": actions.FIVE_FOOT_BASE,
        "turn_base": actions.TURN_BASE,
        "ready": actions.READY_INDEX,
        "attack_base": actions.ATTACK_BASE,
        "n_directions": actions.N_DIRECTIONS,
        "assumed_speed": tactics.ASSUMED_SPEED,
        "follow": flanker.FOLLOW,
        "strike_distance": flanker.STRIKE_DISTANCE,
        "front_max_square": ua.front_max[square],
        "front_max_hex": ua.front_max[hexes],
        "rear_min_square": ua.rear_min[square],
        "rear_min_hex": ua.rear_min[hexes],
        "diagonal_cost": pathing.DIAGONAL_COST,
        "far": aggressive.FAR,
        "value_none": flanker.AREA_VALUE["none"],
        "value_front": flanker.AREA_VALUE["front"],
        "value_flank": flanker.AREA_VALUE["flank"],
        "value_rear": flanker.AREA_VALUE["rear"],
        "bonus_stay": flanker.HOW_BONUS["stay"],
        "bonus_five": flanker.HOW_BONUS["five"],
        "bonus_move": flanker.HOW_BONUS["move"],
        "sneak_value": flanker.SNEAK_VALUE,
        "aoo_cost": flanker.AOO_COST,
        "wound_value": flanker.WOUND_VALUE,
        "opposite_value": flanker.OPPOSITE_VALUE,
        "exposure": flanker.EXPOSURE,
        "standoff_rounds": flanker.STANDOFF_ROUNDS,
    }
    ints = np.array([values[name] for name in _INT_FIELDS], dtype=np.int64)
    floats = np.array([values[name] for name in _FLOAT_FIELDS], dtype=np.float64)
    kinds = (square, hexes)
    sizes = sorted(Size)
    footprints = [[geometry.default_shape(k, size).offsets for size in sizes] for k in kinds]
    most = max(len(o) for row in footprints for o in row)
    shapes = np.zeros((2, len(sizes), most, 2), dtype=np.int64)
    shape_cells = np.zeros((2, len(sizes)), dtype=np.int64)
    for g, row in enumerate(footprints):
        for size, offsets in enumerate(row):
            shape_cells[g, size] = len(offsets)
            shapes[g, size, : len(offsets)] = offsets
    directions = np.zeros((2, actions.N_DIRECTIONS + 1, 2), dtype=np.int64)
    for g, kind in enumerate(kinds):
        vectors = geometry.direction_vectors(kind)
        directions[g, 0, 0] = len(vectors)  # row 0: how many
        directions[g, 1 : len(vectors) + 1] = vectors
    return _Tables(ints, floats, shapes, shape_cells, directions)


@njit(cache=True)
def _spec(i, f):
    """The :class:`Spec` of its two arrays: ``i`` the int fields, ``f`` the float fields,
    in the order of ``_INT_FIELDS`` and ``_FLOAT_FIELDS`` (positional, as numba builds it;
    ``tests/test_batch_agents.py`` checks the round trip)."""
    return Spec(
        i[0], i[1], i[2], i[3], i[4], i[5], i[6], i[7], i[8], i[9],
        i[10], i[11], i[12], i[13], i[14], i[15], i[16], i[17], i[18], i[19],
        i[20], i[21], i[22], i[23], i[24], i[25], i[26], i[27], i[28], i[29],
        i[30], i[31], i[32], i[33], i[34], i[35], i[36], i[37], i[38], i[39],
        i[40], i[41], i[42], i[43], i[44], i[45], i[46], i[47], i[48], i[49],
        i[50], i[51], i[52], i[53], i[54], i[55], i[56], i[57],
        f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9],
        f[10], f[11], f[12], f[13], f[14], f[15], f[16], f[17], f[18],
    )  # fmt: skip


# -- one row: what ObservationView reads ---------------------------------------------------


@njit(cache=True, inline="always")
def _value(s, obs, slot, col):
    """One table entry as a double (``ObservationView.value``)."""
    return np.float64(obs[s.table + slot * s.n_features + col])


@njit(cache=True, inline="always")
def _scalar(s, obs, index):
    """One turn scalar as a double (``ObservationView.scalar``)."""
    return np.float64(obs[s.scalars + index])


@njit(cache=True, inline="always")
def _legal(mask, index):
    """Whether the mask allows an action index."""
    return index >= 0 and index < mask.size and mask[index] != 0


@njit(cache=True, inline="always")
def _at(s, geo, obs, ch, x, y):
    """A channel at a relative cell; outside the window: blocked, else 0."""
    h = geo.half
    if abs(x) > h or abs(y) > h:
        return 1.0 if ch == s.ch_blocked else 0.0
    return np.float64(obs[((h + y) * s.window + (h + x)) * s.n_channels + ch])


@njit(cache=True, inline="always")
def _facing(s, obs, slot):
    """(has facing, angle in degrees) of a slot (``ObservationView.facing_angle``)."""
    if _value(s, obs, slot, s.col_has_facing) < 0.5:
        return False, 0.0
    fy = _value(s, obs, slot, s.col_facing_y)
    fx = _value(s, obs, slot, s.col_facing_x)
    return True, math.atan2(fy, fx) * _RAD_TO_DEG


@njit(cache=True, inline="always")
def _distance(s, obs, slot):
    """Cells between the observer and a slot (the table's distance)."""
    return round(_value(s, obs, slot, s.col_distance) * s.window)


@njit(cache=True, inline="always")
def _reach_of(s, obs, slot):
    """A creature's reach in cells, at least 1."""
    return max(1, round(_value(s, obs, slot, s.col_reach) * 5))


@njit(cache=True)
def _row(s, shapes, shape_cells, directions, obs, mask, cells, slots, anchors, turns):
    """Fill one row's arrays (``cells``, ``slots``, ``anchors``, ``turns``, allocated by
    :func:`_workspace`) from its observation and mask; returns its :class:`_Geo`."""
    w = s.window
    h = w // 2
    nch = s.n_channels
    g = 1 if _scalar(s, obs, s.sc_hex_grid) > 0.5 else 0
    strict = g == 0 and _scalar(s, obs, s.sc_side_rear_rules) > 0.5
    # the observer's cells, row-major off the self channel; (0, 0) if none
    n_self = 0
    for rr in range(w):
        for cc in range(w):
            if obs[(rr * w + cc) * nch + s.ch_self] > 0.5:
                cells[0, n_self, 0] = cc - h
                cells[0, n_self, 1] = rr - h
                n_self += 1
    if n_self == 0:
        cells[0, 0, 0] = 0
        cells[0, 0, 1] = 0
        n_self = 1
    slots[_CN, 0] = n_self
    n_enemies = 0
    n_allies = 0
    for k in range(1, s.n_slots):
        slots[_CN, k] = 0
        if not _value(s, obs, k, s.col_present) > 0.5:
            continue
        if _value(s, obs, k, s.col_enemy) > 0.5:
            slots[_ENEMIES, n_enemies] = k
            n_enemies += 1
        if _value(s, obs, k, s.col_ally) > 0.5:
            slots[_ALLIES, n_allies] = k
            n_allies += 1
        size = round(_value(s, obs, k, s.col_size) * 8)
        if size < 0 or size >= shape_cells.shape[1]:
            continue
        x = round(_value(s, obs, k, s.col_dx) * w)
        y = round(_value(s, obs, k, s.col_dy) * w)
        n = shape_cells[g, size]
        slots[_CN, k] = n
        for i in range(n):
            cells[k, i, 0] = x + shapes[g, size, i, 0]
            cells[k, i, 1] = y + shapes[g, size, i, 1]
    n_dir = directions[g, 0, 0]
    for d in range(n_dir):
        slots[_DIR_X, d] = directions[g, d + 1, 0]
        slots[_DIR_Y, d] = directions[g, d + 1, 1]
    own_has, own = _facing(s, obs, 0)
    # TURN slot angles (ObservationView.turn_angles)
    if g == 0:
        legal_turns = 0
        for i in range(s.n_directions):
            if mask[s.turn_base + i] != 0:
                legal_turns += 1
        step = 90.0 if legal_turns + 1 == 4 else 45.0
        n_turn = int(360 / step)
        for i in range(n_turn):
            turns[i] = 90.0 - step * i
    else:
        offset = 30.0 if round(own / 30.0) % 2 else 0.0
        n_turn = 6
        for i in range(n_turn):
            turns[i] = offset + 60.0 * i
    # anchors (pathing._anchors): free, clear, rough; provocations unknown (NaN)
    ao = 2 * h + 2
    anchors[_FREE] = 0.0
    anchors[_CLEAR] = 0.0
    anchors[_ROUGH] = 0.0
    anchors[_PROV] = np.nan
    min_x = max_x = cells[0, 0, 0]
    min_y = max_y = cells[0, 0, 1]
    for i in range(n_self):
        min_x = min(min_x, cells[0, i, 0])
        max_x = max(max_x, cells[0, i, 0])
        min_y = min(min_y, cells[0, i, 1])
        max_y = max(max_y, cells[0, i, 1])
    for ax in range(-h - min_x, h - max_x + 1):
        for ay in range(-h - min_y, h - max_y + 1):
            blocked = False
            taken = False
            for i in range(n_self):
                at = ((h + ay + cells[0, i, 1]) * w + (h + ax + cells[0, i, 0])) * nch
                if obs[at + s.ch_blocked] > 0.5:
                    blocked = True
                    break
                if (
                    obs[at + s.ch_impeded] > 0.5
                    or obs[at + s.ch_ally] > 0.5
                    or obs[at + s.ch_enemy] > 0.5
                ):
                    taken = True
            if not blocked:
                anchors[_CLEAR, ay + ao, ax + ao] = 1.0
                if not taken:
                    anchors[_FREE, ay + ao, ax + ao] = 1.0
    for rr in range(w):
        for cc in range(w):
            if obs[(rr * w + cc) * nch + s.ch_difficult] > 0.5:
                for i in range(n_self):
                    ry = rr - h - cells[0, i, 1] + ao
                    rx = cc - h - cells[0, i, 0] + ao
                    anchors[_ROUGH, ry, rx] = 1.0
    reach = max(1, round(_value(s, obs, 0, s.col_reach) * 5))
    speed = max(1, round(_value(s, obs, 0, s.col_speed) * 12))
    if g == 0:
        front_max, rear_min = s.front_max_square, s.rear_min_square
    else:
        front_max, rear_min = s.front_max_hex, s.rear_min_hex
    return _Geo(
        g, strict, h, ao, front_max, rear_min, n_enemies, n_allies, n_dir, n_turn,
        own_has, own, reach, speed,
    )  # fmt: skip


@njit(cache=True)
def _workspace(s, shapes):
    """A row's arrays, reused from row to row: (cells, slots, anchors, turns)."""
    most = max(shapes.shape[2], s.window * s.window)
    cells = np.zeros((s.n_slots, most, 2), dtype=np.int64)
    slots = np.zeros((5, max(s.n_slots, s.n_directions)), dtype=np.int64)
    side = 2 * (2 * (s.window // 2) + 2) + 1
    anchors = np.zeros((4, side, side), dtype=np.float64)
    turns = np.zeros(s.n_directions, dtype=np.float64)
    return cells, slots, anchors, turns


@njit(cache=True, inline="always")
def _on(geo, anchors, plane, x, y):
    """Whether anchor ``(x, y)`` is on a plane of the anchor grid (False off the grid)."""
    i = y + geo.ao
    j = x + geo.ao
    if i < 0 or j < 0 or i >= anchors.shape[1] or j >= anchors.shape[2]:
        return False
    return anchors[plane, i, j] > 0.5


# -- geometry -------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _cell_distance(g, ax, ay, bx, by):
    """``geometry.cell_distance`` (the alternating diagonal rule on squares)."""
    dx = ax - bx
    dy = ay - by
    if g == 1:
        return (abs(dx) + abs(dy) + abs(dx + dy)) // 2
    dx = abs(dx)
    dy = abs(dy)
    if dx >= dy:
        return dx + dy // 2
    return dy + dx // 2


@njit(cache=True, inline="always")
def _gap(geo, cells, slots, a, ax, ay, b, bx, by):
    """Smallest distance between slot ``a``'s cells moved by ``(ax, ay)`` and slot ``b``'s
    moved by ``(bx, by)`` (``ObservationView.gap``)."""
    best = _BIG
    for i in range(slots[_CN, a]):
        px = cells[a, i, 0] + ax
        py = cells[a, i, 1] + ay
        for j in range(slots[_CN, b]):
            d = _cell_distance(geo.g, px, py, cells[b, j, 0] + bx, cells[b, j, 1] + by)
            if d < best:
                best = d
    return best


@njit(cache=True, inline="always")
def _cell_centre(g, x, y):
    """``geometry.cell_centre``."""
    if g == 0:
        return x + 0.5, y + 0.5
    return _SQRT3 * (x + y / 2.0), 1.5 * y


@njit(cache=True, inline="always")
def _centre(geo, cells, slots, a, ax, ay):
    """Cartesian centre of slot ``a``'s cells moved by ``(ax, ay)``."""
    sx = 0.0
    sy = 0.0
    n = slots[_CN, a]
    for i in range(n):
        px, py = _cell_centre(geo.g, cells[a, i, 0] + ax, cells[a, i, 1] + ay)
        sx += px
        sy += py
    return sx / n, sy / n


@njit(cache=True, inline="always")
def _vector_angle(dx, dy):
    """``geometry.vector_angle``."""
    return math.atan2(-dy, dx) * _RAD_TO_DEG


@njit(cache=True)
def _angle_between(geo, cells, slots, a, ax, ay, b, bx, by):
    """Direction in degrees from slot ``a``'s cells (moved) to slot ``b``'s (moved)."""
    px, py = _centre(geo, cells, slots, a, ax, ay)
    qx, qy = _centre(geo, cells, slots, b, bx, by)
    return _vector_angle(qx - px, qy - py)


@njit(cache=True, inline="always")
def _angle_gap(a, b):
    """``tactics.angle_gap``."""
    return abs((a - b + 180.0) % 360.0 - 180.0)


@njit(cache=True, inline="always")
def _area_by_angle(geo, diff):
    """``tactics.area_by_angle``."""
    if diff <= geo.front_max + 1e-6:
        return _FRONT
    if geo.strict:
        if diff > geo.rear_min + 1e-6:
            return _REAR
    elif diff >= geo.rear_min - 1e-6:
        return _REAR
    return _FLANK


@njit(cache=True, inline="always")
def _rank(area):
    """``tactics.AREA_RANK``."""
    return area - 1 if area > _NONE else 0


@njit(cache=True, inline="always")
def _contains(cells, slots, a, ax, ay, x, y):
    """Whether cell ``(x, y)`` is one of slot ``a``'s cells moved by ``(ax, ay)``."""
    found = False
    for i in range(slots[_CN, a]):
        if cells[a, i, 0] + ax == x and cells[a, i, 1] + ay == y:
            found = True
            break
    return found


@njit(cache=True, inline="always")
def _area_of_cell(geo, facing, ocx, ocy, x, y):
    """The area of cell ``(x, y)`` for a creature centred at ``(ocx, ocy)``."""
    px, py = _cell_centre(geo.g, x, y)
    return _area_by_angle(geo, _angle_gap(_vector_angle(px - ocx, py - ocy), facing))


@njit(cache=True)
def _area(geo, cells, slots, has, facing, a, ax, ay, b, bx, by):
    """``tactics.area``: where slot ``b``'s cells (moved) stand relative to slot ``a``'s
    (moved) facing ``facing``, its most favourable cell counting; _NONE without facing."""
    if not has:
        return _NONE
    best = _NONE
    ocx, ocy = _centre(geo, cells, slots, a, ax, ay)
    for j in range(slots[_CN, b]):
        x = cells[b, j, 0] + bx
        y = cells[b, j, 1] + by
        if _contains(cells, slots, a, ax, ay, x, y):
            continue
        found = _area_of_cell(geo, facing, ocx, ocy, x, y)
        if best == _NONE or _rank(found) > _rank(best):
            best = found
    return best


@njit(cache=True)
def _danger(geo, cells, slots, near, facing, ax, ay):
    """``tactics.danger`` of the observer at anchor ``(ax, ay)`` facing ``facing``;
    ``near``: the distance from which a foe may walk up and strike (``ASSUMED_SPEED + 1``)."""
    total = 0.0
    for k in range(geo.n_enemies):
        e = slots[_ENEMIES, k]
        d = _gap(geo, cells, slots, 0, ax, ay, e, 0, 0)
        weight = 2.0 if d <= 1 else (1.0 if d <= near else 0.0)
        if weight:
            found = _area(geo, cells, slots, True, facing, 0, ax, ay, e, 0, 0)
            worth = 2.0 if found == _FLANK else (4.0 if found == _REAR else 0.0)
            total += weight * worth
    return total


# -- tactics --------------------------------------------------------------------------------


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


# -- pathing --------------------------------------------------------------------------------


@njit(cache=True)
def _threat_sum(s, geo, obs, cells, slots, ax, ay):
    """Sum of the threatened_by_enemies channel over the footprint at an anchor."""
    total = 0.0
    for i in range(slots[_CN, 0]):
        total += _at(s, geo, obs, s.ch_threat, cells[0, i, 0] + ax, cells[0, i, 1] + ay)
    return total


@njit(cache=True, inline="always")
def _threatened(s, geo, obs, cells, slots, ax, ay):
    """Whether some cell of the footprint at an anchor is threatened by an enemy."""
    for i in range(slots[_CN, 0]):
        if _at(s, geo, obs, s.ch_threat, cells[0, i, 0] + ax, cells[0, i, 1] + ay) > 0:
            return True
    return False


@njit(cache=True, inline="always")
def _provocations(s, geo, obs, cells, slots, anchors, ax, ay):
    """``pathing.provocations``: enemies with an attack of opportunity left that threaten
    the observer at anchor ``(ax, ay)`` (memoised on the anchor grid)."""
    i = ay + geo.ao
    j = ax + geo.ao
    known = anchors[_PROV, i, j]
    if known == known:  # not NaN
        return known
    count = 0.0
    if _threatened(s, geo, obs, cells, slots, ax, ay):
        for k in range(geo.n_enemies):
            e = slots[_ENEMIES, k]
            if _value(s, obs, e, s.col_aoo_left) > 0.5 and (
                _gap(geo, cells, slots, 0, ax, ay, e, 0, 0) <= _reach_of(s, obs, e)
            ):
                count += 1.0
    anchors[_PROV, i, j] = count
    return count


@njit(cache=True, inline="always")
def _before(k1, c1, x1, y1, k2, c2, x2, y2):
    """``(k1, c1, (x1, y1)) < (k2, c2, (x2, y2))``, as heapq compares its entries."""
    if k1 != k2:
        return k1 < k2
    if c1 != c2:
        return c1 < c2
    if x1 != x2:
        return x1 < x2
    return y1 < y2


@njit(cache=True, inline="always")
def _heap_push(hk, hc, hx, hy, n, key, cost, x, y):
    """Push onto the binary heap in ``hk, hc, hx, hy`` (``n`` entries, room for one
    more); returns the new size."""
    i = n
    while i > 0:
        parent = (i - 1) >> 1
        if not _before(key, cost, x, y, hk[parent], hc[parent], hx[parent], hy[parent]):
            break
        hk[i] = hk[parent]
        hc[i] = hc[parent]
        hx[i] = hx[parent]
        hy[i] = hy[parent]
        i = parent
    hk[i] = key
    hc[i] = cost
    hx[i] = x
    hy[i] = y
    return n + 1


@njit(cache=True, inline="always")
def _heap_pop(hk, hc, hx, hy, n):
    """Pop the smallest entry (``n`` > 0): (key, cost, x, y, new size)."""
    key, cost, x, y = hk[0], hc[0], hx[0], hy[0]
    n -= 1
    lk, lc, lx, ly = hk[n], hc[n], hx[n], hy[n]
    i = 0
    while True:
        child = 2 * i + 1
        if child >= n:
            break
        right = child + 1
        if right < n and _before(
            hk[right], hc[right], hx[right], hy[right], hk[child], hc[child], hx[child], hy[child]
        ):
            child = right
        if not _before(hk[child], hc[child], hx[child], hy[child], lk, lc, lx, ly):
            break
        hk[i] = hk[child]
        hc[i] = hc[child]
        hx[i] = hx[child]
        hy[i] = hy[child]
        i = child
    if n > 0:
        hk[i] = lk
        hc[i] = lc
        hx[i] = lx
        hy[i] = ly
    return key, cost, x, y, n


@njit(cache=True)
def _paths(s):
    """The arrays :func:`_routes` works in, reused from call to call: (reached, cost,
    provoked, first direction) over the anchor grid, the anchors in the order reached,
    and a heap with room for every push. Only the start, its neighbours and anchors in
    the window are expanded, each at most once (steps cost at least one square, so an
    expanded anchor never improves), each pushing at most ``n_directions`` entries."""
    side = 2 * (2 * (s.window // 2) + 2) + 1
    cap = (s.window * s.window + s.n_directions + 1) * s.n_directions + 1
    return (
        np.zeros((side, side), dtype=np.bool_),
        np.zeros((side, side), dtype=np.float64),
        np.zeros((side, side), dtype=np.float64),
        np.zeros((side, side), dtype=np.int64),
        np.zeros((side * side, 2), dtype=np.int64),
        np.empty(cap, dtype=np.float64),
        np.empty(cap, dtype=np.float64),
        np.empty(cap, dtype=np.int64),
        np.empty(cap, dtype=np.int64),
    )


@njit(cache=True)
def _routes(s, geo, obs, mask, cells, slots, anchors, paths, max_cost, aoo_weight):
    """``pathing.routes``: the cheapest route (squares + ``aoo_weight`` per provocation)
    to every anchor reachable within ``max_cost`` squares: Dijkstra, popping in heapq's
    order, so ties resolve as in Python. Fills ``paths`` (:func:`_paths`) and returns the
    number of anchors reached: ``order[:n]`` as ``(x, y)`` in the order of ``routes``'
    dict (the start first, then each anchor where it was first reached), each with its
    cost, provocations and first direction on the grids (row ``y + ao``, column
    ``x + ao``)."""
    reached, cost_of, provoked_of, first_of, order, hk, hc, hx, hy = paths
    ao = geo.ao
    reached[:, :] = False
    reached[ao, ao] = True
    cost_of[ao, ao] = 0.0
    provoked_of[ao, ao] = 0.0
    first_of[ao, ao] = -1
    order[0, 0] = 0
    order[0, 1] = 0
    n_order = 1
    n = _heap_push(hk, hc, hx, hy, 0, 0.0, 0.0, 0, 0)
    limit = max_cost + 1e-9
    square = geo.g == 0
    while n > 0:
        key, _, hx0, hy0, n = _heap_pop(hk, hc, hx, hy, n)
        cost = cost_of[hy0 + ao, hx0 + ao]
        provoked = provoked_of[hy0 + ao, hx0 + ao]
        first_dir = first_of[hy0 + ao, hx0 + ao]
        if key > cost + aoo_weight * provoked + 1e-9:
            continue
        leave = provoked + _provocations(s, geo, obs, cells, slots, anchors, hx0, hy0)
        first = hx0 == 0 and hy0 == 0
        for d in range(geo.n_dir):
            vx = slots[_DIR_X, d]
            vy = slots[_DIR_Y, d]
            diagonal = square and vx != 0 and vy != 0
            nx = hx0 + vx
            ny = hy0 + vy
            if first:  # the first step: whatever the mask allows
                if not _legal(mask, s.move_base + d):
                    continue
            elif not _on(geo, anchors, _FREE, nx, ny) or (  # never cut a corner
                diagonal
                and (
                    not _on(geo, anchors, _CLEAR, hx0 + vx, hy0)
                    or not _on(geo, anchors, _CLEAR, hx0, hy0 + vy)
                )
            ):
                continue
            base = s.diagonal_cost if diagonal else 1.0
            step = base * 2.0 if _on(geo, anchors, _ROUGH, nx, ny) else base
            new_cost = cost + step
            if new_cost > limit:
                continue
            new_key = new_cost + aoo_weight * leave
            i = ny + ao
            j = nx + ao
            if not reached[i, j] or new_key < cost_of[i, j] + aoo_weight * provoked_of[i, j] - 1e-9:
                if not reached[i, j]:
                    reached[i, j] = True
                    order[n_order, 0] = nx
                    order[n_order, 1] = ny
                    n_order += 1
                cost_of[i, j] = new_cost
                provoked_of[i, j] = leave
                first_of[i, j] = d if first else first_dir
                if n == hk.size:
                    raise RuntimeError("facing_env.agents.batch: route heap overflow")
                n = _heap_push(hk, hc, hx, hy, n, new_key, new_cost, nx, ny)
    return n_order


# -- aggressive -----------------------------------------------------------------------------


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


# -- defensive ------------------------------------------------------------------------------


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


# -- flanker --------------------------------------------------------------------------------


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


@njit(cache=True)
def _best_attack(s, geo, obs, mask, cells, slots, anchors, turns, paths):
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


# -- the batch kernels ----------------------------------------------------------------------
# One per agent (a kernel taking the agent as an argument would compile all three into
# each): rebuild the Spec, then per row fill the workspace, choose, and fall back to
# END_TURN when the mask forbids the choice (tactics.legal_or_end).


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


@njit(cache=True)
def _defensive_batch(ints, floats, shapes, shape_cells, directions, observations, masks, out):
    s = _spec(ints, floats)
    cells, slots, anchors, turns = _workspace(s, shapes)
    for i in range(observations.shape[0]):
        obs, mask = observations[i], masks[i]
        geo = _row(s, shapes, shape_cells, directions, obs, mask, cells, slots, anchors, turns)
        action = _defensive(s, geo, obs, mask, cells, slots, anchors, turns)
        out[i] = action if _legal(mask, action) else s.end_turn


_KERNELS = {
    "aggressive": _aggressive_batch,
    "flanker": _flanker_batch,
    "defensive": _defensive_batch,
}


# -- Python API -----------------------------------------------------------------------------


class BatchAgent:
    """A scripted agent over batches: :meth:`act_batch` picks one action per row; it is
    also an :class:`~facing_env.agents.Agent` (:meth:`act`, a batch of one)."""

    def __init__(self, name: str) -> None:
        if name not in BATCH_AGENT_NAMES:
            valid = ", ".join(BATCH_AGENT_NAMES)
            raise ValueError(f"unknown batch agent {name!r}; expected one of {valid}")
        self.name = name

    def __repr__(self) -> str:
        return f"BatchAgent({self.name!r})"

    def act_batch(
        self, observations: np.ndarray, masks: np.ndarray, rng: np.random.Generator
    ) -> np.ndarray:
        """One allowed action per row: ``(N, D)`` float32 observations and ``(N, A)`` int8
        masks of one layout -> ``(N,)`` int64. Only ``random`` draws from ``rng``."""
        obs = np.ascontiguousarray(observations, dtype=np.float32)
        mask = np.ascontiguousarray(masks, dtype=np.int8)
        if obs.ndim != 2 or mask.ndim != 2 or obs.shape[0] != mask.shape[0]:
            raise ValueError(
                f"expected (N, D) observations and (N, A) masks, got {obs.shape} and {mask.shape}"
            )
        kernel = _KERNELS.get(self.name)
        if kernel is None:
            return random_actions(mask, rng)
        out = np.empty(obs.shape[0], dtype=np.int64)
        if obs.shape[0]:
            kernel(*_tables(obs.shape[1], mask.shape[1]), obs, mask, out)
        return out

    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        """The action for one observation (a batch of one)."""
        obs = np.asarray(observation).reshape(1, -1)
        mask = np.asarray(action_mask).reshape(1, -1)
        return int(self.act_batch(obs, mask, rng)[0])


def random_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random allowed action per row (END_TURN, 0, for a row that allows
    none), from one ``rng.integers(0, n_legal)`` call over the rows with a legal action:
    the draws ``RandomAgent.act`` (``rng.choice`` of the legal indices) makes row after
    row with the same generator, so the actions are the same."""
    allowed = np.asarray(masks) != 0
    out = np.zeros(allowed.shape[0], dtype=np.int64)
    counts = allowed.sum(axis=1)
    rows = np.flatnonzero(counts)
    if rows.size:
        pick = rng.integers(0, counts[rows])
        seen = np.cumsum(allowed[rows], axis=1)
        out[rows] = np.argmax(seen > pick[:, None], axis=1)
    return out


def make_batch_agent(name: str) -> BatchAgent:
    """The batch version of a scripted agent by name (:data:`BATCH_AGENT_NAMES`)."""
    return BatchAgent(name)
