"""Shared pieces of the scripted agents: action indices, areas by the angle rule, turning,
movement budgets. Everything is computed from an :class:`ObservationView`. The reference
of the kernels' ``agents/kernels/geometry.py`` and ``agents/kernels/tactics.py``."""

from __future__ import annotations

from facing_env.actions import (
    ATTACK_BASE,
    END_TURN_INDEX,
    FIVE_FOOT_BASE,
    MOVE_BASE,
    N_DIRECTIONS,
    READY_INDEX,
    TURN_BASE,
)
from facing_env.agents.kernels.tactics import ASSUMED_SPEED
from facing_env.agents.view import ObservationView
from facing_env.tables import RULESETS
from facing_env.types import GridKind, Pos, Ruleset

READY = READY_INDEX
"""Index of ``READY``."""
_UA = RULESETS[Ruleset.UA35]
AREA_RANK = {"none": 0, "front": 0, "flank": 1, "rear": 2}


def attack(slot: int) -> int:
    """Index of ``ATTACK(slot)``."""
    return ATTACK_BASE + slot


def charge(view: ObservationView, slot: int) -> int:
    """Index of ``CHARGE(slot)``."""
    return ATTACK_BASE + view.layout.n_slots + slot


def withdraw(view: ObservationView, slot: int) -> int:
    """Index of ``WITHDRAW(slot)``."""
    return ATTACK_BASE + 2 * view.layout.n_slots + slot


def move(direction: int) -> int:
    """Index of ``MOVE(direction)``."""
    return MOVE_BASE + direction


def five_foot_step(direction: int) -> int:
    """Index of ``FIVE_FOOT_STEP(direction)``."""
    return FIVE_FOOT_BASE + direction


def angle_gap(a: float, b: float) -> float:
    """Absolute difference of two angles in degrees, in [0, 180]."""
    return abs((a - b + 180.0) % 360.0 - 180.0)


def area_by_angle(grid: GridKind, diff: float, strict_rear: bool = False) -> str:
    """Area of a cell ``diff`` degrees off a facing (IC-01, IC-05, IC-11: front up to
    45/60 degrees, rear from 135/150, beyond 135 only when ``strict_rear``, flank between)."""
    if diff <= _UA.front_max[grid] + 1e-6:
        return "front"
    rear = _UA.rear_min[grid]
    if (diff > rear + 1e-6) if strict_rear else (diff >= rear - 1e-6):
        return "rear"
    return "flank"


def area(view: ObservationView, facing: float | None, of: list[Pos], other: list[Pos]) -> str:
    """Where ``other`` stands relative to a creature on cells ``of`` facing ``facing``:
    its most favourable cell counts (IC-04); ``none`` without facing."""
    if facing is None:
        return "none"
    best = "none"
    for cell in other:
        if cell in of:
            continue
        diff = angle_gap(view.angle_between(of, [cell]), facing)
        found = area_by_angle(view.grid, diff, view.strict_rear)
        if best == "none" or AREA_RANK[found] > AREA_RANK[best]:
            best = found
    return best


def area_from(view: ObservationView, slot: int, cells: list[Pos]) -> str:
    """Area of creature ``slot`` in which cells ``cells`` lie (its front, flank or rear)."""
    return area(view, view.facing_angle(slot), view.cells_of(slot), cells)


def turn_toward(view: ObservationView, angle: float) -> int | None:
    """The legal TURN closest to ``angle`` if it points there better than now, else None."""
    own = view.facing_angle(0)
    if own is None:
        return None
    best, best_gap = None, angle_gap(own, angle) - 1e-6
    for s, a in enumerate(view.turn_angles[:N_DIRECTIONS]):
        if view.legal(TURN_BASE + s) and angle_gap(a, angle) < best_gap:
            best, best_gap = TURN_BASE + s, angle_gap(a, angle)
    return best


def face(view: ObservationView, slot: int) -> int | None:
    """A TURN that puts creature ``slot`` in the observer's front, if needed and legal."""
    if view.value(slot, "in_my_front") > 0.5 or view.facing_angle(0) is None:
        return None
    return turn_toward(view, view.angle_between(view.self_cells, view.cells_of(slot)))


def danger(view: ObservationView, facing: float, cells: list[Pos]) -> float:
    """How exposed the observer on ``cells`` facing ``facing`` is: enemies near it in its
    flank (+2 to hit it) or rear (+4, sneak attack), weighted by how soon they can strike."""
    total = 0.0
    for e in view.enemies:
        d = view.gap(cells, view.cells_of(e))
        weight = 2.0 if d <= 1 else (1.0 if d <= ASSUMED_SPEED + 1 else 0.0)
        if weight:
            found = area(view, facing, cells, view.cells_of(e))
            total += weight * {"flank": 2.0, "rear": 4.0}.get(found, 0.0)
    return total


def guard(view: ObservationView) -> int | None:
    """A TURN that lowers :func:`danger` at the current position, if one is legal."""
    own = view.facing_angle(0)
    if own is None:
        return None
    best, best_score = None, danger(view, own, view.self_cells) - 1e-6
    for s, a in enumerate(view.turn_angles[:N_DIRECTIONS]):
        if view.legal(TURN_BASE + s):
            score = danger(view, a, view.self_cells)
            if score < best_score:
                best, best_score = TURN_BASE + s, score
    return best


def move_budget(view: ObservationView) -> float:
    """Squares the observer can still walk and attack afterwards (0 if no attack would be
    left)."""
    if view.scalar("standard_available") < 0.5 or view.scalar("attacks_made") > 0:
        return 0.0
    if view.scalar("running") > 0.5:
        return 0.0
    if view.scalar("moving") > 0.5:  # the move action is spent; the standard is spare
        return max(0.0, (4.0 * view.scalar("movement_left") - 1.0) * view.speed)
    fresh = view.scalar("five_foot_step_available") > 0.5 and view.scalar("move_available") > 0.5
    return float(view.speed) if fresh else 0.0


def total_budget(view: ObservationView) -> float:
    """Squares the observer can still walk this turn (attacks forgone)."""
    return 4.0 * view.scalar("movement_left") * view.speed


def legal_or_end(view: ObservationView, index: int | None) -> int:
    """``index`` if the mask allows it, else END_TURN."""
    return index if index is not None and view.legal(index) else END_TURN_INDEX
