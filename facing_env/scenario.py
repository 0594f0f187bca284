"""Scenarios: YAML files validated with clear errors, a registry, and a seeded generator.

A scenario is a battle spec (docs/design.md, battle specs) plus episode settings: ``name``,
``description``, ``max_rounds``, ``dice`` (``roll``, ``expected``, ``deck`` or ``mean``:
:mod:`facing_env.rules.dice`), ``perception`` (``full``, ``facing`` or ``spot``:
:class:`~facing_env.types.Perception`, issue 36), reward ``weights`` and the
``observation`` window. Creatures may
start from a bestiary stat block with ``template: NAME`` (``configs/bestiary.yaml``). A
``generator`` section instead of ``creatures`` makes a procedural scenario: every reset
draws a new battle from the env's seeded generator. Files are read with
``yaml.safe_load``; nothing in them is executed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Annotated, Any, Literal, Mapping, Optional

import numpy as np
import yaml
from pydantic import (
    Field,
    Strict,
    ValidationError,
    field_validator,
    model_validator,
)

from facing_env.errors import ScenarioError
from facing_env.limits import (
    MAX_CREATURES,
    MAX_LIST,
    MAX_NESTING,
    MAX_REWARD,
    MAX_ROUNDS,
    MAX_SCENARIO_BYTES,
    MAX_SIDE,
    MAX_TEAMS,
    MAX_TEXT,
    MAX_YAML_NODES,
    read_bounded,
    short_repr,
)
from facing_env.rules import geometry
from facing_env.rules.battle import Battle
from facing_env.spec import Name, StrictModel
from facing_env.types import GridKind, Perception, Size

CONFIG_DIR = Path(__file__).with_name("configs")
BESTIARY_FILE = CONFIG_DIR / "bestiary.yaml"
DEFAULT_SCENARIO = "duel"
_BATTLE_KEYS = ("ruleset", "grid", "diagonal", "map", "terrain", "creatures")
MIN_GENERATED_SIDE = 4  # each team starts in a two-row band at one edge of the board


Weight = Annotated[float, Strict(), Field(allow_inf_nan=False, ge=-MAX_REWARD, le=MAX_REWARD)]
"""A reward weight: a finite number (not a boolean) of at most ``MAX_REWARD``."""
Range = tuple[Annotated[int, Strict()], Annotated[int, Strict()]]


class RewardWeights(StrictModel):
    """Reward weights (``rewards.py``): per hit point, per kill, per outcome, and per
    attack chosen from the defender's flank (or side) or rear, paid to the attacker
    (``flank_attack``, ``rear_attack``) and to the defender (``*_taken``, usually
    negative): positional shaping, 0 by default."""

    damage_dealt: Weight = 0.05
    damage_taken: Weight = 0.0
    kill: Weight = 0.5
    victory: Weight = 1.0
    defeat: Weight = -1.0
    draw: Weight = 0.0
    flank_attack: Weight = 0.0
    rear_attack: Weight = 0.0
    flank_attack_taken: Weight = 0.0
    rear_attack_taken: Weight = 0.0


def reward_weights(base: RewardWeights, overrides: Mapping[str, float]) -> RewardWeights:
    """``base`` with some weights replaced; an unknown name or a value that is not a finite
    number is a ``ValueError`` naming it."""
    if not isinstance(overrides, Mapping):
        got = short_repr(overrides)
        raise ValueError(f"rewards must be a mapping of weight names to numbers, got {got}")
    known = RewardWeights.model_fields
    unknown = sorted(str(k) for k in overrides if k not in known)
    if unknown:
        raise ValueError(f"rewards: unknown weights {unknown} (known: {', '.join(known)})")
    try:
        return RewardWeights(**{**base.model_dump(), **overrides})
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(x) for x in err["loc"])
        got = short_repr(err.get("input"))
        raise ValueError(f"rewards.{field}: {err['msg']}, got {got}") from None


class ObservationSpec(StrictModel):
    """Observation options: the side of the egocentric window (odd) and the table size."""

    window: Annotated[int, Strict(), Field(ge=3, le=63)] = 11
    max_creatures: Optional[Annotated[int, Strict(), Field(ge=2, le=MAX_CREATURES)]] = None

    @field_validator("window")
    @classmethod
    def _odd(cls, v: int) -> int:
        if v % 2 == 0:
            raise ValueError(f"the window is centred on the acting creature: an odd side, got {v}")
        return v


class GeneratorSpec(StrictModel):
    """Procedural battles: teams drawn from the bestiary on a random board. The ranges are
    ``[low, high]``, both included."""

    teams: tuple[Name, ...] = Field(default=("red", "blue"), min_length=2, max_length=MAX_TEAMS)
    team_size: Range = (1, 3)
    bestiary: tuple[Name, ...] = Field(
        default=("fighter", "rogue", "cleric", "gnoll", "wolf"), min_length=1, max_length=MAX_LIST
    )
    width: Range = (8, 14)
    height: Range = (8, 14)
    terrain_density: Annotated[float, Strict(), Field(ge=0.0, le=0.5)] = 0.08
    ruleset: Literal["ua35", "side_rear", "standard"] = "ua35"
    grid: Literal["square", "hex"] = "square"

    @field_validator("teams")
    @classmethod
    def _distinct(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        if len(set(v)) != len(v):
            raise ValueError(f"team names must differ, got {list(v)}")
        return v

    @field_validator("team_size")
    @classmethod
    def _team_size(cls, v: tuple[int, int]) -> tuple[int, int]:
        if not 1 <= v[0] <= v[1]:
            raise ValueError(f"expected [low, high] with 1 <= low <= high, got {list(v)}")
        return v

    @field_validator("width", "height")
    @classmethod
    def _side(cls, v: tuple[int, int]) -> tuple[int, int]:
        if not MIN_GENERATED_SIDE <= v[0] <= v[1] <= MAX_SIDE:
            raise ValueError(
                f"expected [low, high] with {MIN_GENERATED_SIDE} <= low <= high <= {MAX_SIDE},"
                f" got {list(v)}"
            )
        return v

    @model_validator(mode="after")
    def _creatures(self) -> GeneratorSpec:
        most = len(self.teams) * self.team_size[1]
        if most > MAX_CREATURES:
            raise ValueError(
                f"{len(self.teams)} teams of up to {self.team_size[1]} creatures make {most};"
                f" a battle has at most {MAX_CREATURES}"
            )
        return self


class ScenarioFile(StrictModel):
    """Top-level keys of a scenario file besides the battle spec."""

    name: Name
    description: Annotated[str, Strict(), Field(max_length=MAX_TEXT)] = ""
    max_rounds: Annotated[int, Strict(), Field(ge=1, le=MAX_ROUNDS)] = 30
    dice: Literal["roll", "expected", "deck", "mean"] = "roll"
    perception: Literal["full", "facing", "spot"] = "full"
    rewards: RewardWeights = RewardWeights()
    observation: ObservationSpec = ObservationSpec()
    generator: Optional[GeneratorSpec] = None


@dataclass
class Scenario:
    """A validated scenario: settings and a way to build a fresh battle for each episode."""

    name: str
    description: str
    max_rounds: int
    dice: str
    rewards: RewardWeights
    observation: ObservationSpec
    spec: dict[str, Any] | None = None  # the battle spec (static scenarios)
    generator: GeneratorSpec | None = None
    source: str = "<dict>"
    perception: str = "full"
    """What creatures perceive of their foes (:class:`~facing_env.types.Perception`)."""
    _template: Battle | None = field(default=None, repr=False)

    def build(self, rng: np.random.Generator) -> Battle:
        """A fresh battle: a copy of the static battle, or a new procedural one."""
        if self.generator is not None:
            spec = generate_spec(self.generator, rng, self.source)
            battle = Battle.from_spec(spec, file=self.source)
        else:
            if self._template is None:
                self._template = Battle.from_spec(self.spec or {}, file=self.source)
            battle = self._template.clone()
        battle.perception = Perception(self.perception)
        return battle

    @property
    def teams(self) -> tuple[str, ...]:
        """Team names in order of first appearance."""
        if self.generator is not None:
            return self.generator.teams
        teams: list[str] = []
        for c in (self.spec or {}).get("creatures", []):
            team = c.get("team", c["id"])
            if team not in teams:
                teams.append(team)
        return tuple(teams)

    def max_creatures(self) -> int:
        """Slots in the observation's creature table."""
        if self.observation.max_creatures is not None:
            return self.observation.max_creatures
        if self.generator is not None:
            return len(self.generator.teams) * self.generator.team_size[1]
        return len((self.spec or {}).get("creatures", []))


@cache
def bestiary() -> Mapping[str, Mapping[str, Any]]:
    """The stat blocks of ``configs/bestiary.yaml``."""
    data = _read_yaml(BESTIARY_FILE)
    if not isinstance(data, dict):
        raise ScenarioError(
            "the bestiary must be a mapping of name -> stat block", file=str(BESTIARY_FILE)
        )
    return data


class _UniqueKeyLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that rejects a key given twice in one mapping (YAML would keep
    the last one silently), nesting deeper than :data:`~facing_env.limits.MAX_NESTING` and
    documents of more than :data:`~facing_env.limits.MAX_YAML_NODES` nodes, counting each
    alias as the nodes it repeats (an alias bomb is refused before it is expanded)."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        self._nodes = 0
        self._sizes: dict[int, int] = {}  # id(node) -> nodes it holds, once composed

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent):
            node = self.anchors.get(event.anchor)
            if node is not None:
                size = self._sizes.get(id(node))
                if size is None:
                    raise yaml.composer.ComposerError(
                        None, None, "an alias inside its own anchor", event.start_mark
                    )
                self._count(size, event)
            return super().compose_node(parent, index)
        self._depth += 1
        if self._depth > MAX_NESTING:
            raise yaml.composer.ComposerError(
                None, None, f"nested deeper than {MAX_NESTING} levels", event.start_mark
            )
        before = self._nodes
        node = super().compose_node(parent, index)
        self._depth -= 1
        self._count(1, event)
        self._sizes[id(node)] = self._nodes - before
        return node

    def _count(self, nodes: int, event: Any) -> None:
        self._nodes += nodes
        if self._nodes > MAX_YAML_NODES:
            raise yaml.composer.ComposerError(
                None,
                None,
                f"more than {MAX_YAML_NODES} values (aliases count as what they repeat)",
                event.start_mark,
            )

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if isinstance(key, (str, int, float, bool)) and key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {short_repr(key)}", key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def _yaml_problem(exc: yaml.YAMLError) -> str:
    """A YAML error on one line: the problem and where it is."""
    if isinstance(exc, yaml.MarkedYAMLError) and exc.problem:
        mark = exc.problem_mark
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        return f"{exc.problem}{where}"
    return " ".join(str(exc).split())


def _read_yaml(path: Path) -> Any:
    try:
        data = read_bounded(path, MAX_SCENARIO_BYTES)
    except ValueError as exc:  # no file, not a regular file, too large
        raise ScenarioError(str(exc), file=str(path)) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ScenarioError(
            f"not UTF-8 text ({exc.reason} at byte {exc.start})", file=str(path)
        ) from None
    try:
        return yaml.load(text, Loader=_UniqueKeyLoader)  # a SafeLoader: nothing is executed
    except yaml.YAMLError as exc:
        raise ScenarioError(f"not valid YAML: {_yaml_problem(exc)}", file=str(path)) from None
    except ValueError as exc:  # an integer of more digits than Python converts
        raise ScenarioError(f"not valid YAML: {exc}", file=str(path)) from None


def _expand_templates(creatures: Any, source: str) -> Any:
    if not isinstance(creatures, list):
        return creatures
    out = []
    for i, c in enumerate(creatures):
        if isinstance(c, dict) and "template" in c:
            name = c["template"]
            block = bestiary().get(name) if isinstance(name, str) else None
            if block is None:
                known = ", ".join(sorted(bestiary()))
                ident = c.get("id")
                raise ScenarioError(
                    f"unknown template {short_repr(name)} (bestiary: {known})",
                    file=source,
                    creature=ident if isinstance(ident, str) else f"#{i}",
                    field="template",
                )
            c = {**block, **{k: v for k, v in c.items() if k != "template"}}
        out.append(c)
    return out


def scenario_from_dict(data: Any, source: str = "<dict>") -> Scenario:
    """Validate a scenario mapping (as read from YAML) and build a :class:`Scenario`."""
    if not isinstance(data, dict):
        raise ScenarioError("a scenario must be a mapping at the top level", file=source)
    settings = {k: v for k, v in data.items() if k not in _BATTLE_KEYS}
    try:
        parsed = ScenarioFile.model_validate(settings)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or None
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            msg = "unknown field"
        elif "got" not in msg and not isinstance(err.get("input"), (dict, list)):
            msg = f"{msg}, got {short_repr(err.get('input'))}"
        raise ScenarioError(msg, file=source, field=where) from None
    spec = {k: v for k, v in data.items() if k in _BATTLE_KEYS}
    if parsed.generator is not None and spec:
        raise ScenarioError(
            f"{sorted(spec)} would be ignored: a procedural scenario draws its battles from"
            " its generator section (its own grid, ruleset and board), so it takes no battle"
            " keys",
            file=source,
            field="generator",
        )
    if "creatures" in spec:
        spec["creatures"] = _expand_templates(spec["creatures"], source)
    scenario = Scenario(
        parsed.name,
        parsed.description,
        parsed.max_rounds,
        parsed.dice,
        parsed.rewards,
        parsed.observation,
        spec,
        parsed.generator,
        source,
        parsed.perception,
    )
    if parsed.generator is None:
        battle = Battle.from_spec(spec, file=source)
        teams = {c.team for c in battle.creatures.values()}
        if len(teams) <= 1:
            raise ScenarioError(
                "a scenario needs creatures of at least two teams", file=source, field="creatures"
            )
        _check_separate_spaces(battle, source)
        for c in battle.creatures.values():
            if c.hp <= 0:
                raise ScenarioError(
                    f"starts with {c.hp} hit points; every creature of a scenario starts alive",
                    file=source,
                    creature=c.id,
                    field="hp",
                )
        scenario._template = battle
        count = len(battle.creatures)
    else:
        _check_generator(parsed.generator, source)
        _check_room(parsed.generator, source)
        count = len(parsed.generator.teams) * parsed.generator.team_size[1]
    if scenario.max_creatures() < count:
        raise ScenarioError(
            f"{scenario.max_creatures()} table rows for up to {count} creatures; every"
            " creature needs a row (it is the target of an ATTACK action)",
            file=source,
            field="observation.max_creatures",
        )
    return scenario


def _check_generator(gen: GeneratorSpec, source: str) -> None:
    """Every bestiary entry exists and its space fits the smallest board the generator can
    draw: within the width, and in the two-row start band at each edge without the two
    bands meeting. The hex generator places single hexes (Large creatures play as Medium)."""
    for name in gen.bestiary:
        if name not in bestiary():
            raise ScenarioError(
                f"unknown bestiary entry {name!r}", file=source, field="generator.bestiary"
            )
        size = Size.parse(bestiary()[name].get("size", "Medium"))
        if gen.grid == "hex":
            if size > Size.LARGE:
                raise ScenarioError(
                    f"{name!r} is {size.label}: the hex generator places creatures up to Large"
                    " (which play as Medium)",
                    file=source,
                    field="generator.bestiary",
                )
            continue
        side = _square_side(size)
        if side > gen.width[0] or 2 * (side + 1) > gen.height[0]:
            raise ScenarioError(
                f"{name!r} ({size.label}, {side}x{side}) does not fit the smallest board"
                f" {gen.width[0]}x{gen.height[0]}: it needs a width of {side} and a height of"
                f" {2 * (side + 1)}",
                file=source,
                field="generator.bestiary",
            )


def _check_room(gen: GeneratorSpec, source: str) -> None:
    """Every team's first creature always finds room, whatever the draws: refused at load
    otherwise (a battle that cannot be placed would fail at a later ``reset``).

    The generator puts a team's first creature anywhere its space is free when the team's
    rows are full (:func:`generate_spec`). Cut the smallest board into disjoint blocks of
    the largest creature's side ``s``: a creature of side at most ``s`` overlaps at most
    four of them, so while fewer than a quarter of the blocks are touched one stays free,
    and the first creature of team ``t`` (at most ``t`` teams of ``team_size[1]`` before
    it) fits there. Terrain never blocks a creature (it is cleared under it)."""
    side = 1
    if gen.grid == "square":
        sizes = (Size.parse(bestiary()[n].get("size", "Medium")) for n in gen.bestiary)
        side = max(_square_side(size) for size in sizes)
    blocks = (gen.width[0] // side) * (gen.height[0] // side)
    before = (len(gen.teams) - 1) * gen.team_size[1]  # creatures before the last team's first
    touched = before if side == 1 else 4 * before
    if touched >= blocks:
        raise ScenarioError(
            f"{len(gen.teams)} teams of up to {gen.team_size[1]} creatures of up to"
            f" {side}x{side} squares may leave no room for a team on the smallest board"
            f" {gen.width[0]}x{gen.height[0]}; make the boards bigger or the teams smaller",
            file=source,
            field="generator",
        )


def _square_side(size: Size) -> int:
    """Side in squares of a creature's space on the square grid."""
    return 1 + max(dy for _, dy in geometry.default_shape(GridKind.SQUARE, size).offsets)


def _check_separate_spaces(battle: Battle, source: str) -> None:
    """Playable scenarios keep every creature in a space of its own: ``Battle.from_spec``
    accepts a creature inside one two or more sizes larger (EP-STEP-01, EP-CLAMBER-01) for
    rule queries, but the turn engine does not play battles that start that way."""
    seen: dict[tuple[int, int], str] = {}
    for c in battle.living():
        for cell in battle.cells_of(c):
            if cell in seen:
                raise ScenarioError(
                    f"space {list(cell)} is shared with creature {seen[cell]!r}; creatures"
                    " sharing squares (EP-STEP-01) are for rule queries, the turn engine"
                    " does not play them",
                    file=source,
                    creature=c.id,
                    field="pos",
                )
            seen[cell] = c.id


def load_scenario(name_or_path: str | Path) -> Scenario:
    """Load a built-in scenario by name (see :func:`scenario_names`) or a YAML file path."""
    if "\0" in str(name_or_path):
        raise ScenarioError(f"a scenario name or path has no NUL: {short_repr(name_or_path)}")
    path = Path(name_or_path)
    if not path.suffix:
        candidate = CONFIG_DIR / f"{name_or_path}.yaml"
        if _exists(candidate):
            path = candidate
        elif not _exists(path):
            known = ", ".join(scenario_names())
            raise ScenarioError(
                f"unknown scenario {short_repr(str(name_or_path))} (built-in: {known})"
            )
    return scenario_from_dict(_read_yaml(path), source=str(path))


def _exists(path: Path) -> bool:
    """Whether anything (a file, folder, FIFO, device) is at the path; a name too long
    for the system is not."""
    try:
        return os.path.lexists(path)
    except (OSError, ValueError):
        return False


def scenario_names() -> tuple[str, ...]:
    """Names of the built-in scenarios (the files in ``configs/`` but the bestiary)."""
    return tuple(sorted(p.stem for p in CONFIG_DIR.glob("*.yaml") if p != BESTIARY_FILE))


# -- procedural generation ------------------------------------------------------------------


def _rint(rng: np.random.Generator, bounds: tuple[int, int]) -> int:
    return int(rng.integers(bounds[0], bounds[1] + 1))


def _free_spot(
    rng: np.random.Generator,
    taken: set[tuple[int, int]],
    rows: tuple[int, int],
    side: int,
    width: int,
    height: int,
    anywhere: bool,
) -> tuple[int, int] | None:
    """An anchor (column, row) for a ``side x side`` space on the board and off ``taken``:
    random tries in ``rows`` first, then every anchor of those rows in order, then (if
    ``anywhere``) every other anchor of the board."""

    def free(x: int, y: int) -> bool:
        cells = [(x + i, y + j) for i in range(side) for j in range(side)]
        return all(
            0 <= cx < width and 0 <= cy < height and (cx, cy) not in taken for cx, cy in cells
        )

    for _ in range(200):
        y = int(rng.integers(rows[0], rows[1] + 1))
        x = int(rng.integers(0, width))
        if free(x, y):
            return x, y
    order = [y for y in rows if y < height]
    if anywhere:
        order += [y for y in range(height) if y not in rows]
    return next(((x, y) for y in order for x in range(width) if free(x, y)), None)


def generate_spec(
    gen: GeneratorSpec, rng: np.random.Generator, source: str = "<generator>"
) -> dict[str, Any]:
    """A random battle spec: board, scattered terrain and teams facing each other.

    Each team starts in the two rows at one edge (top for even, bottom for odd team
    indices); a creature goes where its whole space is free of other creatures (terrain
    under it is cleared), trying random spots first and then every spot of its rows in
    order; a team's first creature may go anywhere if its rows are full. A team that gets
    no creature at all raises :class:`ScenarioError`."""
    width, height = _rint(rng, gen.width), _rint(rng, gen.height)
    kinds = ("pillar", "difficult", "blocked")
    n_cells = int(gen.terrain_density * width * height)
    terrain = {}
    for _ in range(n_cells):
        pos = (int(rng.integers(0, width)), int(rng.integers(1, max(height - 1, 2))))
        terrain[pos] = kinds[int(rng.integers(0, len(kinds)))]
    creatures: list[dict[str, Any]] = []
    taken: set[tuple[int, int]] = set()
    facings = ("S", "N") if gen.grid == "square" else ("SE", "NW")
    for t, team in enumerate(gen.teams):
        n = _rint(rng, gen.team_size)
        placed = 0
        for i in range(n):
            name = gen.bestiary[int(rng.integers(0, len(gen.bestiary)))]
            block = dict(bestiary()[name])
            side = 1
            if gen.grid == "hex":
                block["size"] = "Medium" if block.get("size") == "Large" else block.get("size")
            else:
                side = _square_side(Size.parse(block.get("size", "Medium")))
            top = 0 if t % 2 == 0 else max(height - side - 1, 0)  # rows of the anchor
            spot = _free_spot(rng, taken, (top, top + 1), side, width, height, placed == 0)
            if spot is None:
                continue
            x, y = spot
            taken |= {(x + i2, y + j2) for i2 in range(side) for j2 in range(side)}
            placed += 1
            creatures.append(
                {
                    **block,
                    "id": f"{team}_{name}_{i}",
                    "team": team,
                    "pos": [x - (y >> 1) if gen.grid == "hex" else x, y],
                    "facing": facings[t % 2],
                }
            )
        if placed == 0:
            raise ScenarioError(
                f"no room for any creature of team {team!r} on a {width}x{height} board;"
                " make the boards bigger or the teams smaller",
                file=source,
                field="generator",
            )
    return {
        "ruleset": gen.ruleset,
        "grid": {"kind": gen.grid, "width": width, "height": height},
        "terrain": [
            {"pos": [p[0] - (p[1] >> 1) if gen.grid == "hex" else p[0], p[1]], "kind": k}
            for p, k in terrain.items()
            if p not in taken
        ],
        "creatures": creatures,
    }
