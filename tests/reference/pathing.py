"""Shortest routes over the observation window (Dijkstra over the observer's anchor): the
reference of the kernels' route search (``agents/kernels/paths.py``).

A route's ``cost`` counts squares of movement with ``MOVE`` (turning first, so every step
is a front step: UA-MOVE-01, UA-MOVE-03); diagonals count ``DIAGONAL_COST``, 1.5 (the
alternating 3.5 rule on average), difficult terrain double, impeded terrain is avoided.
``provoked`` estimates the attacks of opportunity the walk draws: leaving a square an enemy
threatens provokes (SRD-AOO-02, IC-12), and 5-foot steps never do (SRD-AOO-04). The first
step is taken only in directions whose ``MOVE`` the mask allows.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np

from facing_env.actions import MOVE_BASE
from facing_env.agents.kernels.paths import DIAGONAL_COST
from facing_env.agents.view import ObservationView
from facing_env.types import GridKind, Pos


@dataclass(frozen=True)
class Route:
    """How to reach an anchor: squares spent, attacks of opportunity drawn, first step."""

    cost: float
    provoked: float
    first: int  # direction index of the first step, -1 for the start itself


def footprint(view: ObservationView, anchor: Pos) -> list[Pos]:
    """The observer's cells if its anchor stood at ``anchor``."""
    return [(anchor[0] + x, anchor[1] + y) for x, y in view.self_cells]


def _cells(view: ObservationView, *names: str) -> frozenset[Pos]:
    """Relative window cells where any of the channels is set."""
    h = view.half
    hit = np.zeros(view.window.shape[:2], dtype=bool)
    for name in names:
        hit |= view.channel(name) > 0.5
    return frozenset((int(x) - h, int(y) - h) for y, x in zip(*np.nonzero(hit), strict=True))


@dataclass(frozen=True)
class _Anchors:
    """Where the observer's footprint fits, read once per view (a view is read-only).

    ``free``: anchors whose whole footprint is in the window and not blocked, impeded or
    occupied; ``clear``: anchors whose footprint is in the window and not blocked (the
    corner rule of diagonal steps); ``difficult``: anchors whose footprint touches
    difficult terrain."""

    free: frozenset[Pos]
    clear: frozenset[Pos]
    difficult: frozenset[Pos]


def _anchors(view: ObservationView) -> _Anchors:
    cached = view.memo.get("path_anchors")
    if cached is not None:
        return cached
    taken = _cells(view, "blocked", "impeded", "ally", "enemy")
    blocked = _cells(view, "blocked")
    difficult = _cells(view, "difficult")
    offsets = view.self_cells
    h = view.half
    xs = [x for x, _ in offsets]
    ys = [y for _, y in offsets]
    free: set[Pos] = set()
    clear: set[Pos] = set()
    for ax in range(-h - min(xs), h - max(xs) + 1):  # anchors whose footprint is inside
        for ay in range(-h - min(ys), h - max(ys) + 1):
            cells = [(ax + x, ay + y) for x, y in offsets]
            if not any(c in blocked for c in cells):
                clear.add((ax, ay))
                if not any(c in taken for c in cells):
                    free.add((ax, ay))
    rough = {(cx - x, cy - y) for cx, cy in difficult for x, y in offsets}
    cached = _Anchors(frozenset(free), frozenset(clear), frozenset(rough))
    view.memo["path_anchors"] = cached
    return cached


def free(view: ObservationView, anchor: Pos) -> bool:
    """Whether the observer could stand at ``anchor``: in the window, not blocked, impeded
    or occupied by another creature."""
    return anchor in _anchors(view).free


def provocations(view: ObservationView, anchor: Pos) -> float:
    """Enemies with an attack of opportunity left that threaten the observer at ``anchor``
    (walking out of there provokes each of them)."""
    memo = view.memo.setdefault("path_provocations", {})
    count = memo.get(anchor)
    if count is None:
        count = memo[anchor] = _provocations(view, anchor)
    return count


def _provocations(view: ObservationView, anchor: Pos) -> float:
    cells = footprint(view, anchor)
    if not any(view.at("threatened_by_enemies", c) > 0 for c in cells):
        return 0.0
    count = 0.0
    for e in view.enemies:
        reach = view.reach_of(e)
        if view.value(e, "attacks_of_opportunity_left") > 0.5 and (
            view.gap(cells, view.cells_of(e)) <= reach
        ):
            count += 1.0
    return count


def routes(view: ObservationView, *, max_cost: float, aoo_weight: float = 10.0) -> dict[Pos, Route]:
    """Cheapest route (squares + ``aoo_weight`` per provocation) to every anchor in the
    window reachable within ``max_cost`` squares; the start is included with cost 0.
    Memoised per view: callers must not modify the answer."""
    memo = view.memo.setdefault("path_routes", {})
    key = (max_cost, aoo_weight)
    if key not in memo:
        memo[key] = _routes(view, max_cost, aoo_weight)
    return memo[key]


def _routes(view: ObservationView, max_cost: float, aoo_weight: float) -> dict[Pos, Route]:
    # (cost, provoked, first) tuples while searching; Route records only in the answer
    start: Pos = (0, 0)
    best: dict[Pos, tuple[float, float, int]] = {start: (0.0, 0.0, -1)}
    heap: list[tuple[float, float, Pos]] = [(0.0, 0.0, start)]
    anchors = _anchors(view)
    free_, clear, rough = anchors.free, anchors.clear, anchors.difficult
    square = view.grid is GridKind.SQUARE
    moves = [
        (d, vx, vy, diagonal, DIAGONAL_COST if diagonal else 1.0)
        for d, (vx, vy) in enumerate(view.directions)
        for diagonal in (square and vx != 0 and vy != 0,)
    ]
    limit = max_cost + 1e-9
    pop, push = heapq.heappop, heapq.heappush
    while heap:
        key, _, here = pop(heap)
        cost, provoked, first_dir = best[here]
        if key > cost + aoo_weight * provoked + 1e-9:
            continue
        leave = provoked + provocations(view, here)
        first = here == start
        hx, hy = here
        for d, vx, vy, diagonal, base in moves:
            nxt = (hx + vx, hy + vy)
            if first:  # the first step: whatever the mask allows
                if not view.legal(MOVE_BASE + d):
                    continue
            elif nxt not in free_ or (  # never plan to cut a corner (outside = blocked)
                diagonal and ((hx + vx, hy) not in clear or (hx, hy + vy) not in clear)
            ):
                continue
            step = base * 2.0 if nxt in rough else base
            new_cost = cost + step
            if new_cost > limit:
                continue
            new_key = new_cost + aoo_weight * leave
            old = best.get(nxt)
            if old is None or new_key < old[0] + aoo_weight * old[1] - 1e-9:
                best[nxt] = (new_cost, leave, d if first else first_dir)
                push(heap, (new_key, new_cost, nxt))
    return {anchor: Route(*entry) for anchor, entry in best.items()}
