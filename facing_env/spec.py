"""The battle spec schema (docs/design.md, battle specs), validated with pydantic.

Only ``id``, ``size`` and ``pos`` of a creature are required; every other field has a
documented default, so a rules question can be asked with a tiny spec. Unknown fields are
errors. :func:`facing_env.rules.battle.Battle.from_spec` turns validated specs into state.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal, Optional

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    Strict,
    field_validator,
    model_validator,
)

from facing_env.limits import (
    MAX_ABILITY,
    MAX_ATTACKS,
    MAX_BONUS,
    MAX_COORD,
    MAX_CREATURES,
    MAX_DICE,
    MAX_DICE_TEXT,
    MAX_DIE_SIDES,
    MAX_HP,
    MAX_LEVEL,
    MAX_LIST,
    MAX_MAP_CHARS,
    MAX_NAME,
    MAX_RANGE,
    MAX_REACH,
    MAX_SIDE,
    MAX_SPEED,
    MAX_TERRAIN,
    short_repr,
)
from facing_env.tables import FEATS
from facing_env.types import Size

N_SQUARE_FACINGS = 8
"""Facings given as numbers are 0..7 (square directions; hex uses 0..5)."""

DICE_RE = re.compile(r"^\s*(\d+)d(\d+)\s*([+-]\s*\d+)?\s*$|^\s*(\d+)\s*$")
AREA_NAMES = ("front", "flank", "side", "rear")

# Bounded field types (limits in facing_env.limits): integers and booleans are strict (a
# YAML ``true`` is not 1, ``1`` is not true), names are short, coordinates bounded.
Bool = Annotated[bool, Strict()]


def _printable(name: str) -> str:
    """A name with no control characters (names are printed and end up in agent names)."""
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in name):  # noqa: PLR2004
        raise ValueError("a name may not hold control characters")
    return name


Name = Annotated[
    str, Strict(), Field(min_length=1, max_length=MAX_NAME), AfterValidator(_printable)
]
Coord = Annotated[int, Strict(), Field(ge=-MAX_COORD, le=MAX_COORD)]
Cell = tuple[Coord, Coord]
Bonus = Annotated[int, Strict(), Field(ge=-MAX_BONUS, le=MAX_BONUS)]
Level = Annotated[int, Strict(), Field(ge=0, le=MAX_LEVEL)]
Reach = Annotated[int, Strict(), Field(ge=0, le=MAX_REACH)]
Side = Annotated[int, Strict(), Field(ge=1, le=MAX_SIDE)]


class StrictModel(BaseModel):
    """The one base of every validated file model (scenarios, battle specs, replay records):
    unknown fields are refused, models are frozen. Scalars are made strict per field
    (``Strict()`` in the aliases above); a model whose every field is strict sets
    ``model_config = ConfigDict(strict=True)`` on top."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def check_dice(value: str) -> str:
    """Validate a dice expression such as ``1d8+3``, ``2d6`` or ``4``: 1 to
    :data:`~facing_env.limits.MAX_DICE` dice of 1 to
    :data:`~facing_env.limits.MAX_DIE_SIDES` sides, a bonus of at most
    :data:`~facing_env.limits.MAX_BONUS`."""
    if not isinstance(value, str) or len(value) > MAX_DICE_TEXT or not DICE_RE.match(value):
        raise ValueError(f"bad dice expression {short_repr(value)}; expected e.g. '1d8+3' or '2d6'")
    m = DICE_RE.match(value)
    assert m is not None
    if m.group(4) is not None:
        if int(m.group(4)) > MAX_BONUS:
            raise ValueError(f"dice expression {value!r}: at most {MAX_BONUS}")
    else:
        count, sides = int(m.group(1)), int(m.group(2))
        bonus = int(m.group(3).replace(" ", "")) if m.group(3) else 0
        if not 1 <= count <= MAX_DICE:
            raise ValueError(f"dice expression {value!r}: roll 1 to {MAX_DICE} dice")
        if not 1 <= sides <= MAX_DIE_SIDES:
            raise ValueError(f"dice expression {value!r}: dice have 1 to {MAX_DIE_SIDES} sides")
        if abs(bonus) > MAX_BONUS:
            raise ValueError(f"dice expression {value!r}: the bonus is at most {MAX_BONUS}")
    return value.replace(" ", "")


class AttackSpec(StrictModel):
    """One attack of a creature."""

    name: Name = "attack"
    bonus: Bonus = 0  # attack bonus without the size modifier (added by the rules)
    damage: str = "1d6"
    reach: Optional[Reach] = None  # feet; None = the creature's reach
    kind: Literal["melee", "ranged"] = "melee"
    range: Annotated[int, Strict(), Field(ge=5, le=MAX_RANGE)] = 100  # feet, ranged only
    zones: Optional[tuple[Literal["front", "flank", "side", "rear"], ...]] = Field(
        default=None, max_length=len(AREA_NAMES)
    )
    threat_range: Annotated[int, Strict(), Field(ge=2, le=20)] = 20  # threatens a crit
    crit_multiplier: Annotated[int, Strict(), Field(ge=2, le=6)] = 2
    touch: Bool = False  # a touch attack: the target's touch AC applies (SRD-TOUCH-01)

    @field_validator("damage")
    @classmethod
    def _damage(cls, v: str) -> str:
        return check_dice(v)


class ShieldSpec(StrictModel):
    """A carried shield: the arm it is on and its AC bonus (UA-SHLD-01, UA-SHLD-02)."""

    side: Literal["left", "right"]
    bonus: Annotated[int, Strict(), Field(ge=0, le=MAX_BONUS)]


class CreatureSpec(StrictModel):
    """One creature (docs/design.md, battle specs)."""

    id: Name
    size: str | int
    pos: Cell
    team: Optional[Name] = None  # default: the id (all creatures without a team are foes)
    facing: Optional[str | int] = None  # default N (square) or E (hex)
    hp: Annotated[int, Strict(), Field(ge=-MAX_HP, le=MAX_HP)] = 10
    max_hp: Optional[Annotated[int, Strict(), Field(ge=1, le=MAX_HP)]] = None
    ac: Bonus = 10
    touch_ac: Optional[Bonus] = None  # AC against touch attacks; default: ac less the shield
    speed: Annotated[int, Strict(), Field(ge=0, le=MAX_SPEED)] = 30
    dex: Annotated[int, Strict(), Field(ge=0, le=MAX_ABILITY)] = 10
    base_attack_bonus: Level = 0
    attacks: Optional[tuple[AttackSpec, ...]] = Field(
        default=None, min_length=1, max_length=MAX_ATTACKS
    )
    feats: tuple[Name, ...] = Field(default=(), max_length=MAX_LIST)
    sneak_attack: Optional[str] = None
    rogue_level: Level = 0
    improved_uncanny_dodge: Optional[Level] = None
    uncanny_dodge: Bool = False
    immune_to_sneak_attack: Bool = False
    flat_footed: Bool = False
    squeezing: Bool = False  # -4 to attack rolls and AC (EP-SQZ-01)
    player_character: Bool = False  # may trade attacks for 5-foot steps (EP-5FT-02)
    all_around_vision: Bool = False
    spot: Bonus = 0  # Spot skill modifier (perception="spot", issue 36)
    hide: Bonus = 0  # Hide skill modifier (perception="spot", issue 36)
    threatens: Bool = True
    armor: Literal["none", "light", "medium", "heavy"] = "none"
    improved_chieftain: Bool = False
    pack_fighter_bonus: Annotated[int, Strict(), Field(ge=0, le=MAX_BONUS)] = 0
    faceless: Bool = False
    shield: Optional[ShieldSpec] = None
    spells: tuple[Literal["shield"], ...] = Field(default=(), max_length=MAX_LIST)
    reach: Optional[Reach] = None
    hexes: Optional[tuple[Cell, ...]] = Field(default=None, max_length=MAX_LIST)
    front_side_hexes: Optional[tuple[Cell, ...]] = Field(default=None, max_length=MAX_LIST)

    @field_validator("size", mode="before")  # before: a YAML ``true`` is not size 1
    @classmethod
    def _size(cls, v: object) -> str:
        return Size.parse(v).label

    @field_validator("facing", mode="before")  # before: a YAML ``true`` is not facing 1
    @classmethod
    def _facing(cls, v: object) -> object:
        ok_text = isinstance(v, str) and len(v) <= MAX_NAME
        ok_number = isinstance(v, int) and not isinstance(v, bool) and 0 <= v < N_SQUARE_FACINGS
        if v is not None and not ok_text and not ok_number:
            raise ValueError(f"unknown facing {short_repr(v)}; expected a direction name")
        return v

    @field_validator("feats")
    @classmethod
    def _feats(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        for feat in v:
            if feat not in FEATS:
                raise ValueError(f"unknown feat {feat!r}; known feats: {', '.join(FEATS)}")
        return v

    @field_validator("sneak_attack")
    @classmethod
    def _sneak(cls, v: Optional[str]) -> Optional[str]:
        return None if v is None else check_dice(v)

    @model_validator(mode="after")
    def _max_hp(self) -> CreatureSpec:
        if self.max_hp is not None and self.max_hp < self.hp:
            raise ValueError(f"max_hp {self.max_hp} is below hp {self.hp}")
        return self


class GridSpec(StrictModel):
    """The board: kind and size in cells."""

    kind: Literal["square", "hex"] = "square"
    width: Side = 12
    height: Side = 12

    @model_validator(mode="after")
    def _span(self) -> GridSpec:
        span = hex_span(self.width, self.height) if self.kind == "hex" else self.width
        if span > MAX_SIDE:
            raise ValueError(
                f"a {self.width}x{self.height} hex board spans {span} columns (width + half the"
                f" height); at most {MAX_SIDE}"
            )
        return self


def hex_span(width: int, height: int) -> int:
    """Axial columns a ``width x height`` hex board spans (odd-r rows shear by half a
    column a row): what bounds its lookup tables (:data:`~facing_env.limits.MAX_SIDE`)."""
    return width + (height + 1) // 2


class TerrainSpec(StrictModel):
    """One terrain cell."""

    pos: Cell
    kind: Literal["open", "blocked", "pillar", "difficult", "impeded", "hazardous"]


class BattleSpec(StrictModel):
    """A whole battle: rules, board, terrain and creatures."""

    ruleset: Literal["ua35", "side_rear", "standard"] = "ua35"
    grid: GridSpec = GridSpec()
    diagonal: Optional[Literal["alternating", "uniform"]] = None  # default by ruleset
    map: Optional[Annotated[str, Strict(), Field(max_length=MAX_MAP_CHARS)]] = None
    terrain: tuple[TerrainSpec, ...] = Field(default=(), max_length=MAX_TERRAIN)
    creatures: tuple[CreatureSpec, ...] = Field(default=(), max_length=MAX_CREATURES)
