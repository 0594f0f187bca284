"""N battles as arrays: the state the batched engine's kernels read and write.

:class:`State` is a named tuple of numpy arrays (numba passes it to a kernel as one
argument and reads its fields by name). Its first axis is the battle; creature arrays
are ``(N, K)`` with ``K`` creature slots in spec order (the AEC env's
``possible_agents``); a battle with fewer creatures (procedural scenarios) leaves
``present`` false in its last slots. :func:`load` writes one :class:`~facing_env.rules.battle.
Battle` of the object engine (the reference) into row ``i``, so a test can step both
engines and compare ``load``'s rows with the kernels' rows field by field.

Encodings (all integers unless noted):

- grid ``kind`` 0 square, 1 hex; ``ruleset`` 0 ua35, 1 side_rear, 2 standard;
  ``diagonal`` 0 alternating, 1 uniform; ``terrain`` ``(N, H, W)`` the
  :class:`~facing_env.types.Terrain` values in the battle's array layout (``row, col``;
  odd-r columns on hex grids), off-board cells :data:`OFF_BOARD`;
- a creature's ``shape`` indexes :data:`SHAPES` (:data:`SHAPE_OFFSETS` holds the cells);
  ``team`` indexes the battle's teams in order of first appearance; ``hp`` is float64
  (mean dice deal fractions); booleans are ``bool_`` arrays;
- a creature's ``feats`` is a bit mask over :data:`facing_env.tables.FEATS`; an
  attack's ``zones`` a bit mask over :data:`AREA_CODES`;
- the turn: ``actor`` the slot whose turn it is (-1 when over), the acting creature's
  action economy (``turn.TurnState``) in ``turn_*`` arrays, its attacks left as
  ``(attack index, penalty)`` pairs in ``remaining`` (``n_remaining`` of them), the
  initiative order as slots (``order``, ``n_order``), ``round`` and ``index``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from facing_env.rules import geometry
from facing_env.rules.battle import Battle, Creature
from facing_env.rules.dice import Dice
from facing_env.rules.geometry import Shape
from facing_env.tables import ARMOR_KINDS, DIAGONAL_RULES, FEATS
from facing_env.types import Area, GridKind, Perception, Ruleset

_BOOL = np.bool_
_INT = np.int32

OFF_BOARD = np.int8(-1)
"""Terrain of the padding cells of a battle smaller than the arrays (treated as blocked)."""

KINDS: tuple[GridKind, ...] = (GridKind.SQUARE, GridKind.HEX)
RULESETS: tuple[Ruleset, ...] = (Ruleset.UA35, Ruleset.SIDE_REAR, Ruleset.STANDARD)
AREA_CODES: tuple[Area, ...] = (Area.FRONT, Area.FLANK, Area.SIDE, Area.REAR, Area.NONE)
"""Areas as codes 0-4 (``zones`` bit ``1 << code``)."""
SHIELD_SIDES: tuple[str, ...] = ("none", "left", "right")
ATTACK_KINDS: tuple[str, ...] = ("melee", "ranged")
PERCEPTIONS: tuple[Perception, ...] = (Perception.FULL, Perception.FACING, Perception.SPOT)
"""Perception modes as codes (``State.perception``)."""

SHAPES: tuple[Shape, ...] = tuple(
    dict.fromkeys(
        [
            *geometry.SQUARE_SHAPES.values(),
            *geometry.HEX_SHAPES.values(),
            *geometry.HEX_TRIANGLE_DOWN.values(),
        ]
    )
)
"""Every footprint a creature can have, indexed by a creature's ``shape``."""

MAX_CELLS = max(len(s.offsets) for s in SHAPES)
SHAPE_CELLS = np.array([len(s.offsets) for s in SHAPES], dtype=np.int32)
"""Cells per shape."""
SHAPE_OFFSETS = np.zeros((len(SHAPES), MAX_CELLS, 2), dtype=np.int32)
"""``[shape, i] = (dx, dy)``: the i-th cell of a shape relative to its anchor."""
for _i, _s in enumerate(SHAPES):
    SHAPE_OFFSETS[_i, : len(_s.offsets)] = _s.offsets
SHAPE_TRIANGLE = np.array([s.is_triangle for s in SHAPES], dtype=np.bool_)
SHAPE_CENTROID = np.array([s.centroid for s in SHAPES], dtype=np.float64)
"""``[shape] = (cx, cy)``: the centre of a shape relative to its anchor (Cartesian)."""

_SHAPE_INDEX = {s: i for i, s in enumerate(SHAPES)}


def shape_index(shape: Shape) -> int:
    """A shape's index in :data:`SHAPES`."""
    return _SHAPE_INDEX[shape]


class State(NamedTuple):
    """N battles as arrays (see the module docstring for the encodings)."""

    # -- the board and the rules, per battle
    kind: np.ndarray  # (N,) int8
    ruleset: np.ndarray  # (N,) int8
    diagonal: np.ndarray  # (N,) int8
    width: np.ndarray  # (N,) int32
    height: np.ndarray  # (N,) int32
    terrain: np.ndarray  # (N, H, W) int8
    n_creatures: np.ndarray  # (N,) int32
    # -- creatures that do not change during a battle, (N, K)
    present: np.ndarray  # bool
    team: np.ndarray  # int32
    size: np.ndarray  # int32 (Size)
    shape: np.ndarray  # int32 (SHAPES)
    max_hp: np.ndarray  # float64
    ac: np.ndarray  # int32
    touch_ac: np.ndarray  # int32
    speed: np.ndarray  # int32, feet
    dex: np.ndarray  # int32
    base_attack_bonus: np.ndarray  # int32
    reach: np.ndarray  # int32, feet
    feats: np.ndarray  # int32 bit mask over FEATS
    sneak_attack: np.ndarray  # (N, K, 3) int32: dice count, sides, bonus (0, 0, 0: none)
    rogue_level: np.ndarray  # int32
    improved_uncanny_dodge: np.ndarray  # int32, -1: none
    uncanny_dodge: np.ndarray  # bool
    immune_to_sneak_attack: np.ndarray  # bool
    all_around_vision: np.ndarray  # bool
    threatens: np.ndarray  # bool
    armor: np.ndarray  # int32 (ARMOR_KINDS)
    improved_chieftain: np.ndarray  # bool
    pack_fighter_bonus: np.ndarray  # int32
    faceless: np.ndarray  # bool
    shield_side: np.ndarray  # int32 (SHIELD_SIDES)
    shield_bonus: np.ndarray  # int32
    shield_spell: np.ndarray  # bool: "shield" among its spells
    squeezing: np.ndarray  # bool
    player_character: np.ndarray  # bool
    spot: np.ndarray  # int32, Spot skill modifier (perception="spot")
    hide: np.ndarray  # int32, Hide skill modifier
    n_attacks: np.ndarray  # int32
    # -- attacks, (N, K, A)
    attack_bonus: np.ndarray  # int32
    attack_damage: np.ndarray  # (N, K, A, 3) int32: dice count, sides, bonus
    attack_reach: np.ndarray  # int32, feet
    attack_ranged: np.ndarray  # bool
    attack_range: np.ndarray  # int32, feet
    attack_zones: np.ndarray  # int32 bit mask over AREA_CODES (0: every area)
    attack_threat: np.ndarray  # int32, lowest threatening roll
    attack_multiplier: np.ndarray  # int32
    attack_touch: np.ndarray  # bool
    attack_first: np.ndarray  # int32, the first attack of that name (Creature.attack(name))
    attack_equal: np.ndarray  # int32, the first attack equal to it (what list.remove finds)
    # -- creatures that change, (N, K)
    x: np.ndarray  # int32
    y: np.ndarray  # int32
    facing: np.ndarray  # int32
    hp: np.ndarray  # float64
    flat_footed: np.ndarray  # bool
    readied: np.ndarray  # bool
    charging: np.ndarray  # bool
    aoo_used: np.ndarray  # int32, attacks of opportunity made this round
    provoked: np.ndarray  # bool: made an attack of opportunity on the actor's current move
    # -- initiative, per battle
    order: np.ndarray  # (N, K) int32 slots in initiative order
    n_order: np.ndarray  # (N,) int32
    round: np.ndarray  # (N,) int32
    index: np.ndarray  # (N,) int32 position of the turn in progress in ``order``
    # -- the acting creature's turn, per battle
    actor: np.ndarray  # (N,) int32 slot, -1 when the battle is over
    turn_move_available: np.ndarray  # bool
    turn_standard_available: np.ndarray  # bool
    turn_moving: np.ndarray  # bool
    turn_moved: np.ndarray  # bool
    turn_running: np.ndarray  # bool
    turn_movement_left: np.ndarray  # int32
    turn_diagonals: np.ndarray  # int32
    turn_five_foot_step_taken: np.ndarray  # bool
    turn_free_turn_used: np.ndarray  # bool
    turn_turned_after_step: np.ndarray  # bool
    turn_actions_taken: np.ndarray  # int32
    turn_declaring: np.ndarray  # bool
    turn_withdrawing: np.ndarray  # int32 slot of the withdrawal's primary target, -1: none
    turn_attacks_made: np.ndarray  # int32
    turn_full_attack: np.ndarray  # bool
    turn_cleave: np.ndarray  # (N, 2) int32 (attack index, penalty); attack -1: none
    turn_cleaved: np.ndarray  # bool
    turn_traded_steps: np.ndarray  # int32
    remaining: np.ndarray  # (N, R, 2) int32 (attack index, penalty) of the attacks left
    n_remaining: np.ndarray  # (N,) int32
    # -- the dice, per battle (facing_env.rules.dice: a counter-based stream)
    dice_seed: np.ndarray  # (N,) uint64
    dice_count: np.ndarray  # (N,) int64: draws made
    deck: np.ndarray  # (N, 20) int32: deck mode's cards, dealt from the end
    deck_left: np.ndarray  # (N,) int32: cards left in the deck
    # -- perception (issue 36; facing_env.fast.perception), per battle
    perception: np.ndarray  # (N,) int8 (PERCEPTIONS)
    heard: np.ndarray  # (N, K, K) bool: [o, c] o heard c since the end of its last turn
    seen: np.ndarray  # (N, K, K) bool: [o, c] o perceived c at some time (Battle.last_seen)
    seen_x: np.ndarray  # (N, K, K) int32: where o last perceived c
    seen_y: np.ndarray  # (N, K, K) int32
    spot_margin: np.ndarray  # (N, K, K) float64: [o, c] o's last Spot roll less c's Hide roll
    #   (perception="spot"; NaN: none yet; Battle.spot_rolls)


CREATURE_FIELDS: tuple[str, ...] = State._fields[
    State._fields.index("present") : State._fields.index("provoked") + 1
]
"""The fields with a row per creature slot (``(N, K, ...)``)."""


class Column(NamedTuple):
    """One creature or attack field as arrays: the :class:`State` column ``name``
    (``(N, K, *extra)``, or ``(N, K, A, *extra)`` for an attack's) of ``dtype``, the value
    :func:`load` writes into it (``value(creature)``, or ``value(creature, attack)``), and
    for a field a battle changes, the :class:`~facing_env.rules.battle.Creature` attribute
    it holds (``changes``, one of :data:`~facing_env.rules.battle.CHANGING`), which
    :func:`store` writes back."""

    name: str
    dtype: type
    value: Callable[..., Any]
    changes: str | None = None
    extra: tuple[int, ...] = ()


def _improved_uncanny_dodge(c: Creature) -> int:
    return -1 if c.improved_uncanny_dodge is None else c.improved_uncanny_dodge


def _shield_side(c: Creature) -> int:
    return 0 if c.shield is None else SHIELD_SIDES.index(c.shield.side)


CREATURE_COLUMNS: tuple[Column, ...] = (
    Column("size", _INT, lambda c: int(c.size)),
    Column("shape", _INT, lambda c: shape_index(c.shape)),
    Column("max_hp", np.float64, lambda c: c.max_hp),
    Column("ac", _INT, lambda c: c.ac),
    Column("touch_ac", _INT, lambda c: c.touch_ac),
    Column("speed", _INT, lambda c: c.speed),
    Column("dex", _INT, lambda c: c.dex),
    Column("base_attack_bonus", _INT, lambda c: c.base_attack_bonus),
    Column("reach", _INT, lambda c: c.reach),
    Column("feats", _INT, lambda c: _feat_mask(c)),
    Column("sneak_attack", _INT, lambda c: _dice(c.sneak_attack), extra=(3,)),
    Column("rogue_level", _INT, lambda c: c.rogue_level),
    Column("improved_uncanny_dodge", _INT, _improved_uncanny_dodge),
    Column("uncanny_dodge", _BOOL, lambda c: c.uncanny_dodge),
    Column("immune_to_sneak_attack", _BOOL, lambda c: c.immune_to_sneak_attack),
    Column("all_around_vision", _BOOL, lambda c: c.all_around_vision),
    Column("threatens", _BOOL, lambda c: c.threatens),
    Column("armor", _INT, lambda c: ARMOR_KINDS.index(c.armor)),
    Column("improved_chieftain", _BOOL, lambda c: c.improved_chieftain),
    Column("pack_fighter_bonus", _INT, lambda c: c.pack_fighter_bonus),
    Column("faceless", _BOOL, lambda c: c.faceless),
    Column("shield_side", _INT, lambda c: _shield_side(c)),
    Column("shield_bonus", _INT, lambda c: 0 if c.shield is None else c.shield.bonus),
    Column("shield_spell", _BOOL, lambda c: "shield" in c.spells),
    Column("squeezing", _BOOL, lambda c: c.squeezing),
    Column("player_character", _BOOL, lambda c: c.player_character),
    Column("spot", _INT, lambda c: c.spot),
    Column("hide", _INT, lambda c: c.hide),
    Column("n_attacks", _INT, lambda c: len(c.attacks)),
    Column("x", _INT, lambda c: c.pos[0], changes="pos"),
    Column("y", _INT, lambda c: c.pos[1], changes="pos"),
    Column("facing", _INT, lambda c: c.facing, changes="facing"),
    Column("hp", np.float64, lambda c: c.hp, changes="hp"),
    Column("flat_footed", _BOOL, lambda c: c.flat_footed, changes="flat_footed"),
    Column("readied", _BOOL, lambda c: c.readied, changes="readied"),
    Column("charging", _BOOL, lambda c: c.charging, changes="charging"),
)  # fmt: skip
"""The creature table: every :class:`State` column that holds one of a creature's own
fields (``present``, ``team``, ``aoo_used`` and ``provoked`` hold the battle's view of
it: :func:`load` writes them from the battle, the initiative and the turn)."""

ATTACK_COLUMNS: tuple[Column, ...] = (
    Column("attack_bonus", _INT, lambda c, a: a.bonus),
    Column("attack_damage", _INT, lambda c, a: _dice(a.damage), extra=(3,)),
    Column("attack_reach", _INT, lambda c, a: a.reach),
    Column("attack_ranged", _BOOL, lambda c, a: a.ranged),
    Column("attack_range", _INT, lambda c, a: a.range),
    Column("attack_zones", _INT, lambda c, a: sum(1 << AREA_CODES.index(z) for z in a.zones)),
    Column("attack_threat", _INT, lambda c, a: a.threat_range),
    Column("attack_multiplier", _INT, lambda c, a: a.crit_multiplier),
    Column("attack_touch", _BOOL, lambda c, a: a.touch),
    Column("attack_first", _INT, lambda c, a: [x.name for x in c.attacks].index(a.name)),
    Column("attack_equal", _INT, lambda c, a: list(c.attacks).index(a)),
)  # fmt: skip
"""The attack table: the columns of each of a creature's attacks, ``(N, K, A)``."""

_VIEW_COLUMNS: tuple[Column, ...] = (
    Column("present", _BOOL, lambda c: True),
    Column("team", _INT, lambda c: 0),
    Column("aoo_used", _INT, lambda c: 0),
    Column("provoked", _BOOL, lambda c: False),
)
"""The battle's view of a creature (written by :func:`load` from the battle, not read
from the creature: ``value`` is unused)."""

_CHANGING_COLUMNS = tuple(col for col in CREATURE_COLUMNS if col.changes is not None)


def allocate(n: int, height: int, width: int, k: int, attacks: int, slots: int) -> State:
    """Zeroed arrays for ``n`` battles on boards of at most ``height x width`` cells with
    at most ``k`` creatures of at most ``attacks`` attacks, ``slots`` of them left in a
    turn at most."""
    shapes: dict[str, tuple[tuple[int, ...], type]] = {
        "kind": ((n,), np.int8),
        "ruleset": ((n,), np.int8),
        "diagonal": ((n,), np.int8),
        "terrain": ((n, height, width), np.int8),
        "turn_cleave": ((n, 2), _INT),
        "remaining": ((n, slots, 2), _INT),
        "order": ((n, k), _INT),
        "dice_seed": ((n,), np.uint64),
        "dice_count": ((n,), np.int64),
        "deck": ((n, 20), _INT),
        "deck_left": ((n,), _INT),
        "perception": ((n,), np.int8),
        "heard": ((n, k, k), _BOOL),
        "seen": ((n, k, k), _BOOL),
        "seen_x": ((n, k, k), _INT),
        "seen_y": ((n, k, k), _INT),
        "spot_margin": ((n, k, k), np.float64),
    }
    for col in (*CREATURE_COLUMNS, *_VIEW_COLUMNS):
        shapes[col.name] = ((n, k, *col.extra), col.dtype)
    for col in ATTACK_COLUMNS:
        shapes[col.name] = ((n, k, attacks, *col.extra), col.dtype)
    for name in State._fields:
        if name not in shapes:  # the battle's counters and the turn, one per battle
            shapes[name] = ((n,), _BOOL if _TURN_TYPES.get(name) is bool else _INT)
    return State(**{name: np.zeros(*shapes[name]) for name in State._fields})


_TURN_TYPES = {
    "turn_move_available": bool,
    "turn_standard_available": bool,
    "turn_moving": bool,
    "turn_moved": bool,
    "turn_running": bool,
    "turn_five_foot_step_taken": bool,
    "turn_free_turn_used": bool,
    "turn_turned_after_step": bool,
    "turn_declaring": bool,
    "turn_full_attack": bool,
    "turn_cleaved": bool,
}


def allocate_for(battles: list[Battle], n: int | None = None) -> State:
    """Arrays big enough for every battle in ``battles`` (``n`` rows, default one per
    battle): the largest board, creature count, attack count and attack sequence."""
    height = max(b.terrain.shape[0] for b in battles)
    width = max(b.terrain.shape[1] for b in battles)
    k = max(len(b.creatures) for b in battles)
    attacks = max(len(c.attacks) for b in battles for c in b.creatures.values())
    from facing_env.rules.engine import MAX_ITERATIVES

    slots = attacks + MAX_ITERATIVES
    return allocate(len(battles) if n is None else n, height, width, k, attacks, slots)


def _dice(expr: str | None) -> tuple[int, int, int]:
    from facing_env.rules.dice import parse_dice

    return (0, 0, 0) if expr is None else parse_dice(expr)


def _feat_mask(c: Creature) -> int:
    return sum(1 << i for i, name in enumerate(FEATS) if name in c.feats)


def load(state: State, i: int, battle: Battle, dice: Dice | None = None) -> None:
    """Write ``battle`` (its board, creatures, initiative and turn) into row ``i``, and
    ``dice`` (its seed, draw count and deck) when given."""
    s = state
    if dice is not None:
        s.dice_seed[i], s.dice_count[i] = dice.seed, dice.count
        s.deck[i] = 0
        s.deck[i, : len(dice._deck)] = dice._deck
        s.deck_left[i] = len(dice._deck)
    s.kind[i] = KINDS.index(battle.kind)
    s.ruleset[i] = RULESETS.index(battle.ruleset)
    s.diagonal[i] = DIAGONAL_RULES.index(battle.diagonal_rule)
    s.height[i], s.width[i] = battle.terrain.shape
    s.terrain[i] = OFF_BOARD
    s.terrain[i, : battle.terrain.shape[0], : battle.terrain.shape[1]] = battle.terrain
    creatures = list(battle.creatures.values())
    if len(creatures) > s.present.shape[1]:
        raise ValueError(f"{len(creatures)} creatures, room for {s.present.shape[1]}")
    slot = {c.id: k for k, c in enumerate(creatures)}
    teams = list(dict.fromkeys(c.team for c in creatures))
    s.n_creatures[i] = len(creatures)
    for name in CREATURE_FIELDS:  # clear the unused slots
        getattr(s, name)[i] = 0
    init = battle.initiative
    for k, c in enumerate(creatures):
        for col in CREATURE_COLUMNS:
            getattr(s, col.name)[i, k] = col.value(c)
        for a, attack in enumerate(c.attacks):
            for col in ATTACK_COLUMNS:
                getattr(s, col.name)[i, k, a] = col.value(c, attack)
        s.present[i, k] = True
        s.team[i, k] = teams.index(c.team)
        s.aoo_used[i, k] = 0 if init is None else init.aoo_used.get(c.id, 0)
    s.order[i] = -1
    s.n_order[i] = s.round[i] = s.index[i] = 0
    if init is not None:
        s.order[i, : len(init.order)] = [slot[cid] for cid in init.order]
        s.n_order[i], s.round[i], s.index[i] = len(init.order), init.round, init.index
    _load_turn(s, i, battle, slot)
    _load_perception(s, i, battle, slot)


def _load_perception(s: State, i: int, battle: Battle, slot: dict[str, int]) -> None:
    s.perception[i] = PERCEPTIONS.index(battle.perception)
    s.heard[i] = False
    s.seen[i] = False
    s.seen_x[i] = s.seen_y[i] = 0
    for o, heard in battle.heard.items():
        for c in heard:
            s.heard[i, slot[o], slot[c]] = True
    s.spot_margin[i] = np.nan
    for o, rolls in battle.spot_rolls.items():
        for c, margin in rolls.items():
            s.spot_margin[i, slot[o], slot[c]] = margin
    for o, seen in battle.last_seen.items():
        for c, (x, y) in seen.items():
            s.seen[i, slot[o], slot[c]] = True
            s.seen_x[i, slot[o], slot[c]], s.seen_y[i, slot[o], slot[c]] = x, y


def _load_turn(s: State, i: int, battle: Battle, slot: dict[str, int]) -> None:
    from facing_env.rules import engine

    ts = battle.turn
    s.remaining[i] = 0
    s.turn_cleave[i] = (-1, 0)
    if ts is None or engine.is_over(battle):
        s.actor[i] = -1
        for name in _TURN_TYPES:
            getattr(s, name)[i] = False
        for name in ("turn_movement_left", "turn_diagonals", "turn_actions_taken",
                     "turn_attacks_made", "turn_traded_steps", "n_remaining"):  # fmt: skip
            getattr(s, name)[i] = 0
        s.turn_withdrawing[i] = -1
        return
    c = battle.creatures[ts.actor]
    s.actor[i] = slot[ts.actor]
    for name in _TURN_TYPES:
        getattr(s, name)[i] = getattr(ts, name.removeprefix("turn_"))
    s.turn_movement_left[i] = ts.movement_left
    s.turn_diagonals[i] = ts.diagonals
    s.turn_actions_taken[i] = ts.actions_taken
    s.turn_attacks_made[i] = ts.attacks_made
    s.turn_traded_steps[i] = ts.traded_steps
    s.turn_withdrawing[i] = -1 if ts.withdrawing is None else slot[ts.withdrawing]
    s.n_remaining[i] = len(ts.remaining)
    for r, attack_slot in enumerate(ts.remaining):
        s.remaining[i, r] = (_attack_index(c, attack_slot.attack), attack_slot.penalty)
    if ts.cleave is not None:
        s.turn_cleave[i] = (_attack_index(c, ts.cleave.attack), ts.cleave.penalty)
    s.provoked[i] = False
    for cid in ts.provoked:
        s.provoked[i, slot[cid]] = True


def _attack_index(c: Creature, attack: object) -> int:
    for a, candidate in enumerate(c.attacks):
        if candidate is attack:
            return a
    for a, candidate in enumerate(c.attacks):  # a copy of the battle copied its attacks
        if candidate == attack:
            return a
    raise ValueError(f"{c.id}: an attack slot that is not one of its attacks")


def _python(value: np.generic) -> bool | int | float:
    """An array element as the object engine keeps it (a whole float as an int)."""
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    number = float(value)
    return int(number) if number == int(number) else number


def store_dice(state: State, i: int, dice: Dice) -> None:
    """Write row ``i``'s dice (draw count and deck) into ``dice``, the row's dice stream
    (same seed): the inverse of :func:`load`'s dice part."""
    if int(state.dice_seed[i]) != dice.seed:
        raise ValueError(f"row {i} rolls dice seed {int(state.dice_seed[i])}, not {dice.seed}")
    dice.count = int(state.dice_count[i])
    left = int(state.deck_left[i])
    dice._deck = [int(card) for card in state.deck[i, :left]]


def store(state: State, i: int, battle: Battle) -> None:
    """Write row ``i``'s changing state (positions, facings, hit points, flags,
    initiative, the turn) into ``battle``, a battle built from the same spec as the row
    (its creatures and board): the inverse of :func:`load` for what a battle changes."""
    from facing_env.rules import engine
    from facing_env.rules.turns import AttackSlot, Initiative, TurnState

    s = state
    creatures = list(battle.creatures.values())
    ids = [c.id for c in creatures]
    for k, c in enumerate(creatures):
        for col in _CHANGING_COLUMNS:
            if col.changes != "pos":
                setattr(c, col.changes, _python(getattr(s, col.name)[i, k]))
        c.pos = (int(s.x[i, k]), int(s.y[i, k]))
    battle.rebuild_occupancy()
    order = [ids[k] for k in s.order[i, : s.n_order[i]]]
    aoo = {c.id: int(s.aoo_used[i, k]) for k, c in enumerate(creatures)}
    if battle.initiative is not None:  # keep the ids the reference keeps for the dead
        aoo = {cid: aoo[cid] for cid in battle.initiative.aoo_used}
    battle.initiative = Initiative(order, int(s.round[i]), int(s.index[i]), aoo)
    n = len(creatures)
    heard = {ids[o]: {ids[c] for c in range(n) if s.heard[i, o, c]} for o in range(n)}
    battle.heard = {o: h for o, h in heard.items() if h}
    seen = {
        ids[o]: {
            ids[c]: (int(s.seen_x[i, o, c]), int(s.seen_y[i, o, c]))
            for c in range(n)
            if s.seen[i, o, c]
        }
        for o in range(n)
    }
    battle.last_seen = {o: v for o, v in seen.items() if v}
    rolls = {
        ids[o]: {
            ids[c]: _python(s.spot_margin[i, o, c])
            for c in range(n)
            if not np.isnan(s.spot_margin[i, o, c])
        }
        for o in range(n)
    }
    battle.spot_rolls = {o: v for o, v in rolls.items() if v}
    if s.actor[i] < 0:
        return
    k = int(s.actor[i])
    c = creatures[k]

    def slot(r: int) -> AttackSlot:
        return AttackSlot(c.attacks[int(s.remaining[i, r, 0])], int(s.remaining[i, r, 1]))

    ts = TurnState(ids[k])
    for name in _TURN_TYPES:
        setattr(ts, name.removeprefix("turn_"), bool(getattr(s, name)[i]))
    ts.movement_left = int(s.turn_movement_left[i])
    ts.diagonals = int(s.turn_diagonals[i])
    ts.actions_taken = int(s.turn_actions_taken[i])
    ts.attacks_made = int(s.turn_attacks_made[i])
    ts.traded_steps = int(s.turn_traded_steps[i])
    ts.withdrawing = None if s.turn_withdrawing[i] < 0 else ids[int(s.turn_withdrawing[i])]
    ts.remaining = [slot(r) for r in range(int(s.n_remaining[i]))]
    if s.turn_cleave[i, 0] >= 0:
        ts.cleave = AttackSlot(c.attacks[int(s.turn_cleave[i, 0])], int(s.turn_cleave[i, 1]))
    ts.provoked = {ids[j] for j in range(len(creatures)) if s.provoked[i, j]}
    battle.turn = ts
    assert engine.actor(battle) is c
