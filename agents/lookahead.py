"""A forward model for planning agents: the batched engine's kernels over rows of candidates.

:class:`Lookahead` holds a :class:`~facing_env.fast.state.State` of ``capacity`` rows. A
planner writes one battle into row 0 (:meth:`Lookahead.load`) and then grows a tree of
candidate states breadth first: :meth:`Lookahead.expand` copies parent rows into free
rows and applies one action to each with the engine's own step kernel
(:func:`facing_env.fast.batch.step_all`), so every rule (costs, attacks of opportunity,
readied attacks, charges, the automatic end of a turn) is the engine's, exactly.

The planning rows roll no dice: every attack deals its expected damage (the engine's
``mean`` dice mode), so a plan is a deterministic function of the battle's public state
(positions, facings, hit points, the turn) and never of the dice stream, which
:func:`~facing_env.fast.state.load` does not even copy (``dice=None``).

:func:`state_hash` keys the rows (the changing fields, except the count of actions taken)
so that a breadth-first search visits each state once, and :func:`attack_potential`
scores where each creature stands: the best expected damage of one attack it could make
after at most a 5-foot step (the engine's area tables, UA-OPP-01/02, UA-SNK-01).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from facing_env.fast.batch import step_all
from facing_env.fast.events import allocate_events
from facing_env.fast.geometry import area_code, cell_distance, footprint_distance, terrain_at
from facing_env.fast.jit import bind
from facing_env.fast.lookup import Tables, charge_tables, radius_for, tables_for
from facing_env.fast.resolve import auto_end
from facing_env.fast.state import (
    AREA_CODES,
    SHAPE_CELLS,
    SHAPE_OFFSETS,
    State,
    allocate,
    load,
    shape_index,
)
from facing_env.rules import engine
from facing_env.rules.battle import Battle
from facing_env.rules.dice import DICE_MODES
from facing_env.tables import FEET_PER_SQUARE, FLANKED_BONUS, OPPONENT_AREA_BONUS
from facing_env.types import Area

__all__ = ["DYNAMIC_FIELDS", "Lookahead", "attack_potential", "state_hash"]

MEAN = DICE_MODES.index("mean")
DYNAMIC_FIELDS: tuple[str, ...] = tuple(
    f
    for f in State._fields[State._fields.index("x") : State._fields.index("n_remaining") + 1]
    if f != "turn_actions_taken"
)
"""The fields that change during a battle (positions to the attacks left in the turn):
what a child row copies from its parent and what :func:`state_hash` keys. The count of
actions taken is left out: two ways to the same state are the same state to a planner."""
_COPIED: tuple[str, ...] = (
    *DYNAMIC_FIELDS,
    "turn_actions_taken",
    "dice_seed",
    "dice_count",
    "deck",
    "deck_left",
    "heard",
    "seen",
    "seen_x",
    "seen_y",
)
"""What a new row copies from its source: every field a step may change."""
_MOVING = frozenset(_COPIED)
_EVENTS_PER_STEP = 48  # room for one step's events per row (a step makes a handful)
_AREA_VALUE = np.zeros(len(AREA_CODES), dtype=np.float64)
"""The attack bonus from each area of the defender, by area code: the larger of the
facing bonus (UA-OPP-01/02: flank +2, rear +4) and the flanked condition's (SR-07/08:
side +2, rear +4), from :mod:`facing_env.tables`."""
for _area in (Area.FLANK, Area.SIDE, Area.REAR):
    _AREA_VALUE[AREA_CODES.index(_area)] = max(OPPONENT_AREA_BONUS[_area], FLANKED_BONUS[_area])
_REAR = AREA_CODES.index(Area.REAR)


class Lookahead:
    """Rows of candidate battle states stepped by the batched engine (module docstring).

    ``capacity`` rows are allocated; row 0 is the root. A search uses rows ``1..`` in
    order (:meth:`expand` returns the rows it filled); :meth:`load` starts over."""

    def __init__(self, capacity: int = 8192) -> None:
        self.capacity = capacity
        self.state: State | None = None
        self.tables: Tables | None = None
        self._dims: tuple[int, ...] = ()
        self._fixed = b""
        self._profile: tuple = ()
        self.used = 1
        self.parent = np.full(capacity, -1, dtype=np.int64)
        self.action = np.zeros(capacity, dtype=np.int64)
        self.modes = np.full(capacity, MEAN, dtype=np.int64)
        self.ev = allocate_events(capacity, _EVENTS_PER_STEP)
        self._actions = np.zeros(capacity, dtype=np.int64)
        self._active = np.ones(capacity, dtype=np.bool_)
        self._ends = np.zeros((capacity, 2), dtype=np.bool_)
        self._step = None
        self._scan = None
        self.n_actions = 0

    # -- the root ----------------------------------------------------------------------

    def load(self, battle: Battle, n_actions: int) -> None:
        """Write ``battle`` into row 0 (no dice) and into every row's fixed fields, and
        scan row 0's legal actions; ``n_actions`` is the env's action count."""
        self._fit(battle, n_actions)
        s = self.state
        assert s is not None
        load(s, 0, battle)
        fixed = self._fixed_key()
        if fixed != self._fixed:  # the fixed fields of every row are the root's
            for name in State._fields:
                a = getattr(s, name)
                a[1:] = a[0]
            self._fixed = fixed
        self.used = 1
        self.parent[0] = -1
        self.action[0] = -1
        self._scan(self.tables, s, 0, self.ev, self.mask, self.cost)

    def fits(self, battle: Battle, n_actions: int) -> bool:
        """Whether ``battle`` fits the rows as they are (same board, creatures and actions)."""
        return (
            self.state is not None
            and n_actions == self.n_actions
            and self._dims
            == (
                battle.terrain.shape[0],
                battle.terrain.shape[1],
                len(battle.creatures),
                max(len(c.attacks) for c in battle.creatures.values()),
            )
        )

    @property
    def fixed(self) -> bytes:
        """The fixed fields of the battle last loaded (stat blocks, board), as bytes."""
        return self._fixed

    def _fixed_key(self) -> bytes:
        """Row 0's fields that no step changes, as bytes: rows copied from another battle
        with the same key need no fresh copy of them."""
        s = self.state
        return b"".join(getattr(s, n)[0].tobytes() for n in State._fields if n not in _MOVING)

    def load_root(self, battle: Battle) -> None:
        """Write ``battle`` into row 0 only (to compare it with a planned row)."""
        assert self.state is not None
        load(self.state, 0, battle)

    def _fit(self, battle: Battle, n_actions: int) -> None:
        need = (
            battle.terrain.shape[0],
            battle.terrain.shape[1],
            len(battle.creatures),
            max(len(c.attacks) for c in battle.creatures.values()),
        )
        profile: dict[int, int] = {}
        for c in battle.creatures.values():
            row = shape_index(c.shape)
            melee = [a.reach for a in c.attacks if not a.ranged]
            profile[row] = max(profile.get(row, 0), max(melee, default=0) // FEET_PER_SQUARE)
        key = (battle.kind, battle.ruleset, tuple(sorted(profile.items())))
        if need != self._dims or n_actions != self.n_actions:
            n_slots = (n_actions - _attack_base()) // 3
            self.state = allocate(
                self.capacity, *need[:2], max(need[2], n_slots), need[3],
                need[3] + engine.MAX_ITERATIVES,
            )  # fmt: skip
            self._dims = need
            self.n_actions = n_actions
            self.n_slots = n_slots
            self.mask = np.zeros((self.capacity, n_actions), dtype=np.int8)
            self.cost = np.zeros((self.capacity, n_actions), dtype=np.int32)
            k = self.state.present.shape[1]
            self._gone = np.zeros((self.capacity, k), dtype=np.bool_)
            self._agent_of = np.zeros((self.capacity, k), dtype=np.int64)
            self._out = np.zeros((self.capacity, k), dtype=np.float64)  # the engine's type
            self._acc = np.zeros(k)
            self._killer = np.zeros(k, dtype=np.int64)
            self._weights = np.zeros(10, dtype=np.float64)
            self._profile = ()
            self._fixed = b""
        if key != self._profile:
            kind, ruleset = battle.kind, battle.ruleset
            height, width = self.state.terrain.shape[1:]
            base = tables_for(kind, ruleset, radius_for(kind, height, width), tuple(profile))
            self.tables = base._replace(**charge_tables(kind, base.radius, key[2]))
            self._profile = key
            self._step = None
        if self._step is None:
            self._step = bind(step_all, *self._step_args(0, 1))
            self._scan = bind(auto_end, self.tables, self.state, 0, self.ev, self.mask, self.cost)

    def _step_args(self, lo: int, hi: int) -> tuple:
        from facing_env.fast.rewards import WEIGHTS

        if self._weights.shape[0] != len(WEIGHTS):
            self._weights = np.zeros(len(WEIGHTS), dtype=np.float64)
        return (
            self.tables, self.state, self.ev, self._actions, self._active, self.mask,
            self.cost, self.modes, self.n_slots, self._weights, 1 << 20, self._gone,
            self._agent_of, self._out, self._ends, self._acc, self._killer, lo, hi,
        )  # fmt: skip

    # -- growing the tree ---------------------------------------------------------------

    def room(self, n: int) -> int:
        """How many of ``n`` new rows fit."""
        return max(0, min(n, self.capacity - self.used))

    def expand(self, parents: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """Copy each ``parents[j]`` into a new row and apply ``actions[j]`` to it; returns
        the new rows (as many as fit: see :meth:`room`)."""
        n = self.room(len(parents))
        parents, actions = parents[:n], actions[:n]
        lo = self.used
        hi = lo + n
        rows = np.arange(lo, hi)
        if n == 0:
            return rows
        s = self.state
        for name in _COPIED:
            a = getattr(s, name)
            a[lo:hi] = a[parents]
        self.cost[lo:hi] = self.cost[parents]
        self.parent[lo:hi] = parents
        self.action[lo:hi] = actions
        self._actions[lo:hi] = actions
        self.used = hi
        self._step(*self._step_args(lo, hi))
        return rows

    def copy_rows(self, sources: np.ndarray) -> np.ndarray:
        """New rows holding copies of ``sources`` (parents kept), as many as fit."""
        n = self.room(len(sources))
        sources = sources[:n]
        lo, hi = self.used, self.used + n
        s = self.state
        for name in _COPIED:
            a = getattr(s, name)
            a[lo:hi] = a[sources]
        self.mask[lo:hi] = self.mask[sources]
        self.cost[lo:hi] = self.cost[sources]
        self.parent[lo:hi] = self.parent[sources]
        self.action[lo:hi] = self.action[sources]
        self.used = hi
        return np.arange(lo, hi)

    def path(self, row: int, stop: int = 0) -> list[int]:
        """The actions from row ``stop`` (an ancestor) down to ``row``."""
        out = []
        while row != stop and row >= 0:
            out.append(int(self.action[row]))
            row = int(self.parent[row])
        return out[::-1]

    def hashes(self, rows: np.ndarray, walking: bool = False) -> np.ndarray:
        """:func:`state_hash` of rows."""
        return state_hash(self.state, rows, walking)


def _attack_base() -> int:
    from facing_env.actions import ATTACK_BASE

    return ATTACK_BASE


def state_hash(s: State, rows: np.ndarray, walking: bool = False) -> np.ndarray:
    """A 64-bit key of each row's :data:`DYNAMIC_FIELDS` (:func:`_hash_rows`; two
    different states share a key with probability about 2**-64; hit points count to
    1/65536).

    ``walking``: the key of where a walk stands, for dominance: without the movement left
    (and the diagonal count), and without the actor's facing while it is moving (it may
    face any way at no cost then, UA-MOVE-01)."""
    out = np.empty(rows.size, dtype=np.uint64)
    _hash_rows(s, np.ascontiguousarray(rows, dtype=np.int64), walking, out)
    return out


_MIX = np.uint64(0x9E3779B97F4A7C15)
_SHIFT = np.uint64(29)


@njit(cache=True)
def _mix(h, v):
    """One value folded into a running 64-bit key (a multiply-xorshift step)."""
    h = (h ^ np.uint64(np.int64(v))) * _MIX
    return h ^ (h >> _SHIFT)


@njit(cache=True)
def _hash_rows(s, rows, walking, out):
    """:func:`state_hash`'s kernel: every field of :data:`DYNAMIC_FIELDS`, in order
    (``tests/test_expert.py`` checks that each one changes the key)."""
    for j in range(rows.shape[0]):
        i = rows[j]
        h = np.uint64(0x243F6A8885A308D3)
        actor = s.actor[i]
        for k in range(s.x.shape[1]):
            h = _mix(h, s.x[i, k])
            h = _mix(h, s.y[i, k])
            if walking and k == actor and s.turn_moving[i]:
                h = _mix(h, -1)
            else:
                h = _mix(h, s.facing[i, k])
            h = _mix(h, np.round(s.hp[i, k] * 65536.0))
            h = _mix(h, s.flat_footed[i, k])
            h = _mix(h, s.readied[i, k])
            h = _mix(h, s.charging[i, k])
            h = _mix(h, s.aoo_used[i, k])
            h = _mix(h, s.provoked[i, k])
            h = _mix(h, s.order[i, k])
        h = _mix(h, s.n_order[i])
        h = _mix(h, s.round[i])
        h = _mix(h, s.index[i])
        h = _mix(h, actor)
        h = _mix(h, s.turn_move_available[i])
        h = _mix(h, s.turn_standard_available[i])
        h = _mix(h, s.turn_moving[i])
        h = _mix(h, s.turn_moved[i])
        h = _mix(h, s.turn_running[i])
        if not walking:
            h = _mix(h, s.turn_movement_left[i])
            h = _mix(h, s.turn_diagonals[i])
        h = _mix(h, s.turn_five_foot_step_taken[i])
        h = _mix(h, s.turn_free_turn_used[i])
        h = _mix(h, s.turn_turned_after_step[i])
        h = _mix(h, s.turn_declaring[i])
        h = _mix(h, s.turn_withdrawing[i])
        h = _mix(h, s.turn_attacks_made[i])
        h = _mix(h, s.turn_full_attack[i])
        h = _mix(h, s.turn_cleave[i, 0])
        h = _mix(h, s.turn_cleave[i, 1])
        h = _mix(h, s.turn_cleaved[i])
        h = _mix(h, s.turn_traded_steps[i])
        h = _mix(h, s.n_remaining[i])
        for r in range(s.n_remaining[i]):
            h = _mix(h, s.remaining[i, r, 0])
            h = _mix(h, s.remaining[i, r, 1])
        out[j] = h


@njit(cache=True)
def _hit_chance(bonus: float, ac: float) -> float:
    need = ac - bonus  # the d20 roll that hits: >= need; 1 always misses, 20 always hits
    p = (21.0 - need) / 20.0
    return min(0.95, max(0.05, p))


@njit(cache=True)
def attack_potential(t, s, rows, area_value, moves, out):
    """``out[j, k]``: the best expected damage creature ``k`` of row ``rows[j]`` could deal
    with one attack (its first) against a living foe from a free space (no terrain, no
    creature) at most ``moves[j, k]`` cells from its own (1: a 5-foot step; more: a move,
    the way there not checked), turned toward the foe; 0 when none is in reach. The foe's
    area of the attacker's cell gives the bonus (``area_value``: flank +2, rear +4,
    UA-OPP-01/02); sneak attack dice count from the rear (UA-SNK-01). A heuristic of
    position, not a rule: it ignores the way's cost and the attacker's own facing."""
    for j in range(rows.shape[0]):
        i = rows[j]
        n = s.n_creatures[i]
        for a in range(n):
            out[j, a] = 0.0
            if not s.present[i, a] or s.hp[i, a] <= 0 or s.n_attacks[i, a] == 0:
                continue
            m = moves[j, a]
            if m > 1:  # a walk: only the cells within reach of a foe can strike
                out[j, a] = _best_walk_strike(t, s, i, a, m, area_value)
                continue
            best = 0.0
            for dy in range(-m, m + 1):
                for dx in range(-m, m + 1):
                    cx = s.x[i, a] + dx
                    cy = s.y[i, a] + dy
                    if (dx != 0 or dy != 0) and not _free(s, i, a, cx, cy, m):
                        continue
                    value = _best_strike(t, s, i, a, cx, cy, area_value)
                    if value > best:
                        best = value
            out[j, a] = best


@njit(cache=True)
def _span(shape):
    """The largest offset of a footprint's cells from its anchor, in either axis."""
    span = 0
    for p in range(SHAPE_CELLS[shape]):
        span = max(span, abs(SHAPE_OFFSETS[shape, p, 0]), abs(SHAPE_OFFSETS[shape, p, 1]))
    return span


@njit(cache=True)
def _best_walk_strike(t, s, i, a, m, area_value):
    """:func:`attack_potential`'s value for creature ``a`` with ``m`` > 1 cells to walk:
    the same best over the free cells within ``m`` (and its own), found by looking only
    at the cells around each living foe from which ``a``'s reach touches it (a walk's
    square of cells is mostly out of every foe's reach).

    It repeats :func:`_best_strike`'s arithmetic on purpose: each way of sharing it was
    slower on the skirmish expert's 16 timed games (82.8 s as written): a shared njit
    function per cell and foe 351 s (the State passed per call, :mod:`facing_env.fast.jit`),
    calling :func:`_best_strike` per cell 134 s, and shared helpers with
    ``inline="always"`` 515 s (not traced further)."""
    reach = s.reach[i, a] // 5
    bonus = s.attack_bonus[i, a, 0]
    dmg = s.attack_damage[i, a, 0, 0] * (s.attack_damage[i, a, 0, 1] + 1) * 0.5
    dmg += s.attack_damage[i, a, 0, 2]
    sneak = s.sneak_attack[i, a, 0] * (s.sneak_attack[i, a, 1] + 1) * 0.5
    sneak += s.sneak_attack[i, a, 2]
    sa = s.shape[i, a]
    ax = s.x[i, a]
    ay = s.y[i, a]
    best = 0.0
    for f in range(s.n_creatures[i]):
        if s.team[i, f] == s.team[i, a] or not s.present[i, f] or s.hp[i, f] <= 0:
            continue
        sf = s.shape[i, f]
        box = reach + _span(sa) + _span(sf)
        for cy in range(s.y[i, f] - box, s.y[i, f] + box + 1):
            for cx in range(s.x[i, f] - box, s.x[i, f] + box + 1):
                own = cx == ax and cy == ay
                if not own and not _free(s, i, a, cx, cy, m):
                    continue
                dist = footprint_distance(s, i, sa, cx, cy, sf, s.x[i, f], s.y[i, f])
                if dist > reach or dist == 0:
                    continue
                code = area_code(t, s, i, f, cx, cy)
                p_hit = _hit_chance(bonus + area_value[code], s.ac[i, f])
                value = p_hit * dmg
                if code == _REAR and sneak > 0:
                    value += p_hit * sneak
                if value > best:
                    best = value
    return best


@njit(cache=True)
def _free(s, i, a, cx, cy, m):
    """Whether creature ``a`` could stand at ``(cx, cy)``, at most ``m`` cells away."""
    if cell_distance(s, i, s.x[i, a], s.y[i, a], cx, cy) > m:
        return False
    if terrain_at(s, i, cx, cy) != 0:
        return False
    sa = s.shape[i, a]
    for o in range(s.n_creatures[i]):
        if o == a or not s.present[i, o] or s.hp[i, o] <= 0:
            continue
        if footprint_distance(s, i, sa, cx, cy, s.shape[i, o], s.x[i, o], s.y[i, o]) == 0:
            return False
    return True


@njit(cache=True)
def _best_strike(t, s, i, a, cx, cy, area_value):
    """The best expected damage of creature ``a``'s first attack from ``(cx, cy)``."""
    reach = s.reach[i, a] // 5
    bonus = s.attack_bonus[i, a, 0]
    dmg = s.attack_damage[i, a, 0, 0] * (s.attack_damage[i, a, 0, 1] + 1) * 0.5
    dmg += s.attack_damage[i, a, 0, 2]
    sneak = s.sneak_attack[i, a, 0] * (s.sneak_attack[i, a, 1] + 1) * 0.5
    sneak += s.sneak_attack[i, a, 2]
    sa = s.shape[i, a]
    best = 0.0
    for f in range(s.n_creatures[i]):
        if s.team[i, f] == s.team[i, a] or not s.present[i, f] or s.hp[i, f] <= 0:
            continue
        dist = footprint_distance(s, i, sa, cx, cy, s.shape[i, f], s.x[i, f], s.y[i, f])
        if dist > reach or dist == 0:
            continue
        code = area_code(t, s, i, f, cx, cy)
        p = _hit_chance(bonus + area_value[code], s.ac[i, f])
        value = p * dmg
        if code == _REAR and sneak > 0:
            value += p * sneak
        if value > best:
            best = value
    return best


@njit(cache=True)
def toward_slots(t, s, rows, lazy, front_code, out):
    """``out[j, slot]`` = 1 for the TURN slots a search tries in row ``rows[j]``: the
    facing toward the actor's nearest living foe (by ``t.facing_to``, the engine's
    ``toward_creature``) and the allowed facings either side of it; for ``lazy`` rows
    only that facing, and only when the foe stands outside the actor's front."""
    r = t.radius
    for j in range(rows.shape[0]):
        for k in range(out.shape[1]):
            out[j, k] = 0
        i = rows[j]
        a = s.actor[i]
        if a < 0:
            continue
        best = 1 << 30
        target = -1
        for f in range(s.n_creatures[i]):
            if s.team[i, f] == s.team[i, a] or not s.present[i, f] or s.hp[i, f] <= 0:
                continue
            d = abs(s.x[i, f] - s.x[i, a]) + abs(s.y[i, f] - s.y[i, a])
            if d < best:
                best = d
                target = f
        if target < 0:
            continue
        sa = s.shape[i, a]
        dx = s.x[i, target] - s.x[i, a]
        dy = s.y[i, target] - s.y[i, a]
        if abs(dx) > r or abs(dy) > r:
            continue
        facing = t.facing_to[sa, s.facing[i, a], s.shape[i, target], dy + r, dx + r]
        n = 0
        k = -1
        for f in range(t.allowed.shape[1]):
            if t.allowed[sa, f]:
                if f == facing:
                    k = n
                n += 1
        if k < 0:
            continue
        if lazy[j]:
            if t.area[sa, s.facing[i, a], dy + r, dx + r] != front_code:
                out[j, k] = 1
            continue
        out[j, (k - 1) % n] = 1
        out[j, k] = 1
        out[j, (k + 1) % n] = 1


@njit(cache=True)
def foe_distances(t, s, rows, out):
    """``out[j, 0]``: cells between row ``rows[j]``'s actor and its nearest living foe
    (footprint to footprint, ``geometry.cells_distance``); ``out[j, 1 + d]``: the same
    with the actor one step in direction ``d`` (``t.vectors``); 1 << 20 with no foe."""
    n_dir = t.vectors.shape[0]
    for j in range(rows.shape[0]):
        i = rows[j]
        a = s.actor[i]
        for d in range(out.shape[1]):
            out[j, d] = 1 << 20
        if a < 0:
            continue
        sa = s.shape[i, a]
        for f in range(s.n_creatures[i]):
            if s.team[i, f] == s.team[i, a] or not s.present[i, f] or s.hp[i, f] <= 0:
                continue
            for d in range(-1, n_dir):
                dx = 0 if d < 0 else t.vectors[d, 0]
                dy = 0 if d < 0 else t.vectors[d, 1]
                dist = footprint_distance(
                    s, i, sa, s.x[i, a] + dx, s.y[i, a] + dy, s.shape[i, f], s.x[i, f], s.y[i, f]
                )
                if dist < out[j, d + 1]:
                    out[j, d + 1] = dist
