"""The one-on-one melee solved ahead: a table of position values for the ``expert``.

Two single-square creatures of reach 1 standing next to each other on a square grid under
``ua35`` fight a melee whose every turn is the same few choices: a 5-foot step or none
(UA-MOVE-05: into any adjacent square; UA-MOVE-06: the facing kept), a facing change, one
attack, and a second facing change with the move action (UA-MOVE-02). What an exchange is
worth depends only on where the two stand and which way they face: the defender's area
bonus (UA-OPP-01/02: 0 / +2 / +4), the attacker having turned toward it first (no own
penalty, UA-ATK-01). :func:`solve` computes, by value iteration over every such position,
the discounted sum of expected damage dealt less taken from there on, the expert's
creature ``A`` choosing the best, its foe ``B`` playing by the expert's model of a foe in
a fight (:mod:`facing_env.agents.expert`, module docstring, 3):

- ``A``'s turn: a 5-foot step to a square next to ``B`` (or none), the facing toward
  ``B``, the attack, and any end facing (the move action's change);
- ``B``'s turn: a 5-foot step to a square next to ``A``, or none (none only, for a foe
  never seen leaving a fight), then a turn toward ``A`` only if ``A`` stands outside its
  front, and the attack. The step is the one that strikes from ``A``'s best area (rear,
  flank, front), none when no step strikes from a better area than where ``B`` stands.

Read after a turn's search, the table gives the worth of a position many turns on: the
corner trap (a cornered foe flanked again and again while every square it could step to
is in the expert's front, UA-OPP-01) and the denial (ending a turn diagonal to a foe,
facing it, so that no step of its reaches a flank) are several turns deep, beyond a
one-turn search's heuristic of position. It is a model of the melee, not a rule:
readied attacks, charges, withdrawals, walks and hit points are the search's.

Directions and facings are the square grid's eight (``geometry.direction_vectors``: N,
NE, E, SE, S, SW, W, NW). A state is ``(A's cell, A's facing, B's direction from A, B's
facing)``, ``cell = y * width + x``: index ``((cell * 8 + a_facing) * 8 + direction) * 8 +
b_facing``. Numpy only: no kernel to compile.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from facing_env.actions import ATTACK_BASE, END_TURN_INDEX, FIVE_FOOT_BASE, TURN_BASE
from facing_env.fast.state import SHAPES
from facing_env.rules.geometry import area_table, direction_vectors
from facing_env.tables import FEET_PER_SQUARE, OPPONENT_AREA_BONUS
from facing_env.types import Area, GridKind, Ruleset, Terrain

__all__ = ["MeleeTable", "hit_values", "melee_turn", "solve", "strike_values", "table_for"]

DISCOUNT = 0.9
"""Weight of each later round: about ten rounds ahead count, a duel's length."""
SWEEPS = 120
"""Value iterations (``DISCOUNT ** SWEEPS`` is below 1e-5)."""

_DX, _DY = np.array(direction_vectors(GridKind.SQUARE), dtype=np.int64).T
_DIRECTION_OF = np.zeros(9, dtype=np.int64)
_DIRECTION_OF[(_DY + 1) * 3 + _DX + 1] = np.arange(8)
"""Direction index by ``(dy + 1) * 3 + dx + 1`` of a neighbouring square."""
_ONE_SQUARE = next(s for s in SHAPES if s.kind is GridKind.SQUARE and s.is_single)
_AREAS = area_table(GridKind.SQUARE, Ruleset.UA35, _ONE_SQUARE, 0).ring
_AREA_BONUS = np.array(
    [OPPONENT_AREA_BONUS[_AREAS[(int(_DX[d]), int(_DY[d]))].area] for d in range(8)]
)
"""The defender's area bonus by ``(direction from the defender - its facing) % 8``, from
the engine's area table of a one-square creature facing N: front 0, flank +2, rear +4
(UA-FACE-02 and IC-02: three front, two flank, three rear squares; UA-OPP-01/02)."""
_FRONT = np.array([_AREAS[(int(_DX[d]), int(_DY[d]))].area is Area.FRONT for d in range(8)])
_STEPPABLE = (int(Terrain.OPEN), int(Terrain.HAZARDOUS))
_NONE = 8  # the option "no 5-foot step"
_PAIR = 2  # the creatures a table is for


@dataclass(frozen=True)
class MeleeTable:
    """Values of the melee positions (module docstring), in hit points for ``A``:
    ``to_act[state]`` with ``A`` to act, ``replying[state]`` with ``B`` to act (``nan``
    where the state is off the board)."""

    width: int
    height: int
    to_act: np.ndarray
    replying: np.ndarray

    def index(self, a: tuple[int, int], a_facing: int, b: tuple[int, int], b_facing: int) -> int:
        """The state of ``A`` at ``a`` and ``B`` at ``b``; -1 unless they stand next to
        each other on the board."""
        dx, dy = b[0] - a[0], b[1] - a[1]
        on = 0 <= a[0] < self.width and 0 <= a[1] < self.height
        if not on or max(abs(dx), abs(dy)) != 1:
            return -1
        d = int(_direction(a[0], a[1], b[0], b[1]))
        return (((a[1] * self.width + a[0]) * 8 + a_facing) * 8 + d) * 8 + b_facing


def hit_values(bonus: float, damage: float, ac: float) -> np.ndarray:
    """Expected damage of one attack by area bonus 0..4 (index = bonus): the hit chance
    (a natural 1 misses, a natural 20 hits) times the mean damage."""
    bonuses = np.arange(5, dtype=np.float64)
    return np.clip((21.0 - (ac - bonus - bonuses)) / 20.0, 0.05, 0.95) * damage


def solve(
    terrain: np.ndarray,
    a_hits: np.ndarray,
    b_hits: np.ndarray,
    b_steps: bool,
    discount: float = DISCOUNT,
    sweeps: int = SWEEPS,
) -> MeleeTable:
    """The table for a board (``terrain[y, x]``, :class:`~facing_env.types.Terrain`
    values) and the two creatures' :func:`hit_values` (``A``'s against ``B``, ``B``'s
    against ``A``). ``b_steps``: whether ``B`` may 5-foot-step (a foe seen leaving a
    fight)."""
    height, width = terrain.shape
    free = np.isin(terrain, _STEPPABLE)
    wall = terrain == int(Terrain.BLOCKED)
    ys, xs = np.nonzero(free)
    pairs = [(x, y, d) for x, y in zip(xs.tolist(), ys.tolist(), strict=True) for d in range(8)]
    pairs = [(x, y, d) for x, y, d in pairs if _on(free, x + _DX[d], y + _DY[d])]
    ax, ay, dirs = (np.array(v, dtype=np.int64) for v in zip(*pairs, strict=True))
    bx, by = ax + _DX[dirs], ay + _DY[dirs]
    # the 5-foot steps of each side, per pair: the square reached (or none), legal or not
    a_to, a_ok = _steps(free, wall, ax, ay, bx, by)
    b_to, b_ok = _steps(free, wall, bx, by, ax, ay)
    if not b_steps:
        b_ok[:, :_NONE] = False
    f = np.arange(8)
    # B to act: (pair, A's facing, B's facing, option) -> damage taken, next state
    from_a = _direction(ax[:, None], ay[:, None], *b_to)  # where B strikes from, seen from A
    to_a = (from_a + 4) % 8
    taken = b_hits[_AREA_BONUS[(from_a[:, None, None, :] - f[None, :, None, None]) % 8]]
    turns = ~_FRONT[(to_a[:, None, :] - f[None, :, None]) % 8]  # (pair, B's facing, option)
    face = np.where(turns, to_a[:, None, :], f[None, :, None])
    cell = ay * width + ax
    nxt = (((cell[:, None, None, None] * 8 + f[None, :, None, None]) * 8
            + from_a[:, None, None, :]) * 8 + face[:, None, :, :])  # fmt: skip
    ok_b = np.broadcast_to(b_ok[:, None, None, :], nxt.shape)
    # B's step: the best area, none on ties (module docstring)
    stay = np.arange(9) == _NONE  # breaks ties only: any better area outranks it
    rank = np.where(ok_b, np.round(taken, 9) * 1e6 + stay, -np.inf)
    pick = rank.argmax(axis=3)[..., None]
    b_taken = np.take_along_axis(np.broadcast_to(taken, nxt.shape), pick, 3)[..., 0]
    b_next = np.take_along_axis(nxt, pick, 3)[..., 0]
    # A to act: (pair, B's facing, option, end facing) -> damage dealt, state after
    from_b = _direction(bx[:, None], by[:, None], *a_to)  # where A strikes from, seen from B
    to_b = (from_b + 4) % 8
    dealt = a_hits[_AREA_BONUS[(from_b[:, None, :] - f[None, :, None]) % 8]]
    q_cell = a_to[1] * width + a_to[0]
    post = (((q_cell[:, None, :, None] * 8 + f[None, None, None, :]) * 8
             + to_b[:, None, :, None]) * 8 + f[None, :, None, None])  # fmt: skip
    ok_a = a_ok[:, None, :, None]
    n = width * height * 512
    to_act = np.full(n, np.nan)
    replying = np.full(n, np.nan)
    mine = (((cell[:, None, None] * 8 + f[None, :, None]) * 8 + dirs[:, None, None]) * 8
            + f[None, None, :])  # fmt: skip  # (pair, A's facing, B's facing)
    to_act[mine] = 0.0
    for _ in range(sweeps):
        replying[mine] = -b_taken + discount * to_act[b_next]
        gain = np.where(ok_a, dealt[:, :, :, None] + replying[post], -np.inf)
        best = gain.max(axis=(2, 3))  # (pair, B's facing): A's facing does not count
        to_act[mine] = best[:, None, :]
    return MeleeTable(width, height, to_act, replying)


def _on(free: np.ndarray, x: int, y: int) -> bool:
    return 0 <= x < free.shape[1] and 0 <= y < free.shape[0] and bool(free[y, x])


def _steps(
    free: np.ndarray, wall: np.ndarray, x: np.ndarray, y: np.ndarray, ox: np.ndarray, oy: np.ndarray
) -> tuple[tuple[np.ndarray, np.ndarray], np.ndarray]:
    """Per pair, the square each 5-foot step from ``(x, y)`` reaches (option 8: none) and
    whether it is legal and ends next to ``(ox, oy)``: open ground (EP-5FT-03), not the
    other's square, no wall's corner cut (EP-TER-04)."""
    h, w = free.shape
    tx = np.concatenate([x[:, None] + _DX[None, :], x[:, None]], axis=1)
    ty = np.concatenate([y[:, None] + _DY[None, :], y[:, None]], axis=1)
    inside = (tx >= 0) & (ty >= 0) & (tx < w) & (ty < h)
    cx, cy = np.clip(tx, 0, w - 1), np.clip(ty, 0, h - 1)
    ok = inside & free[cy, cx] & ~((tx == ox[:, None]) & (ty == oy[:, None]))
    near = np.maximum(np.abs(tx - ox[:, None]), np.abs(ty - oy[:, None])) == 1
    diagonal = np.r_[(_DX != 0) & (_DY != 0), False][None, :]
    cut = wall[np.clip(y, 0, h - 1)[:, None], cx] | wall[cy, np.clip(x, 0, w - 1)[:, None]]
    ok &= near & ~(diagonal & cut)
    ok[:, _NONE] = True
    return (np.where(ok, tx, x[:, None]), np.where(ok, ty, y[:, None])), ok


def _direction(fx: np.ndarray, fy: np.ndarray, tx: np.ndarray, ty: np.ndarray) -> np.ndarray:
    """The direction from ``(fx, fy)`` to the adjacent ``(tx, ty)`` (0 where they are not
    adjacent: such options are never legal)."""
    return _DIRECTION_OF[(np.clip(ty - fy, -1, 1) + 1) * 3 + np.clip(tx - fx, -1, 1) + 1]


_CACHE: dict[tuple[object, ...], MeleeTable] = {}
_CACHE_SIZE = 16
MAX_CELLS = 1024
"""Boards larger than this many cells get no table (a 32 x 32 board's takes about 5 s to
solve, the duel's 9 x 9 0.2 s)."""


def table_for(terrain: np.ndarray, a_hits: np.ndarray, b_hits: np.ndarray, b_steps: bool):
    """:func:`solve`, kept for the next battle on the same board between the same strikes
    (the last :data:`_CACHE_SIZE` tables)."""
    key = (terrain.tobytes(), terrain.shape, a_hits.tobytes(), b_hits.tobytes(), b_steps)
    table = _CACHE.get(key)
    if table is None:
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)))
        table = _CACHE[key] = solve(terrain, a_hits, b_hits, b_steps)
    return table


def strike_values(s, a: int, b: int) -> np.ndarray:
    """:func:`hit_values` of creature ``a``'s attack against ``b`` in row 0 of ``s`` (a
    :class:`~facing_env.fast.state.State`), sneak attack dice from the rear (UA-SNK-01)."""
    dice = s.attack_damage[0, a, 0]
    mean = dice[0] * (dice[1] + 1) * 0.5 + dice[2]
    values = hit_values(float(s.attack_bonus[0, a, 0]), float(mean), float(s.ac[0, b]))
    sneak = s.sneak_attack[0, a]
    if sneak[0] > 0 and not s.immune_to_sneak_attack[0, b]:
        p = values[4] / mean if mean > 0 else 0.0
        values[4] += p * (sneak[0] * (sneak[1] + 1) * 0.5 + sneak[2])
    return values


def melee_turn(look, steppers: np.ndarray) -> int:
    """The acting creature's turn by the table, from the battle in row 0 of ``look`` (a
    :class:`~facing_env.agents.lookahead.Lookahead`): the row where it ends, or -1 when the
    table does not apply (module docstring: two creatures left, next to each other, one
    square and one melee attack of reach 1 each, a square grid under ``ua35`` with full
    perception), at the start of its turn or after its attack (then only the end facing is
    chosen: a roll that differs from the mean leaves the plan, not the position).
    ``steppers[k]``: creature ``k`` has been seen leaving a fight, so it may 5-foot-step.
    Of equal turns it takes the one better under the other model of the foe (stepping or
    not), then the one with fewer actions."""
    s = look.state
    pair = _duel(s)
    if pair is None:
        return -1
    a, b = pair
    ax, ay, bx, by = int(s.x[0, a]), int(s.y[0, a]), int(s.x[0, b]), int(s.y[0, b])
    fa, fb = int(s.facing[0, a]), int(s.facing[0, b])
    terrain = s.terrain[0, : s.height[0], : s.width[0]]
    if not np.isin(terrain[[ay, by], [ax, bx]], _STEPPABLE).all():
        return -1  # a table's squares are open ground
    a_hits, b_hits = strike_values(s, a, b), strike_values(s, b, a)
    steps = b < steppers.size and bool(steppers[b])
    model = table_for(terrain, a_hits, b_hits, steps)
    other = table_for(terrain, a_hits, b_hits, not steps)
    struck = s.turn_actions_taken[0] > 0
    if struck and (s.turn_attacks_made[0] == 0 or s.n_remaining[0] > 0):
        return -1  # a turn begun otherwise: the search's
    best, choice = None, (-1, -1)
    for k in (_NONE, *range(8)):
        qx, qy = (ax, ay) if k == _NONE else (ax + int(_DX[k]), ay + int(_DY[k]))
        if k != _NONE and (struck or not look.mask[0, FIVE_FOOT_BASE + k]):
            continue
        if max(abs(qx - bx), abs(qy - by)) != 1 or (qx, qy) == (bx, by):
            continue
        dealt = 0.0 if struck else a_hits[_AREA_BONUS[(_direction(bx, by, qx, qy) - fb) % 8]]
        toward = int(_direction(qx, qy, bx, by))
        facing = fa if struck or _FRONT[(toward - fa) % 8] else toward
        for fe in range(8):
            state = model.index((qx, qy), fe, (bx, by), fb)
            key = (
                round(float(dealt + model.replying[state]), 6),
                round(float(other.replying[state]), 6),
                -(k != _NONE) - (facing != fa) - (fe != facing),
            )
            if best is None or key > best:
                best, choice = key, (k, fe)
    if best is None:
        return -1
    return _play(look, a, bx, by, *choice, attack=not struck)


def _duel(s) -> tuple[int, int] | None:
    """``(acting creature, its foe)`` in row 0 when the table applies, else None."""
    alive = [k for k in range(s.n_creatures[0]) if s.present[0, k] and s.hp[0, k] > 0]
    a = int(s.actor[0])
    if len(alive) != _PAIR or a not in alive or s.kind[0] != 0 or s.ruleset[0] != 0:
        return None
    b = alive[0] if alive[1] == a else alive[1]
    if s.team[0, a] == s.team[0, b] or s.perception[0] != 0:
        return None
    if s.width[0] * s.height[0] > MAX_CELLS or s.n_remaining[0] > 1:
        return None
    for k in (a, b):
        single = SHAPES[int(s.shape[0, k])].is_single
        if not single or s.n_attacks[0, k] != 1 or s.attack_ranged[0, k, 0]:
            return None
        if s.attack_reach[0, k, 0] != FEET_PER_SQUARE or s.reach[0, k] != FEET_PER_SQUARE:
            return None
        if s.attack_zones[0, k, 0] != 0:
            return None
    if max(abs(int(s.x[0, a] - s.x[0, b])), abs(int(s.y[0, a] - s.y[0, b]))) != 1:
        return None
    return a, b


def _play(look, a: int, bx: int, by: int, k: int, fe: int, attack: bool = True) -> int:
    """Play the turn: the 5-foot step ``k`` (or none), a turn toward ``B`` if it is not in
    front, the attack (unless made already), a turn to ``fe``, the end; the last row (-1 if
    an action is not legal)."""
    s = look.state
    row = 0 if k == _NONE else _act(look, 0, FIVE_FOOT_BASE + k)
    if row >= 0 and attack:
        toward = int(_direction(int(s.x[row, a]), int(s.y[row, a]), bx, by))
        if not _FRONT[(toward - int(s.facing[row, a])) % 8]:
            row = _act(look, row, TURN_BASE + toward)
        slots = (look.n_actions - ATTACK_BASE) // 3  # ATTACK, CHARGE, WITHDRAW per slot
        attacks = np.flatnonzero(look.mask[row, ATTACK_BASE : ATTACK_BASE + slots])
        row = _act(look, row, ATTACK_BASE + int(attacks[0])) if attacks.size == 1 else -1
    if row >= 0 and s.actor[row] == a and int(s.facing[row, a]) != fe:
        row = _act(look, row, TURN_BASE + fe)
    if row >= 0 and s.actor[row] == a:
        row = _act(look, row, END_TURN_INDEX)
    return row


def _act(look, row: int, action: int) -> int:
    """The row after ``action`` from ``row``; -1 if ``row`` is -1, the action is not legal
    there or no row is free."""
    if row < 0 or not look.mask[row, action]:
        return -1
    nxt = look.expand(np.array([row]), np.array([action]))
    return int(nxt[0]) if nxt.size else -1
