# cython: annotation_typing=True
"""The compiled writer of observations: :func:`facing_env.observation.build` in typed loops.

This module is Cython's *pure Python mode*: plain Python with C types in annotations.
``setup.py`` compiles it with the rest of the step path (:mod:`facing_env._accel`), and
:mod:`facing_env.observation` uses it only when it runs compiled; otherwise (no compiler,
``FACING_ENV_PURE_PYTHON``, a stale build) the numpy reference in ``observation`` writes
every observation. It imports ``cython`` at run time only when it runs uncompiled, which
nothing does but a test with Cython installed.

What it writes is bit-for-bit what the reference writes (``tests/test_obs_kernel.py``
compares them on random reachable states of every scenario, and ``tests/test_compiled.py``
compares whole trajectories with the pure build). It reads the same memos: the stamps of a
creature (threatened cells, ring areas when an enemy, occupied cells with the occupant
values) come from the same rule queries, by the same key, and the creature table rows from
:class:`~facing_env.observation.PairMemo`. Instead of drawing padded planes and copying a
window slice, it writes each creature's stamp straight into the observer's window: the
observation is a function of the state, so nothing else needs to be kept.
"""

from __future__ import annotations

from typing import Any

import cython
import numpy as np

from facing_env import engine, observation, rules
from facing_env.types import GridKind

# C constants in the compiled module (module globals would be Python objects)
_N_CHANNELS = cython.declare(cython.int, len(observation.CHANNELS))
_N_FEATURES = cython.declare(cython.int, len(observation.FEATURES))
_SELF = cython.declare(cython.int, observation.Channel.SELF)
_THREAT_ENEMY = cython.declare(cython.int, observation.Channel.THREATENED_BY_ENEMIES)
_THREAT_END = cython.declare(cython.int, observation.Channel.THREATENED_BY_ALLIES + 1)
_N_TERRAIN = cython.declare(cython.int, observation.Channel.IMPEDED + 1)  # blocked..impeded
_N_SIDES = cython.declare(cython.int, observation.Channel.ENEMY - observation.Channel.SELF + 1)
# an occupant's channels self..facing_y come from its stamp's head, then its hp
_N_HEAD = cython.declare(cython.int, observation.Channel.HP - observation.Channel.SELF)
# the table's columns (observation.Column) as C constants
_C_PRESENT = cython.declare(cython.int, observation.Column.PRESENT)
_C_IS_SELF = cython.declare(cython.int, observation.Column.IS_SELF)
_C_ALLY = cython.declare(cython.int, observation.Column.ALLY)
_C_ENEMY = cython.declare(cython.int, observation.Column.ENEMY)
_C_DX = cython.declare(cython.int, observation.Column.DX)
_C_DY = cython.declare(cython.int, observation.Column.DY)
_C_SIZE = cython.declare(cython.int, observation.Column.SIZE)
_C_HAS_FACING = cython.declare(cython.int, observation.Column.HAS_FACING)
_C_FACING_X = cython.declare(cython.int, observation.Column.FACING_X)
_C_FACING_Y = cython.declare(cython.int, observation.Column.FACING_Y)
_C_HP_FRACTION = cython.declare(cython.int, observation.Column.HP_FRACTION)
_C_HP = cython.declare(cython.int, observation.Column.HP)
_C_AC = cython.declare(cython.int, observation.Column.AC)
_C_IN_MY_FRONT = cython.declare(cython.int, observation.Column.IN_MY_FRONT)
_C_ME_IN_ITS_FRONT = cython.declare(cython.int, observation.Column.ME_IN_ITS_FRONT)
_C_DISTANCE = cython.declare(cython.int, observation.Column.DISTANCE)
_C_FLAT_FOOTED = cython.declare(cython.int, observation.Column.FLAT_FOOTED)
_C_THREATENS_ME = cython.declare(cython.int, observation.Column.THREATENS_ME)
_C_I_THREATEN_IT = cython.declare(cython.int, observation.Column.I_THREATEN_IT)
_C_MY_FACING_MODIFIER = cython.declare(cython.int, observation.Column.MY_FACING_MODIFIER)
_C_ITS_FACING_MODIFIER = cython.declare(cython.int, observation.Column.ITS_FACING_MODIFIER)
_C_MY_SNEAK_ATTACK = cython.declare(cython.int, observation.Column.MY_SNEAK_ATTACK)
_C_ATTACKABLE = cython.declare(cython.int, observation.Column.ATTACKABLE)
_C_ATTACKS_OF_OPPORTUNITY_LEFT = cython.declare(
    cython.int, observation.Column.ATTACKS_OF_OPPORTUNITY_LEFT
)
_C_SPEED = cython.declare(cython.int, observation.Column.SPEED)
_C_REACH = cython.declare(cython.int, observation.Column.REACH)
_C_SNEAK_ATTACK_DICE = cython.declare(cython.int, observation.Column.SNEAK_ATTACK_DICE)
# the turn scalars (observation.Scalar)
_S_MOVEMENT_LEFT = cython.declare(cython.int, observation.Scalar.MOVEMENT_LEFT)
_S_MOVE_AVAILABLE = cython.declare(cython.int, observation.Scalar.MOVE_AVAILABLE)
_S_STANDARD_AVAILABLE = cython.declare(cython.int, observation.Scalar.STANDARD_AVAILABLE)
_S_FIVE_FOOT_STEP_AVAILABLE = cython.declare(
    cython.int, observation.Scalar.FIVE_FOOT_STEP_AVAILABLE
)
_S_FREE_TURN_AVAILABLE = cython.declare(cython.int, observation.Scalar.FREE_TURN_AVAILABLE)
_S_MOVING = cython.declare(cython.int, observation.Scalar.MOVING)
_S_RUNNING = cython.declare(cython.int, observation.Scalar.RUNNING)
_S_ATTACKS_MADE = cython.declare(cython.int, observation.Scalar.ATTACKS_MADE)
_S_ROUND_FRACTION = cython.declare(cython.int, observation.Scalar.ROUND_FRACTION)
_S_CLEAVE = cython.declare(cython.int, observation.Scalar.CLEAVE)
_S_HEX_GRID = cython.declare(cython.int, observation.Scalar.HEX_GRID)
_S_UA35_RULES = cython.declare(cython.int, observation.Scalar.UA35_RULES)
_S_SIDE_REAR_RULES = cython.declare(cython.int, observation.Scalar.SIDE_REAR_RULES)
_BOUND = cython.declare(cython.float, observation.BOUND)
if len(observation.FEATURES) != 33:  # Row holds a C array of this length
    raise ImportError("facing_env._obs_kernel: Row is written for 33 table columns")
_ATTACK_KIND = engine.ATTACK
_ACTION = engine.Action
_OTHER_KINDS = tuple(k for k in engine.ACTION_KINDS if k != engine.ATTACK)
_FEET = cython.declare(cython.int, engine.FEET_PER_SQUARE)
_MOVE_KIND, _STEP_KIND, _FIVE_KIND = engine.MOVE, engine.STEP_KEEP_FACING, engine.FIVE_FOOT_STEP
# the blocks of facing_env.actions (which imports this module, so they are repeated here;
# tests/test_kernels.py checks they agree)
BLOCKS = (1, 9, 17)
"""The first index of MOVE, STEP_KEEP_FACING and FIVE_FOOT_STEP (``actions.MOVE_BASE``...)."""
_MOVE_BASE = cython.declare(cython.int, BLOCKS[0])
_STEP_BASE = cython.declare(cython.int, BLOCKS[1])
_FIVE_BASE = cython.declare(cython.int, BLOCKS[2])


@cython.cclass
class Stamp:
    """One creature's marks relative to its anchor, for a profile, facing, threat flag and
    side: cells that add 0.25 to a threat channel, cells whose ring-area channel is set,
    and occupied cells with the six occupant values (the hp fraction is written apart)."""

    adds: cython.int[:, ::1]  # (dx, dy, channel)
    sets: cython.int[:, ::1]  # (dx, dy, channel)
    cells: cython.int[:, ::1]  # (dx, dy)
    head: cython.float[::1]

    def __init__(self, adds: Any, sets: Any, cells: Any, head: Any) -> None:
        self.adds = np.ascontiguousarray(adds, dtype=np.int32).reshape(-1, 3)
        self.sets = np.ascontiguousarray(sets, dtype=np.int32).reshape(-1, 3)
        self.cells = np.ascontiguousarray(cells, dtype=np.int32).reshape(-1, 2)
        self.head = np.ascontiguousarray(head, dtype=np.float32)


def make_stamp(battle: Any, c: Any, ally: bool) -> Stamp:
    """The :class:`Stamp` of ``c`` now (the reference's ``Board._stamp``, unplaced)."""
    channel = _THREAT_ENEMY + int(ally)
    adds = [(dx, dy, channel) for dx, dy in rules.opportunity.threatened_offsets(battle, c)]
    table = battle.table(c)
    sets: list[tuple[int, int, int]] = []
    if not ally and table is not None:
        rows, cols, chans = observation._ring_stamp(table)
        sets = [(int(x), int(y), int(ch)) for y, x, ch in zip(rows, cols, chans, strict=True)]
    fx, fy = (0.0, 0.0) if table is None else observation._unit_vector(battle.kind, c.facing)
    head = (0.0, float(ally), float(not ally), c.size / 8.0, fx, fy)
    return Stamp(adds, sets, list(c.shape.offsets), head)


@cython.cfunc
@cython.boundscheck(False)
@cython.wraparound(False)
def _stamp_window(
    out: cython.float[::1],
    stamp: Stamp,
    ox: cython.int,
    oy: cython.int,
    size: cython.int,
    hp: cython.float,
) -> cython.void:
    """Write ``stamp`` with its anchor at window cell (ox, oy) (column, row)."""
    i: cython.Py_ssize_t
    x: cython.int
    y: cython.int
    k: cython.int
    base: cython.Py_ssize_t
    adds: cython.int[:, ::1] = stamp.adds
    sets: cython.int[:, ::1] = stamp.sets
    cells: cython.int[:, ::1] = stamp.cells
    head: cython.float[::1] = stamp.head
    for i in range(adds.shape[0]):
        x = ox + adds[i, 0]
        y = oy + adds[i, 1]
        if 0 <= x < size and 0 <= y < size:
            out[(y * size + x) * _N_CHANNELS + adds[i, 2]] += 0.25
    for i in range(sets.shape[0]):
        x = ox + sets[i, 0]
        y = oy + sets[i, 1]
        if 0 <= x < size and 0 <= y < size:
            out[(y * size + x) * _N_CHANNELS + sets[i, 2]] = 1.0
    for i in range(cells.shape[0]):
        x = ox + cells[i, 0]
        y = oy + cells[i, 1]
        if 0 <= x < size and 0 <= y < size:
            base = (y * size + x) * _N_CHANNELS + _SELF
            for k in range(_N_HEAD):
                out[base + k] = head[k]
            out[base + _N_HEAD] = hp


@cython.cclass
class Context:
    """What the writer reads of one board and layout on every call, held in C fields
    (kept on the board by :func:`context`)."""

    layout: object
    size: cython.int
    half: cython.int
    n_slots: cython.Py_ssize_t
    length: cython.Py_ssize_t
    x0: cython.int
    y0: cython.int
    clamp: cython.bint
    clip: cython.bint
    terrain: cython.float[:, :, ::1]
    stamps: object
    profiles: object
    traits: object
    own: object  # observer stamps (areas, selves) as OwnStamp by (profile, facing)
    memo: object
    full_rows: object
    battle: object
    standard: cython.bint  # standard flanking: the table goes to the reference
    hexes: cython.float  # the rule scalars of the battle
    penalties: cython.float
    auto_turn: cython.float

    def __init__(self, board: Any, layout: Any, battle: Any) -> None:
        self.battle = battle
        rs = battle.rules
        self.standard = rs.standard_flanking
        self.hexes = battle.kind is GridKind.HEX
        self.penalties = rs.facing_penalties
        self.auto_turn = rs.auto_turn_on_attack
        self.layout = layout
        self.size = layout.window
        self.half = layout.window // 2
        self.n_slots = layout.n_slots
        self.length = layout.size
        self.x0 = board.x0
        self.y0 = board.y0
        self.clamp = board.clamp_threats
        self.clip = board.clip
        self.terrain = board.terrain
        self.memo = board.memo
        self.full_rows = board.memo.kernel_rows  # cleared in place, never replaced
        self.stamps = board.memo.window_stamps
        self.profiles = board.profiles
        self.traits = board.memo.traits
        self.own = {}


@cython.cclass
class Row:
    """A memoised table row (``PairMemo.kernel_rows``) in a C array, copied without
    acquiring a buffer: every column but hit points and the attackable and AoO flags."""

    values: cython.float[33]

    def __init__(self, array: Any) -> None:
        source: cython.float[::1] = array
        i: cython.Py_ssize_t
        for i in range(33):
            self.values[i] = source[i]


@cython.cclass
class OwnStamp:
    """The observer's own-area cells and self cells as window flat indices (the
    reference's ``Board._own_stamp``)."""

    areas: cython.Py_ssize_t[::1]
    selves: cython.Py_ssize_t[::1]

    def __init__(self, areas: Any, selves: Any) -> None:
        self.areas = areas
        self.selves = selves


def context(board: Any, layout: Any, battle: Any) -> Context:
    """The :class:`Context` of a board (drawn for ``battle``) and ``layout``, made on
    first use."""
    ctx = board.kernel_context
    if (
        ctx is None
        or cython.cast(Context, ctx).layout is not layout
        or cython.cast(Context, ctx).battle is not battle
    ):
        if board.window != layout.window:  # the own stamps are window indices
            raise ValueError(
                f"the board draws a {board.window}-wide window, the layout a "
                f"{layout.window}-wide one"
            )
        ctx = board.kernel_context = Context(board, layout, battle)
    return ctx


@cython.boundscheck(False)
@cython.wraparound(False)
def build(
    battle: Any,
    me: Any,
    slots: Any,
    layout: Any,
    max_rounds: int,
    board: Any,
    acting: bool,
    legal: Any,
) -> np.ndarray:
    """The observation vector of ``me`` (``slots[0]``), as ``observation.build`` writes it
    with a board; ``legal`` is the actor's legal tuple when ``acting``."""
    ctx: Context = context(board, layout, battle)
    out_array = np.zeros(ctx.length, dtype=np.float32)
    out: cython.float[::1] = out_array
    size: cython.int = ctx.size
    half: cython.int = ctx.half
    pos = me.pos
    mx: cython.int = pos[0]
    my: cython.int = pos[1]
    i: cython.Py_ssize_t
    j: cython.Py_ssize_t
    k: cython.Py_ssize_t
    n: cython.Py_ssize_t
    v: cython.float
    # terrain: the padded planes hold it in Channel.BLOCKED to IMPEDED (never redrawn)
    terrain: cython.float[:, :, ::1] = ctx.terrain
    r0: cython.int = my - ctx.y0 - half
    c0: cython.int = mx - ctx.x0 - half
    if r0 < 0 or c0 < 0 or r0 + size > terrain.shape[0] or c0 + size > terrain.shape[1]:
        raise ValueError(f"creature {me.id!r} at {me.pos} is off the board")
    for i in range(size):
        for j in range(size):
            for k in range(_N_TERRAIN):
                out[(i * size + j) * _N_CHANNELS + k] = terrain[r0 + i, c0 + j, k]
    # every living creature in spec order (a later one wins a shared cell)
    stamps = ctx.stamps
    profiles = ctx.profiles
    traits = ctx.traits
    team = me.team
    for c in battle.creatures.values():
        hp = c.hp
        if hp <= 0:
            continue
        profile = profiles[c.id]
        trait = traits.get(profile)
        if trait is None:
            trait = traits[profile] = rules.opportunity.aoo_traits(c)
        ally = c.team == team
        facing = c.facing
        skey = (profile, facing, trait[0] and (not c.flat_footed or trait[1]), ally)
        stamp = stamps.get(skey)
        if stamp is None:
            stamp = stamps[skey] = make_stamp(battle, c, ally)
        cpos = c.pos
        _stamp_window(out, stamp, cpos[0] - mx + half, cpos[1] - my + half, size, hp / c.max_hp)
    # the observer's self channels and own areas (the reference's window_of)
    key = (profiles[me.id], me.facing)
    own = ctx.own.get(key)
    if own is None:
        areas_selves = board._own.get(key)
        if areas_selves is None:
            areas_selves = board._own[key] = board._own_stamp(battle, me)
        own = ctx.own[key] = OwnStamp(areas_selves[0], areas_selves[1])
    stamp_own: OwnStamp = own
    areas: cython.Py_ssize_t[::1] = stamp_own.areas
    selves: cython.Py_ssize_t[::1] = stamp_own.selves
    if me.hp > 0:
        for i in range(selves.shape[0]):
            out[selves[i]] = 1.0 if i % _N_SIDES == 0 else 0.0  # self, not ally or enemy
    n = size * size
    if ctx.clamp:
        for i in range(n):
            for k in range(_THREAT_ENEMY, _THREAT_END):
                if out[i * _N_CHANNELS + k] > 1.0:
                    out[i * _N_CHANNELS + k] = 1.0
    for i in range(areas.shape[0]):
        out[areas[i]] = 1.0
    if ctx.clip:
        for i in range(n * _N_CHANNELS):
            v = out[i]
            if v > _BOUND:
                out[i] = _BOUND
            elif v < -_BOUND:
                out[i] = -_BOUND
    ws: cython.Py_ssize_t = n * _N_CHANNELS
    ts: cython.Py_ssize_t = ctx.n_slots * _N_FEATURES
    _write_table(battle, me, slots, out_array, out, ws, ctx, acting, legal)
    _write_scalars(battle, me, out, ws + ts, max_rounds, acting, ctx)
    for i in range(ws, out.shape[0]):  # np.minimum then np.maximum, NaN kept
        v = out[i]
        if v > _BOUND:
            out[i] = _BOUND
        elif v < -_BOUND:
            out[i] = -_BOUND
    return out_array


@cython.cfunc
@cython.boundscheck(False)
@cython.wraparound(False)
def _write_table(
    battle: Any,
    me: Any,
    slots: Any,
    out_array: Any,
    out: cython.float[::1],
    ws: cython.Py_ssize_t,
    ctx: Context,
    acting: bool,
    legal: Any,
) -> cython.void:
    """The creature table (the reference's ``_fill_table``)."""
    memo = ctx.memo
    n_slots: cython.Py_ssize_t = ctx.n_slots
    if ctx.standard:  # rows depend on third parties: the reference
        layout = ctx.layout
        t = out_array[ws : ws + n_slots * _N_FEATURES].reshape(layout.table_shape)
        observation._fill_table(
            battle, me, slots, t, layout.window, memo, ctx.profiles, acting, legal
        )
        return
    full_rows = ctx.full_rows  # Row by the reference's full-row key
    if len(full_rows) > observation._PAIR_MEMO_LIMIT:
        memo.clear()
    targets = []  # the ids the actor may attack now (the reference's _attack_targets)
    t: tuple
    if acting:
        for a in legal:
            if type(a) is not _ACTION:  # anything else: the reference's reading
                targets = observation._attack_targets(battle, legal)
                break
            t = cython.cast(tuple, a)  # an Action: exactly (kind, arg)
            kind = t[0]
            if kind is _ATTACK_KIND:
                targets.append(t[1])
            elif kind in _OTHER_KINDS:  # the engine's constants, by identity first
                continue
            elif kind == _ATTACK_KIND:
                targets.append(t[1])
    initiative = battle.initiative
    aoo_used = initiative.aoo_used if initiative else {}
    profiles = ctx.profiles
    traits = ctx.traits
    mx, my = me.pos
    mine = profiles[me.id]
    size = ctx.size
    row: cython.Py_ssize_t
    k: cython.Py_ssize_t
    base: cython.Py_ssize_t
    full: Row
    for row in range(min(len(slots), n_slots)):
        cid = slots[row]
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
        key = observation.pair_key(me, c, mine, theirs, is_me, enemy, dx, dy, size)
        found = full_rows.get(key)
        if found is None:
            if len(me.shape.offsets) == 1 and len(c.shape.offsets) == 1:
                values = _single_square_row(
                    battle, me, c, memo, mine, theirs, is_me, enemy, dx, dy, 1.0 / size
                )
            else:
                values = observation._full_row(
                    battle, me, c, memo, mine, theirs, is_me, enemy, dx, dy, 1.0 / size
                )
            found = full_rows[key] = Row(values)
        full = found
        base = ws + row * _N_FEATURES
        for k in range(_N_FEATURES):
            out[base + k] = full.values[k]
        out[base + _C_HP_FRACTION] = c.hp / c.max_hp
        out[base + _C_HP] = c.hp / 50.0
        out[base + _C_ATTACKABLE] = enemy and cid in targets
        # rules.can_make_attacks_of_opportunity of a living creature
        out[base + _C_ATTACKS_OF_OPPORTUNITY_LEFT] = (
            aoo_used.get(cid, 0) == 0 and trait[0] and (not c.flat_footed or trait[1])
        )


_AREA_INDEX = observation._AREA_INDEX
_NONE = observation.Area.NONE


@cython.boundscheck(False)
@cython.wraparound(False)
def _single_square_row(
    battle: Any,
    me: Any,
    c: Any,
    memo: Any,
    mine: Any,
    theirs: Any,
    is_me: cython.bint,
    enemy: cython.bint,
    dx: cython.int,
    dy: cython.int,
    inv: cython.double,
) -> np.ndarray:
    """``observation._full_row`` for two one-square creatures under rules without
    third-party flanking (the only table the kernel writes): the same memos and rule
    queries, written straight into the row (hit points and the attackable and AoO flags
    left at 0)."""
    row_array = np.zeros(_N_FEATURES, dtype=np.float32)
    f: cython.float[::1] = row_array
    static = memo.statics.get(theirs)
    if static is None:
        static = memo.statics[theirs] = observation._static_features(battle, c)
    f[_C_PRESENT] = 1.0
    f[_C_IS_SELF] = is_me
    f[_C_ALLY] = not enemy and not is_me
    f[_C_ENEMY] = enemy
    f[_C_DX] = dx * inv
    f[_C_DY] = dy * inv
    f[_C_SIZE] = static[0]  # observation._static_features, in _STATIC_COLUMNS order
    f[_C_HAS_FACING] = static[1]
    if static[1]:
        fx, fy = observation._unit_vector(battle.kind, c.facing)
        f[_C_FACING_X] = fx
        f[_C_FACING_Y] = fy
    f[_C_AC] = static[2]
    f[_C_SPEED] = static[3]
    f[_C_REACH] = static[4]
    f[_C_SNEAK_ATTACK_DICE] = static[5]
    f[_C_FLAT_FOOTED] = c.flat_footed
    # the pair columns (observation._pair_features, one-square branch)
    geo_key = (mine, theirs, dx, dy)
    geo = memo.geometry.get(geo_key)
    if geo is None:
        geo = memo.geometry[geo_key] = observation._pair_geometry(battle, me, c)
    distance, its_reach_covers_me, my_reach_covers_it = geo
    f[_C_DISTANCE] = distance * inv
    own = opp = None
    if not is_me:
        mine_t, its_t = battle.table(me), battle.table(c)
        own = mine_t.lookup((dx, dy)) if mine_t is not None else None
        opp = its_t.lookup((-dx, -dy)) if its_t is not None else None
        f[_C_IN_MY_FRONT + _AREA_INDEX[own.area if own is not None else _NONE]] = 1.0
        f[_C_ME_IN_ITS_FRONT + _AREA_INDEX[opp.area if opp is not None else _NONE]] = 1.0
    if enemy:
        f[_C_THREATENS_ME] = its_reach_covers_me and rules.can_make_attacks_of_opportunity(c)
        f[_C_I_THREATEN_IT] = my_reach_covers_it and rules.can_make_attacks_of_opportunity(me)
        fm = memo.modifiers
        key = (mine, theirs, own, opp)
        mod = fm.get(key)
        if mod is None:
            mod = fm[key] = rules.attacks.placement_modifier(battle, me, c, own, opp)
        back = (theirs, mine, opp, own)
        its = fm.get(back)
        if its is None:
            its = fm[back] = rules.attacks.placement_modifier(battle, c, me, opp, own)
        f[_C_MY_FACING_MODIFIER] = mod / 10.0
        f[_C_ITS_FACING_MODIFIER] = its / 10.0
        f[_C_MY_SNEAK_ATTACK] = rules.sneak_attack_applies(battle, me, c)
    return row_array


@cython.cfunc
def _write_scalars(
    battle: Any,
    me: Any,
    out: cython.float[::1],
    at: cython.Py_ssize_t,
    max_rounds: int,
    acting: bool,
    ctx: Context,
) -> cython.void:
    """The 13 scalars (the reference's ``_fill_scalars``)."""
    out[at + _S_HEX_GRID] = ctx.hexes
    out[at + _S_UA35_RULES] = ctx.penalties
    out[at + _S_SIDE_REAR_RULES] = ctx.auto_turn
    if not acting:
        out[at + _S_ROUND_FRACTION] = (
            battle.initiative.round / max_rounds if battle.initiative else 0.0
        )
        return
    ts = battle.turn
    speed: cython.int = me.speed // 5
    if speed < 1:
        speed = 1
    capacity: cython.int = 0  # engine.movement_capacity
    if not ts.five_foot_step_taken:
        capacity = ts.movement_left if ts.moving else 0
        if not ts.running:
            spare: cython.int = bool(ts.move_available) + bool(
                ts.standard_available and ts.attacks_made == 0
            )
            capacity += spare * (me.speed // _FEET)
    out[at + _S_MOVEMENT_LEFT] = capacity / (4.0 * speed)
    out[at + _S_MOVE_AVAILABLE] = ts.move_available
    out[at + _S_STANDARD_AVAILABLE] = ts.standard_available
    out[at + _S_FIVE_FOOT_STEP_AVAILABLE] = not (
        ts.moved or ts.five_foot_step_taken or ts.running or ts.withdrawing is not None
    )
    out[at + _S_FREE_TURN_AVAILABLE] = not ts.free_turn_used
    out[at + _S_MOVING] = ts.moving
    out[at + _S_RUNNING] = ts.running
    out[at + _S_ATTACKS_MADE] = ts.attacks_made / 4.0
    out[at + _S_ROUND_FRACTION] = battle.initiative.round / max_rounds
    out[at + _S_CLEAVE] = ts.cleave is not None


@cython.boundscheck(False)
@cython.wraparound(False)
def action_mask(legal: Any, table: dict, n: cython.Py_ssize_t) -> np.ndarray:
    """The int8 mask with the index ``table[a]`` of every action of ``legal`` set (the
    reference's ``ActionCodec.mask`` writes it by fancy indexing). The directional kinds
    are indexed by their blocks (``actions.MOVE_BASE`` ...) without hashing the action;
    ``tests/test_kernels.py`` checks the result against the reference."""
    out_array = np.zeros(n, dtype=np.int8)
    out: cython.schar[::1] = out_array
    i: cython.Py_ssize_t
    d: cython.Py_ssize_t
    t: tuple
    for a in legal:
        i = -1
        if type(a) is _ACTION:  # exactly (kind, arg): read its items directly
            t = cython.cast(tuple, a)
            kind = t[0]
            arg = t[1]
            # the engine's kind constants by identity, a direction 0-7 by its block;
            # anything else goes by the table, as in the reference
            d = -1
            if type(arg) is int:
                try:
                    d = arg
                except OverflowError:  # no such direction: the table's KeyError below
                    d = -1
            if 0 <= d < 8:
                if kind is _MOVE_KIND:
                    i = _MOVE_BASE + d
                elif kind is _STEP_KIND:
                    i = _STEP_BASE + d
                elif kind is _FIVE_KIND:
                    i = _FIVE_BASE + d
        if i < 0:
            i = table[a]
        if not 0 <= i < n:
            raise ValueError(f"action {a!r} has no index in Discrete({n})")
        out[i] = 1
    return out_array
