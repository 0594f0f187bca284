"""The observation writer of the batched engine: numba kernels over a :class:`State` row.

:func:`observe` writes creature slot ``k``'s observation vector of battle ``i`` into a
float32 vector: bit for bit what the AEC env's ``observe(agent)["observation"]`` returns
for that creature (:mod:`facing_env.observation`: the window, the creature table, the
turn scalars and the tactics part, indexed by the layout's named offsets ``Channel``,
``Column``, ``Scalar``, ``Tactic`` and ``TacticScalar``). :func:`observe_batch` writes
one row per battle. ``tests/test_fast_observe.py`` compares them with the env on states
of every scenario.

What the layout and the scenario fix (window, slots, round limit, the vector's offsets)
and what comes from angles (a facing's unit vector, the observer's areas over the
window) is held in a :class:`View`, built by :func:`view_for` with the reference's own
functions (``observation._unit_vector``, ``geometry.area_table``): no angle is computed
in a kernel.

The rule queries come from the other kernels of :mod:`facing_env.fast`: threatened
cells and attack reach from :mod:`~facing_env.fast.opportunity` (the ``THREATENED_BY_*``
channels, ``THREATENS_ME``, ``I_THREATEN_IT``, ``ATTACKABLE``), the facing modifiers and
sneak attack from :mod:`~facing_env.fast.attacks` and :mod:`~facing_env.fast.flanking`,
the charge lanes (``CAN_CHARGE``) from :mod:`~facing_env.fast.maneuvers`. The engine's turn
queries the scalars read (``movement_capacity``, ``_free_five_foot_step``,
``_may_trade_step``) are copied here.

A battle that is over has no actor (``State.actor`` is -1): :func:`observe_batch` writes
zeros for such a row. :func:`observe` of a creature of a finished battle is what the env
returns for it then (no turn values).

The kernels are :mod:`facing_env.fast.jit`'s: no reference counting, no allocation
(:func:`observe` and :func:`observe_batch` are callable from Python and from kernels, the
rest from kernels only).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from facing_env import observation
from facing_env.fast import attacks as attack
from facing_env.fast import flanking
from facing_env.fast import geometry as geo
from facing_env.fast import maneuvers as charge
from facing_env.fast import opportunity as reach
from facing_env.fast import perception as seeing
from facing_env.fast.jit import inline, kernel
from facing_env.fast.legality import free_five_foot_step, may_trade_step, movement_capacity
from facing_env.fast.lookup import NONE_CODE, Tables, _kind_ruleset
from facing_env.fast.state import AREA_CODES, RULESETS, SHAPE_CELLS, SHAPE_OFFSETS, SHAPES, State
from facing_env.observation import (
    BOUND,
    CHANNELS,
    FEATURES,
    TACTICS,
    Channel,
    Column,
    ObservationLayout,
    Scalar,
    Tactic,
    TacticScalar,
)
from facing_env.rules import engine, geometry
from facing_env.rules._common import EXPOSURE
from facing_env.tables import FEET_PER_SQUARE
from facing_env.tables import RULESETS as RULE_ROWS

# -- the layout's named offsets, as module constants (numba reads them as literals) ------

N_CHANNELS = len(CHANNELS)
KEEP = -2
"""A slot for :func:`observe_batch` that leaves the row's observation as it is."""
N_FEATURES = len(FEATURES)
N_TACTICS = len(TACTICS)

CH_BLOCKED = Channel.BLOCKED
CH_DIFFICULT = Channel.DIFFICULT
CH_IMPEDED = Channel.IMPEDED
CH_SELF = Channel.SELF
CH_ALLY = Channel.ALLY
CH_ENEMY = Channel.ENEMY
CH_SIZE = Channel.SIZE
CH_FACING_X = Channel.FACING_X
CH_FACING_Y = Channel.FACING_Y
CH_HP = Channel.HP
CH_THREAT_ENEMIES = Channel.THREATENED_BY_ENEMIES
CH_THREAT_ALLIES = Channel.THREATENED_BY_ALLIES
CH_OWN_FRONT = Channel.OWN_FRONT
CH_ENEMY_FRONT = Channel.ENEMY_FRONT

C_PRESENT = Column.PRESENT
C_IS_SELF = Column.IS_SELF
C_ALLY = Column.ALLY
C_ENEMY = Column.ENEMY
C_DX = Column.DX
C_DY = Column.DY
C_SIZE = Column.SIZE
C_HAS_FACING = Column.HAS_FACING
C_FACING_X = Column.FACING_X
C_FACING_Y = Column.FACING_Y
C_HP_FRACTION = Column.HP_FRACTION
C_HP = Column.HP
C_AC = Column.AC
C_IN_MY_FRONT = Column.IN_MY_FRONT
C_ME_IN_ITS_FRONT = Column.ME_IN_ITS_FRONT
C_DISTANCE = Column.DISTANCE
C_FLAT_FOOTED = Column.FLAT_FOOTED
C_THREATENS_ME = Column.THREATENS_ME
C_I_THREATEN_IT = Column.I_THREATEN_IT
C_MY_FACING_MODIFIER = Column.MY_FACING_MODIFIER
C_ITS_FACING_MODIFIER = Column.ITS_FACING_MODIFIER
C_MY_SNEAK_ATTACK = Column.MY_SNEAK_ATTACK
C_ATTACKABLE = Column.ATTACKABLE
C_AOO_LEFT = Column.ATTACKS_OF_OPPORTUNITY_LEFT
C_SPEED = Column.SPEED
C_REACH = Column.REACH
C_SNEAK_ATTACK_DICE = Column.SNEAK_ATTACK_DICE

S_MOVEMENT_LEFT = Scalar.MOVEMENT_LEFT
S_MOVE_AVAILABLE = Scalar.MOVE_AVAILABLE
S_STANDARD_AVAILABLE = Scalar.STANDARD_AVAILABLE
S_FIVE_FOOT_STEP_AVAILABLE = Scalar.FIVE_FOOT_STEP_AVAILABLE
S_FREE_TURN_AVAILABLE = Scalar.FREE_TURN_AVAILABLE
S_MOVING = Scalar.MOVING
S_RUNNING = Scalar.RUNNING
S_ATTACKS_MADE = Scalar.ATTACKS_MADE
S_ROUND_FRACTION = Scalar.ROUND_FRACTION
S_CLEAVE = Scalar.CLEAVE
S_HEX_GRID = Scalar.HEX_GRID
S_UA35_RULES = Scalar.UA35_RULES
S_SIDE_REAR_RULES = Scalar.SIDE_REAR_RULES

T_READIED = Tactic.READIED
T_CHARGING = Tactic.CHARGING
T_PLAYER_CHARACTER = Tactic.PLAYER_CHARACTER
T_CAN_CHARGE = Tactic.CAN_CHARGE
TS_WITHDRAWING = TacticScalar.WITHDRAWING
TS_TRADE_STEPS_LEFT = TacticScalar.TRADE_STEPS_LEFT

F32_BOUND = np.float32(BOUND)
"""``observation.BOUND``: the table and the scalars are clipped to it in float32."""
HP_SCALE = 50.0  # Column.HP: hit points / 50
AC_SCALE = 30.0  # Column.AC: AC / 30
SIZE_SCALE = 8.0  # Channel.SIZE, Column.SIZE: size category / 8
SPEED_SCALE = 12.0  # Column.SPEED: squares per move action / 12
REACH_SCALE = 5.0  # Column.REACH: squares of reach / 5
DICE_SCALE = 10.0  # Column.SNEAK_ATTACK_DICE: average damage / 10
MODIFIER_SCALE = 10.0  # Column.*_FACING_MODIFIER: / 10
THREAT_STEP = np.float32(0.25)  # Channel.THREATENED_BY_*: 0.25 per creature, at most 1
PER_FOUR = 4.0  # Scalar.ATTACKS_MADE, TacticScalar.TRADE_STEPS_LEFT: / 4; movement / 4 moves

# -- rules data, indexed by the State's codes ---------------------------------------------

_AREA_INDEX = observation._AREA_INDEX  # flank and side share a channel and a column
AREA_CHANNEL = np.array([_AREA_INDEX[a] for a in AREA_CODES], dtype=np.int32)
"""``[area code]``: an area's offset among the front/flank/rear(/none) channels."""
AREA_EXPOSURE = np.array([EXPOSURE[a] for a in AREA_CODES], dtype=np.int32)
"""``[area code]``: ``rules._common.EXPOSURE`` (rear before flank or side before front)."""
FACING_PENALTIES = np.array([RULE_ROWS[r].facing_penalties for r in RULESETS])
AUTO_TURN = np.array([RULE_ROWS[r].auto_turn_on_attack for r in RULESETS])
STANDARD_FLANKING = np.array([RULE_ROWS[r].standard_flanking for r in RULESETS])
FEET = FEET_PER_SQUARE
MAX_ACTIONS = engine.MAX_ACTIONS_PER_TURN


class View(NamedTuple):
    """What the observations of one scenario's battles need besides the state: the
    layout's sizes and offsets, the round limit and the angle-derived tables (filled by
    the reference's functions)."""

    window: int  # W (odd)
    n_slots: int  # K, rows of the creature and tactics tables
    max_rounds: int
    size: int  # D, the vector's length
    table_at: int  # the creature table's first value
    scalars_at: int  # the first turn scalar
    tactics_at: int  # the tactics part's first value
    unit: np.ndarray  # (F, 2) float64: a facing's unit vector (observation._unit_vector)
    own: np.ndarray  # (S, F, W, W) int8: area code of window cell (row, col) for a
    #   creature anchored at the window's centre (AreaTable.lookup; NONE_CODE for the
    #   footprints not filled)
    ring: np.ndarray  # (S, M, 2) int32: (dx, dy) of the cells of a footprint's ring
    n_ring: np.ndarray  # (S,) int32


def view_for(t: Tables, s: State, layout: ObservationLayout, max_rounds: int) -> View:
    """The :class:`View` of ``s``'s battles (one grid kind and rule set, as for
    :func:`~facing_env.fast.lookup.tables_of`) under the env's ``layout``
    (``env.layout``) and round limit (``env.max_rounds``); cached."""
    kinds, rulesets = set(s.kind.tolist()), set(s.ruleset.tolist())
    if len(kinds) != 1 or len(rulesets) != 1:
        raise ValueError("the battles of one State must share a grid kind and a rule set")
    kind, ruleset = _kind_ruleset(kinds.pop(), rulesets.pop())
    shapes = frozenset(s.shape[s.present].tolist())
    return _view(kind, ruleset, shapes, layout.window, layout.n_slots, max_rounds)


_VIEWS: dict[tuple, View] = {}


def _view(
    kind: object, ruleset: object, shapes: frozenset[int], window: int, n_slots: int, rounds: int
) -> View:
    key = (kind, ruleset, shapes, window, n_slots, rounds)
    found = _VIEWS.get(key)
    if found is not None:
        return found
    layout = ObservationLayout(window, n_slots)
    n_facings = len(geometry.facing_names(kind))
    unit = np.array([observation._unit_vector(kind, f) for f in range(n_facings)])
    half = window // 2
    own = np.full((len(SHAPES), n_facings, window, window), NONE_CODE, dtype=np.int8)
    for index in sorted(shapes):
        for f in range(n_facings):
            table = geometry.area_table(kind, ruleset, SHAPES[index], f)
            for r in range(window):
                for c in range(window):
                    own[index, f, r, c] = AREA_CODES.index(table.lookup((c - half, r - half)).area)
    most = max(len(sh.ring) for sh in SHAPES)
    ring = np.zeros((len(SHAPES), most, 2), dtype=np.int32)
    n_ring = np.zeros(len(SHAPES), dtype=np.int32)
    for index, sh in enumerate(SHAPES):
        n_ring[index] = len(sh.ring)
        ring[index, : len(sh.ring)] = sh.ring
    found = _VIEWS[key] = View(
        window,
        n_slots,
        rounds,
        layout.size,
        layout.window_size,
        layout.window_size + layout.table_size,
        layout.tactics_offset,
        unit,
        own,
        ring,
        n_ring,
    )
    return found


# -- the rule queries the observation reads -------------------------------------------------


@inline
def facing_modifier(t, s, i, a, d):
    """``rules.facing_modifier(battle, a, d)``: the facing part of ``a``'s attack roll
    with its first attack against ``d``, at the most favourable placement (IC-04; the
    flanking bonus under standard flanking)."""
    ranged = s.attack_ranged[i, a, 0]
    flank = False
    if STANDARD_FLANKING[s.ruleset[i]] and not ranged:
        flank = flanking.flanks(s, i, a, d)
    return attack.best(t, s, i, a, d, attack.ATTACK, 0, ranged, flank)[0]


@inline
def attackable(t, s, i, c, e):
    """Whether the actor ``c`` has ``ATTACK e`` among its legal actions: under the action
    limit, ``e`` a living enemy that an attack left this turn reaches
    (``legality._check_attack``)."""
    if s.turn_actions_taken[i] >= MAX_ACTIONS:
        return False
    if not geo.alive(s, i, e) or s.team[i, e] == s.team[i, c]:
        return False
    mode = reach.attack_slots(s, i)
    if mode == reach.CLEAVE_SLOT:
        return reach.slot_reaches(t, s, i, c, e, s.turn_cleave[i, 0])
    if mode == reach.REMAINING_SLOTS:
        for r in range(s.n_remaining[i]):
            if reach.slot_reaches(t, s, i, c, e, s.remaining[i, r, 0]):
                return True
    return False


@inline
def trade_steps_left(s, i, c):
    """The attacks of its first attack the actor ``c`` has left when it may trade one
    for a 5-foot step (:func:`~facing_env.fast.legality.may_trade_step`, EP-5FT-02), else 0."""
    if not may_trade_step(s, i, c):
        return 0
    n = 0
    for r in range(s.n_remaining[i]):
        if s.remaining[i, r, 0] == 0:
            n += 1
    return n


@inline
def most_exposed(t, s, i, of, c):
    """``rules.area_of(battle, of, c)`` as an area code: ``c``'s most exposed square
    relative to ``of`` (IC-04); ``NONE_CODE`` when ``of`` has no facing."""
    if not geo.has_facing(s, i, of):
        return NONE_CODE
    shape = s.shape[i, c]
    best = NONE_CODE
    for p in range(SHAPE_CELLS[shape]):
        x = s.x[i, c] + SHAPE_OFFSETS[shape, p, 0]
        y = s.y[i, c] + SHAPE_OFFSETS[shape, p, 1]
        code = geo.area_code(t, s, i, of, x, y)
        if AREA_EXPOSURE[code] > AREA_EXPOSURE[best]:
            best = code
    return best


@inline
def slot_at(s, i, k, row):
    """``codec.creature_slots(battle, k)[row]``: ``k``, its allies, then its enemies,
    each in spec order; -1 past the last creature."""
    if row == 0:
        return k
    n = s.n_creatures[i]
    team = s.team[i, k]
    m = 1
    for c in range(n):
        if c != k and s.team[i, c] == team:
            if m == row:
                return c
            m += 1
    for c in range(n):
        if s.team[i, c] != team:
            if m == row:
                return c
            m += 1
    return -1


# -- the writer ----------------------------------------------------------------------------


@inline
def _terrain(terrain, hexes, height, width, ox, oy, size, out):
    """The terrain channels of the window whose top left cell is ``(ox, oy)``:
    ``geo.terrain_at`` row by row (``terrain`` a battle's ``(H, W)`` array; off the board:
    blocked)."""
    for r in range(size):
        y = oy + r
        shift = (y >> 1) if hexes else 0
        for c in range(size):
            col = ox + c + shift
            kind = geo.BLOCKED
            if 0 <= y < height and 0 <= col < width:
                kind = terrain[y, col]
            base = (r * size + c) * N_CHANNELS
            if kind == geo.BLOCKED or kind == geo.PILLAR:
                out[base + CH_BLOCKED] = 1.0
            elif kind == geo.DIFFICULT:
                out[base + CH_DIFFICULT] = 1.0
            elif kind == geo.IMPEDED:
                out[base + CH_IMPEDED] = 1.0


@inline
def _own_areas(own, out):
    """The observer's front/flank/rear channels from its ``View.own`` plane."""
    size = own.shape[0]
    for r in range(size):
        for c in range(size):
            code = own[r, c]
            if code != NONE_CODE:
                out[(r * size + c) * N_CHANNELS + CH_OWN_FRONT + AREA_CHANNEL[code]] = 1.0


# complexity above 15 on purpose: one pass over the window's cells writing every channel; a call
# per cell costs more than the work (fast/jit.py)
@inline
def _window(v, t, s, i, k, out):  # noqa: C901
    """The ``W x W x C`` window centred on ``k``'s anchor (the reference's
    ``_fill_window``): the terrain; per living creature in spec order its threatened
    cells, an enemy's ring areas and its occupant channels (a later creature wins a
    shared cell); then the observer's own squares and its areas."""
    size = v.window
    half = size // 2
    ox = s.x[i, k] - half
    oy = s.y[i, k] - half
    _terrain(s.terrain[i], s.kind[i] == 1, s.height[i], s.width[i], ox, oy, size, out)
    team = s.team[i, k]
    radius_t = t.radius
    for c in range(s.n_creatures[i]):
        if not geo.alive(s, i, c) or not seeing.perceives(t, s, i, k, c):
            continue  # a foe it does not perceive leaks nowhere (issue 36)
        ally = s.team[i, c] == team
        shape = s.shape[i, c]
        cx = s.x[i, c]
        cy = s.y[i, c]
        if reach.can_make_aoo(s, i, c):  # rules.threatened_cells
            radius = reach.melee_reach(s, i, c) // FEET
            channel = CH_THREAT_ALLIES if ally else CH_THREAT_ENEMIES
            lo_x = lo_y = 0
            hi_x = hi_y = 0
            for p in range(SHAPE_CELLS[shape]):
                lo_x = min(lo_x, SHAPE_OFFSETS[shape, p, 0])
                hi_x = max(hi_x, SHAPE_OFFSETS[shape, p, 0])
                lo_y = min(lo_y, SHAPE_OFFSETS[shape, p, 1])
                hi_y = max(hi_y, SHAPE_OFFSETS[shape, p, 1])
            for y in range(max(cy + lo_y - radius, oy), min(cy + hi_y + radius, oy + size - 1) + 1):
                for x in range(
                    max(cx + lo_x - radius, ox), min(cx + hi_x + radius, ox + size - 1) + 1
                ):
                    if reach.within(s, i, c, radius, x, y):
                        out[((y - oy) * size + x - ox) * N_CHANNELS + channel] += THREAT_STEP
        faces = geo.has_facing(s, i, c)
        if faces and not ally:  # the enemy's ring, by area
            facing = s.facing[i, c]
            for p in range(v.n_ring[shape]):
                dx = v.ring[shape, p, 0]
                dy = v.ring[shape, p, 1]
                row = cy + dy - oy
                col = cx + dx - ox
                code = t.area[shape, facing, dy + radius_t, dx + radius_t]
                if 0 <= row < size and 0 <= col < size and code != NONE_CODE:
                    at = (row * size + col) * N_CHANNELS + CH_ENEMY_FRONT + AREA_CHANNEL[code]
                    out[at] = 1.0
        fx = 0.0
        fy = 0.0
        if faces:
            fx = v.unit[s.facing[i, c], 0]
            fy = v.unit[s.facing[i, c], 1]
        hp = min(s.hp[i, c] / s.max_hp[i, c], BOUND)
        for p in range(SHAPE_CELLS[shape]):
            row = cy + SHAPE_OFFSETS[shape, p, 1] - oy
            col = cx + SHAPE_OFFSETS[shape, p, 0] - ox
            if 0 <= row < size and 0 <= col < size:
                base = (row * size + col) * N_CHANNELS
                out[base + CH_SELF] = 0.0
                out[base + CH_ALLY] = 1.0 if ally else 0.0
                out[base + CH_ENEMY] = 0.0 if ally else 1.0
                out[base + CH_SIZE] = s.size[i, c] / SIZE_SCALE
                out[base + CH_FACING_X] = fx
                out[base + CH_FACING_Y] = fy
                out[base + CH_HP] = hp
    for j in range(size * size):  # more than four creatures threaten a cell: 1
        for channel in range(CH_THREAT_ENEMIES, CH_THREAT_ALLIES + 1):
            if out[j * N_CHANNELS + channel] > 1.0:
                out[j * N_CHANNELS + channel] = 1.0
    shape = s.shape[i, k]
    if geo.alive(s, i, k):  # the observer's own squares
        for p in range(SHAPE_CELLS[shape]):
            row = SHAPE_OFFSETS[shape, p, 1] + half
            col = SHAPE_OFFSETS[shape, p, 0] + half
            if 0 <= row < size and 0 <= col < size:
                base = (row * size + col) * N_CHANNELS
                out[base + CH_SELF] = 1.0
                out[base + CH_ALLY] = 0.0
                out[base + CH_ENEMY] = 0.0
    if geo.has_facing(s, i, k):  # the observer's areas, in and beyond its ring (IC-03)
        _own_areas(v.own[shape, s.facing[i, k]], out)


@inline
def _table(v, t, s, i, k, acting, out):
    """The creature table (``observation._fill_table``): a row per slot of a living
    creature."""
    inv = 1.0 / v.window
    for row in range(v.n_slots):
        c = slot_at(s, i, k, row)
        if c < 0:
            break
        f = v.table_at + row * N_FEATURES
        if not seeing.perceives(t, s, i, k, c):  # issue 36: where it was last perceived
            if s.seen[i, k, c]:  # (dead or alive: its death is not seen)
                out[f + C_ENEMY] = 1.0
                out[f + C_DX] = (s.seen_x[i, k, c] - s.x[i, k]) * inv
                out[f + C_DY] = (s.seen_y[i, k, c] - s.y[i, k]) * inv
            continue
        if not geo.alive(s, i, c):
            continue
        is_me = c == k
        enemy = s.team[i, c] != s.team[i, k]
        out[f + C_PRESENT] = 1.0
        out[f + C_IS_SELF] = 1.0 if is_me else 0.0
        out[f + C_ALLY] = 1.0 if not enemy and not is_me else 0.0
        out[f + C_ENEMY] = 1.0 if enemy else 0.0
        out[f + C_DX] = (s.x[i, c] - s.x[i, k]) * inv
        out[f + C_DY] = (s.y[i, c] - s.y[i, k]) * inv
        out[f + C_SIZE] = s.size[i, c] / SIZE_SCALE
        if geo.has_facing(s, i, c):
            out[f + C_HAS_FACING] = 1.0
            out[f + C_FACING_X] = v.unit[s.facing[i, c], 0]
            out[f + C_FACING_Y] = v.unit[s.facing[i, c], 1]
        out[f + C_HP_FRACTION] = s.hp[i, c] / s.max_hp[i, c]
        out[f + C_HP] = s.hp[i, c] / HP_SCALE
        out[f + C_AC] = s.ac[i, c] / AC_SCALE
        if not is_me:
            out[f + C_IN_MY_FRONT + AREA_CHANNEL[most_exposed(t, s, i, k, c)]] = 1.0
            out[f + C_ME_IN_ITS_FRONT + AREA_CHANNEL[most_exposed(t, s, i, c, k)]] = 1.0
        out[f + C_DISTANCE] = geo.creature_distance(s, i, k, c) * inv
        out[f + C_FLAT_FOOTED] = 1.0 if s.flat_footed[i, c] else 0.0
        if enemy:
            if reach.threatens_creature(s, i, c, k):
                out[f + C_THREATENS_ME] = 1.0
            if reach.threatens_creature(s, i, k, c):
                out[f + C_I_THREATEN_IT] = 1.0
            out[f + C_MY_FACING_MODIFIER] = facing_modifier(t, s, i, k, c) / MODIFIER_SCALE
            out[f + C_ITS_FACING_MODIFIER] = facing_modifier(t, s, i, c, k) / MODIFIER_SCALE
            # sneak_attack_applies' first test before the call (which LLVM does not inline)
            if attack.has_sneak_attack(s, i, k) and attack.sneak_attack_applies(
                t, s, i, k, c, False
            ):
                out[f + C_MY_SNEAK_ATTACK] = 1.0
            if acting and attackable(t, s, i, k, c):
                out[f + C_ATTACKABLE] = 1.0
        if s.aoo_used[i, c] == 0 and reach.can_make_aoo(s, i, c):
            out[f + C_AOO_LEFT] = 1.0
        out[f + C_SPEED] = s.speed[i, c] / FEET / SPEED_SCALE
        out[f + C_REACH] = reach.melee_reach(s, i, c) / FEET / REACH_SCALE
        if attack.has_sneak_attack(s, i, c):
            n = s.sneak_attack[i, c, 0]
            sides = s.sneak_attack[i, c, 1]
            bonus = s.sneak_attack[i, c, 2]
            out[f + C_SNEAK_ATTACK_DICE] = (n * (sides + 1) / 2 + bonus) / DICE_SCALE


@inline
def _scalars(v, s, i, k, acting, out):
    """The turn scalars (``observation._fill_scalars``; turn values only for the actor)."""
    at = v.scalars_at
    r = s.ruleset[i]
    out[at + S_HEX_GRID] = 1.0 if s.kind[i] == 1 else 0.0
    out[at + S_UA35_RULES] = 1.0 if FACING_PENALTIES[r] else 0.0
    out[at + S_SIDE_REAR_RULES] = 1.0 if AUTO_TURN[r] else 0.0
    out[at + S_ROUND_FRACTION] = s.round[i] / v.max_rounds
    if not acting:
        return
    speed = max(1, s.speed[i, k] // FEET)
    out[at + S_MOVEMENT_LEFT] = movement_capacity(s, i, k) / (4 * speed)
    out[at + S_MOVE_AVAILABLE] = 1.0 if s.turn_move_available[i] else 0.0
    out[at + S_STANDARD_AVAILABLE] = 1.0 if s.turn_standard_available[i] else 0.0
    out[at + S_FIVE_FOOT_STEP_AVAILABLE] = 1.0 if free_five_foot_step(s, i) else 0.0
    out[at + S_FREE_TURN_AVAILABLE] = 0.0 if s.turn_free_turn_used[i] else 1.0
    out[at + S_MOVING] = 1.0 if s.turn_moving[i] else 0.0
    out[at + S_RUNNING] = 1.0 if s.turn_running[i] else 0.0
    out[at + S_ATTACKS_MADE] = s.turn_attacks_made[i] / PER_FOUR
    out[at + S_CLEAVE] = 1.0 if s.turn_cleave[i, 0] >= 0 else 0.0


@inline
def _tactics(v, t, s, i, k, acting, out):
    """The tactics part (``observation._fill_tactics``)."""
    me_alive = geo.alive(s, i, k)
    for row in range(v.n_slots):
        c = slot_at(s, i, k, row)
        if c < 0:
            break
        if not geo.alive(s, i, c) or not seeing.perceives(t, s, i, k, c):
            continue
        base = v.tactics_at + row * N_TACTICS
        if s.readied[i, c]:
            out[base + T_READIED] = 1.0
        if s.charging[i, c]:
            out[base + T_CHARGING] = 1.0
        if s.player_character[i, c]:
            out[base + T_PLAYER_CHARACTER] = 1.0
        if me_alive and s.team[i, c] != s.team[i, k] and charge.can_charge(t, s, i, k, c):
            out[base + T_CAN_CHARGE] = 1.0
    if acting:
        tail = v.tactics_at + v.n_slots * N_TACTICS
        out[tail + TS_WITHDRAWING] = 1.0 if s.turn_withdrawing[i] >= 0 else 0.0
        out[tail + TS_TRADE_STEPS_LEFT] = trade_steps_left(s, i, k) / PER_FOUR


@inline
def _observe(t, s, i, k, v, out):
    out[:] = 0.0
    acting = s.actor[i] == k
    _window(v, t, s, i, k, out)
    _table(v, t, s, i, k, acting, out)
    _scalars(v, s, i, k, acting, out)
    for j in range(v.table_at, v.tactics_at):  # np.minimum, then np.maximum
        if out[j] > F32_BOUND:
            out[j] = F32_BOUND
        elif out[j] < -F32_BOUND:
            out[j] = -F32_BOUND
    _tactics(v, t, s, i, k, acting, out)


@kernel
def observe_batch(t, s, v, slots, out, lo, hi):
    """``out[i]``: creature ``slots[i]``'s observation of battle ``i``
    (``env.observe(agent)["observation"]`` of that creature), for the rows
    ``lo <= i < hi`` of ``out`` (``(N, D)``; pass ``s.actor`` for the acting creatures);
    the row is left as it is where ``slots[i]`` is :data:`KEEP`, zeros where it is
    another negative number (a battle that is over). Rows are independent: disjoint
    ranges may be written by concurrent threads (the kernel releases the GIL)."""
    for i in range(lo, hi):
        if slots[i] == KEEP:
            continue
        if slots[i] < 0:
            out[i, :] = 0.0
        else:
            _observe(t, s, i, np.int64(slots[i]), v, out[i])
