"""Attack rolls under facing: area penalties and bonuses, shields, sneak attack.

UA-ATK-01..04, UA-OPP-01..03, UA-SNK-01..04, UA-FCL-01..02, UA-FEAT-CLV, UA-FEAT-CR,
UA-FEAT-IUD, UA-FEAT-WA, UA-MON-01..02, UA-SHLD-01..02, UA-SPL-03, SR-03, SR-07..13,
SRD-FLANK-01, SRD-SIZE-01, SRD-TOUCH-01, EP-SQZ-01, IC-04, IC-08..10, IC-14, IC-15, IC-17.

UA-FEAT-MC (Mounted Combat: no penalty into the *steed's* flank areas "while mounted") is
known to the spec but never applies: the project has no mounts (no rider/steed relation in
the state, and the text leaves the rider's geometry open), so nobody is ever mounted and a
creature with the feat takes the ordinary -5 / -10 into its own flank / rear.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

from facing_env.errors import RulesQueryError
from facing_env.rules._common import cannot_be_flanked, cell_area, rogue_beats_immunity
from facing_env.rules.battle import Attack, Battle, Creature
from facing_env.rules.flanking import flanks
from facing_env.rules.geometry import AreaCell
from facing_env.rules.perception import concealment_miss_chance
from facing_env.tables import (
    CHARGE_AC_PENALTY,
    CHARGE_ATTACK_BONUS,
    FEET_PER_SQUARE,
    IMPROVED_CHIEFTAIN_SHIFT,
    OWN_AREA_PENALTY,
    SHIELD_SPELL_BONUS,
    SIZES,
    SQUEEZING_AC_PENALTY,
    SQUEEZING_ATTACK_PENALTY,
    STANDARD_FLANKING_BONUS,
)
from facing_env.types import Area, AttackKind, Side

FACING_TERMS = ("facing_own_area", "facing_opponent_area", "flanked", "flanking", "pack_fighter")
"""Names of the attack-roll terms that make up :func:`facing_modifier`."""


@dataclass(frozen=True)
class Modifiers:
    """Every term of an attack roll and of the defender's AC, by name.

    ``terms``: ``attack_bonus``, ``size`` (SRD-SIZE-01), ``squeezing`` (-4 for a squeezing
    attacker, EP-SQZ-01), ``charge`` (+2 for the attack of a charge, ``kind="charge"``),
    then the facing terms of the rule set: ``facing_own_area`` and
    ``facing_opponent_area`` (ua35), ``flanked`` and ``pack_fighter`` (side_rear),
    ``flanking`` and ``pack_fighter`` (standard).
    ``ac_terms``: ``armor_class`` (the full AC), ``shield`` (minus the shield bonus when
    the shield does not cover the attack, UA-SHLD-01, or against any touch attack),
    ``shield_spell`` (+4 when it covers a non-touch attack, UA-SPL-03), ``touch`` (minus
    the armor and natural armor bonuses against a touch attack: the AC falls to the
    defender's ``touch_ac``, SRD-TOUCH-01), ``flat_footed`` (minus the Dexterity bonus,
    SRD-FF-01), ``squeezing_ac`` (-4 for a squeezing defender, EP-SQZ-01), ``charging``
    (-2 for a defender that charged since its last turn).
    """

    terms: Mapping[str, int]
    ac_terms: Mapping[str, int]
    own_area: str
    defender_area: str
    sneak_attack: bool
    concealment: int

    @property
    def total(self) -> int:
        """The attack roll's total modifier."""
        return sum(self.terms.values())

    @property
    def facing(self) -> int:
        """The facing part of the total (what :func:`facing_modifier` returns)."""
        return sum(v for k, v in self.terms.items() if k in FACING_TERMS)

    @property
    def target_ac(self) -> int:
        """The AC this attack must meet."""
        return sum(self.ac_terms.values())

    def __getitem__(self, name: str) -> int:
        return {**self.terms, **self.ac_terms}.get(name, 0)


def _resolve_attack(attacker: Creature, attack: str | None, ranged: bool) -> tuple[Attack, bool]:
    if attack is not None:
        chosen = attacker.attack(attack)
        return chosen, ranged or chosen.ranged
    if ranged:
        for a in attacker.attacks:
            if a.ranged:
                return a, True
    return attacker.attacks[0], ranged


def _placements(
    battle: Battle, a: Creature, d: Creature, attack: Attack, ranged: bool
) -> list[tuple[AreaCell | None, AreaCell | None]]:
    """(defender square in attacker's areas, attacker square in defender's areas) pairs
    the attack can be made across (IC-04); every pair when none is within reach."""
    feet = attack.range if ranged else attack.reach
    a_cells, d_cells = battle.cells_of(a), battle.cells_of(d)
    pairs = [
        (ac, dc)
        for ac in a_cells
        for dc in d_cells
        if ranged or battle.distance(ac, dc) * FEET_PER_SQUARE <= feet
    ] or [(ac, dc) for ac in a_cells for dc in d_cells]
    return [(cell_area(battle, a, dc), cell_area(battle, d, ac)) for ac, dc in pairs]


def _own_penalty(a: Creature, own: AreaCell | None, kind: AttackKind, attack: Attack) -> int:
    """Penalty for attacking into one's own flank (-5) or rear (-10) (UA-ATK-02)."""
    if own is None or own.area is Area.FRONT:
        return 0  # faceless / Tiny attackers (UA-FCL-01, IC-15), or the front (UA-ATK-01)
    area = own.area
    if kind is AttackKind.WHIRLWIND or a.has_feat("Whirlwind Attack"):  # UA-FEAT-WA, IC-08
        return 0
    if area in attack.zones:  # UA-MON-01, UA-MON-02
        return 0
    # UA-FEAT-MC: Mounted Combat needs a steed; nobody is mounted here (module docstring).
    if area is Area.FLANK and (
        kind is AttackKind.CLEAVE  # UA-FEAT-CLV
        or (kind is AttackKind.AOO and a.has_feat("Combat Reflexes"))  # UA-FEAT-CR
    ):
        return 0
    return OWN_AREA_PENALTY[area]


def _positional_terms(
    battle: Battle,
    a: Creature,
    d: Creature,
    own: AreaCell | None,
    opp: AreaCell | None,
    kind: AttackKind,
    attack: Attack,
    ranged: bool,
) -> dict[str, int]:
    rules = battle.rules
    immune = cannot_be_flanked(battle, d)
    if rules.facing_penalties:  # ua35
        bonus = 0 if opp is None or immune else rules.opponent_bonus[opp.area]
        return {
            "facing_own_area": _own_penalty(a, own, kind, attack),
            "facing_opponent_area": bonus,
        }
    if rules.auto_turn_on_attack:  # side_rear: the flanked condition (SR-07..SR-13, IC-10)
        if opp is None or immune or ranged:
            return {"flanked": 0, "pack_fighter": 0}
        area = IMPROVED_CHIEFTAIN_SHIFT[opp.area] if a.improved_chieftain else opp.area
        pack = {Area.REAR: a.pack_fighter_bonus, Area.SIDE: a.pack_fighter_bonus // 2}
        return {"flanked": rules.opponent_bonus[area], "pack_fighter": pack.get(area, 0)}
    if rules.standard_flanking and not ranged and flanks(battle, a, d):  # SRD-FLANK-01
        return {"flanking": STANDARD_FLANKING_BONUS, "pack_fighter": a.pack_fighter_bonus}
    return {"flanking": 0, "pack_fighter": 0}


def _kind(kind: str) -> AttackKind:
    try:
        return AttackKind(kind)
    except ValueError:
        names = ", ".join(k.value for k in AttackKind)
        raise RulesQueryError(f"unknown attack kind {kind!r}; expected one of {names}") from None


def _best(
    battle: Battle, a: Creature, d: Creature, kind: AttackKind, attack: Attack, ranged: bool
) -> tuple[dict[str, int], AreaCell | None, AreaCell | None]:
    best: tuple[dict[str, int], AreaCell | None, AreaCell | None] | None = None
    for own, opp in _placements(battle, a, d, attack, ranged):
        terms = _positional_terms(battle, a, d, own, opp, kind, attack, ranged)
        if best is None or sum(terms.values()) > sum(best[0].values()):
            best = (terms, own, opp)
    assert best is not None
    return best


def placement_modifier(
    battle: Battle, a: Creature, d: Creature, own: AreaCell | None, opp: AreaCell | None
) -> int:
    """:func:`facing_modifier` of ``a``'s default melee attack across one placement:
    ``own`` is the defender's square in the attacker's areas, ``opp`` the attacker's square
    in the defender's (None without facing). When both creatures occupy one square this
    *is* ``facing_modifier(battle, a, d)`` (a single placement, IC-04), so callers may memo
    it by the two creatures' specs and area cells. Not for ``standard`` flanking, which
    depends on third parties (SRD-FLANK-01)."""
    chosen, is_ranged = _resolve_attack(a, None, False)
    terms = _positional_terms(battle, a, d, own, opp, AttackKind.ATTACK, chosen, is_ranged)
    return sum(terms.values())


def facing_modifier(
    battle: Battle,
    attacker: str | Creature,
    defender: str | Creature,
    *,
    ranged: bool = False,
    kind: str = "attack",
    attack: str | None = None,
) -> int:
    """The facing part of an attack roll.

    ``ua35``: the attacker's own area penalty (0 / -5 / -10, UA-ATK-01..03) plus the
    opponent-facing bonus (0 / +2 / +4, UA-OPP-01..02); ``side_rear``: the flanked bonus
    (+2 side, +4 rear, SR-07..09, IC-10) with Pack Fighter and Improved Chieftain shifts;
    ``standard``: the +2 flanking bonus (SRD-FLANK-01). ``kind`` is ``attack``, ``aoo``
    (IC-09), ``cleave`` or ``whirlwind``; ``attack`` names one of the attacker's attacks
    (monster flank/rear attacks, reach). Multi-square combatants take their most
    favourable placement within reach (IC-04).
    """
    a, d = battle.creature(attacker), battle.creature(defender)
    chosen, is_ranged = _resolve_attack(a, attack, ranged)
    terms, _, _ = _best(battle, a, d, _kind(kind), chosen, is_ranged)
    return sum(terms.values())


def shield_applies(
    battle: Battle, defender: str | Creature, attacker: str | Creature, source: str = "shield"
) -> bool:
    """Whether the defender's shield (or shield spell) counts against this attacker.

    ``source="shield"``: attacks from the front area and the flank on the shield's side, or
    beyond them (UA-SHLD-02, IC-16); ``source="shield_spell"``: the front only (UA-SPL-03).
    Without facing the shield always counts. A multi-square attacker picks the square the
    shield does not cover, if it has one.
    """
    d, a = battle.creature(defender), battle.creature(attacker)
    if source == "shield":
        if d.shield is None:
            return False
    elif source == "shield_spell":
        if "shield" not in d.spells:
            return False
    else:
        raise RulesQueryError(f"unknown shield source {source!r}; expected shield or shield_spell")
    for cell in battle.cells_of(a):
        where = cell_area(battle, d, cell)
        if where is None or where.area is Area.FRONT:
            continue
        on_shield_side = d.shield is not None and where.side is Side(d.shield.side)
        if source == "shield" and where.area is battle.rules.side_area and on_shield_side:
            continue
        return False
    return True


def sneak_attack_applies(
    battle: Battle, attacker: str | Creature, defender: str | Creature, *, ranged: bool = False
) -> bool:
    """Whether the attacker's sneak attack dice apply.

    Flat-footed defenders always (UA-SNK-01, UA-SNK-03; not with uncanny dodge, SRD);
    ``ua35``: melee from the rear area (UA-SNK-01, IC-14), none against faceless or Tiny
    defenders, improved uncanny dodge only by a rogue 4 levels higher (IC-17);
    ``side_rear``: melee from a rear space only (SR-10), never against defenders that
    cannot be flanked (SR-13); ``standard``: melee while flanking (SRD-FLANK-01).
    Immune creatures never take it (UA-SNK-02).
    """
    a, d = battle.creature(attacker), battle.creature(defender)
    if a.sneak_attack is None or d.immune_to_sneak_attack:
        return False
    if d.flat_footed and not d.uncanny_dodge:
        return True
    if ranged:
        return False
    rules = battle.rules
    if rules.standard_flanking:
        return flanks(battle, a, d)
    if not rules.rear_sneak_attack or not rogue_beats_immunity(battle, a, d):
        return False
    melee = next((x for x in a.attacks if not x.ranged), None)
    if melee is None:
        return False
    for _, opp in _placements(battle, a, d, melee, False):
        if opp is None:
            continue
        area = opp.area
        if a.improved_chieftain and rules.auto_turn_on_attack:
            area = IMPROVED_CHIEFTAIN_SHIFT[area]  # SR-12
        if area is Area.REAR:
            return True
    return False


def _ac_terms(battle: Battle, a: Creature, d: Creature, attack: Attack) -> dict[str, int]:
    """The defender's AC against this attack, by named term (see :class:`Modifiers`)."""
    ac_terms = {
        "armor_class": d.ac,
        "shield": 0,
        "shield_spell": 0,
        "touch": 0,
        "flat_footed": 0,
        "squeezing_ac": SQUEEZING_AC_PENALTY if d.squeezing else 0,  # EP-SQZ-01
        "charging": CHARGE_AC_PENALTY if d.charging else 0,  # until its next turn (charge)
    }
    shield_bonus = d.shield.bonus if d.shield is not None else 0
    if attack.touch:  # SRD-TOUCH-01: no armor, shield or natural armor bonus
        ac_terms["shield"] = -shield_bonus
        ac_terms["touch"] = d.touch_ac - (d.ac - shield_bonus)
    else:
        if d.shield is not None and not shield_applies(battle, d, a, "shield"):
            ac_terms["shield"] = -shield_bonus
        if shield_applies(battle, d, a, "shield_spell"):
            ac_terms["shield_spell"] = SHIELD_SPELL_BONUS
    if d.flat_footed and not d.uncanny_dodge:
        ac_terms["flat_footed"] = -max(0, d.dex_modifier)
    return ac_terms


def attack_breakdown(
    battle: Battle,
    attacker: str | Creature,
    defender: str | Creature,
    *,
    ranged: bool = False,
    kind: str = "attack",
    attack: str | None = None,
) -> Modifiers:
    """Every term of the attack roll and of the target AC, named (see :class:`Modifiers`)."""
    a, d = battle.creature(attacker), battle.creature(defender)
    chosen, is_ranged = _resolve_attack(a, attack, ranged)
    facing, own, opp = _best(battle, a, d, _kind(kind), chosen, is_ranged)
    terms = {
        "attack_bonus": chosen.bonus,
        "size": SIZES[a.size].modifier,
        "squeezing": SQUEEZING_ATTACK_PENALTY if a.squeezing else 0,  # EP-SQZ-01
        "charge": CHARGE_ATTACK_BONUS if kind == AttackKind.CHARGE else 0,  # charge: +2
        **facing,
    }
    ac_terms = _ac_terms(battle, a, d, chosen)
    return Modifiers(
        terms=MappingProxyType(terms),
        ac_terms=MappingProxyType(ac_terms),
        own_area=(own.area if own else Area.NONE).value,
        defender_area=(opp.area if opp else Area.NONE).value,
        sneak_attack=sneak_attack_applies(battle, a, d, ranged=is_ranged),
        concealment=concealment_miss_chance(battle, a, d),
    )
