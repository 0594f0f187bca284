"""The battle spec schema (docs/design.md, battle specs), validated with pydantic.

Only ``id``, ``size`` and ``pos`` of a creature are required; every other field has a
documented default, so a rules question can be asked with a tiny spec. Unknown fields are
errors. :func:`facing_env.battle.Battle.from_spec` turns validated specs into state.
"""

from __future__ import annotations

import re
from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, field_validator

from facing_env.tables import FEATS
from facing_env.types import Size

DICE_RE = re.compile(r"^\s*(\d+)d(\d+)\s*([+-]\s*\d+)?\s*$|^\s*(\d+)\s*$")
AREA_NAMES = ("front", "flank", "side", "rear")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def check_dice(value: str) -> str:
    """Validate a dice expression such as ``1d8+3``, ``2d6`` or ``4``."""
    if not isinstance(value, str) or not DICE_RE.match(value):
        raise ValueError(f"bad dice expression {value!r}; expected e.g. '1d8+3' or '2d6'")
    return value.replace(" ", "")


class AttackSpec(_Strict):
    """One attack of a creature."""

    name: str = "attack"
    bonus: int = 0  # attack bonus without the size modifier (added by the rules)
    damage: str = "1d6"
    reach: Optional[int] = Field(default=None, ge=0)  # feet; None = the creature's reach
    kind: Literal["melee", "ranged"] = "melee"
    range: int = Field(default=100, ge=5)  # feet, ranged attacks only
    zones: Optional[tuple[Literal["front", "flank", "side", "rear"], ...]] = None
    threat_range: int = Field(default=20, ge=2, le=20)  # natural roll that threatens a crit
    crit_multiplier: int = Field(default=2, ge=2, le=6)
    touch: bool = False  # a touch attack: the target's touch AC applies (SRD-TOUCH-01)

    @field_validator("damage")
    @classmethod
    def _damage(cls, v: str) -> str:
        return check_dice(v)


class ShieldSpec(_Strict):
    """A carried shield: the arm it is on and its AC bonus (UA-SHLD-01, UA-SHLD-02)."""

    side: Literal["left", "right"]
    bonus: int = Field(ge=0)


class CreatureSpec(_Strict):
    """One creature (docs/design.md, battle specs)."""

    id: str = Field(min_length=1)
    size: str | int
    pos: tuple[int, int]
    team: Optional[str] = None  # default: the id (all creatures without a team are foes)
    facing: Optional[str | int] = None  # default N (square) or E (hex)
    hp: int = 10
    max_hp: Optional[int] = Field(default=None, ge=1)
    ac: int = 10
    touch_ac: Optional[int] = None  # AC against touch attacks; default: ac less the shield bonus
    speed: int = Field(default=30, ge=0)
    dex: int = Field(default=10, ge=0)
    base_attack_bonus: int = Field(default=0, ge=0)
    attacks: Optional[tuple[AttackSpec, ...]] = Field(default=None, min_length=1)
    feats: tuple[str, ...] = ()
    sneak_attack: Optional[str] = None
    rogue_level: int = Field(default=0, ge=0)
    improved_uncanny_dodge: Optional[int] = Field(default=None, ge=0)
    uncanny_dodge: bool = False
    immune_to_sneak_attack: bool = False
    flat_footed: bool = False
    squeezing: bool = False  # -4 to attack rolls and AC (EP-SQZ-01)
    player_character: bool = False  # may trade attacks for 5-foot steps (EP-5FT-02)
    all_around_vision: bool = False
    threatens: bool = True
    armor: Literal["none", "light", "medium", "heavy"] = "none"
    improved_chieftain: bool = False
    pack_fighter_bonus: int = Field(default=0, ge=0)
    faceless: bool = False
    shield: Optional[ShieldSpec] = None
    spells: tuple[Literal["shield"], ...] = ()
    reach: Optional[int] = Field(default=None, ge=0)
    hexes: Optional[tuple[tuple[int, int], ...]] = None
    front_side_hexes: Optional[tuple[tuple[int, int], ...]] = None

    @field_validator("size", mode="before")  # before: a YAML ``true`` is not size 1
    @classmethod
    def _size(cls, v: object) -> str:
        return Size.parse(v).label

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


class GridSpec(_Strict):
    """The board: kind and size in cells."""

    kind: Literal["square", "hex"] = "square"
    width: int = Field(default=12, ge=1, le=256)
    height: int = Field(default=12, ge=1, le=256)


class TerrainSpec(_Strict):
    """One terrain cell."""

    pos: tuple[int, int]
    kind: Literal["open", "blocked", "pillar", "difficult", "impeded", "hazardous"]


class BattleSpec(_Strict):
    """A whole battle: rules, board, terrain and creatures."""

    ruleset: Literal["ua35", "side_rear", "standard"] = "ua35"
    grid: GridSpec = GridSpec()
    diagonal: Optional[Literal["alternating", "uniform"]] = None  # default by ruleset
    map: Optional[str] = None
    terrain: tuple[TerrainSpec, ...] = ()
    creatures: tuple[CreatureSpec, ...] = ()
