"""Small vocabulary shared by every module: positions, sizes, areas, rulesets, grids.

Conventions (docs/rules.md and docs/design.md, conventions): on the square grid x grows east and
y grows south, a creature's ``pos`` is its top-left square; on the hex grid positions are
axial ``(q, r)`` with pointy-top hexes.
"""

from __future__ import annotations

from enum import Enum, IntEnum
from typing import Tuple

from facing_env.limits import short_repr

Pos = Tuple[int, int]
"""A square ``(x, y)`` or an axial hex ``(q, r)``."""

CreatureId = str
TeamId = str


class GridKind(str, Enum):
    """The two supported boards."""

    SQUARE = "square"
    HEX = "hex"


class Ruleset(str, Enum):
    """The three rule sets (docs/rules.md, sources)."""

    UA35 = "ua35"  # Unearthed Arcana combat facing (S0, S1)
    SIDE_REAR = "side_rear"  # front/side/rear with the flanked condition (S2)
    STANDARD = "standard"  # no facing, classic flanking (S3, S4)


class Perception(str, Enum):
    """What a creature perceives of its foes (issue 36; :func:`facing_env.rules.perceives`)."""

    FULL = "full"  # every creature on the board
    FACING = "facing"  # not a foe wholly in its rear area, unless heard (UA-PER-01)
    SPOT = "spot"  # out of its front, opposed Spot and Hide checks (UA-PER-01)


class Size(IntEnum):
    """Size categories, smallest first (SRD-SIZE-01, EP-SPACE-01)."""

    FINE = 0
    DIMINUTIVE = 1
    TINY = 2
    SMALL = 3
    MEDIUM = 4
    LARGE = 5
    HUGE = 6
    GARGANTUAN = 7
    COLOSSAL = 8

    @property
    def label(self) -> str:
        """The size's name as written in scenario files, e.g. ``"Medium"``."""
        return self.name.capitalize()

    @classmethod
    def parse(cls, value: object) -> Size:
        """Read a size from its name (any case) or its number; raise ValueError otherwise."""
        if isinstance(value, Size):
            return value
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= max(cls):
            return cls(value)
        if isinstance(value, str) and value.upper() in cls.__members__:
            return cls[value.upper()]
        names = ", ".join(s.label for s in cls)
        raise ValueError(f"unknown size {short_repr(value)}; expected one of {names}")


class Area(str, Enum):
    """Where something lies relative to a creature's facing."""

    FRONT = "front"
    FLANK = "flank"  # ua35 (UA-FACE-02)
    SIDE = "side"  # side_rear (SR-05)
    REAR = "rear"
    NONE = "none"  # no facing: standard ruleset, faceless, Tiny or smaller, own space


class Terrain(IntEnum):
    """Terrain kinds of one cell (EP-TER-01..05)."""

    OPEN = 0
    BLOCKED = 1  # walls: cannot be entered, corners cannot be cut (EP-TER-03, EP-TER-04)
    PILLAR = 2  # blocked, but corners can be cut (EP-TER-04)
    DIFFICULT = 3  # each square entered counts double (EP-TER-01)
    IMPEDED = 4  # a full-round action to move 5 feet (EP-TER-02)
    HAZARDOUS = 5  # entered freely, like open ground; its effects are not modelled (EP-TER-05)


class Side(str, Enum):
    """Left or right of a facing (IC-16: left = 90 degrees counter-clockwise)."""

    LEFT = "left"
    RIGHT = "right"
    CENTRE = "centre"


class AttackKind(str, Enum):
    """What kind of attack a facing modifier is asked for (docs/design.md, rule queries)."""

    ATTACK = "attack"
    AOO = "aoo"
    CLEAVE = "cleave"
    WHIRLWIND = "whirlwind"
    CHARGE = "charge"  # the attack at the end of a charge: +2 (EP-CHG-01, SRD charge)
    READIED = "readied"  # a readied attack (UA-PER-02): an ordinary attack, out of turn


class MoveMode(str, Enum):
    """Modes of voluntary movement for attacks of opportunity (SRD-AOO-02, EP-DBL-01,
    EP-RUN-01, EP-5FT-01, EP-WDR-01, EP-CHG-02, EP-FORCE-01 in docs/rules.md)."""

    WALK = "walk"
    DOUBLE_MOVE = "double_move"
    RUN = "run"
    FIVE_FOOT_STEP = "five_foot_step"
    WITHDRAW = "withdraw"
    CHARGE = "charge"
    FORCED = "forced"
