"""Attack-roll modifiers as numba kernels over a :class:`State` row.

The batched ``rules.attacks.attack_breakdown`` (with ``_placements``, ``_own_penalty``,
``_positional_terms``, ``_best``, ``shield_applies``, ``sneak_attack_applies``,
``_ac_terms``), ``rules.perception.concealment_miss_chance`` and ``can_ready_against``;
standard flanking is :mod:`facing_env.fast.flanking`. Areas come from the geometry
tables (``geo.area_code``, ``geo.side_code``); every rule number is a constant of
:mod:`facing_env.tables`, turned into arrays indexed by area code
(:data:`~facing_env.fast.state.AREA_CODES`) or rule set code
(:data:`~facing_env.fast.state.RULESETS`). ``tests/test_fast_attack.py`` compares every
kernel with the reference on random states of every scenario and on hand-made boards.

Attack kinds are codes over :data:`KIND_CODES` (``facing_env.types.AttackKind``).

Speed (as in :mod:`facing_env.fast.opportunity`): kernels without reference counting
(:mod:`facing_env.fast.jit`: ``helper`` for those called from kernels only, which crash
when called from Python), over the board primitives of :mod:`~facing_env.fast.geometry`.
Boolean values are built with ``if`` chains rather than ``and`` / ``or`` expressions, and a
function on the common path holds no call of a large kernel that takes the State (such a call,
taken or not, keeps LLVM from inlining the function, and a call that passes the State
costs hundreds of nanoseconds): :func:`breakdown` decides standard flanking once and
:func:`_sneak` leaves it to its caller.
"""

from __future__ import annotations

import numpy as np

from facing_env.fast.flanking import cannot_be_flanked, flanks, rogue_beats_immunity
from facing_env.fast.geometry import SIZE_MODIFIER, area_code, cell_distance, has_facing, side_code
from facing_env.fast.jit import helper, kernel
from facing_env.fast.lookup import SIDE_CODES
from facing_env.fast.opportunity import COMBAT_REFLEXES
from facing_env.fast.state import AREA_CODES, RULESETS, SHAPE_CELLS, SHAPE_OFFSETS
from facing_env.tables import (
    CHARGE_AC_PENALTY,
    CHARGE_ATTACK_BONUS,
    CONCEALMENT_MISS_CHANCE,
    FEATS,
    FEET_PER_SQUARE,
    IMPROVED_CHIEFTAIN_SHIFT,
    OWN_AREA_PENALTY,
    SHIELD_SPELL_BONUS,
    SQUEEZING_AC_PENALTY,
    SQUEEZING_ATTACK_PENALTY,
    STANDARD_FLANKING_BONUS,
)
from facing_env.tables import RULESETS as RULE_ROWS
from facing_env.types import Area, AttackKind, Side

KIND_CODES: tuple[AttackKind, ...] = tuple(AttackKind)
"""Attack kinds as codes (the ``kind`` argument of :func:`breakdown`)."""
ATTACK = KIND_CODES.index(AttackKind.ATTACK)
AOO = KIND_CODES.index(AttackKind.AOO)
CLEAVE = KIND_CODES.index(AttackKind.CLEAVE)
WHIRLWIND = KIND_CODES.index(AttackKind.WHIRLWIND)
CHARGE = KIND_CODES.index(AttackKind.CHARGE)
READIED = KIND_CODES.index(AttackKind.READIED)

FRONT = AREA_CODES.index(Area.FRONT)
FLANK = AREA_CODES.index(Area.FLANK)
SIDE = AREA_CODES.index(Area.SIDE)
REAR = AREA_CODES.index(Area.REAR)
NONE = AREA_CODES.index(Area.NONE)
SHIELD_SIDE_CODES = np.array([-1, SIDE_CODES.index(Side.LEFT), SIDE_CODES.index(Side.RIGHT)])
"""``[state shield_side]``: the side code of the shield's arm (-1: no shield)."""

WHIRLWIND_FEAT = 1 << FEATS.index("Whirlwind Attack")
ABILITY_AVERAGE = 10
ABILITY_PER_MODIFIER = 2
"""``Creature.dex_modifier``: ``(dex - ABILITY_AVERAGE) // ABILITY_PER_MODIFIER``."""

OWN_PENALTY = np.array([OWN_AREA_PENALTY[a] for a in AREA_CODES], dtype=np.int32)
"""``[area]``: UA-ATK-02, attacking into one's own flank (-5) or rear (-10)."""
OPPONENT_BONUS = np.array(
    [[RULE_ROWS[r].opponent_bonus.get(a, 0) for a in AREA_CODES] for r in RULESETS],
    dtype=np.int32,
)
"""``[ruleset, area]``: ``RulesetRow.opponent_bonus`` (ua35 UA-OPP-01..02, side_rear SR-07..09)."""
CHIEFTAIN_SHIFT = np.array(
    [AREA_CODES.index(IMPROVED_CHIEFTAIN_SHIFT.get(a, a)) for a in AREA_CODES], dtype=np.int32
)
"""``[area]``: SR-12, the area whose bonus an improved chieftain gets (flank and none, which
the reference's mapping lacks, stay themselves)."""
PACK_FIGHTER_SIDE_DIVISOR = 2
"""``rules.attacks._positional_terms``: Pack Fighter gives half its bonus from a side space."""


def _row(name: str) -> np.ndarray:
    return np.array([getattr(RULE_ROWS[r], name) for r in RULESETS])


FACING_PENALTIES = _row("facing_penalties")
AUTO_TURN = _row("auto_turn_on_attack")
STANDARD = _row("standard_flanking")
REAR_SNEAK = _row("rear_sneak_attack")
CONCEALMENT_FROM_BEHIND = _row("concealment_from_behind")
SIDE_AREA = np.array([AREA_CODES.index(RULE_ROWS[r].side_area) for r in RULESETS])
"""``[ruleset]``: the ``RulesetRow`` options the attack rules read."""


@helper
def _area(t, s, i, of, facing, x, y):
    """``rules._common.cell_area``'s area code, or -1 for None: ``geo.area_code`` with its
    facing test done by the caller (``facing``: ``geo.has_facing(s, i, of)``)."""
    if not facing:
        return -1
    r = t.radius
    return t.area[s.shape[i, of], s.facing[i, of], y - s.y[i, of] + r, x - s.x[i, of] + r]


@kernel
def own_penalty(s, i, a, own, kind, attack):
    """``rules.attacks._own_penalty``: the penalty for attacking into one's own flank or
    rear (UA-ATK-02); ``own`` the defender's square's area code for the attacker (-1:
    none)."""
    if own < 0 or own == FRONT:
        return 0  # faceless / Tiny attackers (UA-FCL-01, IC-15), or the front (UA-ATK-01)
    if kind == WHIRLWIND or s.feats[i, a] & WHIRLWIND_FEAT:  # UA-FEAT-WA, IC-08
        return 0
    zones = s.attack_zones[i, a, attack]
    if zones & (1 << own):  # UA-MON-01, UA-MON-02
        return 0
    if own == FLANK and (kind == CLEAVE or (kind == AOO and s.feats[i, a] & COMBAT_REFLEXES)):
        return 0  # UA-FEAT-CLV, UA-FEAT-CR
    return OWN_PENALTY[own]


@helper
def positional(s, i, a, d, own, opp, kind, attack, ranged, immune, flank):
    """``rules.attacks._positional_terms`` summed (the facing part of the roll) for one
    placement; ``immune`` is ``cannot_be_flanked(d)``, ``flank`` whether ``a`` flanks
    ``d`` (read only under standard flanking)."""
    r = s.ruleset[i]
    if FACING_PENALTIES[r]:  # ua35
        bonus = 0
        if opp >= 0 and not immune:
            bonus = OPPONENT_BONUS[r, opp]
        return own_penalty(s, i, a, own, kind, attack) + bonus
    if AUTO_TURN[r]:  # side_rear: the flanked condition (SR-07..SR-13, IC-10)
        if opp < 0 or immune or ranged:
            return 0
        area = opp
        if s.improved_chieftain[i, a]:
            area = CHIEFTAIN_SHIFT[opp]
        pack = 0
        if area == REAR:
            pack = s.pack_fighter_bonus[i, a]
        elif area == SIDE:
            pack = s.pack_fighter_bonus[i, a] // PACK_FIGHTER_SIDE_DIVISOR
        return OPPONENT_BONUS[r, area] + pack
    if STANDARD[r] and not ranged and flank:  # SRD-FLANK-01
        return STANDARD_FLANKING_BONUS + s.pack_fighter_bonus[i, a]
    return 0


@helper
def _feet(s, i, a, attack, ranged):
    if ranged:
        return s.attack_range[i, a, attack]
    return s.attack_reach[i, a, attack]


@helper
def _any_within(s, i, a, d, feet):
    """Whether some pair of squares of ``a`` and ``d`` lies within ``feet``."""
    sa = s.shape[i, a]
    sd = s.shape[i, d]
    for p in range(SHAPE_CELLS[sa]):
        ax = s.x[i, a] + SHAPE_OFFSETS[sa, p, 0]
        ay = s.y[i, a] + SHAPE_OFFSETS[sa, p, 1]
        for q in range(SHAPE_CELLS[sd]):
            dx = s.x[i, d] + SHAPE_OFFSETS[sd, q, 0]
            dy = s.y[i, d] + SHAPE_OFFSETS[sd, q, 1]
            if cell_distance(s, i, ax, ay, dx, dy) * FEET_PER_SQUARE <= feet:
                return True
    return False


@kernel
def best(t, s, i, a, d, kind, attack, ranged, flank):
    """``rules.attacks._best`` over ``_placements``: the placement (attacker square,
    defender square) with the highest facing total, the first on a tie, among those
    within the attack's reach or range (every pair when none is, or when ranged).
    Returns ``(facing, own area code, defender area code)``, -1 for no facing."""
    immune = cannot_be_flanked(s, i, d)
    feet = _feet(s, i, a, attack, ranged)
    every = True
    if not ranged:
        every = not _any_within(s, i, a, d, feet)
    a_facing = has_facing(s, i, a)
    d_facing = has_facing(s, i, d)
    sa = s.shape[i, a]
    sd = s.shape[i, d]
    found = False
    best_total, best_own, best_opp = 0, -1, -1
    for p in range(SHAPE_CELLS[sa]):
        ax = s.x[i, a] + SHAPE_OFFSETS[sa, p, 0]
        ay = s.y[i, a] + SHAPE_OFFSETS[sa, p, 1]
        for q in range(SHAPE_CELLS[sd]):
            dx = s.x[i, d] + SHAPE_OFFSETS[sd, q, 0]
            dy = s.y[i, d] + SHAPE_OFFSETS[sd, q, 1]
            if not every and cell_distance(s, i, ax, ay, dx, dy) * FEET_PER_SQUARE > feet:
                continue
            own = _area(t, s, i, a, a_facing, dx, dy)
            opp = _area(t, s, i, d, d_facing, ax, ay)
            total = positional(s, i, a, d, own, opp, kind, attack, ranged, immune, flank)
            if not found or total > best_total:
                found = True
                best_total, best_own, best_opp = total, own, opp
    return best_total, best_own, best_opp


@helper
def first_melee(s, i, a):
    """The index of ``a``'s first melee attack, -1 when it has none."""
    for x in range(s.n_attacks[i, a]):
        if not s.attack_ranged[i, a, x]:
            return x
    return -1


@helper
def has_sneak_attack(s, i, a):
    """``Creature.sneak_attack is not None`` (a sneak attack of "0" reads as none)."""
    if s.sneak_attack[i, a, 0] != 0 or s.sneak_attack[i, a, 1] != 0:
        return True
    return s.sneak_attack[i, a, 2] != 0


FLANKING_DECIDES = -1
""":func:`_sneak`: the answer is whether the attacker flanks (standard)."""


@helper
def _sneak(t, s, i, a, d, ranged):
    """:func:`sneak_attack_applies` up to standard flanking: 1 or 0, or
    :data:`FLANKING_DECIDES` (the call of ``flanks`` is left to the caller, which may know
    it: a function that calls it is too large for LLVM to inline, and a call that passes
    the State costs as much as the rest)."""
    if not has_sneak_attack(s, i, a) or s.immune_to_sneak_attack[i, d]:
        return 0
    if s.flat_footed[i, d] and not s.uncanny_dodge[i, d]:
        return 1
    if ranged:
        return 0
    r = s.ruleset[i]
    if STANDARD[r]:
        return FLANKING_DECIDES
    if not REAR_SNEAK[r] or not rogue_beats_immunity(s, i, a, d):
        return 0
    melee = first_melee(s, i, a)
    if melee < 0:
        return 0
    feet = s.attack_reach[i, a, melee]
    every = not _any_within(s, i, a, d, feet)
    shift = False
    if AUTO_TURN[r]:
        shift = s.improved_chieftain[i, a]
    d_facing = has_facing(s, i, d)
    sa = s.shape[i, a]
    sd = s.shape[i, d]
    for p in range(SHAPE_CELLS[sa]):
        ax = s.x[i, a] + SHAPE_OFFSETS[sa, p, 0]
        ay = s.y[i, a] + SHAPE_OFFSETS[sa, p, 1]
        for q in range(SHAPE_CELLS[sd]):
            if not every:
                dx = s.x[i, d] + SHAPE_OFFSETS[sd, q, 0]
                dy = s.y[i, d] + SHAPE_OFFSETS[sd, q, 1]
                if cell_distance(s, i, ax, ay, dx, dy) * FEET_PER_SQUARE > feet:
                    continue
            opp = _area(t, s, i, d, d_facing, ax, ay)
            if opp < 0:
                continue
            if shift:
                opp = CHIEFTAIN_SHIFT[opp]
            if opp == REAR:
                return 1
    return 0


@kernel
def sneak_attack_applies(t, s, i, a, d, ranged):
    """``rules.attacks.sneak_attack_applies``: flat-footed defenders (UA-SNK-01, -03, not
    with uncanny dodge); otherwise melee only: while flanking (standard), from the rear
    area (ua35, side_rear; SR-12's shift for an improved chieftain under side_rear)."""
    found = _sneak(t, s, i, a, d, ranged)
    if found == FLANKING_DECIDES:
        return flanks(s, i, a, d)
    return found == 1


@kernel
def shield_applies(t, s, i, d, a, spell):
    """``rules.attacks.shield_applies``: whether ``d``'s shield (``spell`` false) or shield
    spell (true) counts against ``a``: every square of ``a`` in ``d``'s front, or (the
    shield) in the side area on the shield's side (UA-SHLD-02, IC-16, UA-SPL-03)."""
    if spell:
        if not s.shield_spell[i, d]:
            return False
    elif s.shield_side[i, d] == 0:
        return False
    arm = SHIELD_SIDE_CODES[s.shield_side[i, d]]
    d_facing = has_facing(s, i, d)
    side_area = SIDE_AREA[s.ruleset[i]]
    shape = s.shape[i, a]
    for p in range(SHAPE_CELLS[shape]):
        x = s.x[i, a] + SHAPE_OFFSETS[shape, p, 0]
        y = s.y[i, a] + SHAPE_OFFSETS[shape, p, 1]
        where = _area(t, s, i, d, d_facing, x, y)
        if where < 0 or where == FRONT:
            continue
        if not spell and where == side_area and arm >= 0 and side_code(t, s, i, d, x, y) == arm:
            continue
        return False
    return True


@kernel
def target_ac(t, s, i, a, d, attack):
    """``rules.attacks._ac_terms`` summed: the AC ``attack`` of ``a`` must meet."""
    ac = s.ac[i, d]
    if s.squeezing[i, d]:
        ac += SQUEEZING_AC_PENALTY  # EP-SQZ-01
    if s.charging[i, d]:
        ac += CHARGE_AC_PENALTY
    shield_bonus = 0
    if s.shield_side[i, d] != 0:
        shield_bonus = s.shield_bonus[i, d]
    if s.attack_touch[i, a, attack]:  # SRD-TOUCH-01: no armor, shield or natural armor
        ac += -shield_bonus + s.touch_ac[i, d] - (s.ac[i, d] - shield_bonus)
    else:
        if s.shield_side[i, d] != 0 and not shield_applies(t, s, i, d, a, False):
            ac -= shield_bonus
        if shield_applies(t, s, i, d, a, True):
            ac += SHIELD_SPELL_BONUS
    if s.flat_footed[i, d] and not s.uncanny_dodge[i, d]:
        dex_modifier = (s.dex[i, d] - ABILITY_AVERAGE) // ABILITY_PER_MODIFIER
        ac -= max(0, dex_modifier)
    return ac


@kernel
def concealment(t, s, i, a, d):
    """``rules.perception.concealment_miss_chance``: 20% when every square of ``d`` lies
    in ``a``'s rear area (SR-11, side_rear), unless ``a`` has all-around vision."""
    if not CONCEALMENT_FROM_BEHIND[s.ruleset[i]] or s.all_around_vision[i, a]:
        return 0
    if not has_facing(s, i, a):
        return 0
    shape = s.shape[i, d]
    for p in range(SHAPE_CELLS[shape]):
        x = s.x[i, d] + SHAPE_OFFSETS[shape, p, 0]
        y = s.y[i, d] + SHAPE_OFFSETS[shape, p, 1]
        if area_code(t, s, i, a, x, y) != REAR:
            return 0
    return CONCEALMENT_MISS_CHANCE


@kernel
def can_ready_against(t, s, i, k, mover):
    """``rules.perception.can_ready_against`` (UA-PER-02) for a sight trigger: ``k`` sees
    ``mover`` unless every square of it lies in (or beyond) ``k``'s rear area
    (``rules.areas.visible_area``: the least exposed square); ua35 only, and never for
    creatures with all-around vision or no facing."""
    if not FACING_PENALTIES[s.ruleset[i]] or s.all_around_vision[i, k]:
        return True
    if not has_facing(s, i, k):
        return True
    shape = s.shape[i, mover]
    for p in range(SHAPE_CELLS[shape]):
        x = s.x[i, mover] + SHAPE_OFFSETS[shape, p, 0]
        y = s.y[i, mover] + SHAPE_OFFSETS[shape, p, 1]
        if area_code(t, s, i, k, x, y) != REAR:
            return True
    return False


@kernel
def breakdown(t, s, i, a, d, attack_index, kind, ranged):
    """``rules.attack_breakdown(battle, a, d, kind=KIND_CODES[kind], attack=<the name of
    attack attack_index>, ranged=ranged)``: ``(total, target_ac, facing, own area code,
    defender area code, sneak attack, concealment)``, the ``Modifiers`` fields ``total``,
    ``target_ac``, ``facing``, ``own_area`` and ``defender_area`` (as
    :data:`~facing_env.fast.state.AREA_CODES` codes), ``sneak_attack`` and
    ``concealment``. The attack is the first of that name (``Creature.attack``); it is
    ranged when ``ranged`` is or the attack is."""
    attack = s.attack_first[i, a, attack_index]
    is_ranged = True
    if not ranged:
        is_ranged = s.attack_ranged[i, a, attack]
    flank = -1
    if STANDARD[s.ruleset[i]] and not is_ranged:
        flank = 0
        if flanks(s, i, a, d):
            flank = 1
    facing, own, opp = best(t, s, i, a, d, kind, attack, is_ranged, flank == 1)
    total = s.attack_bonus[i, a, attack] + SIZE_MODIFIER[s.size[i, a]] + facing
    if s.squeezing[i, a]:
        total += SQUEEZING_ATTACK_PENALTY  # EP-SQZ-01
    if kind == CHARGE:
        total += CHARGE_ATTACK_BONUS
    if own < 0:
        own = NONE
    if opp < 0:
        opp = NONE
    ac = target_ac(t, s, i, a, d, attack)
    found = _sneak(t, s, i, a, d, is_ranged)
    sneak = found == 1
    if found == FLANKING_DECIDES:
        sneak = flank == 1
    return total, ac, facing, own, opp, sneak, concealment(t, s, i, a, d)
