"""Action indices of the batched engine: :meth:`facing_env.rules.codec.ActionCodec.decode`.

An index of the env's ``Discrete(n)`` layout (:mod:`facing_env.actions`) becomes an
action-kind code of :mod:`facing_env.fast.resolve` and its argument: a direction, a facing
(the ``slot``-th allowed facing of the actor's footprint) or a creature slot (the
actor's table rows: itself, its allies, then its enemies, each in spec order:
:func:`facing_env.rules.codec.creature_slots`).
"""

from __future__ import annotations

from facing_env.actions import (
    ATTACK_BASE,
    END_TURN_INDEX,
    FIVE_FOOT_BASE,
    MOVE_BASE,
    READY_INDEX,
    RUN_INDEX,
    STEP_BASE,
    TURN_BASE,
)
from facing_env.fast.jit import kernel
from facing_env.fast.resolve import (
    ATTACK,
    CHARGE,
    END_TURN,
    FIVE_FOOT_STEP,
    MOVE,
    READY,
    RUN,
    STEP_KEEP_FACING,
    TURN,
    WITHDRAW,
)

_SLOT_KINDS = (ATTACK, CHARGE, WITHDRAW)  # actions.SLOT_KINDS, in block order


@kernel
def slot_creature(s, i, me, slot):
    """The creature in row ``slot`` of ``me``'s table (-1 past the last)."""
    if slot == 0:
        return me
    n = 1
    for k in range(s.n_creatures[i]):
        if k != me and s.team[i, k] == s.team[i, me]:
            if n == slot:
                return k
            n += 1
    for k in range(s.n_creatures[i]):
        if s.team[i, k] != s.team[i, me]:
            if n == slot:
                return k
            n += 1
    return -1


@kernel
def decode(t, s, i, index, n_slots):
    """``(kind code, argument)`` of action ``index`` for battle ``i``'s actor."""
    if index == END_TURN_INDEX:
        return END_TURN, -1
    if index < STEP_BASE:
        return MOVE, index - MOVE_BASE
    if index < FIVE_FOOT_BASE:
        return STEP_KEEP_FACING, index - STEP_BASE
    if index < TURN_BASE:
        return FIVE_FOOT_STEP, index - FIVE_FOOT_BASE
    if index < RUN_INDEX:
        slot = index - TURN_BASE
        shape = s.shape[i, s.actor[i]]
        n = 0
        for f in range(t.allowed.shape[1]):
            if t.allowed[shape, f]:
                if n == slot:
                    return TURN, f
                n += 1
        return TURN, -1
    if index == RUN_INDEX:
        return RUN, -1
    if index == READY_INDEX:
        return READY, -1
    block = (index - ATTACK_BASE) // n_slots
    slot = (index - ATTACK_BASE) % n_slots
    return _SLOT_KINDS[block], slot_creature(s, i, s.actor[i], slot)
