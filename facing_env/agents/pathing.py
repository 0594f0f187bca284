"""Shortest routes over the observation window (Dijkstra over the observer's anchor).

A route's ``cost`` counts squares of movement with ``MOVE`` (turning first, so every step
is a front step: UA-MOVE-01, UA-MOVE-03); diagonals count 1.5 (the alternating 3.5 rule on
average), difficult terrain double, impeded terrain is avoided. ``provoked`` estimates the
attacks of opportunity the walk draws: leaving a square an enemy threatens provokes
(SRD-AOO-02, IC-12), and 5-foot steps never do (SRD-AOO-04). The first step is taken only in
directions whose ``MOVE`` the mask allows.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np

from facing_env.actions import MOVE_BASE
from facing_env.agents.view import ObservationView
from facing_env.types import GridKind, Pos

DIAGONAL_COST = 1.5


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


def _terrain(view: ObservationView) -> tuple[frozenset[Pos], frozenset[Pos], frozenset[Pos]]:
    """(cells that can't be stood on, blocked cells, difficult cells), read once per view."""
    cached = view.__dict__.get("_path_terrain")
    if cached is None:
        cached = (
            _cells(view, "blocked", "impeded", "ally", "enemy"),
            _cells(view, "blocked"),
            _cells(view, "difficult"),
        )
        view.__dict__["_path_terrain"] = cached
    return cached


def free(view: ObservationView, anchor: Pos) -> bool:
    """Whether the observer could stand at ``anchor``: in the window, not blocked, impeded
    or occupied by another creature."""
    taken = _terrain(view)[0]
    return all(view.inside(c) and c not in taken for c in footprint(view, anchor))


def provocations(view: ObservationView, anchor: Pos) -> float:
    """Enemies with an attack of opportunity left that threaten the observer at ``anchor``
    (walking out of there provokes each of them)."""
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


def _step_cost(view: ObservationView, anchor: Pos, vec: Pos, first: bool) -> float | None:
    nxt = (anchor[0] + vec[0], anchor[1] + vec[1])
    if not first and not free(view, nxt):
        return None
    _, blocked, difficult = _terrain(view)
    diagonal = view.grid is GridKind.SQUARE and vec[0] != 0 and vec[1] != 0
    if diagonal and not first:
        sides = ((anchor[0] + vec[0], anchor[1]), (anchor[0], anchor[1] + vec[1]))
        for side in sides:  # conservative: never plan to cut a corner (outside = blocked)
            if any(c in blocked or not view.inside(c) for c in footprint(view, side)):
                return None
    cost = DIAGONAL_COST if diagonal else 1.0
    if any(c in difficult for c in footprint(view, nxt)):
        cost *= 2.0
    return cost


def routes(view: ObservationView, *, max_cost: float, aoo_weight: float = 10.0) -> dict[Pos, Route]:
    """Cheapest route (squares + ``aoo_weight`` per provocation) to every anchor in the
    window reachable within ``max_cost`` squares; the start is included with cost 0."""
    start: Pos = (0, 0)
    best: dict[Pos, Route] = {start: Route(0.0, 0.0, -1)}
    heap: list[tuple[float, float, Pos]] = [(0.0, 0.0, start)]
    leave: dict[Pos, float] = {}
    while heap:
        key, _, here = heapq.heappop(heap)
        route = best[here]
        if key > _key(route, aoo_weight) + 1e-9:
            continue
        if here not in leave:
            leave[here] = provocations(view, here)
        for d, vec in enumerate(view.directions):
            first = here == start
            if first and not view.legal(MOVE_BASE + d):
                continue
            step = _step_cost(view, here, vec, first)
            if step is None or route.cost + step > max_cost + 1e-9:
                continue
            nxt = (here[0] + vec[0], here[1] + vec[1])
            new = Route(
                route.cost + step, route.provoked + leave[here], d if first else route.first
            )
            old = best.get(nxt)
            if old is None or _key(new, aoo_weight) < _key(old, aoo_weight) - 1e-9:
                best[nxt] = new
                heapq.heappush(heap, (_key(new, aoo_weight), new.cost, nxt))
    return best


def _key(route: Route, aoo_weight: float) -> float:
    return route.cost + aoo_weight * route.provoked
