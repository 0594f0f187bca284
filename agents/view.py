"""Named access to a flat observation vector, for agents that see nothing else.

The layout is inferred from the two lengths an agent gets: ``K = (len(mask) - 35) / 3``
creature slots, a ``W x W x 18`` window, a ``K x 33`` table, 13 scalars and the tactics
part (``K x 4`` and 2 values).
Positions are integer offsets ``(dx, dy)`` from the observer's anchor (y grows south; on
hex grids axial ``(dq, dr)``); window cell ``(dx, dy)`` is ``window[half + dy, half + dx]``.
"""

from __future__ import annotations

import math
from functools import cached_property
from typing import Any

import numpy as np

from facing_env.actions import (
    ATTACK_BASE,
    FIVE_FOOT_BASE,
    MOVE_BASE,
    N_DIRECTIONS,
    SLOT_KINDS,
    STEP_BASE,
    TURN_BASE,
)
from facing_env.observation import (
    CHANNELS,
    FEATURES,
    SCALARS,
    TACTIC_SCALARS,
    TACTICS,
    ObservationLayout,
)
from facing_env.rules import geometry
from facing_env.types import GridKind, Pos, Size

ON = 0.5
"""A 0/1 feature of the observation is set when above this."""
ORTHOGONAL_FACINGS = 4
"""Facings of a multi-square ``side_rear`` creature on a square grid (the orthogonals)."""

_CH = {name: i for i, name in enumerate(CHANNELS)}
_COL = {name: i for i, name in enumerate(FEATURES)}
_SC = {name: i for i, name in enumerate(SCALARS)}
_TAC = {name: i for i, name in enumerate(TACTICS)}
_TSC = {name: i for i, name in enumerate(TACTIC_SCALARS)}
_SQUARE_ONLY = [base + d for base in (MOVE_BASE, STEP_BASE, FIVE_FOOT_BASE) for d in (6, 7)]
_SQUARE_ONLY += [TURN_BASE + 6, TURN_BASE + 7]


def layout_of(n_observation: int, n_actions: int) -> ObservationLayout:
    """The :class:`ObservationLayout` behind vectors of these lengths (ValueError if none)."""
    n_slots, extra = divmod(n_actions - ATTACK_BASE, len(SLOT_KINDS))
    tactics = n_slots * len(TACTICS) + len(TACTIC_SCALARS)
    window_size = n_observation - n_slots * len(FEATURES) - len(SCALARS) - tactics
    side = math.isqrt(max(window_size, 0) // len(CHANNELS))
    if extra or n_slots < 1 or side * side * len(CHANNELS) != window_size or side % 2 == 0:
        raise ValueError(
            f"no observation layout has {n_observation} values and {n_actions} actions"
        )
    return ObservationLayout(side, n_slots)


class ObservationView:
    """One observation and its mask, split into named parts (read-only)."""

    def __init__(self, observation: np.ndarray, action_mask: np.ndarray) -> None:
        obs = np.asarray(observation, dtype=np.float32).reshape(-1)
        self.mask = np.asarray(action_mask).reshape(-1).astype(bool)
        self.layout = layout_of(obs.size, self.mask.size)
        self.window, self.table, self.scalars = self.layout.split(obs)
        self.tactics, self.tactic_scalars = self.layout.split_tactics(obs)
        self.size = self.layout.window
        self.half = self.size // 2
        self.memo: dict[str, Any] = {}
        """What helpers reading this view remember about it (the reference pathing of
        ``tests/reference/pathing.py``: free anchors, provocations, routes), by helper; it
        lives and dies with the view."""

    # -- raw parts --------------------------------------------------------------------------

    def channel(self, name: str) -> np.ndarray:
        """A ``W x W`` window channel by name (see ``observation.CHANNELS``)."""
        return self.window[:, :, _CH[name]]

    def column(self, name: str) -> np.ndarray:
        """A table column over all K slots by name (see ``observation.FEATURES``)."""
        return self.table[:, _COL[name]]

    def value(self, slot: int, name: str) -> float:
        """One table entry."""
        return float(self.table[slot, _COL[name]])

    def scalar(self, name: str) -> float:
        """One turn scalar by name (see ``observation.SCALARS``)."""
        return float(self.scalars[_SC[name]])

    def tactic(self, slot: int, name: str) -> float:
        """One tactics entry by name (see ``observation.TACTICS``)."""
        return float(self.tactics[slot, _TAC[name]])

    def tactic_scalar(self, name: str) -> float:
        """One tactic scalar by name (see ``observation.TACTIC_SCALARS``)."""
        return float(self.tactic_scalars[_TSC[name]])

    def legal(self, index: int) -> bool:
        """Whether the mask allows an action index."""
        return 0 <= index < self.mask.size and bool(self.mask[index])

    # -- creatures --------------------------------------------------------------------------

    def slots(self, role: str) -> list[int]:
        """Living slots with a role: ``enemy``, ``ally`` or ``is_self``."""
        present = self.column("present") > ON
        return [int(i) for i in np.flatnonzero(present & (self.column(role) > ON))]

    @cached_property
    def enemies(self) -> list[int]:
        """Slots of living enemies (a view is read-only, so this is computed once)."""
        return self.slots("enemy")

    @cached_property
    def allies(self) -> list[int]:
        """Slots of living allies (not the observer)."""
        return self.slots("ally")

    def offset(self, slot: int) -> Pos:
        """Anchor of a creature relative to the observer's anchor, in cells."""
        return (
            round(self.value(slot, "dx") * self.size),
            round(self.value(slot, "dy") * self.size),
        )

    def distance(self, slot: int) -> int:
        """Cells between the observer's space and the creature's (the table's distance)."""
        return round(self.value(slot, "distance") * self.size)

    def size_of(self, slot: int) -> Size:
        """Size category of a creature."""
        return Size(round(self.value(slot, "size") * 8))

    def facing_angle(self, slot: int) -> float | None:
        """Facing of a creature in degrees (counter-clockwise from east), None if faceless."""
        if self.value(slot, "has_facing") < ON:
            return None
        return math.degrees(math.atan2(self.value(slot, "facing_y"), self.value(slot, "facing_x")))

    def shape_of(self, slot: int) -> geometry.Shape:
        """The default footprint of a creature's size on this grid."""
        return geometry.default_shape(self.grid, self.size_of(slot))

    def cells_of(self, slot: int) -> list[Pos]:
        """Cells of a creature (relative offsets); the observer's are read off the window.
        Callers must not modify the list (it is cached per view)."""
        if slot == 0:
            return self.self_cells
        cache = self._cells_cache
        cells = cache.get(slot)
        if cells is None:
            x, y = self.offset(slot)
            cells = cache[slot] = [(x + dx, y + dy) for dx, dy in self.shape_of(slot).offsets]
        return cells

    @cached_property
    def _cells_cache(self) -> dict[int, list[Pos]]:
        return {}

    @cached_property
    def self_cells(self) -> list[Pos]:
        """Offsets of the observer's own cells (from the ``self`` channel)."""
        rows, cols = np.nonzero(self.channel("self") > ON)
        cells = [(int(c) - self.half, int(r) - self.half) for r, c in zip(rows, cols, strict=True)]
        return cells or [(0, 0)]

    # -- window cells -----------------------------------------------------------------------

    def inside(self, cell: Pos) -> bool:
        """Whether a relative cell lies in the window."""
        return abs(cell[0]) <= self.half and abs(cell[1]) <= self.half

    def at(self, name: str, cell: Pos) -> float:
        """A channel's value at a relative cell (outside the window: blocked, else 0)."""
        if not self.inside(cell):
            return 1.0 if name == "blocked" else 0.0
        return float(self.window[self.half + cell[1], self.half + cell[0], _CH[name]])

    # -- grid geometry ----------------------------------------------------------------------

    @cached_property
    def grid(self) -> GridKind:
        """Square or hex (the ``hex_grid`` scalar)."""
        return GridKind.HEX if self.scalar("hex_grid") > ON else GridKind.SQUARE

    @property
    def directions(self) -> tuple[Pos, ...]:
        """Movement direction vectors by index."""
        return geometry.direction_vectors(self.grid)

    def centre(self, cells: list[Pos]) -> tuple[float, float]:
        """Cartesian centre (y south) of a set of relative cells."""
        pts = [geometry.cell_centre(self.grid, c) for c in cells]
        return (sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts))

    def angle_between(self, a: list[Pos], b: list[Pos]) -> float:
        """Direction in degrees (counter-clockwise from east) from cells ``a`` to ``b``."""
        (ax, ay), (bx, by) = self.centre(a), self.centre(b)
        return geometry.vector_angle(bx - ax, by - ay)

    def cell_distance(self, a: Pos, b: Pos) -> int:
        """Cells between two relative cells on this grid."""
        return geometry.cell_distance(self.grid, a, b, "alternating")

    def gap(self, a: list[Pos], b: list[Pos]) -> int:
        """Smallest distance between two sets of cells."""
        return min(self.cell_distance(p, q) for p in a for q in b)

    @cached_property
    def turn_angles(self) -> tuple[float, ...]:
        """Angle of each TURN slot's facing (8 square facings, 4 orthogonal ones for
        multi-square ``side_rear`` creatures, 6 hex facings at neighbours or corners)."""
        turns = int(self.mask[TURN_BASE : TURN_BASE + N_DIRECTIONS].sum())
        if self.grid is GridKind.SQUARE:
            step = 90.0 if turns + 1 == ORTHOGONAL_FACINGS else 45.0
            return tuple(90.0 - step * s for s in range(int(360 / step)))
        own = self.facing_angle(0) or 0.0
        offset = 30.0 if round(own / 30.0) % 2 else 0.0
        return tuple(offset + 60.0 * s for s in range(6))

    @cached_property
    def strict_rear(self) -> bool:
        """Whether only cells more than 135 degrees off a square facing are rear (the
        ``side_rear`` rule set, IC-11; the ``side_rear_rules`` scalar)."""
        return self.grid is GridKind.SQUARE and self.scalar("side_rear_rules") > ON

    @cached_property
    def reach(self) -> int:
        """The observer's melee reach in cells (the ``reach`` column); at least 1."""
        return self.reach_of(0)

    def reach_of(self, slot: int) -> int:
        """A creature's longest melee reach in cells (the ``reach`` column); at least 1."""
        return max(1, round(self.value(slot, "reach") * 5))

    @cached_property
    def speed(self) -> int:
        """The observer's squares per move action (the ``speed`` column)."""
        return max(1, round(self.value(0, "speed") * 12))
