"""Charge and withdraw: where a charge may end and the line it follows, and which squares a
withdrawal may enter.

EP-CHG-01, EP-CHG-02, EP-WDR-01. Interpretation choices (``docs/rules.md``):

- the distance of a charge is ``movement_allowance(..., "charge")``: the mover's speed, as
  EP-CHG-01 states (the SRD's charge moves up to twice the speed);
- when several spaces tie as the closest from which the charger can attack, the engine
  takes the first of :func:`charge_destinations` (the straightest line, then the nearest to
  the target, then north to south, west to east);
- the line a charge follows is :func:`charge_path`: the charger's anchor stepped square by
  square along the straight line between the centres, every position of it free.
"""

from __future__ import annotations

import math
from typing import Sequence

from facing_env import geometry
from facing_env.battle import Battle, Creature
from facing_env.rules.movement import _hex_line, _lane_clear, _space_free, movement_allowance
from facing_env.rules.opportunity import melee_reach, threatened_cells
from facing_env.tables import FEET_PER_SQUARE, MIN_CHARGE_SQUARES
from facing_env.types import GridKind, Pos


def _attack_positions(battle: Battle, m: Creature, t: Creature) -> list[Pos]:
    """Every on-board anchor from which ``m``'s melee reach covers a square of ``t`` without
    sharing one (the spaces EP-CHG-01 measures "closest" among)."""
    reach = melee_reach(m) // FEET_PER_SQUARE
    t_cells = battle.cells_of(t)
    offsets = m.shape.offsets
    xs = [c[0] for c in t_cells]
    ys = [c[1] for c in t_cells]
    ox = [o[0] for o in offsets]
    oy = [o[1] for o in offsets]
    out = []
    for y in range(min(ys) - max(oy) - reach, max(ys) - min(oy) + reach + 1):
        for x in range(min(xs) - max(ox) - reach, max(xs) - min(ox) + reach + 1):
            p = (x, y)
            if not battle.in_bounds(p):
                continue
            if 0 < battle.cells_distance(m.shape.cells(p), t_cells) <= reach:
                out.append(p)
    return out


def charge_allowed(
    battle: Battle, mover: str | Creature, target: str | Creature, destination: Sequence[int]
) -> bool:
    """Whether a charge from the mover's space to ``destination`` against ``target`` is
    legal (EP-CHG-01): at least 2 squares and at most its speed; the destination is the
    closest space from which it can attack; the straight line between the centres crosses
    no blocking, difficult or impeded terrain and no creature (even an ally)."""
    m, t = battle.creature(mover), battle.creature(target)
    dest = (int(destination[0]), int(destination[1]))
    return dest in _charge_ends(battle, m, t)


def charge_destinations(battle: Battle, mover: str | Creature, target: str | Creature) -> list[Pos]:
    """Every space a charge against ``target`` may end in (EP-CHG-01), best first (see the
    module docstring), with every position of :func:`charge_path` free; empty when the
    mover cannot charge that creature from where it is. A quick bound on the distance
    between the two spaces comes first."""
    m, t = battle.creature(mover), battle.creature(target)
    dests = [
        p
        for p in _charge_ends(battle, m, t)
        if all(_space_free(battle, m, q) for q in charge_path(battle, m, p))
    ]
    return sorted(dests, key=lambda p: _preference(battle, m, t, p))


def _charge_ends(battle: Battle, m: Creature, t: Creature) -> list[Pos]:
    """The spaces :func:`charge_allowed` accepts, in scan order."""
    if m is t or t.hp <= 0 or m.hp <= 0:
        return []
    reach = melee_reach(m) // FEET_PER_SQUARE
    allowance = movement_allowance(battle, m, "charge")
    if reach <= 0 or allowance < MIN_CHARGE_SQUARES:
        return []
    gap = battle.cells_distance(battle.cells_of(m), battle.cells_of(t))
    if gap <= reach + 1 - _diagonal_slack(battle) or gap > 2 * (allowance + reach + 1):
        return []
    found = _attack_positions(battle, m, t)
    if not found:
        return []
    closest = min(battle.distance(m.pos, p) for p in found)
    if closest < MIN_CHARGE_SQUARES or closest > allowance:
        return []
    return [
        p
        for p in found
        if battle.distance(m.pos, p) == closest
        and _space_free(battle, m, p)
        and _lane_clear(battle, m, p)
    ]


def _diagonal_slack(battle: Battle) -> int:
    """Under the alternating diagonal rule a space two squares away may lie one square
    nearer by cells (a second diagonal costs 2), so the quick bound is one looser."""
    return 1 if battle.kind is GridKind.SQUARE and battle.diagonal_rule == "alternating" else 0


def _preference(battle: Battle, m: Creature, t: Creature, p: Pos) -> tuple[float, float, int, int]:
    """Sort key of a destination: straightest (the angle between the charge and the line to
    the target's centre), then nearest the target's centre, then north to south, west to east."""
    ax, ay = m.shape.centre_at(m.pos)
    bx, by = m.shape.centre_at(p)
    tx, ty = t.shape.centre_at(t.pos)
    bend = geometry.vector_angle(bx - ax, by - ay) - geometry.vector_angle(tx - ax, ty - ay)
    turn = abs(geometry._norm180(bend))
    return (round(turn, 6), round(math.hypot(tx - bx, ty - by), 6), p[1], p[0])


def charge_path(battle: Battle, mover: str | Creature, destination: Sequence[int]) -> list[Pos]:
    """The anchor positions a charge passes through after its start, ending at
    ``destination``: one square at a time along the straight line between the two
    positions (square grid: rounded half away from the start; hex: the hex line)."""
    m = battle.creature(mover)
    dest = (int(destination[0]), int(destination[1]))
    if battle.kind is GridKind.HEX:
        return _hex_line(m.pos, dest)[1:]
    (x0, y0), (x1, y1) = m.pos, dest
    n = max(abs(x1 - x0), abs(y1 - y0))
    return [
        (x0 + _round_half(x1 - x0, i, n), y0 + _round_half(y1 - y0, i, n)) for i in range(1, n + 1)
    ]


def _round_half(delta: int, i: int, n: int) -> int:
    """``round(delta * i / n)`` in integers, halves rounded toward the start."""
    num = abs(delta) * i
    q, r = divmod(num, n)
    step = q + (1 if 2 * r > n else 0)
    return step if delta >= 0 else -step


def withdraw_step_allowed(
    battle: Battle, mover: str | Creature, primary_target: str | Creature, destination: Pos
) -> bool:
    """EP-WDR-01: every square of a withdrawal must take the mover further from its primary
    target than the space it leaves (measured between the two spaces, in squares)."""
    m, t = battle.creature(mover), battle.creature(primary_target)
    t_cells = battle.cells_of(t)
    before = battle.cells_distance(battle.cells_of(m), t_cells)
    after = battle.cells_distance(m.shape.cells(destination), t_cells)
    return after > before


def may_withdraw_from(
    battle: Battle, mover: str | Creature, primary_target: str | Creature
) -> bool:
    """EP-WDR-01: the primary target is a living enemy that threatens the mover (one it
    can perceive: nobody here is blinded, and facing does not hide a creature)."""
    m, t = battle.creature(mover), battle.creature(primary_target)
    if t.hp <= 0 or t.team == m.team or t is m:
        return False
    zone = threatened_cells(battle, t)
    return any(cell in zone for cell in battle.cells_of(m))
