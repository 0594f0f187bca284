"""What the scripted agents' kernels read besides the rows: the :class:`Spec` and the
tables built at run time.

The kernels read the observation by the named offsets of :mod:`facing_env.observation`
(``Column.DISTANCE``, ``Scalar.HEX_GRID``...) and the action layout of
:mod:`facing_env.actions`. Those, the footprints of :mod:`facing_env.rules.geometry`, the
angle thresholds of :mod:`facing_env.tables`, the kernels' constants
(``paths.DIAGONAL_COST``, ``tactics.ASSUMED_SPEED``) and an agent's parameters (the
``PARAMETERS`` of its module, e.g. the ``flanker`` module's values) reach the kernels as
arrays built at run time (:func:`spec_for`, :func:`_tables`), never as frozen globals:
numba's disk cache is keyed by a kernel's own file alone and would otherwise run stale
offsets after an edit elsewhere. Inside a kernel they are a :class:`Spec`, a named tuple
of scalars.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Mapping

import numpy as np
from numba import njit

from facing_env import actions
from facing_env.agents.kernels.paths import DIAGONAL_COST
from facing_env.agents.kernels.tactics import ASSUMED_SPEED
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
    # the kernels' integer constant and the agents' integer parameters
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
    # the kernels' constant and the agents' parameters
    "diagonal_cost",  # paths.DIAGONAL_COST
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
and the agents' parameters (each agent's own, :data:`_PARAMETER_FIELDS`). Kernels get it as
two arrays (:func:`spec_for`) and rebuild it (:func:`_spec`): a tuple argument costs numba
a per-call unboxing, an array almost none."""

_PARAMETER_FIELDS = frozenset(
    (
        "far",  # aggressive.PARAMETERS
        "follow",  # flanker.PARAMETERS
        "strike_distance",
        "value_none",
        "value_front",
        "value_flank",
        "value_rear",
        "bonus_stay",
        "bonus_five",
        "bonus_move",
        "sneak_value",
        "aoo_cost",
        "wound_value",
        "opposite_value",
        "exposure",
        "standoff_rounds",
    )
)
"""The fields an agent sets: the ``PARAMETERS`` of its module, which its
:class:`~facing_env.agents.kernels.runner.BatchAgent` passes to :func:`_tables`. The
fields an agent does not set are 0 in its tables (its kernels do not read them)."""

Parameters = tuple[tuple[str, float], ...]
"""An agent's parameters as :func:`_tables` keys them: ``(field, value)`` pairs, sorted
(:func:`parameter_key`)."""


_Tables = namedtuple("_Tables", ["ints", "floats", "shapes", "shape_cells", "directions"])
_Tables.__doc__ = """A kernel's arguments besides the rows: the :class:`Spec` as its int and
float fields, the default footprints by grid and size (``shapes[g, size, :n]``, ``n`` in
``shape_cells``) and the movement directions by grid (``directions[g, 0, 0]`` of them,
from row 1)."""


_TABLES: dict[tuple[int, int, Parameters], _Tables] = {}


def parameter_key(parameters: Mapping[str, float] | None) -> Parameters:
    """An agent's ``PARAMETERS`` (None: none) as :func:`_tables` keys them."""
    return tuple(sorted((parameters or {}).items()))


def spec_for(
    n_observation: int, n_actions: int, parameters: Mapping[str, float] | None = None
) -> Spec:
    """The :class:`Spec` of observation vectors and masks of these lengths, with an agent's
    ``parameters`` (the ``PARAMETERS`` of its module; the fields of
    :data:`_PARAMETER_FIELDS` it does not set are 0). ValueError if no layout has these
    lengths or a parameter is not a field of :data:`_PARAMETER_FIELDS`."""
    return _spec(*_tables(n_observation, n_actions, parameter_key(parameters))[:2])


def _tables(n_observation: int, n_actions: int, parameters: Parameters = ()) -> _Tables:
    key = (n_observation, n_actions, parameters)
    tables = _TABLES.get(key)
    if tables is None:
        tables = _TABLES[key] = _build_tables(n_observation, n_actions, parameters)
    return tables


def _build_tables(n_observation: int, n_actions: int, parameters: Parameters) -> _Tables:
    layout = layout_of(n_observation, n_actions)
    unknown = sorted({name for name, _ in parameters} - _PARAMETER_FIELDS)
    if unknown:
        raise ValueError(f"not agent parameters of the Spec: {', '.join(unknown)}")
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
        "assumed_speed": ASSUMED_SPEED,
        "front_max_square": ua.front_max[square],
        "front_max_hex": ua.front_max[hexes],
        "rear_min_square": ua.rear_min[square],
        "rear_min_hex": ua.rear_min[hexes],
        "diagonal_cost": DIAGONAL_COST,
        **dict.fromkeys(sorted(_PARAMETER_FIELDS), 0),
        **dict(parameters),
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
