"""Reach and threat of the batched engine: which creatures an attack reaches, which cells
a creature threatens.

The single batched copy of the reference's reach logic: ``engine.slot_reaches`` (reach
or range, and a monster attack's ``zones``, UA-MON-01, UA-MON-02), ``legality._melee_slot``
(the attack of opportunity, a readied attack, a charge's attack), ``legality._attack_slots``
and ``legality._usable_slot`` (the attacks left this turn), ``rules.opportunity``'s
``melee_reach``, ``can_make_attacks_of_opportunity``, ``cells_within``,
``threatened_cells`` and ``threatens`` (EP-THR-01, EP-REACH-01, SRD-FF-01, UA-FEAT-CR).

What the reference's users read:

- the observation's ``THREATENED_BY_*`` channels stamp ``rules.opportunity.
  threatened_offsets``, and ``rules.provokers`` / ``step_provokers`` (attacks of
  opportunity) and ``rules.may_withdraw_from`` read ``threatened_cells``: both are
  :func:`threatens_cell` (:func:`threatens_creature` for a creature's squares);
- the observation's ``THREATENS_ME`` / ``I_THREATEN_IT`` columns are
  :func:`reach_covers_creature` and :func:`can_make_aoo` (the reference observation's
  ``cells_within`` of the melee reach).

Kernels take the tables ``t`` (:class:`~facing_env.fast.lookup.Tables`), the state ``s``
and the battle row ``i``; creatures are slots, attacks indices into a creature's
attacks. ``tests/test_fast_scan.py`` compares each with the reference on random states of
every scenario. ``NUMBA_DISABLE_JIT=1`` runs them as plain Python.

Speed: the kernels of this module, :mod:`~facing_env.fast.maneuvers` and
:mod:`~facing_env.fast.legality` are compiled without numba's reference counting
(:data:`kernel`, ``_nrt=False``; they allocate nothing). With it, every call of a
function that takes the State (a tuple of about a hundred arrays) and that LLVM does not
inline increments and decrements the count of every array of the tuple, about 1.5 us a
call. They call the board primitives of :mod:`~facing_env.fast.geometry` through copies
compiled the same way. The functions decorated :data:`helper` have no
Python entry point, which saves a second or two of compilation each: call them from
kernels only (from Python they crash the interpreter; ``NUMBA_DISABLE_JIT=1`` runs them).
(:mod:`facing_env.fast.jit`.)
"""

from __future__ import annotations

import numpy as np

from facing_env.fast.geometry import (
    alive,
    area_code,
    cell_distance,
    footprint_distance,
    has_facing,
)
from facing_env.fast.jit import helper, kernel
from facing_env.fast.state import SHAPE_CELLS, SHAPE_OFFSETS
from facing_env.tables import FEATS, FEET_PER_SQUARE

FEET = FEET_PER_SQUARE
COMBAT_REFLEXES = np.int32(1 << FEATS.index("Combat Reflexes"))
"""The feat bit that lets a flat-footed creature make attacks of opportunity."""

NO_SLOTS = 0
""":func:`attack_slots`: no attack left this turn."""
CLEAVE_SLOT = 1
""":func:`attack_slots`: only the Cleave attack (``turn_cleave``)."""
REMAINING_SLOTS = 2
""":func:`attack_slots`: the attacks left (``remaining``)."""

_OFFSETS = SHAPE_OFFSETS
_CELLS = SHAPE_CELLS


@kernel
def melee_reach(s, i, k):
    """``rules.opportunity.melee_reach``: the longest reach in feet of ``k``'s melee
    attacks (0 if none)."""
    reach = 0
    for a in range(s.n_attacks[i, k]):
        if not s.attack_ranged[i, k, a] and s.attack_reach[i, k, a] > reach:
            reach = s.attack_reach[i, k, a]
    return reach


@helper
def has_melee(s, i, k):
    """Whether ``k`` has a melee attack."""
    for a in range(s.n_attacks[i, k]):
        if not s.attack_ranged[i, k, a]:
            return True
    return False


@kernel
def can_make_aoo(s, i, k):
    """``rules.can_make_attacks_of_opportunity``: alive, threatens, has a melee attack and
    is not flat-footed (unless it has Combat Reflexes, SRD-FF-01)."""
    if not alive(s, i, k) or not s.threatens[i, k] or not has_melee(s, i, k):
        return False
    return not s.flat_footed[i, k] or (s.feats[i, k] & COMBAT_REFLEXES) != 0


@helper
def within(s, i, k, radius, x, y):
    """``rules.opportunity.cells_within`` (in squares): whether cell ``(x, y)`` is at most
    ``radius`` cells from a square of ``k``'s space (its own squares included)."""
    shape = s.shape[i, k]
    kx = s.x[i, k]
    ky = s.y[i, k]
    for p in range(_CELLS[shape]):
        px = kx + _OFFSETS[shape, p, 0]
        py = ky + _OFFSETS[shape, p, 1]
        if cell_distance(s, i, px, py, x, y) <= radius:
            return True
    return False


@kernel
def reach_covers(s, i, k, x, y):
    """Whether cell ``(x, y)`` lies within ``k``'s melee reach or its own space, whatever
    its state: ``cells_within(battle, k, melee_reach(k))``."""
    return within(s, i, k, melee_reach(s, i, k) // FEET, x, y)


@kernel
def reach_covers_creature(s, i, k, o):
    """Whether ``k``'s melee reach covers a square of ``o``'s space
    (``rules.opportunity.cells_within`` of ``melee_reach``)."""
    radius = melee_reach(s, i, k) // FEET
    shape = s.shape[i, o]
    for p in range(_CELLS[shape]):
        if within(
            s, i, k, radius, s.x[i, o] + _OFFSETS[shape, p, 0], s.y[i, o] + _OFFSETS[shape, p, 1]
        ):
            return True
    return False


@kernel
def threatens_cell(s, i, k, x, y):
    """``(x, y) in rules.threatened_cells(battle, k)`` (EP-THR-01): what the observation's
    threat channels, the attacks of opportunity and withdrawals read."""
    return can_make_aoo(s, i, k) and reach_covers(s, i, k, x, y)


@kernel
def threatens_creature(s, i, k, o):
    """``rules.threatens(battle, k, o)``: ``k`` threatens a square of ``o``'s space."""
    return can_make_aoo(s, i, k) and reach_covers_creature(s, i, k, o)


@helper
def attack_feet(s, i, k, attack):
    """An attack's reach (melee) or range (ranged) in feet."""
    if s.attack_ranged[i, k, attack]:
        return s.attack_range[i, k, attack]
    return s.attack_reach[i, k, attack]


@kernel
def within_reach(s, i, attacker, target, attack):
    """``rules.opportunity.within_reach``: the attack's reach or range covers the
    target's space."""
    feet = attack_feet(s, i, attacker, attack)
    if feet <= 0:
        return False
    return (
        footprint_distance(
            s,
            i,
            s.shape[i, attacker],
            s.x[i, attacker],
            s.y[i, attacker],
            s.shape[i, target],
            s.x[i, target],
            s.y[i, target],
        )
        * FEET
        <= feet
    )


@kernel
def slot_reaches(t, s, i, attacker, target, attack):
    """``engine.slot_reaches``: the attack can hit the target from here (reach or range;
    an attack with ``zones`` only into those areas of a facing attacker, UA-MON-01,
    UA-MON-02). The slot's iterative penalty plays no part."""
    if not within_reach(s, i, attacker, target, attack):
        return False
    zones = s.attack_zones[i, attacker, attack]
    if zones == 0 or not has_facing(s, i, attacker):
        return True
    feet = attack_feet(s, i, attacker, attack)
    a_shape = s.shape[i, attacker]
    ax = s.x[i, attacker]
    ay = s.y[i, attacker]
    shape = s.shape[i, target]
    for q in range(_CELLS[shape]):
        x = s.x[i, target] + _OFFSETS[shape, q, 0]
        y = s.y[i, target] + _OFFSETS[shape, q, 1]
        near = 1 << 30
        for p in range(_CELLS[a_shape]):
            d = cell_distance(
                s, i, x, y, ax + _OFFSETS[a_shape, p, 0], ay + _OFFSETS[a_shape, p, 1]
            )
            if d < near:
                near = d
        if near * FEET <= feet and (zones >> area_code(t, s, i, attacker, x, y)) & 1:
            return True
    return False


@kernel
def melee_slot(t, s, i, attacker, target):
    """``legality._melee_slot``: the first melee attack of ``attacker`` that reaches
    ``target`` (penalty 0), -1 if none."""
    for a in range(s.n_attacks[i, attacker]):
        if not s.attack_ranged[i, attacker, a] and slot_reaches(t, s, i, attacker, target, a):
            return a
    return -1


@helper
def attack_slots(s, i):
    """``legality._attack_slots`` of the acting creature: :data:`CLEAVE_SLOT` (only the
    Cleave attack), :data:`REMAINING_SLOTS` (the attacks left) or :data:`NO_SLOTS`."""
    if s.turn_cleave[i, 0] >= 0:
        return CLEAVE_SLOT
    if s.turn_attacks_made[i] == 0:
        return REMAINING_SLOTS if s.turn_standard_available[i] else NO_SLOTS
    if s.turn_full_attack[i] or (
        not s.turn_moved[i] and s.turn_move_available[i] and not s.turn_running[i]
    ):
        return REMAINING_SLOTS
    return NO_SLOTS


@kernel
def has_attack_slots(s, i):
    """``legality._attack_slots(battle)[0]`` is not empty."""
    mode = attack_slots(s, i)
    return mode == CLEAVE_SLOT or (mode == REMAINING_SLOTS and s.n_remaining[i] > 0)


@kernel
def usable_slot(t, s, i, target):
    """``legality._usable_slot`` of the acting creature against ``target``: the first of its
    attack slots that reaches, as ``(attack, penalty, position in remaining)``; the
    position is -1 for the Cleave attack; ``(-1, 0, -1)`` when none reaches."""
    c = s.actor[i]
    mode = attack_slots(s, i)
    if mode == CLEAVE_SLOT:
        attack = s.turn_cleave[i, 0]
        if slot_reaches(t, s, i, c, target, attack):
            return attack, s.turn_cleave[i, 1], -1
    elif mode == REMAINING_SLOTS:
        for r in range(s.n_remaining[i]):
            attack = s.remaining[i, r, 0]
            if slot_reaches(t, s, i, c, target, attack):
                return attack, s.remaining[i, r, 1], r
    return -1, 0, -1


@kernel
def can_attack(t, s, i, target):
    """The acting creature may attack ``target`` (``legality._check_attack`` finds nothing
    wrong): a living enemy that one of its attack slots reaches."""
    c = s.actor[i]
    if not alive(s, i, target) or s.team[i, target] == s.team[i, c]:
        return False
    return usable_slot(t, s, i, target)[0] >= 0
