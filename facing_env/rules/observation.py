"""The readable observation writer: an agent's observation vector drawn from a
:class:`~facing_env.rules.battle.Battle`, cell by cell, the obvious way.

The twin of the compiled writer (:mod:`facing_env.fast.observation`): the same layout
(:class:`~facing_env.observation.ObservationLayout`), the same numbers, which the
differential tests check after every action of every scenario. It is what the AEC env
observes with when it plays on the readable engine (``raw_env(engine="readable")``, and
``"auto"`` while the kernels are not compiled yet: :mod:`facing_env.rules.play`).

The vector is the concatenation of (see :class:`ObservationLayout` for offsets):

1. **window**, ``W x W x 18`` (row-major, channels last), centred on the acting
   creature's ``pos``; channels :class:`~facing_env.observation.Channel`.
2. **table**, ``K x 33``: one row per creature slot (self, allies, enemies in spec order,
   the same rows as the ATTACK actions); columns :class:`~facing_env.observation.Column`.
3. **scalars**, 13 values about the turn and the rules
   (:class:`~facing_env.observation.Scalar`), then the tactics part.

Positions are relative to the observer; the areas are those of the rule set (flank and
side share a channel). Creatures without facing have facing (0, 0). The values are not
clipped here (the env clips them to ``observation.BOUND``).
"""

from __future__ import annotations

import math

import numpy as np

from facing_env import rules
from facing_env.observation import Channel as K
from facing_env.observation import Column as C
from facing_env.observation import ObservationLayout  # the layout under test
from facing_env.observation import Scalar as S
from facing_env.observation import Tactic as T
from facing_env.observation import TacticScalar as TS
from facing_env.rules import engine, geometry, legality
from facing_env.rules.battle import Battle, Creature
from facing_env.rules.dice import parse_dice
from facing_env.types import Area, GridKind, Terrain

_AREA_INDEX = {Area.FRONT: 0, Area.FLANK: 1, Area.SIDE: 1, Area.REAR: 2, Area.NONE: 3}


def _facing_vector(battle: Battle, c: Creature) -> tuple[float, float]:
    if battle.table(c) is None:
        return (0.0, 0.0)
    angle = math.radians(geometry.facing_angle(battle.kind, c.facing))
    return (math.cos(angle), math.sin(angle))


def build(
    battle: Battle, slots: list[str], layout: ObservationLayout, max_rounds: int
) -> np.ndarray:
    """The observation vector of creature ``slots[0]``."""
    me = battle.creatures[slots[0]]
    out = np.zeros(layout.size, dtype=np.float32)
    window, table, scalars = layout.split(out)
    hidden = rules.unseen(battle, me)  # issue 36: foes it does not perceive leak nowhere
    _fill_window(battle, me, window, layout.window, hidden)
    _fill_table(battle, me, slots, table, layout.window)
    _fill_scalars(battle, me, scalars, max_rounds)
    _fill_tactics(battle, me, slots, out, layout, hidden)
    return out


def _can_charge(battle: Battle, me: Creature, target: Creature, hidden: frozenset[str]) -> bool:
    """EP-CHG-01 the plain way: some space within the mover's speed that ``charge_allowed``
    accepts, every space of whose ``charge_path`` is on open ground and free of others
    (but the ``hidden`` foes, which ``me`` does not perceive)."""
    speed = rules.movement_allowance(battle, me, "charge")
    x0, y0 = me.pos
    for y in range(y0 - speed, y0 + speed + 1):
        for x in range(x0 - speed, x0 + speed + 1):
            if battle.in_bounds((x, y)) and rules.charge_allowed(battle, me, target, (x, y)):
                path = rules.charge_path(battle, me, (x, y))
                if all(
                    battle.terrain_at(cell) not in (Terrain.BLOCKED, Terrain.PILLAR)
                    and all(o == me.id or o in hidden for o in battle.occupants(cell))
                    for q in path
                    for cell in me.shape.cells(q)
                ):
                    return True
    return False


def _fill_tactics(
    battle: Battle,
    me: Creature,
    slots: list[str],
    out: np.ndarray,
    layout: ObservationLayout,
    hidden: frozenset[str],
) -> None:
    """The tactics part: per slot readied, charging, player character and whether ``me``
    may charge it (every legal destination, the rule query's own reading); then the actor's
    withdrawal flag and the attacks it may still trade for 5-foot steps."""
    tactics, scalars = layout.split_tactics(out)
    for row, cid in enumerate(slots[: layout.n_slots]):
        c = battle.creatures[cid]
        if c.hp <= 0 or cid in hidden:
            continue
        tactics[row, T.READIED] = c.readied
        tactics[row, T.CHARGING] = c.charging
        tactics[row, T.PLAYER_CHARACTER] = c.player_character
        if c.team != me.team and me.hp > 0:
            tactics[row, T.CAN_CHARGE] = _can_charge(battle, me, c, hidden)
    ts = battle.turn
    if ts is None or ts.actor != me.id or engine.actor(battle) is None:
        return
    scalars[TS.WITHDRAWING] = ts.withdrawing is not None
    if legality._may_trade_step(battle, me):
        first = me.attacks[0]
        scalars[TS.TRADE_STEPS_LEFT] = len([s for s in ts.remaining if s.attack is first]) / 4.0


def _fill_window(  # noqa: C901  (the oracle, channel by channel)
    battle: Battle, me: Creature, w: np.ndarray, size: int, hidden: frozenset[str]
) -> None:
    half = size // 2
    ox, oy = me.pos[0] - half, me.pos[1] - half
    table = battle.table(me)
    enemy_threat: dict[tuple[int, int], int] = {}
    ally_threat: dict[tuple[int, int], int] = {}
    for c in battle.living():
        if c.id in hidden:
            continue
        target = ally_threat if c.team == me.team else enemy_threat
        for cell in rules.threatened_cells(battle, c):
            target[cell] = target.get(cell, 0) + 1
        ring_table = battle.table(c)
        if c.team != me.team and ring_table is not None:
            for area, cells in ring_table.by_area.items():
                ch = K.ENEMY_FRONT + _AREA_INDEX[area]
                for dx, dy in cells:
                    i, j = c.pos[1] + dy - oy, c.pos[0] + dx - ox
                    if 0 <= i < size and 0 <= j < size:
                        w[i, j, ch] = 1.0
    for i in range(size):
        for j in range(size):
            pos = (ox + j, oy + i)
            terrain = battle.terrain_at(pos)
            if terrain in (Terrain.BLOCKED, Terrain.PILLAR):
                w[i, j, K.BLOCKED] = 1.0
            elif terrain is Terrain.DIFFICULT:
                w[i, j, K.DIFFICULT] = 1.0
            elif terrain is Terrain.IMPEDED:
                w[i, j, K.IMPEDED] = 1.0
            w[i, j, K.THREATENED_BY_ENEMIES] = min(enemy_threat.get(pos, 0), 4) / 4.0
            w[i, j, K.THREATENED_BY_ALLIES] = min(ally_threat.get(pos, 0), 4) / 4.0
            if table is not None:
                area = table.lookup((pos[0] - me.pos[0], pos[1] - me.pos[1])).area
                if area is not Area.NONE:
                    w[i, j, K.OWN_FRONT + _AREA_INDEX[area]] = 1.0
    for c in battle.living():
        if c.id in hidden:
            continue
        fx, fy = _facing_vector(battle, c)
        kind = K.SELF if c.id == me.id else (K.ALLY if c.team == me.team else K.ENEMY)
        for x, y in battle.cells_of(c):
            i, j = y - oy, x - ox
            if 0 <= i < size and 0 <= j < size:
                w[i, j, kind] = 1.0
                w[i, j, K.SIZE] = c.size / 8.0
                w[i, j, K.FACING_X], w[i, j, K.FACING_Y] = fx, fy
                w[i, j, K.HP] = c.hp / c.max_hp


def _fill_table(
    battle: Battle,
    me: Creature,
    slots: list[str],
    t: np.ndarray,
    size: int,
) -> None:
    mask_targets = (
        {a.arg for a in engine.legal_actions(battle) if a.kind == engine.ATTACK}
        if (engine.actor(battle) is me)
        else set()
    )
    my_threat = rules.threatened_cells(battle, me)
    for row, cid in enumerate(slots[: t.shape[0]]):
        c = battle.creatures[cid]
        if c.team != me.team and not rules.perceives(battle, me, c):
            # issue 36: only where it was last perceived, if ever (dead or alive)
            last = battle.last_seen.get(me.id, {}).get(cid)
            if last is not None:
                t[row, C.ENEMY] = 1.0
                t[row, C.DX] = (last[0] - me.pos[0]) / size
                t[row, C.DY] = (last[1] - me.pos[1]) / size
            continue
        if c.hp <= 0:
            continue
        fx, fy = _facing_vector(battle, c)
        enemy = c.team != me.team
        its_threat = rules.threatened_cells(battle, c)
        dist = battle.cells_distance(battle.cells_of(me), battle.cells_of(c))
        f = t[row]
        f[C.PRESENT] = 1.0
        f[C.IS_SELF] = float(c.id == me.id)
        f[C.ALLY] = float(not enemy and c.id != me.id)
        f[C.ENEMY] = float(enemy)
        f[C.DX], f[C.DY] = (c.pos[0] - me.pos[0]) / size, (c.pos[1] - me.pos[1]) / size
        f[C.SIZE], f[C.HAS_FACING] = c.size / 8.0, float(battle.table(c) is not None)
        f[C.FACING_X], f[C.FACING_Y] = fx, fy
        f[C.HP_FRACTION], f[C.HP], f[C.AC] = c.hp / c.max_hp, c.hp / 50.0, c.ac / 30.0
        if c.id != me.id:
            f[C.IN_MY_FRONT + _AREA_INDEX[Area(rules.area_of(battle, me, c))]] = 1.0
            f[C.ME_IN_ITS_FRONT + _AREA_INDEX[Area(rules.area_of(battle, c, me))]] = 1.0
        f[C.DISTANCE] = dist / size
        f[C.FLAT_FOOTED] = float(c.flat_footed)
        if enemy:
            f[C.THREATENS_ME] = float(any(cell in its_threat for cell in battle.cells_of(me)))
            f[C.I_THREATEN_IT] = float(any(cell in my_threat for cell in battle.cells_of(c)))
            f[C.MY_FACING_MODIFIER] = rules.facing_modifier(battle, me, c) / 10.0
            f[C.ITS_FACING_MODIFIER] = rules.facing_modifier(battle, c, me) / 10.0
            f[C.MY_SNEAK_ATTACK] = float(rules.sneak_attack_applies(battle, me, c))
            f[C.ATTACKABLE] = float(cid in mask_targets)
        used = battle.initiative.aoo_used.get(cid, 0) if battle.initiative else 0
        f[C.ATTACKS_OF_OPPORTUNITY_LEFT] = float(
            used == 0 and rules.can_make_attacks_of_opportunity(c)
        )
        f[C.SPEED] = c.speed / 5 / 12.0
        f[C.REACH] = max((a.reach for a in c.attacks if not a.ranged), default=0) / 5 / 5.0
        if c.sneak_attack:
            n, sides, bonus = parse_dice(c.sneak_attack)
            f[C.SNEAK_ATTACK_DICE] = (n * (sides + 1) / 2 + bonus) / 10.0


def _fill_scalars(battle: Battle, me: Creature, s: np.ndarray, max_rounds: int) -> None:
    s[S.HEX_GRID] = float(battle.kind is GridKind.HEX)
    s[S.UA35_RULES] = float(battle.rules.facing_penalties)
    s[S.SIDE_REAR_RULES] = float(battle.rules.auto_turn_on_attack)
    ts = battle.turn
    if ts is None or ts.actor != me.id or engine.actor(battle) is None:
        s[S.ROUND_FRACTION] = battle.initiative.round / max_rounds if battle.initiative else 0.0
        return
    speed = max(1, me.speed // 5)
    s[S.MOVEMENT_LEFT] = engine.movement_capacity(battle) / (4 * speed)
    s[S.MOVE_AVAILABLE] = float(ts.move_available)
    s[S.STANDARD_AVAILABLE] = float(ts.standard_available)
    s[S.FIVE_FOOT_STEP_AVAILABLE] = float(
        not (ts.moved or ts.five_foot_step_taken or ts.running or ts.withdrawing)
    )
    s[S.FREE_TURN_AVAILABLE] = float(not ts.free_turn_used)
    s[S.MOVING], s[S.RUNNING] = float(ts.moving), float(ts.running)
    s[S.ATTACKS_MADE] = ts.attacks_made / 4.0
    s[S.ROUND_FRACTION] = battle.initiative.round / max_rounds
    s[S.CLEAVE] = float(ts.cleave is not None)
