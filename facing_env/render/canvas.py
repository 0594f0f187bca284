"""Pixel geometry of a battle picture, shared by pillow frames and the HTML replay viewer.

:class:`Layout` maps cells (square ``(x, y)`` or axial hex ``(q, r)``, through
:func:`geometry.cell_centre`) to pixels; the helpers say what to draw: team colours, each
cell's area relative to a creature, facing vectors and the attack worth a line.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from facing_env.events import Event
from facing_env.rules import geometry
from facing_env.rules.battle import Battle, Creature
from facing_env.types import Area, GridKind, Pos, Size

Point = tuple[float, float]
Colour = tuple[int, int, int]
CELL = 32
"""Pixels across one square (or one hex, flat side to flat side)."""
MARGIN = 6
LINE = 12
"""Pixels per legend line."""
MIN_WIDTH = 288
"""Frames with a legend are at least this wide (about 45 characters)."""
TEAM_COLOURS: dict[str, Colour] = {
    "red": (200, 60, 60),
    "blue": (60, 100, 200),
    "green": (50, 150, 80),
    "orange": (230, 130, 30),
    "purple": (140, 80, 170),
}
PALETTE: tuple[Colour, ...] = (
    (60, 100, 200),
    (200, 60, 60),
    (50, 150, 80),
    (230, 130, 30),
    (140, 80, 170),
)
AREA_COLOURS: dict[Area, Colour] = {
    Area.FRONT: (40, 160, 80),
    Area.FLANK: (230, 180, 30),
    Area.SIDE: (230, 180, 30),
    Area.REAR: (210, 50, 40),
}
AREA_CODES: dict[Area, str] = {Area.FRONT: "F", Area.FLANK: "K", Area.SIDE: "S", Area.REAR: "R"}
SMALL_SCALE: dict[Size, float] = {
    Size.FINE: 0.35,
    Size.DIMINUTIVE: 0.45,
    Size.TINY: 0.6,
    Size.SMALL: 0.8,
}
"""Below Medium a creature's mark shrinks with its size (a Medium one fills 0.92 of a cell)."""
_SQRT3 = math.sqrt(3.0)


@dataclass(frozen=True)
class Layout:
    """Pixel geometry of a board of ``width`` x ``height`` cells plus ``rows`` legend lines.

    Sizes are rounded up to multiples of 16 so video encoders take the frames as they are.
    """

    kind: GridKind
    width: int
    height: int
    rows: int = 0
    cell: int = CELL

    @classmethod
    def of(
        cls, battle: Battle, board: tuple[int, int] | None = None, creatures: int | None = None
    ) -> Layout:
        """The layout of a battle with a legend (a title line and one line per creature, for
        up to ``creatures``); ``board``: the largest ``(width, height)`` it must fit."""
        w, h = board or (battle.width, battle.height)
        n = len(battle.creatures) if creatures is None else creatures
        return cls(battle.kind, max(w, battle.width), max(h, battle.height), rows=1 + n)

    @property
    def unit(self) -> float:
        """Pixels per Cartesian unit of :func:`geometry.cell_centre`."""
        return self.cell if self.kind is GridKind.SQUARE else self.cell / _SQRT3

    @property
    def board_px(self) -> tuple[int, int]:
        """Width and height of the board drawing in pixels."""
        if self.kind is GridKind.SQUARE:
            return (self.width * self.cell, self.height * self.cell)
        u = self.unit
        return (
            math.ceil(_SQRT3 * (self.width + 0.5) * u),
            math.ceil((1.5 * self.height + 0.5) * u),
        )

    @property
    def size(self) -> tuple[int, int]:
        """Width and height of a frame in pixels."""
        bw, bh = self.board_px
        w = max(bw + 2 * MARGIN, MIN_WIDTH if self.rows else 0)
        h = bh + 2 * MARGIN + self.rows * LINE + MARGIN
        return (-(-w // 16) * 16, -(-h // 16) * 16)

    def point(self, x: float, y: float) -> Point:
        """Pixel of a Cartesian point (``cell_centre`` units)."""
        if self.kind is GridKind.SQUARE:
            return (MARGIN + x * self.unit, MARGIN + y * self.unit)
        return (MARGIN + (x + _SQRT3 / 2) * self.unit, MARGIN + (y + 1.0) * self.unit)

    def centre(self, pos: Pos) -> Point:
        """Pixel centre of a cell."""
        return self.point(*geometry.cell_centre(self.kind, pos))

    def polygon(self, pos: Pos, scale: float = 1.0) -> list[Point]:
        """Corners of a cell; corner pair ``(i, i+1)`` borders the neighbour in
        ``geometry.direction_vectors`` order (square: the four orthogonal ones)."""
        cx, cy = self.centre(pos)
        if self.kind is GridKind.SQUARE:
            h = self.cell / 2 * scale
            return [(cx - h, cy - h), (cx + h, cy - h), (cx + h, cy + h), (cx - h, cy + h)]
        r = self.unit * scale
        angles = [math.radians(60 * k - 30) for k in range(6)]
        return [(cx + r * math.cos(a), cy - r * math.sin(a)) for a in angles]

    def edges(self, pos: Pos) -> list[tuple[Pos, Point, Point]]:
        """Each side of a cell with the neighbour across it."""
        pts = self.polygon(pos)
        if self.kind is GridKind.SQUARE:
            vectors: Sequence[Pos] = ((0, -1), (1, 0), (0, 1), (-1, 0))
        else:
            vectors = geometry.HEX_VECTORS
        n = len(pts)
        return [
            ((pos[0] + v[0], pos[1] + v[1]), pts[i], pts[(i + 1) % n])
            for i, v in enumerate(vectors)
        ]


def team_colours(battle: Battle) -> dict[str, tuple[int, int, int]]:
    """A colour per team: its own name when it is a colour, else from a palette."""
    teams = list(dict.fromkeys(c.team for c in battle.creatures.values()))
    free = [p for p in PALETTE if p not in {TEAM_COLOURS.get(t) for t in teams}] or list(PALETTE)
    out = {}
    for i, t in enumerate(teams):
        out[t] = TEAM_COLOURS.get(t.lower()) or free[i % len(free)]
    return out


def last_attack(events: Sequence[Event]) -> Event | None:
    """The most recent attack while its line still means something: until a creature
    moves (the move that provoked an attack of opportunity does not count)."""
    moved: list[str] = []
    for e in reversed(events):
        if e.kind in ("move", "five_foot_step"):
            moved.append(e.actor)
            if len(moved) > 1:
                return None
        elif e.kind == "attack" and e.target is not None:
            ok = not moved or (e.attack_kind == "aoo" and moved == [e.target])
            return e if ok else None
    return None


def attack_label(e: Event) -> str:
    """``rear +4``: the defender's area and the facing modifier of an attack, after the
    attack's kind when it is a charge or a readied attack (``charge front +0``)."""
    label = f"{e.defender_area or 'none'} {e.facing_modifier:+d}"
    return f"{e.attack_kind} {label}" if e.attack_kind in ("charge", "readied") else label


def area_map(battle: Battle, c: Creature) -> dict[Pos, tuple[Area, bool]]:
    """Each board cell's area relative to ``c`` and whether it is in the adjacent ring."""
    table = battle.table(c)
    if table is None or c.hp <= 0:
        return {}
    out = {}
    for row in range(battle.height):
        for col in range(battle.width):
            cell = battle.cell_at(row, col)
            off = (cell[0] - c.pos[0], cell[1] - c.pos[1])
            area = table.lookup(off).area
            if area is not Area.NONE:
                out[cell] = (area, off in table.ring)
    return out


def facing_vector(battle: Battle, c: Creature) -> Point | None:
    """Unit screen vector (y down) of a creature's facing; None without facing."""
    if battle.table(c) is None:
        return None
    a = math.radians(geometry.facing_angle(battle.kind, c.facing))
    return (math.cos(a), -math.sin(a))


@dataclass(frozen=True)
class Footprint:
    """Where a creature is drawn: its cells, the scale of their polygons, its centre, a
    radius for the arrow, and the top edge and x extent for the hit-point bar."""

    cells: tuple[Pos, ...]
    scale: float
    centre: Point
    radius: float
    top: float
    left: float
    right: float


def footprint(battle: Battle, layout: Layout, c: Creature) -> Footprint:
    """The drawing geometry of a creature's space."""
    cells = battle.cells_of(c)
    scale = SMALL_SCALE.get(c.size, 0.92 if c.shape.is_single else 1.0)
    pts = [p for cell in cells for p in layout.polygon(cell, scale)]
    left, right = min(p[0] for p in pts), max(p[0] for p in pts)
    top, bottom = min(p[1] for p in pts), max(p[1] for p in pts)
    radius = max(6.0, min(right - left, bottom - top) / 2)
    centre = layout.point(*c.shape.centre_at(c.pos))
    return Footprint(cells, scale, centre, radius, top, left, right)


def wedge(fp: Footprint, vec: Point | None) -> tuple[list[Point], Point]:
    """The facing arrow of a footprint (a long thin triangle; none without facing) and
    where the creature's letter goes, behind the arrow."""
    (x, y), r = fp.centre, fp.radius
    if vec is None:
        return [], (x, y)
    dx, dy = vec
    bx, by, w = x - dx * r * 0.15, y - dy * r * 0.15, r * 0.27
    tip = (x + dx * r * 0.75, y + dy * r * 0.75)
    points = [tip, (bx - dy * w, by + dx * w), (bx + dy * w, by - dx * w)]
    return points, (x - dx * r * 0.52, y - dy * r * 0.52)
