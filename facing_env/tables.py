"""Every rules number in one place, as named rows (docs/design.md, conventions).

Logic elsewhere looks numbers up here; no rule value is written as a literal in code.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

from facing_env.types import Area, GridKind, Ruleset, Size, Terrain


@dataclass(frozen=True)
class SizeRow:
    """One size category: space, natural reach and the size modifier."""

    side: int  # squares per side of the space (EP-SPACE-01)
    reach: int  # natural reach in feet (EP-REACH-01: equal to the side of the space)
    modifier: int  # to attack rolls and AC (SRD-SIZE-01)
    has_facing: bool  # Tiny and smaller have no facing (UA-FACE-06, UA-FCL-02)


SIZES: Mapping[Size, SizeRow] = MappingProxyType(
    {
        Size.FINE: SizeRow(1, 0, 8, False),
        Size.DIMINUTIVE: SizeRow(1, 0, 4, False),
        Size.TINY: SizeRow(1, 0, 2, False),
        Size.SMALL: SizeRow(1, 5, 1, True),
        Size.MEDIUM: SizeRow(1, 5, 0, True),
        Size.LARGE: SizeRow(2, 10, -1, True),
        Size.HUGE: SizeRow(3, 15, -2, True),
        Size.GARGANTUAN: SizeRow(4, 20, -4, True),
        Size.COLOSSAL: SizeRow(5, 25, -8, True),
    }
)

FEET_PER_SQUARE = 5

# -- Attack-roll modifiers by area ---------------------------------------------------------

OWN_AREA_PENALTY: Mapping[Area, int] = MappingProxyType(
    {Area.FRONT: 0, Area.FLANK: -5, Area.REAR: -10, Area.SIDE: 0, Area.NONE: 0}
)
"""UA-ATK-01, UA-ATK-02: attacking into one's own flank (-5) or rear (-10)."""

OPPONENT_AREA_BONUS: Mapping[Area, int] = MappingProxyType(
    {Area.FRONT: 0, Area.FLANK: 2, Area.REAR: 4, Area.SIDE: 0, Area.NONE: 0}
)
"""UA-OPP-01, UA-OPP-02: attacking from a foe's flank (+2) or rear (+4)."""

FLANKED_BONUS: Mapping[Area, int] = MappingProxyType(
    {Area.FRONT: 0, Area.SIDE: 2, Area.REAR: 4, Area.FLANK: 0, Area.NONE: 0}
)
"""SR-07, SR-08, IC-10: flanked from a side space +2, doubled from a rear space."""

IMPROVED_CHIEFTAIN_SHIFT: Mapping[Area, Area] = MappingProxyType(
    {Area.FRONT: Area.SIDE, Area.SIDE: Area.REAR, Area.REAR: Area.REAR}
)
"""SR-12: side-facing bonuses in front spaces, rear-facing bonuses in side spaces."""

STANDARD_FLANKING_BONUS = 2
"""SRD-FLANK-01: +2 flanking bonus on the attack roll."""

SPOT_PENALTY: Mapping[Area, int] = MappingProxyType(
    {Area.FRONT: 0, Area.FLANK: -5, Area.REAR: -10, Area.SIDE: 0, Area.NONE: 0}
)
"""UA-PER-01: Spot -5 in (or beyond) the flank, -10 in (or beyond) the rear."""

SPOT_PENALTY_COMBAT_AWARENESS: Mapping[Area, int] = MappingProxyType(
    {Area.FRONT: 0, Area.FLANK: 0, Area.REAR: -5, Area.SIDE: 0, Area.NONE: 0}
)
"""UA-FEAT-CA: no flank penalty; -5 in the rear."""

CONCEALMENT_MISS_CHANCE = 20
"""SR-11: being behind a creature grants concealment (20% miss chance, SRD)."""

SHIELD_SPELL_BONUS = 4
"""UA-SPL-03: the shield spell's +4 shield bonus (SRD), front area only."""

IUD_ROGUE_LEVEL_MARGIN = 4
"""UA-FEAT-IUD, IC-17: a rogue four levels higher may sneak attack from the rear."""

SQUEEZING_ATTACK_PENALTY = -4
SQUEEZING_AC_PENALTY = -4
"""EP-SQZ-01: while squeezing, -4 on attack rolls and -4 to AC."""

CRITICAL_NATURAL = 20
FUMBLE_NATURAL = 1

# -- Movement ------------------------------------------------------------------------------

FACING_SURCHARGE_MULTIPLIER = 2
"""UA-MOVE-04, IC-07: entering a flank or rear square doubles the step's base cost."""

DIFFICULT_MULTIPLIER = 2
"""EP-TER-01: a difficult square counts as two squares."""

RUN_MULTIPLIER = 4
RUN_MULTIPLIER_HEAVY_ARMOR = 3
"""EP-RUN-01, IC-13: run at x4, or x3 in heavy armour. EP-RUN-02 (the Encumbrance section:
x5, -1 in medium and -2 in heavy armour) is the recorded alternative; it differs only for
creatures in no or light armour (x5), and encumbrance is not modelled."""

DOUBLE_MOVE_MULTIPLIER = 2
"""EP-DBL-01."""

MIN_SPEED_FOR_FIVE_FOOT_STEP = 10
"""EP-5FT-03: a move speed of 5 feet or less never allows a 5-foot step."""

CLAMBER_SPEED_DIVISOR = 2
"""EP-CLAMBER-01: a clamber moves up to half the climber's speed."""

SHARED_SPACE_SIZE_GAP = 2
"""EP-STEP-01, EP-CLAMBER-01, EP-FLANK-07: a creature two or more size categories larger may
share squares with a smaller one (stepover, clamber); neither is then squeezing."""

MIN_CHARGE_SQUARES = 2
"""EP-CHG-01: a charge moves at least 10 feet."""

CHARGE_ATTACK_BONUS = 2
"""Charge (SRD, issue 16): +2 on the attack roll at the end of the charge."""

CHARGE_AC_PENALTY = -2
"""Charge (SRD, issue 16): -2 to AC until the charger's next turn."""

ARMOR_KINDS = ("none", "light", "medium", "heavy")

TERRAIN_CHARS: Mapping[str, Terrain] = MappingProxyType(
    {
        ".": Terrain.OPEN,
        "#": Terrain.BLOCKED,
        "o": Terrain.PILLAR,
        "~": Terrain.DIFFICULT,
        "%": Terrain.IMPEDED,
        "^": Terrain.HAZARDOUS,
    }
)
"""ASCII map legend (docs/design.md, battle specs; ``^`` hazardous, EP-TER-05)."""

TERRAIN_NAMES: Mapping[str, Terrain] = MappingProxyType(
    {
        "open": Terrain.OPEN,
        "blocked": Terrain.BLOCKED,
        "pillar": Terrain.PILLAR,
        "difficult": Terrain.DIFFICULT,
        "impeded": Terrain.IMPEDED,
        "hazardous": Terrain.HAZARDOUS,
    }
)

# -- Rulesets as data (docs/design.md, conventions) --------------------------------------------


@dataclass(frozen=True)
class RulesetRow:
    """Options of one rule set; logic reads these instead of branching on the name."""

    def __deepcopy__(self, memo: dict) -> RulesetRow:
        return self  # immutable table data: copies of a battle share it

    def __reduce__(self) -> tuple:
        """Pickled by its rule set: unpickling gives the row of :data:`RULESETS`."""
        for ruleset, row in RULESETS.items():
            if row is self:
                return (ruleset_row, (ruleset,))
        raise TypeError("only the rows of RULESETS can be pickled")

    has_facing: bool
    areas: tuple[Area, ...]  # names of the areas, front first
    side_area: Area  # the area between front and rear: flank (ua35) or side (side_rear)
    facing_penalties: bool  # attacker's own area penalty (UA-ATK-02)
    opponent_bonus: Mapping[Area, int]  # attacker's bonus by its area of the defender
    rear_sneak_attack: bool  # UA-SNK-01 / SR-10
    standard_flanking: bool  # SRD-FLANK-01 (IC-18: not in ua35)
    movement_surcharge: bool  # UA-MOVE-04
    auto_turn_on_attack: bool  # SR-03
    diagonal_rule: str  # "alternating" (3.5) or "uniform" (EP-GEN-02); IC-07
    multi_square_orthogonal_only: bool  # IC-11: multi-square creatures face N/E/S/W
    concealment_from_behind: bool  # SR-11
    defender_immunity_fields: tuple[str, ...]  # creature flags that deny the bonus (SR-13)
    # Angle thresholds in degrees: front if <= front_max; rear if >= rear_min (or > when
    # rear_strict); otherwise the side area (IC-01, IC-05, IC-11).
    front_max: Mapping[GridKind, float]
    rear_min: Mapping[GridKind, float]
    rear_strict: Mapping[GridKind, bool]


_NO_AREAS: Mapping[Area, int] = MappingProxyType({})

RULESETS: Mapping[Ruleset, RulesetRow] = MappingProxyType(
    {
        Ruleset.UA35: RulesetRow(
            has_facing=True,
            areas=(Area.FRONT, Area.FLANK, Area.REAR),
            side_area=Area.FLANK,
            facing_penalties=True,
            opponent_bonus=OPPONENT_AREA_BONUS,
            rear_sneak_attack=True,
            standard_flanking=False,
            movement_surcharge=True,
            auto_turn_on_attack=False,
            diagonal_rule="alternating",
            multi_square_orthogonal_only=False,
            concealment_from_behind=False,
            defender_immunity_fields=("improved_uncanny_dodge",),
            front_max={GridKind.SQUARE: 45.0, GridKind.HEX: 60.0},
            rear_min={GridKind.SQUARE: 135.0, GridKind.HEX: 150.0},
            rear_strict={GridKind.SQUARE: False, GridKind.HEX: False},
        ),
        Ruleset.SIDE_REAR: RulesetRow(
            has_facing=True,
            areas=(Area.FRONT, Area.SIDE, Area.REAR),
            side_area=Area.SIDE,
            facing_penalties=False,
            opponent_bonus=FLANKED_BONUS,
            rear_sneak_attack=True,
            standard_flanking=False,
            movement_surcharge=False,
            auto_turn_on_attack=True,
            diagonal_rule="alternating",
            multi_square_orthogonal_only=True,
            concealment_from_behind=True,
            defender_immunity_fields=(
                "improved_uncanny_dodge",
                "uncanny_dodge",
                "all_around_vision",
            ),
            front_max={GridKind.SQUARE: 45.0, GridKind.HEX: 60.0},
            rear_min={GridKind.SQUARE: 135.0, GridKind.HEX: 150.0},
            rear_strict={GridKind.SQUARE: True, GridKind.HEX: False},
        ),
        Ruleset.STANDARD: RulesetRow(
            has_facing=False,
            areas=(),
            side_area=Area.NONE,
            facing_penalties=False,
            opponent_bonus=_NO_AREAS,
            rear_sneak_attack=False,
            standard_flanking=True,
            movement_surcharge=False,
            auto_turn_on_attack=False,
            diagonal_rule="uniform",
            multi_square_orthogonal_only=False,
            concealment_from_behind=False,
            defender_immunity_fields=("improved_uncanny_dodge", "all_around_vision"),
            front_max={GridKind.SQUARE: 45.0, GridKind.HEX: 60.0},
            rear_min={GridKind.SQUARE: 135.0, GridKind.HEX: 150.0},
            rear_strict={GridKind.SQUARE: False, GridKind.HEX: False},
        ),
    }
)


def ruleset_row(ruleset: Ruleset) -> RulesetRow:
    """The options of a rule set (what a pickled :class:`RulesetRow` unpickles to)."""
    return RULESETS[ruleset]


DIAGONAL_RULES = ("alternating", "uniform")

FEATS = (
    "Cleave",
    "Great Cleave",
    "Combat Reflexes",
    "Whirlwind Attack",
    "Combat Awareness",
    "Mounted Combat",
    "Runner",
    "Improved Initiative",
)
"""Feats the rules know (docs/rules.md, feats); others are rejected by the scenario validator."""

FACELESS_MONSTERS = (
    "elemental",
    "ooze",
    "lantern archon",
    "assassin vine",
    "chaos beast",
    "darkmantle",
    "violet fungus",
    "gibbering mouther",
    "mimic",
    "phasm",
    "will-o'-wisp",
    "xorn",
    "octopus",
    "giant octopus",
)
"""UA-FACE-05: monsters with no facing; a creature of these kinds may set ``faceless``."""
