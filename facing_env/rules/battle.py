"""Battle state: board, terrain and creatures, built from and written back to a spec.

State is plain records (``Creature``, ``Attack``) plus a terrain array and an occupancy
index, so the engine can update it in place and a batched engine can mirror it.
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Mapping

import numpy as np
from pydantic import ValidationError

from facing_env.errors import RulesQueryError, ScenarioError
from facing_env.limits import MAX_NAME, MAX_SIDE, short_repr
from facing_env.rules import geometry
from facing_env.rules.geometry import AreaTable, Shape
from facing_env.spec import AttackSpec, BattleSpec, CreatureSpec
from facing_env.tables import (
    RULESETS,
    SHARED_SPACE_SIZE_GAP,
    SIZES,
    TERRAIN_CHARS,
    TERRAIN_NAMES,
    RulesetRow,
)
from facing_env.types import Area, GridKind, Perception, Pos, Ruleset, Size, Terrain

MAX_FRONT_SIDE_HEXES = 2
"""A multi-hex creature's front side is one or two of its hexes (side_rear on hex)."""

_TERRAIN_BY_VALUE: dict[int, Terrain] = {t.value: t for t in Terrain}
"""Each terrain by its value in ``Battle.terrain``."""


@dataclass(frozen=True, slots=True)
class Attack:
    """One attack with its reach resolved to feet."""

    name: str
    bonus: int
    damage: str
    reach: int
    kind: str  # "melee" | "ranged"
    range: int
    zones: tuple[Area, ...]  # areas the attack reaches without penalty (UA-MON-01, -02)
    threat_range: int
    crit_multiplier: int
    touch: bool = False  # the target's touch AC applies (SRD-TOUCH-01)

    @property
    def ranged(self) -> bool:
        """True for ranged attacks."""
        return self.kind == "ranged"


@dataclass(frozen=True, slots=True)
class Shield:
    """A shield on the left or right arm and its AC bonus (UA-SHLD-02)."""

    side: str
    bonus: int


CHANGING: tuple[str, ...] = ("pos", "facing", "hp", "flat_footed", "readied", "charging")
"""The :class:`Creature` fields a battle changes (the rest are its stat block): what
:func:`facing_env.rules.engine.state_key` fingerprints and the arrays' creature table
(:data:`facing_env.fast.state.CREATURE_COLUMNS`) writes back."""


@dataclass(slots=True)
class Creature:
    """One combatant. Mutable fields (:data:`CHANGING`): ``pos``, ``facing``, ``hp``,
    ``flat_footed``, ``readied`` and ``charging``.

    ``touch_ac`` is the AC against touch attacks (SRD-TOUCH-01: without armor, shield and
    natural armor bonuses); ``squeezing`` gives -4 to attack rolls and AC (EP-SQZ-01).
    """

    id: str
    team: str
    size: Size
    pos: Pos
    facing: int
    hp: int
    max_hp: int
    ac: int
    speed: int
    dex: int
    base_attack_bonus: int
    attacks: tuple[Attack, ...]
    feats: frozenset[str]
    sneak_attack: str | None
    rogue_level: int
    improved_uncanny_dodge: int | None
    uncanny_dodge: bool
    immune_to_sneak_attack: bool
    flat_footed: bool
    all_around_vision: bool
    threatens: bool
    armor: str
    improved_chieftain: bool
    pack_fighter_bonus: int
    faceless: bool
    shield: Shield | None
    spells: tuple[str, ...]
    reach: int
    shape: Shape
    touch_ac: int
    squeezing: bool
    facing_given: bool = True
    player_character: bool = False  # EP-5FT-02: may trade attacks for 5-foot steps
    spot: int = 0  # Spot skill modifier (perception="spot")
    hide: int = 0  # Hide skill modifier (perception="spot")
    readied: bool = False  # a readied attack waits (UA-PER-02); ends at its next turn
    charging: bool = False  # charged this round: -2 AC until its next turn (charge)

    @property
    def has_facing(self) -> bool:
        """False for faceless creatures and Tiny or smaller ones (UA-FCL-01, UA-FCL-02)."""
        return SIZES[self.size].has_facing and not self.faceless

    @property
    def alive(self) -> bool:
        """Creatures die at 0 hit points or below."""
        return self.hp > 0

    @property
    def dex_modifier(self) -> int:
        """Dexterity modifier from the score."""
        return (self.dex - 10) // 2

    def can_share_space(self, other: Creature) -> bool:
        """Whether the two may share squares: one is two or more size categories larger
        than the other (stepover EP-STEP-01, clamber EP-CLAMBER-01, internal creatures
        EP-FLANK-07); neither of them is then squeezing."""
        return abs(int(self.size) - int(other.size)) >= SHARED_SPACE_SIZE_GAP

    def has_feat(self, feat: str) -> bool:
        """Whether the creature has a feat, by its name in ``tables.FEATS``."""
        return feat in self.feats

    def attack(self, name: str | None) -> Attack:
        """The named attack, or the first one when ``name`` is None."""
        if name is None:
            return self.attacks[0]
        for a in self.attacks:
            if a.name == name:
                return a
        names = ", ".join(a.name for a in self.attacks)
        raise RulesQueryError(f"creature {self.id!r} has no attack {name!r} (has: {names})")


@dataclass
class Battle:
    """The state of a battle. Build it with :meth:`from_spec`."""

    ruleset: Ruleset
    kind: GridKind
    width: int
    height: int
    diagonal_rule: str
    terrain: np.ndarray  # int8 [row, col] of Terrain values
    creatures: dict[str, Creature]
    _occupancy: dict[Pos, list[str]] = field(default_factory=dict, repr=False)
    _terrain_map: dict[Pos, Terrain] = field(default_factory=dict, repr=False, compare=False)
    _rules: Any = field(default=None, repr=False, compare=False)
    _step_static: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)
    _tables: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)
    _charge_terrain: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)
    _charge_geometry: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)
    _charges: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)
    initiative: Any = field(default=None, repr=False)  # turn.Initiative, set by the engine
    turn: Any = field(default=None, repr=False)  # turn.TurnState of the acting creature
    perception: Perception = Perception.FULL  # what creatures perceive (rules.perception)
    heard: dict[str, set[str]] = field(default_factory=dict, repr=False)  # by sound
    last_seen: dict[str, dict[str, Pos]] = field(default_factory=dict, repr=False)
    """Where each creature last perceived each living foe (``perception`` not ``full``;
    :func:`facing_env.rules.perception.look`)."""
    spot_rolls: dict[str, dict[str, float]] = field(default_factory=dict, repr=False)
    """Under ``perception="spot"``: each creature's last opposed check against each living
    foe, its Spot roll less the foe's Hide roll (``rules.perception.spot_checks``)."""

    def __post_init__(self) -> None:
        self.rebuild_occupancy()
        self._rules = RULESETS[self.ruleset]
        self.rebuild_terrain_index()

    def rebuild_terrain_index(self) -> None:
        """Recompute the cell -> terrain index from the ``terrain`` array (call it after
        editing the array; terrain is static during a battle)."""
        self._step_static = {}  # rules.movement's per-battle cache of terrain per step
        self._charge_terrain = {}  # rules.maneuvers' blocking cells relative to each anchor
        self._charges = {}  # rules.maneuvers' answers per placement (they read the terrain)
        member = _TERRAIN_BY_VALUE
        rows = self.terrain.tolist()  # one conversion, not one numpy scalar per cell
        unknown = set(np.unique(self.terrain).tolist()) - member.keys()
        if unknown:
            raise ValueError(f"terrain values {sorted(unknown)} are not terrains ({list(member)})")
        if self.kind is GridKind.SQUARE:
            self._terrain_map = {
                (c, r): member[v] for r, row in enumerate(rows) for c, v in enumerate(row)
            }
        else:  # cell_at of a hex board: the row's offset of half a cell per row
            self._terrain_map = {
                (c - (r >> 1), r): member[v]
                for r, row in enumerate(rows)
                for c, v in enumerate(row)
            }

    # -- lookups ---------------------------------------------------------------------------

    @property
    def rules(self) -> RulesetRow:
        """The options of this battle's rule set."""
        return self._rules

    def creature(self, creature_id: str | Creature) -> Creature:
        """The creature with this id; a clear error names unknown ids."""
        if type(creature_id) is Creature:
            return creature_id
        try:
            return self.creatures[creature_id]  # type: ignore[index]
        except (KeyError, TypeError):
            known = ", ".join(self.creatures)
            raise RulesQueryError(f"no creature {creature_id!r} (creatures: {known})") from None

    def living(self) -> Iterator[Creature]:
        """Creatures with hit points above 0, in spec order."""
        return (c for c in self.creatures.values() if c.hp > 0)

    def column(self, pos: Pos) -> tuple[int, int]:
        """Array ``(row, col)`` of a cell (hex grids use an odd-r rectangular layout)."""
        if self.kind is GridKind.SQUARE:
            return pos[1], pos[0]
        return pos[1], pos[0] + (pos[1] >> 1)

    def cell_at(self, row: int, col: int) -> Pos:
        """The cell stored at an array ``(row, col)``."""
        if self.kind is GridKind.SQUARE:
            return (col, row)
        return (col - (row >> 1), row)

    def in_bounds(self, pos: Pos) -> bool:
        """Whether a cell is on the board."""
        row, col = self.column(pos)
        return 0 <= row < self.height and 0 <= col < self.width

    def terrain_at(self, pos: Pos) -> Terrain:
        """Terrain of a cell; cells off the board count as blocked."""
        return self._terrain_map.get(pos, Terrain.BLOCKED)

    def cells_of(self, creature: str | Creature, pos: Pos | None = None) -> tuple[Pos, ...]:
        """Cells a creature covers (at ``pos`` if given)."""
        c = self.creature(creature)
        return c.shape.cells(c.pos if pos is None else pos)

    def occupants(self, pos: Pos) -> list[str]:
        """Ids of living creatures whose space includes the cell."""
        return self._occupancy.get(pos, [])

    def table(self, creature: str | Creature) -> AreaTable | None:
        """The creature's area table, or None when it has no facing."""
        c = creature if type(creature) is Creature else self.creature(creature)
        key = (c.shape, c.facing, c.size, c.faceless)
        try:
            return self._tables[key]
        except KeyError:
            table = None
            if self._rules.has_facing and c.has_facing:
                table = geometry.area_table(self.kind, self.ruleset, c.shape, c.facing)
            self._tables[key] = table
            return table

    def facing_name(self, creature: str | Creature) -> str:
        """Name of a creature's facing, e.g. ``"NE"``."""
        return geometry.facing_names(self.kind)[self.creature(creature).facing]

    def distance(self, a: Pos, b: Pos) -> int:
        """Cells between two cells under this battle's diagonal rule."""
        return geometry.cell_distance(self.kind, a, b, self.diagonal_rule)

    def cells_distance(self, a: tuple[Pos, ...], b: tuple[Pos, ...]) -> int:
        """Smallest distance between two sets of cells."""
        return geometry.cells_distance(self.kind, a, b, self.diagonal_rule)

    # -- mutation --------------------------------------------------------------------------

    def rebuild_occupancy(self) -> None:
        """Recompute the cell -> creatures index from scratch."""
        occ: dict[Pos, list[str]] = {}
        for c in self.creatures.values():
            if c.hp > 0:
                for cell in c.shape.cells(c.pos):
                    occ.setdefault(cell, []).append(c.id)
        self._occupancy = occ

    def place(self, creature: str | Creature, pos: Pos, facing: int | None = None) -> None:
        """Move a creature to ``pos`` (and turn it), keeping the occupancy index."""
        c = self.creature(creature)
        if c.hp > 0:
            for cell in c.shape.cells(c.pos):
                self._occupancy[cell].remove(c.id)
            for cell in c.shape.cells(pos):
                self._occupancy.setdefault(cell, []).append(c.id)
        c.pos = pos
        if facing is not None:
            c.facing = facing

    def remove_dead(self, creature: str | Creature) -> None:
        """Drop a creature from the occupancy index once its hit points reach 0."""
        c = self.creature(creature)
        for cell in c.shape.cells(c.pos):
            if c.id in self._occupancy.get(cell, []):
                self._occupancy[cell].remove(c.id)

    def clone(self) -> Battle:
        """A fresh copy for a new episode: creatures copied; the terrain array, its index
        and the rules' caches of what the terrain and the creature specs imply shared."""
        battle = copy.copy(self)  # shares terrain, _terrain_map, _rules and the caches
        battle.creatures = {k: dataclasses.replace(c) for k, c in self.creatures.items()}
        battle._tables = {}
        battle.initiative = None
        battle.turn = None
        battle.heard = {}
        battle.last_seen = {}
        battle.spot_rolls = {}
        battle.rebuild_occupancy()
        return battle

    def snapshot(self) -> Battle:
        """An independent copy of what a battle changes (its creatures, the initiative and
        the turn) that shares what it does not: the board (read-only in the copy) and the
        rules' caches. What ``raw_env.battle`` hands out; several times faster than
        :meth:`copy`."""
        battle = copy.copy(self)
        battle.terrain = self.terrain.view()
        battle.terrain.flags.writeable = False
        battle.creatures = {k: copy.copy(c) for k, c in self.creatures.items()}
        battle._occupancy = {p: list(ids) for p, ids in self._occupancy.items()}
        battle.heard = {k: set(v) for k, v in self.heard.items()}
        battle.last_seen = {k: dict(v) for k, v in self.last_seen.items()}
        battle.spot_rolls = {k: dict(v) for k, v in self.spot_rolls.items()}
        init, ts = self.initiative, self.turn
        if init is not None:
            battle.initiative = dataclasses.replace(
                init, order=list(init.order), aoo_used=dict(init.aoo_used)
            )
        if ts is not None:
            battle.turn = dataclasses.replace(
                ts, remaining=list(ts.remaining), provoked=set(ts.provoked)
            )
        return battle

    def copy(self) -> Battle:
        """An independent copy (for search and tests; the engine never copies per step)."""
        return copy.deepcopy(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> Battle:
        """Copies the state; shares the rules' caches of what the (fixed) terrain and
        creature specs imply (``_charge_terrain``, ``_charge_geometry``, the answers per
        placement ``_charges``), which are large and never stale."""
        shared = {"_charge_terrain", "_charge_geometry", "_charges"}
        out = object.__new__(Battle)
        memo[id(self)] = out
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name in shared:
                setattr(out, f.name, value)
            else:
                setattr(out, f.name, copy.deepcopy(value, memo))
        return out

    # -- spec ------------------------------------------------------------------------------

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], *, file: str | None = None) -> Battle:
        """Build a battle from a spec dict (docs/design.md, battle specs); raise ScenarioError."""
        if not isinstance(spec, Mapping):
            raise ScenarioError(
                f"a battle spec must be a mapping, got {type(spec).__name__}", file=file
            )
        try:
            parsed = BattleSpec.model_validate(dict(spec))
        except ValidationError as exc:
            raise _scenario_error(exc, spec, file) from None
        try:
            return _build(parsed, explicit_grid="grid" in spec)
        except ScenarioError as exc:
            raise exc.with_file(file) if file else exc from None

    def to_spec(self) -> dict[str, Any]:
        """The spec of the current state; ``Battle.from_spec(b.to_spec())`` round-trips
        (except after mean dice, which leave fractions of hit points that a spec cannot
        hold: ``from_spec`` then names the field)."""
        terrain = [
            {"pos": list(self.cell_at(r, col)), "kind": Terrain(int(v)).name.lower()}
            for (r, col), v in np.ndenumerate(self.terrain)
            if v != Terrain.OPEN
        ]
        return {
            "ruleset": self.ruleset.value,
            "grid": {"kind": self.kind.value, "width": self.width, "height": self.height},
            "diagonal": self.diagonal_rule,
            "terrain": terrain,
            "creatures": [_creature_spec(self, c) for c in self.creatures.values()],
        }


# -- building -------------------------------------------------------------------------------


def agent_names(creatures: Iterable[Creature]) -> list[str]:
    """The env's agent names of these creatures, in their order: ``<team>_<n>``, n counting
    within the team (``raw_env.possible_agents``; the batched engine maps its slots by
    them)."""
    counts: dict[str, int] = {}
    names = []
    for c in creatures:
        names.append(f"{c.team}_{counts.get(c.team, 0)}")
        counts[c.team] = counts.get(c.team, 0) + 1
    return names


def _scenario_error(
    exc: ValidationError, raw: Mapping[str, Any], file: str | None
) -> ScenarioError:
    err = exc.errors()[0]
    loc = list(err["loc"])
    creature = None
    if loc[:1] == ["creatures"] and len(loc) > 1 and isinstance(loc[1], int):
        raw_creatures = raw.get("creatures") or []
        entry = raw_creatures[loc[1]] if loc[1] < len(raw_creatures) else None
        name = entry.get("id") if isinstance(entry, Mapping) else None
        creature = name if isinstance(name, str) and len(name) <= MAX_NAME else f"#{loc[1]}"
        loc = loc[2:]
    field_name = ".".join(str(p) for p in loc) or None
    msg = err["msg"].removeprefix("Value error, ")
    if err["type"] == "extra_forbidden":
        msg = "unknown field"
    elif err["type"] == "missing":
        msg = "required field is missing"
    if "input" in err and err["type"] not in ("missing",) and not isinstance(err["input"], dict):
        msg += f" (got {short_repr(err['input'])})"
    more = len(exc.errors()) - 1
    if more:
        msg += f" (and {more} more error{'s' if more > 1 else ''})"
    return ScenarioError(msg, file=file, creature=creature, field=field_name)


def _build(spec: BattleSpec, *, explicit_grid: bool) -> Battle:
    ruleset = Ruleset(spec.ruleset)
    kind = GridKind(spec.grid.kind)
    width, height = spec.grid.width, spec.grid.height
    rows: list[str] | None = None
    if spec.map is not None:
        rows = [line.strip() for line in spec.map.strip("\n").splitlines() if line.strip()]
        if not rows:
            raise ScenarioError("the map is empty", field="map")
        if len(rows) > MAX_SIDE or max(len(r) for r in rows) > MAX_SIDE:
            raise ScenarioError(
                f"the map is {max(len(r) for r in rows)}x{len(rows)} cells; boards have at most"
                f" {MAX_SIDE} cells a side",
                field="map",
            )
        if not explicit_grid:
            width, height = max(len(r) for r in rows), len(rows)
    terrain = np.zeros((height, width), dtype=np.int8)
    if rows is not None:
        if len(rows) != height or any(len(r) != width for r in rows):
            raise ScenarioError(
                f"map is {len(rows[0])}x{len(rows)} but the grid is {width}x{height}"
                if len({len(r) for r in rows}) == 1
                else f"map rows are ragged (lengths {sorted({len(r) for r in rows})})",
                field="map",
            )
        for r, line in enumerate(rows):
            for col, ch in enumerate(line):
                if ch not in TERRAIN_CHARS:
                    legend = " ".join(TERRAIN_CHARS)
                    raise ScenarioError(
                        f"unknown map character {ch!r} at row {r}, column {col} (legend: {legend})",
                        field="map",
                    )
                terrain[r, col] = TERRAIN_CHARS[ch]
    battle = Battle(
        ruleset, kind, width, height, spec.diagonal or RULESETS[ruleset].diagonal_rule, terrain, {}
    )
    for i, t in enumerate(spec.terrain):
        pos = (t.pos[0], t.pos[1])
        if not battle.in_bounds(pos):
            raise ScenarioError(
                f"position {list(pos)} is off the {width}x{height} board", field=f"terrain.{i}.pos"
            )
        battle.terrain[battle.column(pos)] = TERRAIN_NAMES[t.kind]
    for cs in spec.creatures:
        if cs.id in battle.creatures:
            raise ScenarioError("duplicate id", creature=cs.id, field="id")
        battle.creatures[cs.id] = _creature(battle, cs)
    battle.rebuild_terrain_index()
    check_placement(battle)
    battle.rebuild_occupancy()
    return battle


def _creature(battle: Battle, cs: CreatureSpec) -> Creature:
    size = Size.parse(cs.size)
    shape, pos = _shape_and_pos(battle, cs, size)
    reach = SIZES[size].reach if cs.reach is None else cs.reach
    attacks = cs.attacks if cs.attacks is not None else (AttackSpec(),)
    hp = cs.hp
    shieldless_ac = cs.ac - (cs.shield.bonus if cs.shield else 0)
    touch_ac = shieldless_ac if cs.touch_ac is None else cs.touch_ac
    if touch_ac > shieldless_ac:
        raise ScenarioError(
            f"touch AC {touch_ac} is above the AC without the shield ({shieldless_ac}); a touch"
            " attack only drops armor, shield and natural armor bonuses (SRD-TOUCH-01)",
            creature=cs.id,
            field="touch_ac",
        )
    return Creature(
        id=cs.id,
        team=cs.team if cs.team is not None else cs.id,
        size=size,
        pos=pos,
        facing=_facing(battle, cs, shape),
        hp=hp,
        max_hp=cs.max_hp if cs.max_hp is not None else max(hp, 1),
        ac=cs.ac,
        speed=cs.speed,
        dex=cs.dex,
        base_attack_bonus=cs.base_attack_bonus,
        attacks=tuple(_attack(a, reach) for a in attacks),
        feats=frozenset(cs.feats),
        sneak_attack=cs.sneak_attack,
        rogue_level=cs.rogue_level,
        improved_uncanny_dodge=cs.improved_uncanny_dodge,
        uncanny_dodge=cs.uncanny_dodge,
        immune_to_sneak_attack=cs.immune_to_sneak_attack,
        flat_footed=cs.flat_footed,
        all_around_vision=cs.all_around_vision,
        threatens=cs.threatens,
        armor=cs.armor,
        improved_chieftain=cs.improved_chieftain,
        pack_fighter_bonus=cs.pack_fighter_bonus,
        faceless=cs.faceless,
        shield=Shield(cs.shield.side, cs.shield.bonus) if cs.shield else None,
        spells=tuple(cs.spells),
        reach=reach,
        shape=shape,
        touch_ac=touch_ac,
        squeezing=cs.squeezing,
        player_character=cs.player_character,
        spot=cs.spot,
        hide=cs.hide,
        facing_given=cs.facing is not None or cs.front_side_hexes is not None,
    )


def _attack(a: AttackSpec, reach: int) -> Attack:
    zones = tuple(Area(z) for z in a.zones) if a.zones is not None else ()
    return Attack(
        a.name,
        a.bonus,
        a.damage,
        reach if a.reach is None else a.reach,
        a.kind,
        a.range,
        zones,
        a.threat_range,
        a.crit_multiplier,
        a.touch,
    )


def _shape_and_pos(battle: Battle, cs: CreatureSpec, size: Size) -> tuple[Shape, Pos]:
    pos = (cs.pos[0], cs.pos[1])
    shape = geometry.default_shape(battle.kind, size)
    if cs.hexes is None:
        if cs.front_side_hexes is not None:
            raise ScenarioError(
                "front_side_hexes needs hexes", creature=cs.id, field="front_side_hexes"
            )
        return shape, pos
    if battle.kind is not GridKind.HEX:
        raise ScenarioError("hexes is only for hex grids", creature=cs.id, field="hexes")
    wanted = {(h[0], h[1]) for h in cs.hexes}
    candidates = [shape, geometry.HEX_TRIANGLE_DOWN.get(size)]
    for cand in (c for c in candidates if c is not None):
        for h in wanted:
            anchor = (h[0] - cand.offsets[0][0], h[1] - cand.offsets[0][1])
            if set(cand.cells(anchor)) == wanted:
                if pos not in wanted:
                    raise ScenarioError(
                        f"pos {list(pos)} is not one of the hexes", creature=cs.id, field="pos"
                    )
                return cand, anchor
    raise ScenarioError(
        f"hexes {sorted(wanted)} are not a {size.label} footprint", creature=cs.id, field="hexes"
    )


def _facing(battle: Battle, cs: CreatureSpec, shape: Shape) -> int:
    names = geometry.facing_names(battle.kind)
    allowed = geometry.allowed_facings(battle.kind, battle.ruleset, shape)
    if cs.front_side_hexes is not None:
        anchor = _shape_and_pos(battle, cs, Size.parse(cs.size))[1]
        offsets = {(h[0] - anchor[0], h[1] - anchor[1]) for h in cs.front_side_hexes}
        if not offsets <= set(shape.offsets) or not 1 <= len(offsets) <= MAX_FRONT_SIDE_HEXES:
            raise ScenarioError(
                "front_side_hexes must be one or two of the creature's hexes",
                creature=cs.id,
                field="front_side_hexes",
            )
        return geometry.facing_from_front_hexes(shape, offsets)
    if cs.facing is None:
        return allowed[0] if battle.kind is GridKind.HEX else 0
    value = cs.facing
    if isinstance(value, str) and value.upper() in names:
        index = names.index(value.upper())
    elif isinstance(value, int) and 0 <= value < len(names):
        index = value
    else:
        raise ScenarioError(
            f"unknown facing {value!r}; expected one of {' '.join(names)}",
            creature=cs.id,
            field="facing",
        )
    size = Size.parse(cs.size)
    if SIZES[size].has_facing and not cs.faceless and index not in allowed:
        ok = " ".join(names[i] for i in allowed)
        raise ScenarioError(
            f"facing {names[index]} is not allowed for this creature here (allowed: {ok})"
            + (
                "; IC-11: multi-square creatures face orthogonally under side_rear"
                if battle.kind is GridKind.SQUARE
                else "; single hexes face a neighbour, triangles a corner"
            ),
            creature=cs.id,
            field="facing",
        )
    return index


def check_placement(battle: Battle) -> None:
    """Spaces on the board, off blocked terrain, and shared only by creatures two or more
    size categories apart (EP-STEP-01, EP-CLAMBER-01; dead creatures take no space)."""
    seen: dict[Pos, list[Creature]] = {}
    for c in battle.creatures.values():
        for cell in c.shape.cells(c.pos):
            if not battle.in_bounds(cell):
                raise ScenarioError(
                    f"space {list(cell)} is off the {battle.width}x{battle.height} board",
                    creature=c.id,
                    field="pos",
                )
            if battle.terrain_at(cell) in (Terrain.BLOCKED, Terrain.PILLAR):
                raise ScenarioError(
                    f"space {list(cell)} is blocked terrain", creature=c.id, field="pos"
                )
            if c.hp <= 0:
                continue
            for other in seen.get(cell, ()):
                if not c.can_share_space(other):
                    raise ScenarioError(
                        f"space {list(cell)} overlaps creature {other.id!r}; only creatures two"
                        " or more size categories apart may share squares (EP-STEP-01)",
                        creature=c.id,
                        field="pos",
                    )
            seen.setdefault(cell, []).append(c)


def _creature_spec(battle: Battle, c: Creature) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": c.id,
        "team": c.team,
        "size": c.size.label,
        "pos": list(c.pos),
        "facing": geometry.facing_names(battle.kind)[c.facing],
        "hp": c.hp,
        "max_hp": c.max_hp,
        "ac": c.ac,
        "touch_ac": c.touch_ac,
        "speed": c.speed,
        "dex": c.dex,
        "base_attack_bonus": c.base_attack_bonus,
        "attacks": [
            {
                "name": a.name,
                "bonus": a.bonus,
                "damage": a.damage,
                "reach": a.reach,
                "kind": a.kind,
                "range": a.range,
                "threat_range": a.threat_range,
                "crit_multiplier": a.crit_multiplier,
                **({"touch": True} if a.touch else {}),
                **({"zones": [z.value for z in a.zones]} if a.zones else {}),
            }
            for a in c.attacks
        ],
        "feats": sorted(c.feats),
        "rogue_level": c.rogue_level,
        "uncanny_dodge": c.uncanny_dodge,
        "immune_to_sneak_attack": c.immune_to_sneak_attack,
        "flat_footed": c.flat_footed,
        "squeezing": c.squeezing,
        **({"player_character": True} if c.player_character else {}),
        **({"spot": c.spot} if c.spot else {}),
        **({"hide": c.hide} if c.hide else {}),
        "all_around_vision": c.all_around_vision,
        "threatens": c.threatens,
        "armor": c.armor,
        "improved_chieftain": c.improved_chieftain,
        "pack_fighter_bonus": c.pack_fighter_bonus,
        "faceless": c.faceless,
        "spells": list(c.spells),
        "reach": c.reach,
    }
    if c.sneak_attack is not None:
        out["sneak_attack"] = c.sneak_attack
    if c.improved_uncanny_dodge is not None:
        out["improved_uncanny_dodge"] = c.improved_uncanny_dodge
    if c.shield is not None:
        out["shield"] = {"side": c.shield.side, "bonus": c.shield.bonus}
    if battle.kind is GridKind.HEX and c.shape != geometry.default_shape(battle.kind, c.size):
        out["hexes"] = [list(h) for h in c.shape.cells(c.pos)]
    return out
