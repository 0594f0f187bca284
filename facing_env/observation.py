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
   the 5-foot steps it may still buy with attacks). These depend on the whole battle (a
   charge lane on every creature's position and the terrain), not on the pair key the
   table's rows are memoised by, so one function (:func:`_fill_tactics`) writes them
   after either table writer.

Positions are relative to the observer; the areas are those of the rule set (flank and
side share a channel). Creatures without facing have facing (0, 0).
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import math
from dataclasses import dataclass
from functools import cache

import numpy as np

from facing_env import engine, geometry, rules
from facing_env._accel import compiled_modules
from facing_env.battle import Battle, Creature
from facing_env.dice import parse_dice
from facing_env.geometry import AreaTable
from facing_env.tables import SIZES
from facing_env.types import Area, GridKind, Pos, Terrain


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


_OWN_AREAS: dict[tuple[int, int], np.ndarray] = {}


def _own_areas(table: AreaTable, size: int) -> np.ndarray:
    """The observer's front/flank/rear channels over a window centred on its anchor
    (cached per area table, which ``geometry.area_table`` keeps alive)."""
    key = (id(table), size)
    cached = _OWN_AREAS.get(key)
    if cached is None:
        cached = _OWN_AREAS[key] = _draw_own_areas(table, size)
    return cached


def _draw_own_areas(table: AreaTable, size: int) -> np.ndarray:
    half = size // 2
    out = np.zeros((size, size, 3), dtype=np.float32)
    for i in range(size):
        for j in range(size):
            area = table.lookup((j - half, i - half)).area
            if area is not Area.NONE:
                out[i, j, _AREA_INDEX[area]] = 1.0
    return out


_RING_STAMPS: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}


def _ring_stamp(table: AreaTable) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rows, cols, channels) of a creature's ring for the enemy_front/flank/rear planes."""
    stamp = _RING_STAMPS.get(id(table))
    if stamp is None:
        cells = [(o, area) for area, ring in table.by_area.items() for o in sorted(ring)]
        stamp = _RING_STAMPS[id(table)] = (
            np.array([o[1] for o, _ in cells], dtype=np.intp),
            np.array([o[0] for o, _ in cells], dtype=np.intp),
            np.array([_ENEMY_FRONT + _AREA_INDEX[a] for _, a in cells], dtype=np.intp),
        )
    return stamp


@cache
def _offset_arrays(offsets: frozenset[Pos] | tuple[Pos, ...]) -> tuple[np.ndarray, np.ndarray]:
    """(rows, cols) index arrays of a set of ``(dx, dy)`` offsets."""
    ordered = sorted(offsets, key=lambda p: (p[1], p[0]))
    return (
        np.array([p[1] for p in ordered], dtype=np.intp),
        np.array([p[0] for p in ordered], dtype=np.intp),
    )


_SELF, _SIZE, _HP = Channel.SELF, Channel.SIZE, Channel.HP
_THREAT_ENEMY = Channel.THREATENED_BY_ENEMIES
_OWN_FRONT, _ENEMY_FRONT = Channel.OWN_FRONT, Channel.ENEMY_FRONT


class Board:
    """Padded board planes of one battle, so that a window is one array slice.

    The terrain planes are built once per battle (terrain is static); the creature planes
    are redrawn once per state and observing team (three flat-index writes per creature
    from stamps cached per profile, facing and side, placed by index arrays cached per
    anchor), after zeroing only the cells the previous drawing wrote. Threat channels hold
    0.25 per threatening creature, so they need clamping at 1 only when some observer
    could have more than four allies or enemies. Each observation copies a ``W x W``
    slice and writes the observer's own-area and self stamps by flat index.
    """

    def __getstate__(self) -> dict[str, object]:
        """Copies and pickles leave out the compiled writer's ``kernel_context`` (C arrays,
        which cannot be pickled; :mod:`facing_env._obs_kernel` rebuilds it on use)."""
        state = dict(self.__dict__)
        state["kernel_context"] = None
        return state

    def __init__(self, battle: Battle, window: int, memo: PairMemo | None = None) -> None:
        self.window = window
        self.kernel_context: object = None
        """The compiled writer's state for this board (``facing_env._obs_kernel.context``
        makes it on first use and keeps it here); None when it does not run compiled."""
        half = window // 2
        creatures = list(battle.creatures.values())
        reach = max((rules.opportunity.melee_reach(c) for c in creatures), default=5)
        side = max((len(c.shape.offsets) for c in creatures), default=1)
        self.pad = half + reach // 5 + side + 2
        cells = list(battle._terrain_map)
        self.x0 = min(x for x, _ in cells) - self.pad
        self.y0 = min(y for _, y in cells) - self.pad
        width = max(x for x, _ in cells) - self.x0 + self.pad + 1
        height = max(y for _, y in cells) - self.y0 + self.pad + 1
        self.planes = np.zeros((height, width, len(CHANNELS)), dtype=np.float32)
        self.planes[:, :, Channel.BLOCKED] = 1.0  # off the board counts as blocked
        for (x, y), terrain in battle._terrain_map.items():
            r, c = y - self.y0, x - self.x0
            self.planes[r, c, Channel.BLOCKED] = terrain in (Terrain.BLOCKED, Terrain.PILLAR)
            self.planes[r, c, Channel.DIFFICULT] = terrain is Terrain.DIFFICULT
            self.planes[r, c, Channel.IMPEDED] = terrain is Terrain.IMPEDED
        # the terrain channels, for the compiled writer
        self.terrain = np.ascontiguousarray(self.planes[:, :, : Channel.IMPEDED + 1])
        self._key: object = None
        self._flat = self.planes.reshape(-1)  # a view: planes are never reallocated
        self._written: list[np.ndarray] = []
        self.memo = PairMemo() if memo is None else memo  # may outlive the battle
        # stamps by profile are valid on every board of these dimensions (kept by the memo)
        geometry_key = (self.planes.shape, self.x0, self.y0, window)
        boards = self.memo.boards
        if geometry_key not in boards and len(boards) > _BOARD_CACHE_LIMIT:
            boards.clear()
        self._stamps, self._placed, self._own = boards.setdefault(geometry_key, ({}, {}, {}))
        self.profiles = self.memo.bind(battle)
        teams: dict[str, int] = {}
        for c in creatures:
            teams[c.team] = teams.get(c.team, 0) + 1
        # an observer's allies are its team, its enemies every other creature
        self.clamp_threats = any(max(n, len(creatures) - n) > 4 for n in teams.values())
        # hit-point fractions above BOUND only when a spec sets hp far above max_hp
        self.clip = any(c.hp > BOUND * c.max_hp for c in creatures)

    def fill(self, battle: Battle, team: str, key: object) -> None:
        """Draw the creature planes as seen by ``team`` (skipped if ``key`` is unchanged):
        per living creature in spec order, add its threatened cells, set an enemy's ring
        areas, then set its occupant channels (a later creature wins a shared cell)."""
        if key is not None and self._key == (key, team):
            return
        self._key = (key, team) if key is not None else None
        flat = self._flat
        for idx in self._written:
            flat[idx] = 0.0
        written: list[np.ndarray] = []
        stamps, placed, profiles, traits = (
            self._stamps,
            self._placed,
            self.profiles,
            self.memo.traits,
        )
        for c in battle.creatures.values():
            if c.hp <= 0:
                continue
            profile = profiles[c.id]
            trait = traits.get(profile)
            if trait is None:
                trait = traits[profile] = rules.opportunity.aoo_traits(c)
            ally = c.team == team
            skey = (profile, c.facing, trait[0] and (not c.flat_footed or trait[1]), ally)
            pkey = (skey, c.pos)
            where = placed.get(pkey)
            if where is None:
                stamp = stamps.get(skey)
                if stamp is None:
                    stamp = stamps[skey] = self._stamp(battle, c, ally)
                threat, ring, occupied, head = stamp
                base = self._base(c.pos)
                threat, ring, cells = threat + base, ring + base, occupied + base
                where = placed[pkey] = (
                    threat,
                    ring,
                    cells[:, :-1].reshape(-1),
                    np.tile(np.array(head, dtype=np.float32), len(cells)),
                    cells[:, -1].copy(),
                    np.concatenate([threat, ring, cells.reshape(-1)]),  # all to zero later
                )
            threat, ring, occupied, head, hp, every = where
            if threat.size:
                flat[threat] += 0.25
            if ring.size:
                flat[ring] = 1.0
            flat[occupied] = head
            flat[hp] = c.hp / c.max_hp
            written.append(every)
        self._written = written

    def _base(self, pos: Pos) -> int:
        """Flat index of channel 0 of a board cell."""
        return ((pos[1] - self.y0) * self.planes.shape[1] + pos[0] - self.x0) * len(CHANNELS)

    def _stamp(
        self, battle: Battle, c: Creature, ally: bool
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[float, ...]]:
        """Flat plane offsets (relative to ``c``'s anchor) of its threatened cells, its
        ring areas when it is an enemy, and its occupant channels, with the occupant values
        but the hp fraction."""
        n, row = len(CHANNELS), self.planes.shape[1] * len(CHANNELS)
        zone = rules.opportunity.threatened_offsets(battle, c)
        threat = np.array(
            [dy * row + dx * n + _THREAT_ENEMY + int(ally) for dx, dy in zone],
            dtype=np.intp,
        )
        table = battle.table(c)
        ring = np.zeros(0, dtype=np.intp)
        if not ally and table is not None:
            rows, cols, chans = _ring_stamp(table)
            ring = rows * row + cols * n + chans
        occupied = np.array(
            [
                [dy * row + dx * n + ch for ch in range(_SELF, _HP + 1)]
                for dx, dy in c.shape.offsets
            ],
            dtype=np.intp,
        )
        fx, fy = (0.0, 0.0) if table is None else _unit_vector(battle.kind, c.facing)
        return threat, ring, occupied, (0.0, float(ally), float(not ally), c.size / 8.0, fx, fy)

    def window_of(self, battle: Battle, me: Creature, out: np.ndarray, flat: np.ndarray) -> None:
        """Copy the window centred on ``me`` into ``out`` (``W x W x C``; ``flat`` is the
        same memory as one vector)."""
        size, half = self.window, self.window // 2
        r, c = me.pos[1] - self.y0 - half, me.pos[0] - self.x0 - half
        out[:] = self.planes[r : r + size, c : c + size]
        key = (self.profiles[me.id], me.facing)
        own = self._own.get(key)
        if own is None:
            own = self._own[key] = self._own_stamp(battle, me)
        areas, selves = own
        if me.hp > 0:
            flat[selves] = _SELF_VALUES[: selves.size]
        if self.clamp_threats:
            threats = out[:, :, _THREAT_ENEMY : Channel.THREATENED_BY_ALLIES + 1]
            np.minimum(threats, 1.0, out=threats)
        if areas.size:
            flat[areas] = 1.0
        if self.clip:
            np.clip(out, -BOUND, BOUND, out=out)

    def _own_stamp(self, battle: Battle, me: Creature) -> tuple[np.ndarray, np.ndarray]:
        """Window flat indices of the observer's own front/flank/rear cells (IC-03) and of
        its self/ally/enemy channels on its own squares."""
        size, half, n = self.window, self.window // 2, len(CHANNELS)
        table = battle.table(me)
        areas = np.zeros(0, dtype=np.intp)
        if table is not None:
            r, c, ch = np.nonzero(_own_areas(table, size))
            areas = ((r * size + c) * n + ch + _OWN_FRONT).astype(np.intp)
        rows, cols = _offset_arrays(me.shape.offsets)
        inside = (abs(rows) <= half) & (abs(cols) <= half)  # a window smaller than the space
        cells = (rows[inside] + half) * size + cols[inside] + half
        sides = np.arange(Channel.ENEMY - _SELF + 1)  # self, ally, enemy
        selves = (cells[:, None] * n + _SELF + sides).reshape(-1).astype(np.intp)
        return areas, selves


_BOARD_CACHE_LIMIT = 64
_SELF_VALUES = np.tile(np.array([1.0, 0.0, 0.0], dtype=np.float32), 64)
"""The self, ally and enemy channels of the observer's own squares, for up to 64 squares."""


def build(
    battle: Battle,
    slots: list[str],
    layout: ObservationLayout,
    max_rounds: int,
    board: Board | None = None,
    key: object = None,
    legal: tuple | None = None,
) -> np.ndarray:
    """The observation vector of creature ``slots[0]``.

    ``board`` (a :class:`Board` of this battle) and ``key`` (``engine.state_key``) let the
    env reuse the padded planes between observers; without them the planes are drawn from
    scratch. ``legal``, when given, is ``engine.legal_tuple(battle)`` of this state and
    ``slots[0]`` is the actor.
    """
    me = battle.creatures[slots[0]]
    acting = legal is not None or engine.actor(battle) is me  # legal: the actor's
    if acting and legal is None:
        legal = engine.legal_tuple(battle, key if isinstance(key, tuple) else None)
    if _KERNEL is not None and board is not None:
        out = _KERNEL.build(battle, me, slots, layout, max_rounds, board, acting, legal)
        _fill_tactics(battle, me, slots, layout, out, acting)
        return out
    out = np.zeros(layout.size, dtype=np.float32)
    ws, ts = layout.offsets
    if board is None:
        board = Board(battle, layout.window)
    board.fill(battle, me.team, key)
    board.window_of(battle, me, out[:ws].reshape(layout.window_shape), out)
    tail = out[ws : layout.tactics_offset]
    _fill_table(
        battle,
        me,
        slots,
        tail[:ts].reshape(layout.table_shape),
        layout.window,
        board.memo,
        board.profiles,
        acting,
        legal,
    )
    _fill_scalars(battle, me, tail[ts:], max_rounds, acting)
    np.minimum(tail, BOUND, out=tail)  # the window is within bounds by construction
    np.maximum(tail, -BOUND, out=tail)
    _fill_tactics(battle, me, slots, layout, out, acting)
    return out


def _fill_tactics(
    battle: Battle,
    me: Creature,
    slots: list[str],
    layout: ObservationLayout,
    out: np.ndarray,
    acting: bool,
) -> None:
    """The tactics part (:data:`TACTICS`, :data:`TACTIC_SCALARS`; all values in [0, 1]),
    written by flat index (see :meth:`ObservationLayout.split_tactics` for the shape)."""
    at = layout.tactics_offset
    n = len(TACTICS)
    creatures = battle.creatures
    alive = me.hp > 0
    for row, cid in enumerate(slots[: layout.n_slots]):
        c = creatures[cid]
        if c.hp <= 0:
            continue
        base = at + row * n
        if c.readied:
            out[base + Tactic.READIED] = 1.0
        if c.charging:
            out[base + Tactic.CHARGING] = 1.0
        if c.player_character:
            out[base + Tactic.PLAYER_CHARACTER] = 1.0
        if alive and c.team != me.team and rules.charge_destinations(battle, me, c):
            out[base + Tactic.CAN_CHARGE] = 1.0
    if acting:
        ts = battle.turn
        tail = at + layout.n_slots * n
        out[tail + TacticScalar.WITHDRAWING] = ts.withdrawing is not None
        if engine._may_trade_step(battle, me):
            first = me.attacks[0]
            steps = sum(1 for slot in ts.remaining if slot.attack is first) / 4.0
            out[tail + TacticScalar.TRADE_STEPS_LEFT] = steps


def _fill_table(
    battle: Battle,
    me: Creature,
    slots: list[str],
    t: np.ndarray,
    size: int,
    memo: PairMemo | None = None,
    profiles: dict[str, int] | None = None,
    acting: bool | None = None,
    legal: tuple | None = None,
) -> None:
    """One row per slot. The pair columns (areas, distance, threats, facing modifiers,
    sneak attack) come from ``memo`` (see :class:`PairMemo`), the columns fixed by a
    creature's profile from its memo of statics; whole rows but hit points and the
    attackable and AoO flags are memoised as float32 arrays by the pair key (except under
    standard flanking, whose modifiers depend on third parties)."""
    if acting is None:
        acting = engine.actor(battle) is me
    targets = _attack_targets(battle, legal) if acting else ()
    aoo_used = battle.initiative.aoo_used if battle.initiative else {}
    third_parties = battle.rules.standard_flanking
    if memo is None or profiles is None:
        memo = PairMemo()
        profiles = memo.bind(battle)
    elif len(memo.full_rows) > _PAIR_MEMO_LIMIT or len(memo.rows) > _PAIR_MEMO_LIMIT:
        memo.clear()
    rows, statics, traits, full_rows = memo.rows, memo.statics, memo.traits, memo.full_rows
    mx, my = me.pos
    mine = profiles[me.id]
    inv = 1.0 / size
    for row, cid in enumerate(slots[: t.shape[0]]):
        c = battle.creatures[cid]
        if c.hp <= 0:
            continue
        theirs = profiles[cid]
        trait = traits.get(theirs)
        if trait is None:
            trait = traits[theirs] = rules.opportunity.aoo_traits(c)
        is_me = c is me
        enemy = c.team != me.team
        dx, dy = c.pos[0] - mx, c.pos[1] - my
        key = pair_key(me, c, mine, theirs, is_me, enemy, dx, dy, size)
        attackable = enemy and cid in targets
        # rules.can_make_attacks_of_opportunity of a living creature
        aoo_left = aoo_used.get(cid, 0) == 0 and trait[0] and (not c.flat_footed or trait[1])
        if not (enemy and third_parties):
            # all but four columns are a function of the pair key: the row is memoised,
            # then hit points and the attackable and AoO flags are written
            full = full_rows.get(key)
            if full is None:
                full = full_rows[key] = _full_row(
                    battle, me, c, memo, mine, theirs, is_me, enemy, dx, dy, inv
                )
            out = t[row]
            out[:] = full
            out[_HP_FRACTION] = c.hp / c.max_hp
            out[_HP_RAW] = c.hp / 50.0
            out[_ATTACKABLE] = attackable
            out[_AOO_LEFT] = aoo_left
            continue
        pair = rows.get(key)
        if pair is None:
            pair = rows[key] = _pair_features(battle, me, c, inv, memo, mine, theirs)
        values = _table_row(
            battle, c, statics, theirs, is_me, enemy, dx, dy, inv, pair, attackable, aoo_left
        )
        # standard flanking (SRD-FLANK-01) depends on where the allies stand: not memoised
        values[Column.MY_FACING_MODIFIER] = rules.facing_modifier(battle, me, c) / 10.0
        values[Column.ITS_FACING_MODIFIER] = rules.facing_modifier(battle, c, me) / 10.0
        values[Column.MY_SNEAK_ATTACK] = float(rules.sneak_attack_applies(battle, me, c))
        t[row] = values


def pair_key(
    me: Creature,
    c: Creature,
    mine: int,
    theirs: int,
    is_me: bool,
    enemy: bool,
    dx: int,
    dy: int,
    size: int,
) -> tuple:
    """The key of ``c``'s memoised row in ``me``'s table (:class:`PairMemo`): everything
    but hit points and the attackable and AoO flags depends on it alone."""
    return (
        mine,
        theirs,
        is_me,
        enemy,
        dx,
        dy,
        me.facing,
        c.facing,
        me.flat_footed,
        c.flat_footed,
        me.hp > 0,
        size,
    )


def _full_row(
    battle: Battle,
    me: Creature,
    c: Creature,
    memo: PairMemo,
    mine: int,
    theirs: int,
    is_me: bool,
    enemy: bool,
    dx: int,
    dy: int,
    inv: float,
) -> np.ndarray:
    """A memoised table row (:attr:`PairMemo.full_rows`): every column of ``c``'s row but
    hit points and the attackable and AoO flags, which are left at 0."""
    pair = _pair_features(battle, me, c, inv, memo, mine, theirs)
    values = _table_row(
        battle, c, memo.statics, theirs, is_me, enemy, dx, dy, inv, pair, False, False
    )
    values[Column.HP_FRACTION] = values[Column.HP] = 0.0
    return np.array(values, dtype=np.float32)


def _table_row(
    battle: Battle,
    c: Creature,
    statics: dict[int, tuple[float, ...]],
    theirs: int,
    is_me: bool,
    enemy: bool,
    dx: int,
    dy: int,
    inv: float,
    pair: tuple[float, ...],
    attackable: bool,
    aoo_left: bool,
) -> list[float]:
    """The columns of ``c``'s row (:class:`Column`), from ``pair`` (a row with only the
    pair columns written, :func:`_pair_features`) and ``c``'s own values."""
    static = statics.get(theirs)
    if static is None:
        static = statics[theirs] = _static_features(battle, c)
    f = list(pair)
    f[Column.PRESENT] = 1.0
    f[Column.IS_SELF] = float(is_me)
    f[Column.ALLY] = float(not enemy and not is_me)
    f[Column.ENEMY] = float(enemy)
    f[Column.DX] = dx * inv
    f[Column.DY] = dy * inv
    for column, value in zip(_STATIC_COLUMNS, static, strict=True):
        f[column] = value
    if static[1]:
        f[Column.FACING_X], f[Column.FACING_Y] = _unit_vector(battle.kind, c.facing)
    f[Column.HP_FRACTION] = c.hp / c.max_hp
    f[Column.HP] = c.hp / 50.0
    f[Column.FLAT_FOOTED] = float(c.flat_footed)
    f[Column.ATTACKABLE] = float(attackable)
    f[Column.ATTACKS_OF_OPPORTUNITY_LEFT] = float(aoo_left)
    return f


_HP_FRACTION, _HP_RAW = Column.HP_FRACTION, Column.HP
_ATTACKABLE = Column.ATTACKABLE
_AOO_LEFT = Column.ATTACKS_OF_OPPORTUNITY_LEFT
_STATIC_COLUMNS = (
    Column.SIZE,
    Column.HAS_FACING,
    Column.AC,
    Column.SPEED,
    Column.REACH,
    Column.SNEAK_ATTACK_DICE,
)
"""The columns of :func:`_static_features`, in its order."""
_TARGETS: list = [None, frozenset()]


def _attack_targets(battle: Battle, legal: tuple | None = None) -> frozenset:
    """Ids the actor may attack now (one set per legal tuple; the tuple is kept alive with
    it, so an identity check is safe)."""
    if legal is None:
        legal = engine.legal_tuple(battle)
    if _TARGETS[0] is not legal:
        _TARGETS[:] = [legal, frozenset(a.arg for a in legal if a.kind == engine.ATTACK)]
    return _TARGETS[1]


_PAIR_MEMO_LIMIT = 200_000
_MUTABLE_FIELDS = frozenset(
    {"id", "team", "pos", "facing", "hp", "flat_footed", "readied", "charging"}
)


class PairMemo:
    """The creature table's memo, shared by every battle of an env.

    A row's pair columns (areas both ways, distance, threats, facing modifiers, sneak
    attack) depend only on the two creatures' specs, whether they are one creature or on
    one team, their relative position (rules, areas and distances are translation
    invariant on both grids), facings and flat-footedness, and whether the observer lives.
    ``full_rows`` holds whole table rows (float32, hit points and the attackable and AoO
    flags left at 0) under the same key. Creatures are keyed by *profile*: the index of
    everything else about them (rules, grid, and every field but id, team and the mutable
    ones), so twin creatures share rows and a profile's rows stay valid in every episode,
    procedural ones included.
    """

    def __init__(self) -> None:
        self.rows: dict[tuple, tuple[float, ...]] = {}
        self.full_rows: dict[tuple, np.ndarray] = {}  # table rows by pair key (_fill_table)
        self.geometry: dict[tuple, tuple[int, bool, bool]] = {}
        self.modifiers: dict[tuple, int] = {}
        self.statics: dict[int, tuple[float, ...]] = {}
        self.traits: dict[int, tuple[bool, bool]] = {}  # rules.opportunity.aoo_traits
        self.boards: dict[tuple, tuple[dict, dict, dict]] = {}
        self.window_stamps: dict[tuple, object] = {}  # _obs_kernel stamps by key, unplaced
        self.kernel_rows: dict[tuple, object] = {}  # _obs_kernel's full_rows, as C arrays
        self._profiles: dict[tuple, int] = {}

    def __getstate__(self) -> dict[str, object]:
        """Copies and pickles leave out the compiled writer's C arrays (``window_stamps``,
        ``kernel_rows``: a memo, rebuilt on use; C arrays cannot be pickled)."""
        state = dict(self.__dict__)
        state["window_stamps"] = {}
        state["kernel_rows"] = {}
        return state

    def clear(self) -> None:
        """Forget every memoised row (profiles stay: they index specs, not states)."""
        self.rows.clear()
        self.full_rows.clear()
        self.kernel_rows.clear()
        self.geometry.clear()
        self.modifiers.clear()

    def bind(self, battle: Battle) -> dict[str, int]:
        """The profile index of every creature of ``battle`` (new profiles are added)."""
        out = {}
        for c in battle.creatures.values():
            spec = (
                battle.ruleset,
                battle.kind,
                battle.diagonal_rule,
                *(
                    getattr(c, f.name)
                    for f in dataclasses.fields(c)
                    if f.name not in _MUTABLE_FIELDS
                ),
            )
            out[c.id] = self._profiles.setdefault(spec, len(self._profiles))
        return out


def _pair_features(
    battle: Battle, me: Creature, c: Creature, inv: float, memo: PairMemo, mine: int, theirs: int
) -> tuple[float, ...]:
    """A row of ``c`` in ``me``'s table with only the pair columns written (the areas,
    :attr:`Column.DISTANCE`, the threats, the facing modifiers and sneak attack); the
    rest are 0 for :func:`_table_row`.

    Built from smaller memos of :class:`PairMemo` where the rules allow it: the geometry
    of the two footprints (distance, whose reach covers whom) by profiles and relative
    position, and for two one-square creatures the areas by table lookup and each facing
    modifier by the pair of area cells (``rules.attacks.placement_modifier``). Bigger
    creatures take the general rule queries.
    """
    f = [0.0] * len(FEATURES)
    dx, dy = c.pos[0] - me.pos[0], c.pos[1] - me.pos[1]
    geo_key = (mine, theirs, dx, dy)
    geo = memo.geometry.get(geo_key)
    if geo is None:
        geo = memo.geometry[geo_key] = _pair_geometry(battle, me, c)
    distance, its_reach_covers_me, my_reach_covers_it = geo
    f[Column.DISTANCE] = distance * inv
    single = len(me.shape.offsets) == 1 and len(c.shape.offsets) == 1
    own = opp = None
    if c is not me:
        if single:
            mine_t, its_t = battle.table(me), battle.table(c)
            own = mine_t.lookup((dx, dy)) if mine_t is not None else None
            opp = its_t.lookup((-dx, -dy)) if its_t is not None else None
            f[Column.IN_MY_FRONT + _AREA_INDEX[own.area if own is not None else Area.NONE]] = 1.0
            f[Column.ME_IN_ITS_FRONT + _AREA_INDEX[opp.area if opp is not None else Area.NONE]] = (
                1.0
            )
        else:
            f[Column.IN_MY_FRONT + _AREA_INDEX[Area(rules.area_of(battle, me, c))]] = 1.0
            f[Column.ME_IN_ITS_FRONT + _AREA_INDEX[Area(rules.area_of(battle, c, me))]] = 1.0
    if c.team != me.team:
        f[Column.THREATENS_ME] = float(
            its_reach_covers_me and rules.can_make_attacks_of_opportunity(c)
        )
        f[Column.I_THREATEN_IT] = float(
            my_reach_covers_it and rules.can_make_attacks_of_opportunity(me)
        )
        if battle.rules.standard_flanking:
            return tuple(f)  # the modifiers depend on third parties: the caller writes them
        if single:
            fm = memo.modifiers
            key = (mine, theirs, own, opp)
            mod = fm.get(key)
            if mod is None:
                mod = fm[key] = rules.attacks.placement_modifier(battle, me, c, own, opp)
            back = (theirs, mine, opp, own)
            its = fm.get(back)
            if its is None:
                its = fm[back] = rules.attacks.placement_modifier(battle, c, me, opp, own)
        else:
            mod = rules.facing_modifier(battle, me, c)
            its = rules.facing_modifier(battle, c, me)
        f[Column.MY_FACING_MODIFIER] = mod / 10.0
        f[Column.ITS_FACING_MODIFIER] = its / 10.0
        f[Column.MY_SNEAK_ATTACK] = float(rules.sneak_attack_applies(battle, me, c))
    return tuple(f)


def _pair_geometry(battle: Battle, me: Creature, c: Creature) -> tuple[int, bool, bool]:
    """(distance in squares, whether ``c``'s melee reach covers a square of ``me``, and
    the reverse): what :func:`rules.threatened_cells` adds to the footprints when the
    creature may make attacks of opportunity (EP-THR-01)."""
    my_cells, c_cells = battle.cells_of(me), battle.cells_of(c)
    its_zone = rules.opportunity.cells_within(battle, c, rules.opportunity.melee_reach(c))
    my_zone = rules.opportunity.cells_within(battle, me, rules.opportunity.melee_reach(me))
    return (
        battle.cells_distance(my_cells, c_cells),
        any(cell in its_zone for cell in my_cells),
        any(cell in my_zone for cell in c_cells),
    )


def _static_features(battle: Battle, c: Creature) -> tuple[float, ...]:
    """The columns a creature's profile fixes (:data:`_STATIC_COLUMNS`: size,
    has_facing, AC, speed, reach and sneak attack), in that order."""
    sneak = 0.0
    if c.sneak_attack:
        n, sides, bonus = parse_dice(c.sneak_attack)
        sneak = (n * (sides + 1) / 2 + bonus) / 10.0
    return (
        c.size / 8.0,
        float(battle.table(c) is not None),
        c.ac / 30.0,
        c.speed / 5 / 12.0,
        rules.opportunity.melee_reach(c) / 5 / 5.0,
        sneak,
    )


def _fill_scalars(
    battle: Battle, me: Creature, s: np.ndarray, max_rounds: int, acting: bool | None = None
) -> None:
    """The 13 scalars, written in one assignment (turn values only for the actor)."""
    rs = battle.rules
    s[Scalar.HEX_GRID] = battle.kind is GridKind.HEX
    s[Scalar.UA35_RULES] = rs.facing_penalties
    s[Scalar.SIDE_REAR_RULES] = rs.auto_turn_on_attack
    if acting is None:
        acting = engine.actor(battle) is me
    if not acting:
        s[: Scalar.HEX_GRID] = 0.0
        if battle.initiative:
            s[Scalar.ROUND_FRACTION] = battle.initiative.round / max_rounds
        return
    ts = battle.turn
    speed = max(1, me.speed // 5)
    s[Scalar.MOVEMENT_LEFT] = engine.movement_capacity(battle) / (4 * speed)
    s[Scalar.MOVE_AVAILABLE] = ts.move_available
    s[Scalar.STANDARD_AVAILABLE] = ts.standard_available
    s[Scalar.FIVE_FOOT_STEP_AVAILABLE] = engine._free_five_foot_step(battle)
    s[Scalar.FREE_TURN_AVAILABLE] = not ts.free_turn_used
    s[Scalar.MOVING] = ts.moving
    s[Scalar.RUNNING] = ts.running
    s[Scalar.ATTACKS_MADE] = ts.attacks_made / 4.0
    s[Scalar.ROUND_FRACTION] = battle.initiative.round / max_rounds
    s[Scalar.CLEAVE] = ts.cleave is not None


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


_KERNEL_MODULE = "facing_env._obs_kernel"
_KERNEL = importlib.import_module(_KERNEL_MODULE) if _KERNEL_MODULE in compiled_modules() else None
"""The compiled writer of :func:`build` (:mod:`facing_env._obs_kernel`), None when that
module does not run compiled; imported last, as it reads this module's helpers."""
