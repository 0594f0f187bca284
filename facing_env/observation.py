"""Observations: an egocentric grid window, a per-creature table and turn scalars.

``observe(agent)`` returns ``{"observation": float32 vector, "action_mask": int8 vector}``.
The vector is the concatenation of (see :class:`ObservationLayout` for offsets):

1. **window**, ``W x W x 18`` (row-major, channels last), centred on the acting
   creature's ``pos``; channels :data:`CHANNELS`.
2. **table**, ``K x 33``: one row per creature slot (self, allies, enemies in spec order,
   the same rows as the ATTACK actions); columns :data:`FEATURES`.
3. **scalars**, 13 values about the turn and the rules: :data:`SCALARS`.
4. **tactics** (env ``-v1``), ``K x 4`` then 2 values: per slot :data:`TACTICS` (readied
   attack, charge penalties in force, player character, whether the observer has a charge
   lane to it now), then :data:`TACTIC_SCALARS` (the actor's withdrawal in progress and
   the 5-foot steps it may still buy with attacks).

Positions are relative to the observer; the areas are those of the rule set (flank and
side share a channel). Creatures without facing have facing (0, 0).

This module names the layout (the indices of every channel, column and scalar, shared by
every writer and reader: :mod:`facing_env.fast.observation` writes observations,
``agents/view.py`` reads them, ``tests/reference/observation.py`` is the readable oracle)
and builds the global ``state()``.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from functools import cache

import numpy as np

from facing_env.rules import geometry
from facing_env.rules.battle import Battle
from facing_env.tables import SIZES
from facing_env.types import Area, GridKind, Terrain


class Channel:
    """The window's channels by name, in order (:data:`CHANNELS` are the names in lower
    case)."""

    BLOCKED = 0  # walls, pillars and off-board cells
    DIFFICULT = 1
    IMPEDED = 2
    SELF = 3
    ALLY = 4
    ENEMY = 5
    SIZE = 6  # occupant's size category / 8
    FACING_X = 7  # occupant's facing vector (east)
    FACING_Y = 8  # (north)
    HP = 9  # occupant's hp fraction
    THREATENED_BY_ENEMIES = 10  # number of enemies threatening the cell / 4
    THREATENED_BY_ALLIES = 11
    OWN_FRONT = 12  # the observer's areas, in and beyond the ring (IC-03)
    OWN_FLANK = 13
    OWN_REAR = 14
    ENEMY_FRONT = 15  # cells in the ring of some enemy's front / flank / rear
    ENEMY_FLANK = 16
    ENEMY_REAR = 17


class Column:
    """The creature table's columns by name, in order (:data:`FEATURES` are the names in
    lower case): every writer and reader of the table indexes it by these. Plain ints in
    a namespace, not an ``IntEnum``: an enum member costs three times as much as an index
    on the step path."""

    PRESENT = 0
    IS_SELF = 1
    ALLY = 2
    ENEMY = 3
    DX = 4  # relative position / window
    DY = 5
    SIZE = 6  # size category / 8
    HAS_FACING = 7
    FACING_X = 8
    FACING_Y = 9
    HP_FRACTION = 10
    HP = 11  # hit points / 50
    AC = 12  # / 30
    IN_MY_FRONT = 13  # the creature's area of the observer (flank and side share one)
    IN_MY_FLANK = 14
    IN_MY_REAR = 15
    IN_MY_NONE = 16
    ME_IN_ITS_FRONT = 17  # the observer's area of the creature
    ME_IN_ITS_FLANK = 18
    ME_IN_ITS_REAR = 19
    ME_IN_ITS_NONE = 20
    DISTANCE = 21  # squares between the footprints / window
    FLAT_FOOTED = 22
    THREATENS_ME = 23
    I_THREATEN_IT = 24
    MY_FACING_MODIFIER = 25  # / 10
    ITS_FACING_MODIFIER = 26
    MY_SNEAK_ATTACK = 27
    ATTACKABLE = 28
    ATTACKS_OF_OPPORTUNITY_LEFT = 29
    SPEED = 30  # squares per move action / 12
    REACH = 31  # longest melee reach in squares / 5
    SNEAK_ATTACK_DICE = 32  # average sneak attack damage / 10


class Scalar:
    """The turn scalars, in order (:data:`SCALARS`); turn values only for the actor."""

    MOVEMENT_LEFT = 0
    MOVE_AVAILABLE = 1
    STANDARD_AVAILABLE = 2
    FIVE_FOOT_STEP_AVAILABLE = 3
    FREE_TURN_AVAILABLE = 4
    MOVING = 5
    RUNNING = 6
    ATTACKS_MADE = 7
    ROUND_FRACTION = 8
    CLEAVE = 9
    HEX_GRID = 10
    UA35_RULES = 11  # front/flank/rear penalties and bonuses
    SIDE_REAR_RULES = 12  # the flanked condition


class Tactic:
    """The tactics columns per slot, in order (:data:`TACTICS`)."""

    READIED = 0  # holds a readied attack (UA-PER-02)
    CHARGING = 1  # charged since its last turn: -2 AC (charge)
    PLAYER_CHARACTER = 2  # may trade attacks for 5-foot steps (EP-5FT-02)
    CAN_CHARGE = 3  # the observer has a charge lane to it now (EP-CHG-01), whoever's turn


class TacticScalar:
    """The tactic scalars after the tactics table, in order (:data:`TACTIC_SCALARS`)."""

    WITHDRAWING = 0  # the actor is in a withdrawal (EP-WDR-01)
    TRADE_STEPS_LEFT = 1  # 5-foot steps the actor may still buy with attacks / 4 (EP-5FT-02)


def _names(namespace: type) -> tuple[str, ...]:
    """The lower-case names of a namespace's indices, which must be 0, 1, 2... in order."""
    items = [(k, v) for k, v in vars(namespace).items() if k.isupper()]
    if [v for _, v in items] != list(range(len(items))):
        raise ValueError(f"{namespace.__name__}: indices must be 0..n-1 in order")
    return tuple(k.lower() for k, _ in items)


CHANNELS = _names(Channel)
FEATURES = _names(Column)
SCALARS = _names(Scalar)
TACTICS = _names(Tactic)
TACTIC_SCALARS = _names(TacticScalar)
BOUND = 64.0
"""Every observation value lies in ``[-BOUND, BOUND]`` (most in ``[-1, 1]``; relative
positions and raw hit points / 50 can exceed 1 on big boards and big monsters)."""
_AREA_INDEX = {Area.FRONT: 0, Area.FLANK: 1, Area.SIDE: 1, Area.REAR: 2, Area.NONE: 3}


@dataclass(frozen=True)
class ObservationLayout:
    """Sizes and offsets of the parts of the observation vector."""

    window: int
    n_slots: int

    @property
    def window_size(self) -> int:
        """Number of values in the window part."""
        return self.window * self.window * len(CHANNELS)

    @property
    def table_size(self) -> int:
        """Number of values in the creature table."""
        return self.n_slots * len(FEATURES)

    @property
    def tactics_size(self) -> int:
        """Number of values in the tactics part."""
        return self.n_slots * len(TACTICS) + len(TACTIC_SCALARS)

    @functools.cached_property
    def tactics_offset(self) -> int:
        """Index of the first value of the tactics part."""
        return self.window_size + self.table_size + len(SCALARS)

    @functools.cached_property
    def size(self) -> int:
        """Length of the whole vector."""
        return self.tactics_offset + self.tactics_size

    @functools.cached_property
    def offsets(self) -> tuple[int, int]:
        """(size of the window part, size of the table part)."""
        return self.window_size, self.table_size

    @functools.cached_property
    def window_shape(self) -> tuple[int, int, int]:
        """``(W, W, C)``."""
        return (self.window, self.window, len(CHANNELS))

    @functools.cached_property
    def table_shape(self) -> tuple[int, int]:
        """``(K, F)``."""
        return (self.n_slots, len(FEATURES))

    def split(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(window ``W x W x C``, table ``K x F``, scalars) views of an observation."""
        w = obs[: self.window_size].reshape(self.window, self.window, len(CHANNELS))
        t = obs[self.window_size : self.window_size + self.table_size].reshape(
            self.n_slots, len(FEATURES)
        )
        return w, t, obs[self.window_size + self.table_size : self.tactics_offset]

    def split_tactics(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(tactics table ``K x len(TACTICS)``, tactic scalars) views of an observation."""
        at, k = self.tactics_offset, self.n_slots * len(TACTICS)
        return obs[at : at + k].reshape(self.n_slots, len(TACTICS)), obs[at + k : self.size]


@cache
def _unit_vector(kind: GridKind, facing: int) -> tuple[float, float]:
    angle = math.radians(geometry.facing_angle(kind, facing))
    return (math.cos(angle), math.sin(angle))


def state_size(width: int, height: int, n_slots: int) -> int:
    """Length of the global ``state()`` vector."""
    return width * height * 8 + n_slots * 10


def build_state(battle: Battle, width: int, height: int, teams: tuple[str, ...]) -> np.ndarray:
    """A global view for centralised critics: a ``height x width x 8`` grid (blocked,
    difficult, impeded, team-0 occupancy, team-1 occupancy, size, hp, facing index / 12)
    and a row of 10 values per creature in spec order."""
    grid = np.zeros((height, width, 8), dtype=np.float32)
    for r in range(min(height, battle.height)):
        for col in range(min(width, battle.width)):
            terrain = Terrain(int(battle.terrain[r, col]))
            if terrain in (Terrain.BLOCKED, Terrain.PILLAR):
                grid[r, col, 0] = 1
            grid[r, col, 1] = terrain is Terrain.DIFFICULT
            grid[r, col, 2] = terrain is Terrain.IMPEDED
    rows = []
    for c in battle.creatures.values():
        team = teams.index(c.team) if c.team in teams else 0
        if c.hp > 0:
            for cell in battle.cells_of(c):
                r, col = battle.column(cell)
                if r < height and col < width:
                    grid[r, col, 3 + min(team, 1)] = 1
                    grid[r, col, 5] = c.size / 8
                    grid[r, col, 6] = c.hp / c.max_hp
                    grid[r, col, 7] = c.facing / 12
        rows.append(
            [
                c.hp > 0,
                team,
                c.pos[0] / width,
                c.pos[1] / height,
                c.size / 8,
                c.facing / 12,
                c.hp / c.max_hp,
                c.ac / 30,
                c.flat_footed,
                SIZES[c.size].reach / 25,
            ]
        )
    table = np.asarray(rows, dtype=np.float32).reshape(-1)
    return np.concatenate([grid.reshape(-1), table])
