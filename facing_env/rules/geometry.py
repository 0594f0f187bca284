"""Square and hex grids: directions, footprints, rings, distances and area tables.

Area geometry follows the angle rule: a cell's area is decided by the angle between the
creature's facing and the vector from the centre of the creature's space to the centre of
the cell (IC-01 for ``ua35`` squares, IC-05 for hexes, IC-11 for ``side_rear``). The same
rule decides cells *beyond* an area (IC-03). Tables per (grid, ruleset, shape, facing) are
built once and cached, like python-chess's attack tables.

Square facings are indexed clockwise from north: ``N NE E SE S SW W NW`` (0..7).
Hex facings are indexed counter-clockwise in 30-degree steps from east
(``E ENE NE N NW WNW W WSW SW S SE ESE``): the even ones point at the six neighbours
(``E NE NW W SW SE``, the movement directions), the odd ones at hex corners; single hexes
and hexagon-shaped creatures face the even ones, triangle-shaped creatures the odd ones.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cache, lru_cache
from types import MappingProxyType
from typing import Iterable, Iterator, Mapping

from facing_env.tables import RULESETS, SIZES
from facing_env.types import Area, GridKind, Pos, Ruleset, Side, Size

SQUARE_DIRECTIONS: tuple[str, ...] = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
SQUARE_VECTORS: tuple[Pos, ...] = (
    (0, -1),
    (1, -1),
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
)
HEX_DIRECTIONS: tuple[str, ...] = ("E", "NE", "NW", "W", "SW", "SE")
HEX_VECTORS: tuple[Pos, ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
HEX_FACINGS: tuple[str, ...] = (
    "E",
    "ENE",
    "NE",
    "N",
    "NW",
    "WNW",
    "W",
    "WSW",
    "SW",
    "S",
    "SE",
    "ESE",
)

HALF_TURN = 180.0
"""Degrees in half a turn: angles are normalised to (-180, 180]."""
_EPS = 1e-6
_SQRT3 = math.sqrt(3.0)


def _norm180(angle: float) -> float:
    """Normalise an angle in degrees to (-180, 180]."""
    a = math.fmod(angle, 360.0)
    if a <= -HALF_TURN:
        a += 360.0
    elif a > HALF_TURN:
        a -= 360.0
    return a


@dataclass(frozen=True)
class Shape:
    """A creature's space as cell offsets from its ``pos``, with its centre and ring."""

    kind: GridKind
    offsets: tuple[Pos, ...]
    name: str
    _hash: int = field(default=0, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hash", hash((self.kind, self.offsets, self.name)))

    def __hash__(self) -> int:  # shapes key every geometry cache: hash once
        return self._hash

    def __deepcopy__(self, memo: dict) -> Shape:
        return self  # immutable: copies of a battle share it

    def __reduce__(self) -> tuple:  # rebuilt, so the hash is this process's (str hashing)
        return (type(self), (self.kind, self.offsets, self.name))

    @property
    def centroid(self) -> tuple[float, float]:
        """Centre of the space in Cartesian units (y grows south), relative to ``pos``."""
        return _centroid(self.kind, self.offsets)

    @property
    def is_triangle(self) -> bool:
        """Hex triangles face hex corners (odd facings), not neighbours."""
        return self.kind is GridKind.HEX and self.name.startswith("triangle")

    def centre_at(self, pos: Pos) -> tuple[float, float]:
        """Absolute Cartesian centre of the space when anchored at ``pos``."""
        cx, cy = self.centroid
        if self.kind is GridKind.SQUARE:
            return (pos[0] + cx, pos[1] + cy)
        px, py = cell_centre(self.kind, pos)
        return (px + cx, py + cy)

    def cells(self, pos: Pos) -> tuple[Pos, ...]:
        """The cells this shape covers when anchored at ``pos``."""
        x, y = pos
        return tuple([(x + dx, y + dy) for dx, dy in self.offsets])  # no generator

    @property
    def ring(self) -> tuple[Pos, ...]:
        """Offsets of the cells adjacent to the space (sorted)."""
        return _ring(self)

    @property
    def is_single(self) -> bool:
        """True for one-cell creatures."""
        return len(self.offsets) == 1


@cache
def _ring(shape: Shape) -> tuple[Pos, ...]:
    own = set(shape.offsets)
    vectors = SQUARE_VECTORS if shape.kind is GridKind.SQUARE else HEX_VECTORS
    ring = {(x + dx, y + dy) for x, y in shape.offsets for dx, dy in vectors}
    return tuple(sorted(ring - own, key=lambda p: (p[1], p[0])))


def cell_centre(kind: GridKind, pos: Pos) -> tuple[float, float]:
    """Cartesian centre of a cell (y grows south); hexes are pointy-top with unit size."""
    if kind is GridKind.SQUARE:
        return (pos[0] + 0.5, pos[1] + 0.5)
    q, r = pos
    return (_SQRT3 * (q + r / 2.0), 1.5 * r)


def vector_angle(dx: float, dy: float) -> float:
    """Mathematical angle in degrees (counter-clockwise from east) of a y-south vector."""
    return math.degrees(math.atan2(-dy, dx))


def facing_angle(kind: GridKind, facing: int) -> float:
    """Angle in degrees of a facing index (see the module docstring)."""
    if kind is GridKind.SQUARE:
        return 90.0 - 45.0 * facing
    return 30.0 * facing


def direction_angle(kind: GridKind, direction: int) -> float:
    """Angle of a movement direction index (square: like facings; hex: 60-degree steps)."""
    if kind is GridKind.SQUARE:
        return 90.0 - 45.0 * direction
    return 60.0 * direction


def direction_to_facing(kind: GridKind, direction: int) -> int:
    """The facing that points along a movement direction."""
    return direction if kind is GridKind.SQUARE else 2 * direction


def facing_names(kind: GridKind) -> tuple[str, ...]:
    """Names of the facings of a grid kind, by index."""
    return SQUARE_DIRECTIONS if kind is GridKind.SQUARE else HEX_FACINGS


def direction_names(kind: GridKind) -> tuple[str, ...]:
    """Names of the movement directions of a grid kind, by index."""
    return SQUARE_DIRECTIONS if kind is GridKind.SQUARE else HEX_DIRECTIONS


def direction_vectors(kind: GridKind) -> tuple[Pos, ...]:
    """Offsets of the movement directions of a grid kind, by index."""
    return SQUARE_VECTORS if kind is GridKind.SQUARE else HEX_VECTORS


# -- Distances ------------------------------------------------------------------------------


def hex_distance(a: Pos, b: Pos) -> int:
    """Hex steps between two axial cells (UA-HEX-01)."""
    dq, dr = a[0] - b[0], a[1] - b[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def square_distance(dx: int, dy: int, diagonal_rule: str) -> int:
    """Squares of movement between cells ``dx, dy`` apart.

    ``alternating``: every second diagonal counts double (3.5, IC-07);
    ``uniform``: diagonals cost like straight moves (EP-GEN-02).
    """
    dx, dy = abs(dx), abs(dy)
    hi, lo = (dx, dy) if dx >= dy else (dy, dx)
    return hi + lo // 2 if diagonal_rule == "alternating" else hi


def cell_distance(kind: GridKind, a: Pos, b: Pos, diagonal_rule: str) -> int:
    """Distance in cells between two cells."""
    if kind is GridKind.HEX:
        return hex_distance(a, b)
    return square_distance(a[0] - b[0], a[1] - b[1], diagonal_rule)


def cells_distance(kind: GridKind, a: Iterable[Pos], b: Iterable[Pos], diagonal_rule: str) -> int:
    """Smallest distance between any cell of ``a`` and any cell of ``b``."""
    bs = tuple(b)
    return min(cell_distance(kind, p, q, diagonal_rule) for p in a for q in bs)


@lru_cache(maxsize=65536)
def footprint_distance(kind: GridKind, a: Shape, b: Shape, offset: Pos, diagonal_rule: str) -> int:
    """:func:`cells_distance` between two footprints, ``b``'s anchor at ``offset`` from
    ``a``'s (distances are translation invariant on both grids, so this is cached)."""
    return cells_distance(kind, a.offsets, b.cells(offset), diagonal_rule)


# -- Shapes ---------------------------------------------------------------------------------


@lru_cache(maxsize=1024)
def _centroid(kind: GridKind, offsets: tuple[Pos, ...]) -> tuple[float, float]:
    """:attr:`Shape.centroid`, computed once per footprint."""
    pts = [cell_centre(kind, o) for o in offsets]
    return (sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts))


def _square_shape(side: int) -> Shape:
    offsets = tuple((i, j) for j in range(side) for i in range(side))
    return Shape(GridKind.SQUARE, offsets, f"square{side}")


def _hex_triangle(side: int, up: bool = True) -> Shape:
    """Triangle of hexes: ``up`` has its apex to the north (SR-06, docs/rules.md)."""
    if up:
        offsets = [(q, -j) for j in range(side) for q in range(j, side)]
    else:
        offsets = [(q, j) for j in range(side) for q in range(0, side - j)]
    return Shape(GridKind.HEX, tuple(sorted(offsets)), f"triangle{side}{'up' if up else 'down'}")


def _hex_hexagon(radius: int) -> Shape:
    offsets = [
        (q, r)
        for q in range(-radius, radius + 1)
        for r in range(-radius, radius + 1)
        if hex_distance((0, 0), (q, r)) <= radius
    ]
    return Shape(GridKind.HEX, tuple(sorted(offsets)), f"hexagon{radius}")


SQUARE_SHAPES: Mapping[Size, Shape] = MappingProxyType(
    {size: _square_shape(row.side) for size, row in SIZES.items()}
)
"""EP-SPACE-01: 1x1 up to Medium, Large 2x2, Huge 3x3, Gargantuan 4x4, Colossal 5x5."""

HEX_SHAPES: Mapping[Size, Shape] = MappingProxyType(
    {
        **{s: Shape(GridKind.HEX, ((0, 0),), "hex1") for s in Size if s <= Size.MEDIUM},
        Size.LARGE: _hex_triangle(2),
        Size.HUGE: _hex_hexagon(1),
        Size.GARGANTUAN: _hex_triangle(4),
        Size.COLOSSAL: _hex_hexagon(2),
    }
)
"""Hex footprints (UA-HEX-02 gives them only as a picture; project choice): Large is the
3-hex triangle of SR-06, Huge a 7-hex flower, Gargantuan a 10-hex triangle, Colossal a
19-hex flower. Hexagon shapes are anchored at their centre hex; triangles at the
south-west hex of their base."""

HEX_TRIANGLE_DOWN: Mapping[Size, Shape] = MappingProxyType(
    {Size.LARGE: _hex_triangle(2, up=False), Size.GARGANTUAN: _hex_triangle(4, up=False)}
)
"""The point-down orientation of the triangle shapes (chosen by a spec's ``hexes``)."""


def default_shape(kind: GridKind, size: Size) -> Shape:
    """The footprint of a size on a grid kind."""
    return (SQUARE_SHAPES if kind is GridKind.SQUARE else HEX_SHAPES)[size]


def allowed_facings(kind: GridKind, ruleset: Ruleset, shape: Shape) -> tuple[int, ...]:
    """Facing indices a creature of this shape may take (IC-11 for side_rear squares)."""
    if kind is GridKind.SQUARE:
        if RULESETS[ruleset].multi_square_orthogonal_only and not shape.is_single:
            return (0, 2, 4, 6)
        return tuple(range(8))
    return (1, 3, 5, 7, 9, 11) if shape.is_triangle else (0, 2, 4, 6, 8, 10)


def facing_from_front_hexes(shape: Shape, front: Iterable[Pos]) -> int:
    """Facing of a multi-hex creature from the offsets of its front-side hexes (SR-06)."""
    pts = [cell_centre(GridKind.HEX, o) for o in front]
    cx, cy = shape.centroid
    fx = sum(p[0] for p in pts) / len(pts) - cx
    fy = sum(p[1] for p in pts) / len(pts) - cy
    return round(vector_angle(fx, fy) / 30.0) % 12


# -- Area tables ----------------------------------------------------------------------------


@dataclass(frozen=True)
class AreaCell:
    """The area of one cell relative to a facing, and its side (for shields, IC-16)."""

    area: Area
    side: Side
    _hash: int = field(default=0, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hash", hash((self.area, self.side)))

    def __hash__(self) -> int:  # area cells key the facing-modifier memo: hash once
        return self._hash

    def __reduce__(self) -> tuple:  # rebuilt, so the hash is this process's (str hashing)
        return (area_cell, (self.area, self.side))


@cache
def area_cell(area: Area, side: Side) -> AreaCell:
    """The one :class:`AreaCell` of an area and side. Tables hand out only these, so memo
    keys made of area cells compare by identity instead of by field."""
    return AreaCell(area, side)


def classify(kind: GridKind, ruleset: Ruleset, shape: Shape, facing: int, offset: Pos) -> AreaCell:
    """Area of a cell at ``offset`` from the creature's ``pos`` by the angle rule."""
    row = RULESETS[ruleset]
    cx, cy = shape.centroid
    px, py = cell_centre(kind, offset)
    diff = _norm180(vector_angle(px - cx, py - cy) - facing_angle(kind, facing))
    mag = abs(diff)
    side = (
        Side.CENTRE if mag < _EPS or mag > 180.0 - _EPS else (Side.LEFT if diff > 0 else Side.RIGHT)
    )
    rear_min = row.rear_min[kind]
    is_rear = mag > rear_min + _EPS if row.rear_strict[kind] else mag >= rear_min - _EPS
    if mag <= row.front_max[kind] + _EPS:
        return area_cell(Area.FRONT, side)
    if is_rear:
        return area_cell(Area.REAR, side)
    return area_cell(row.side_area, side)


@dataclass(frozen=True)
class AreaTable:
    """Areas of one (grid, ruleset, shape, facing): the ring, and a cache for beyond."""

    kind: GridKind
    ruleset: Ruleset
    shape: Shape
    facing: int
    ring: Mapping[Pos, AreaCell]
    by_area: Mapping[Area, frozenset[Pos]]
    _beyond: dict[Pos, AreaCell] = field(default_factory=dict, compare=False, repr=False)

    def __deepcopy__(self, memo: dict) -> AreaTable:
        return self  # cached and immutable (its beyond-cache only grows): share it

    def __reduce__(self) -> tuple:
        """Pickled by its key: unpickling gives the cached table of this process."""
        return (area_table, (self.kind, self.ruleset, self.shape, self.facing))

    def lookup(self, offset: Pos) -> AreaCell:
        """Area of any cell at ``offset`` from ``pos``: in the ring or beyond (IC-03)."""
        cell = self.ring.get(offset)
        if cell is not None:
            return cell
        cell = self._beyond.get(offset)
        if cell is None:
            if offset in self.shape.offsets:
                cell = area_cell(Area.NONE, Side.CENTRE)
            else:
                cell = classify(self.kind, self.ruleset, self.shape, self.facing, offset)
            self._beyond[offset] = cell
        return cell

    def counts(self) -> dict[str, int]:
        """Number of ring cells in each area, e.g. ``{"front": 3, "flank": 2, "rear": 3}``."""
        return {a.value: len(self.by_area.get(a, ())) for a in RULESETS[self.ruleset].areas}


@cache
def area_table(kind: GridKind, ruleset: Ruleset, shape: Shape, facing: int) -> AreaTable:
    """The cached area table of a (grid, ruleset, shape, facing)."""
    ring = {o: classify(kind, ruleset, shape, facing, o) for o in shape.ring}
    by_area: dict[Area, set[Pos]] = {}
    for offset, cell in ring.items():
        by_area.setdefault(cell.area, set()).add(offset)
    return AreaTable(
        kind,
        ruleset,
        shape,
        facing,
        MappingProxyType(ring),
        MappingProxyType({a: frozenset(s) for a, s in by_area.items()}),
    )


def iter_line_cells(a: tuple[float, float], b: tuple[float, float]) -> Iterator[Pos]:
    """Square cells whose interior a segment crosses (for charge lanes, EP-CHG-01)."""
    steps = max(2, int(4 * (abs(b[0] - a[0]) + abs(b[1] - a[1]))) + 2)
    seen: set[Pos] = set()
    for i in range(steps + 1):
        t = i / steps
        x = a[0] + (b[0] - a[0]) * t
        y = a[1] + (b[1] - a[1]) * t
        cell = (math.floor(x), math.floor(y))
        if cell not in seen:
            seen.add(cell)
            yield cell
