"""Movement: step costs under facing and terrain, allowances, charges, forced movement.

UA-MOVE-01..06, EP-5FT-01..03, EP-GEN-01..03, EP-WALK-01, EP-DBL-01, EP-RUN-01, EP-RUN-02,
EP-CHG-01, EP-TER-01..05, EP-OCC-01, EP-FORCE-01..04, EP-STEP-01, EP-SQZ-01, IC-06, IC-07,
IC-13. Hazardous terrain (EP-TER-05) is entered like open ground; its effects are not
modelled. Clamber (EP-CLAMBER-01) is ``space.clamber_allowed``.
"""

from __future__ import annotations

from functools import cache
from typing import Final, Iterable, NamedTuple, Sequence

from facing_env.errors import RulesQueryError
from facing_env.rules import geometry
from facing_env.rules.battle import Battle, Creature
from facing_env.rules.geometry import Shape
from facing_env.rules.perception import unseen
from facing_env.tables import (
    DIFFICULT_MULTIPLIER,
    DOUBLE_MOVE_MULTIPLIER,
    FACING_SURCHARGE_MULTIPLIER,
    FEET_PER_SQUARE,
    MIN_SPEED_FOR_FIVE_FOOT_STEP,
    RULESETS,
    RUN_MULTIPLIER,
    RUN_MULTIPLIER_HEAVY_ARMOR,
)
from facing_env.types import Area, GridKind, MoveMode, Pos, Ruleset, Terrain

BARRED = 2
"""What :func:`blocked_or_occupied` returns when an enemy bars the cells."""

FULL_ROUND: Final = "full_round"
"""What :func:`step_cost` returns for a step into impeded terrain: the mover must spend a
full-round action to move those 5 feet (EP-TER-02)."""

_IMPASSABLE = (Terrain.BLOCKED, Terrain.PILLAR)
_CHARGE_LANE = (Terrain.OPEN, Terrain.HAZARDOUS)  # neither blocks nor slows (EP-TER-05)


def _steps_over(m: Creature, other: Creature) -> bool:
    """EP-STEP-01: a creature two or more size categories larger than another may ignore it
    when moving (step over it, or end its move on it)."""
    return m.size > other.size and m.can_share_space(other)


def parse_direction(battle: Battle, direction: str | int) -> int:
    """A movement direction index from its name (``"NE"``) or index."""
    n = len(geometry.direction_vectors(battle.kind))
    if type(direction) is int and 0 <= direction < n:
        return direction
    names = geometry.direction_names(battle.kind)
    if isinstance(direction, str) and direction.upper() in names:
        return names.index(direction.upper())
    raise RulesQueryError(f"unknown direction {direction!r}; expected one of {' '.join(names)}")


@cache
def _step_area(kind: GridKind, ruleset: Ruleset, facing: int, d: int) -> str:
    diff = abs(
        geometry._norm180(geometry.direction_angle(kind, d) - geometry.facing_angle(kind, facing))
    )
    row = RULESETS[ruleset]
    if diff <= row.front_max[kind] + 1e-6:
        return Area.FRONT.value
    rear = (
        diff > row.rear_min[kind] + 1e-6
        if row.rear_strict[kind]
        else (diff >= row.rear_min[kind] - 1e-6)
    )
    return (Area.REAR if rear else row.side_area).value


def step_area(battle: Battle, mover: str | Creature, direction: str | int) -> str:
    """Area a step in ``direction`` enters, judged by its direction (IC-06).

    Front iff the step direction lies within the front angle of the facing (45 degrees on
    squares, 60 on hexes); ``"none"`` for movers without facing. Precomputed per
    (grid, rule set, facing, direction).
    """
    m = battle.creature(mover)
    d = parse_direction(battle, direction)
    if battle.table(m) is None:
        return Area.NONE.value
    return _step_area(battle.kind, battle.ruleset, m.facing, d)


class StepGeometry(NamedTuple):
    """Precomputed offsets of one step of one footprint: the vector, the cells entered and
    the wall corners a diagonal step would cut (EP-TER-04), relative to the anchor."""

    vector: Pos
    entered: tuple[Pos, ...]
    corners: tuple[Pos, ...]
    diagonal: bool


@cache
def step_geometry(kind: GridKind, shape: Shape, d: int) -> StepGeometry:
    """The :class:`StepGeometry` of a step in direction ``d`` (computed once)."""
    dx, dy = geometry.direction_vectors(kind)[d]
    old = set(shape.offsets)
    entered = tuple(c for c in shape.cells((dx, dy)) if c not in old)
    diagonal = kind is GridKind.SQUARE and dx != 0 and dy != 0
    corners: tuple[Pos, ...] = ()
    if diagonal:
        corners = tuple(
            dict.fromkeys(p for x, y in shape.offsets for p in ((x + dx, y), (x, y + dy)))
        )
    return StepGeometry((dx, dy), entered, corners, diagonal)


def corner_cut(battle: Battle, cells: Iterable[Pos], vector: Pos) -> bool:
    """Whether a diagonal step cuts the corner of a wall (EP-TER-04: pillars allow it)."""
    dx, dy = vector
    if battle.kind is not GridKind.SQUARE or dx == 0 or dy == 0:
        return False
    for x, y in cells:
        for corner in ((x + dx, y), (x, y + dy)):
            if battle.terrain_at(corner) is Terrain.BLOCKED:
                return True
    return False


class StepEntry(NamedTuple):
    """What a step in one direction would enter (shared by :func:`step_cost` and the
    engine's legal-action scan, so both read the board the same way)."""

    open: bool  # on the board, not blocked, no enemy (but one stepped over), no cut corner
    occupied: bool  # some other creature (an ally, or one stepped over: EP-STEP-01) there
    difficult: bool
    impeded: bool
    diagonal: bool


def _static_entry(
    battle: Battle, shape: Shape, pos: Pos, d: int
) -> tuple[bool, bool, bool, tuple[Pos, ...]]:
    """Terrain part of a step, cached per battle (terrain is static): (open, difficult,
    impeded, cells entered)."""
    key = (shape, pos, d)
    cached = battle._step_static.get(key)
    if cached is not None:
        return cached
    geo = step_geometry(battle.kind, shape, d)
    x, y = pos
    terrain = battle._terrain_map
    cells = tuple((x + ox, y + oy) for ox, oy in geo.entered)
    kinds = [terrain.get(cell, Terrain.BLOCKED) for cell in cells]
    corners = [terrain.get((x + ox, y + oy), Terrain.BLOCKED) for ox, oy in geo.corners]
    is_open = not any(t in _IMPASSABLE for t in kinds) and Terrain.BLOCKED not in corners
    result = (is_open, Terrain.DIFFICULT in kinds, Terrain.IMPEDED in kinds, cells)
    battle._step_static[key] = result
    return result


def step_entry(battle: Battle, m: Creature, d: int) -> StepEntry:
    """Read the cells a step of ``m`` in direction index ``d`` enters (EP-TER-01..04,
    EP-WALK-01, EP-STEP-01)."""
    row = direction_rows(battle, m.shape, m.pos)[d]
    if not row.open:
        return StepEntry(False, False, False, False, row.diagonal)
    occupied = blocked_or_occupied(battle, m, row.cells)
    if occupied == BARRED:
        return StepEntry(False, True, False, False, row.diagonal)
    return StepEntry(True, bool(occupied), row.difficult, row.impeded, row.diagonal)


def walk_cost(diagonal: bool, difficult: bool, odd_diagonal: bool) -> int:
    """Squares a step costs before the facing surcharge: 2 for every second diagonal
    (``odd_diagonal``: one diagonal already moved under the alternating rule), doubled on
    difficult terrain (EP-TER-01)."""
    cost = 2 if diagonal and odd_diagonal else 1
    return cost * DIFFICULT_MULTIPLIER if difficult else cost


class DirectionRow(NamedTuple):
    """The terrain part of a step in one direction from one position (static per battle)."""

    d: int
    open: bool
    difficult: bool
    impeded: bool
    cells: tuple[Pos, ...]
    diagonal: bool


def direction_rows(battle: Battle, shape: Shape, pos: Pos) -> tuple[DirectionRow, ...]:
    """:func:`step_entry`'s terrain reads for every direction at once, cached per battle
    (for the engine's legal-action scan)."""
    key = (shape, pos)
    rows = battle._step_static.get(key)
    if rows is None:
        built = []
        for d in range(len(geometry.direction_vectors(battle.kind))):
            is_open, difficult, impeded, cells = _static_entry(battle, shape, pos, d)
            diagonal = step_geometry(battle.kind, shape, d).diagonal
            built.append(DirectionRow(d, is_open, difficult, impeded, cells, diagonal))
        rows = battle._step_static[key] = tuple(built)
    return rows


def facing_rows(
    kind: GridKind, ruleset: Ruleset, facing: int, toward: tuple[int, ...]
) -> tuple[tuple[bool, bool], ...]:
    """Per direction: (the step keeps the facing ``toward[d] == facing``, the step goes
    into the front area), for :func:`entry_cost`'s surcharge (UA-MOVE-03, -04); the
    engine caches it per facing."""
    return tuple(
        (t == facing, _step_area(kind, ruleset, facing, d) == Area.FRONT.value)
        for d, t in enumerate(toward)
    )


def blocked_or_occupied(battle: Battle, m: Creature, cells: tuple[Pos, ...]) -> int:
    """:func:`step_entry`'s creature reads: 2 when an enemy bars the cells (EP-WALK-01,
    unless stepped over, EP-STEP-01; :data:`BARRED`), 1 when another creature is there,
    else 0. Foes ``m`` does not perceive are not there to it (issue 36,
    :func:`~facing_env.rules.perception.unseen`)."""
    occupancy = battle._occupancy
    hidden = unseen(battle, m)
    occupied = 0
    for cell in cells:
        for other in occupancy.get(cell, ()):
            if other != m.id and other not in hidden:
                o = battle.creatures[other]
                if o.team != m.team and not _steps_over(m, o):
                    return BARRED
                occupied = 1
    return occupied


def entry_cost(
    battle: Battle,
    m: Creature,
    d: int,
    entry: StepEntry,
    *,
    turn_first: bool = False,
    five_foot_step: bool = False,
    diagonals_so_far: int = 0,
) -> int | str | None:
    """:func:`step_cost` from an already read :class:`StepEntry`."""
    if not entry.open:
        return None
    if five_foot_step:
        if entry.occupied or entry.difficult or entry.impeded:  # EP-5FT-03
            return None
        return 1 if m.speed >= MIN_SPEED_FOR_FIVE_FOOT_STEP else None
    if entry.impeded:
        return FULL_ROUND
    odd = diagonals_so_far % 2 == 1 and battle.diagonal_rule == "alternating"
    cost = walk_cost(entry.diagonal, entry.difficult, odd)
    surcharge = battle._rules.movement_surcharge and not turn_first
    if (
        surcharge
        and battle.table(m) is not None
        and _step_area(battle.kind, battle.ruleset, m.facing, d) != Area.FRONT.value
    ):
        cost *= FACING_SURCHARGE_MULTIPLIER
    return cost


def step_cost(
    battle: Battle,
    mover: str | Creature,
    direction: str | int,
    *,
    turn_first: bool = False,
    five_foot_step: bool = False,
    diagonals_so_far: int = 0,
    squeezing: bool = False,
) -> int | str | None:
    """Squares of movement to step into the adjacent space in ``direction``.

    Returns the cost in squares, ``None`` when the step is not allowed (off the board,
    blocked terrain, a cut wall corner, an enemy's space unless the mover is two or more
    size categories larger than every enemy there (stepover, EP-STEP-01); for a 5-foot step
    also difficult or impeded terrain, any occupied space and movers of speed 5 feet or
    less), or :data:`FULL_ROUND` for impeded terrain (EP-TER-02). Hazardous terrain costs
    as open ground (EP-TER-05). ``squeezing``: the space entered requires squeezing and is
    treated as difficult terrain (EP-SQZ-01; not doubled again on difficult terrain).

    Base cost 1; under ``alternating`` diagonals every second diagonal costs 2
    (``diagonals_so_far`` counts the diagonals already moved this move); difficult terrain
    doubles it (EP-TER-01); in ``ua35`` a step into the flank or rear doubles it again
    (UA-MOVE-03, UA-MOVE-04, IC-06, IC-07) unless the mover first turns toward the square
    (``turn_first``, UA-MOVE-01) or has no facing (UA-FCL-01). A 5-foot step always costs
    1 and may go in any direction (UA-MOVE-05).
    """
    m = battle.creature(mover)
    d = parse_direction(battle, direction)
    entry = step_entry(battle, m, d)
    if squeezing:
        entry = entry._replace(difficult=True)  # EP-SQZ-01
    return entry_cost(
        battle,
        m,
        d,
        entry,
        turn_first=turn_first,
        five_foot_step=five_foot_step,
        diagonals_so_far=diagonals_so_far,
    )


_MODES = {m.value: m for m in MoveMode} | {m: m for m in MoveMode}


def movement_allowance(battle: Battle, creature: str | Creature, mode: str = "walk") -> int:
    """Squares a creature may move: speed (walk, withdraw, charge), x2 for a double move
    (EP-DBL-01), x4 running or x3 in heavy armour (EP-RUN-01, IC-13; not EP-RUN-02's x5),
    1 for a 5-foot step."""
    c = battle.creature(creature)
    move = _MODES.get(mode) if isinstance(mode, (str, MoveMode)) else None
    if move is None:
        names = ", ".join(x.value for x in MoveMode)
        raise RulesQueryError(f"unknown movement mode {mode!r}; expected one of {names}")
    squares = c.speed // FEET_PER_SQUARE
    if move is MoveMode.DOUBLE_MOVE:
        return squares * DOUBLE_MOVE_MULTIPLIER
    if move is MoveMode.RUN:
        mult = RUN_MULTIPLIER_HEAVY_ARMOR if c.armor == "heavy" else RUN_MULTIPLIER
        return squares * mult
    if move is MoveMode.FIVE_FOOT_STEP:
        return 1 if c.speed >= MIN_SPEED_FOR_FIVE_FOOT_STEP else 0
    return squares


def _space_free(battle: Battle, m: Creature, pos: Pos, *, stepover: bool = False) -> bool:
    for cell in m.shape.cells(pos):
        if battle.terrain_at(cell) in _IMPASSABLE:
            return False
        for o in battle.occupants(cell):
            if o != m.id and not (stepover and _steps_over(m, battle.creatures[o])):
                return False
    return True


def _lane_cells(kind: GridKind, shape: Shape, start: Pos, dest: Pos) -> list[Pos]:
    """The cells the straight line of a charge of a ``shape`` from ``start`` to ``dest``
    crosses, its own space at ``start`` excepted (EP-CHG-01): the line between the centres
    of each square of its footprint (square grid), or the hex line (hex grid)."""
    if kind is GridKind.HEX:
        cells = _hex_line(start, dest)
    else:
        a, b = shape.centre_at(start), shape.centre_at(dest)
        cells = []
        cx, cy = shape.centroid
        for ox, oy in shape.offsets:
            shift = (ox + 0.5 - cx, oy + 0.5 - cy)
            p = (a[0] + shift[0], a[1] + shift[1])
            q = (b[0] + shift[0], b[1] + shift[1])
            cells.extend(geometry.iter_line_cells(p, q))
    own = set(shape.cells(start))
    return [cell for cell in cells if cell not in own]


def _lane_clear(battle: Battle, m: Creature, dest: Pos) -> bool:
    """No blocking/slowing terrain or creature on the straight line (EP-CHG-01); hazardous
    terrain does neither (EP-TER-05). Foes ``m`` does not perceive are not there to it."""
    hidden = unseen(battle, m)
    for cell in _lane_cells(battle.kind, m.shape, m.pos, dest):
        if battle.terrain_at(cell) not in _CHARGE_LANE:
            return False
        if any(o != m.id and o not in hidden for o in battle.occupants(cell)):
            return False
    return True


def _hex_line(a: Pos, b: Pos) -> list[Pos]:
    """The hexes of the straight line from ``a`` to ``b`` (cube rounding, nudged off the
    ties), computed from ``a`` so that it is the same line wherever it is drawn."""
    n = geometry.hex_distance(a, b)
    dq0, dr0 = b[0] - a[0], b[1] - a[1]
    out = []
    for i in range(n + 1):
        t = i / max(n, 1)
        q = dq0 * t + 1e-6
        r = dr0 * t + 1e-6
        s = -q - r
        rq, rr, rs = round(q), round(r), round(s)
        dq, dr, ds = abs(rq - q), abs(rr - r), abs(rs - s)
        if dq > dr and dq > ds:
            rq = -rr - rs
        elif dr > ds:
            rr = -rq - rs
        out.append((a[0] + rq, a[1] + rr))
    return out


def forced_path(
    battle: Battle,
    target: str | Creature,
    by: str | Creature,
    path: Iterable[Sequence[int]],
    *,
    kind: str = "push",
) -> list[Pos]:
    """The part of a forced movement ``path`` the target actually travels (EP-FORCE-01..04).

    Each step goes to an adjacent space; the movement ends before any space that is blocked,
    off the board or occupied (friend or foe; a creature two or more size categories larger
    steps over smaller ones, EP-STEP-01), and (push) before a step that is not further
    from the attacker's space than the one exited, or (pull) not closer, except that a
    target already adjacent may be pulled into another space adjacent to the attacker.
    Terrain costs are ignored; forced movement never provokes (see ``provokers``).
    """
    t, a = battle.creature(target), battle.creature(by)
    if kind not in ("push", "pull", "slide"):
        raise RulesQueryError(f"unknown forced movement {kind!r}; expected push, pull or slide")
    a_cells = battle.cells_of(a)
    here = t.pos
    moved: list[Pos] = []
    for p in path:
        nxt = (int(p[0]), int(p[1]))
        if nxt == here and not moved:
            continue
        if battle.distance(here, nxt) != 1 or not _space_free(battle, t, nxt, stepover=True):
            break
        before = battle.cells_distance(t.shape.cells(here), a_cells)
        after = battle.cells_distance(t.shape.cells(nxt), a_cells)
        if kind == "push" and after <= before:
            break
        if kind == "pull" and after >= before and not (before == 1 and after == 1):
            break
        moved.append(nxt)
        here = nxt
    return moved
