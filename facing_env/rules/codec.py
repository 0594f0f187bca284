"""The action codec: an index of the flat ``Discrete(n)`` layout (:mod:`facing_env.actions`)
to an engine :class:`~facing_env.rules.turns.Action` and back, and the exact mask (the
encoding of :func:`facing_env.rules.legality.legal_actions`). The batched engine's twin is
:mod:`facing_env.fast.codec`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from facing_env.actions import (
    ATTACK_BASE,
    END_TURN_INDEX,
    MOVE_BASE,
    READY_INDEX,
    RUN_INDEX,
    SLOT_KINDS,
    STEP_BASES,
    TURN_BASE,
)
from facing_env.errors import IllegalActionError
from facing_env.rules import engine, geometry, legality, turns
from facing_env.rules.battle import Battle
from facing_env.rules.engine import Action

_DIRECTIONAL = turns.MOVE_ACTIONS + turns.KEEP_ACTIONS + turns.FIVE_FOOT_ACTIONS
"""MOVE, STEP_KEEP_FACING and FIVE_FOOT_STEP in every direction, in index order."""


@cache
def _turn_action(facing: int) -> Action:
    return Action(engine.TURN, facing)


def creature_slots(battle: Battle, creature_id: str) -> list[str]:
    """Table rows for one creature's view: itself, its allies, then its enemies, each in
    spec order (dead creatures keep their rows)."""
    me = battle.creatures[creature_id]
    allies = [
        c for c in battle.creatures if c != creature_id and battle.creatures[c].team == me.team
    ]
    enemies = [c for c in battle.creatures if battle.creatures[c].team != me.team]
    return [creature_id, *allies, *enemies]


@dataclass(frozen=True)
class ActionCodec:
    """Encodes engine actions as integers and back, for ``n_slots`` creature rows."""

    n_slots: int

    @property
    def n(self) -> int:
        """Size of the Discrete action space."""
        return ATTACK_BASE + len(SLOT_KINDS) * self.n_slots

    def slot_base(self, kind: str) -> int:
        """The first index of a slot block (``ATTACK``, ``CHARGE``, ``WITHDRAW``)."""
        return ATTACK_BASE + SLOT_KINDS.index(kind) * self.n_slots

    def decode(self, battle: Battle, slots: list[str], index: int) -> Action:
        """The engine action of an index for the creature whose rows are ``slots``."""
        index = int(index)
        if not 0 <= index < self.n:
            raise IllegalActionError(f"action {index} is outside Discrete({self.n})")
        if MOVE_BASE <= index < TURN_BASE:  # the engine's own records, no new tuple
            return _DIRECTIONAL[index - MOVE_BASE]
        if index == END_TURN_INDEX:
            return turns.END_ACTION
        if index == RUN_INDEX:
            return turns.RUN_ACTION
        if index == READY_INDEX:
            return turns.READY_ACTION
        if index >= ATTACK_BASE:
            block, slot = divmod(index - ATTACK_BASE, self.n_slots)
            kind = SLOT_KINDS[block]
            if slot >= len(slots):
                return Action(kind, f"<empty slot {slot}>")
            if kind == engine.ATTACK:
                return legality.attack_action(slots[slot])
            return Action(kind, slots[slot])
        c = battle.creatures[slots[0]]
        allowed = geometry.allowed_facings(battle.kind, battle.ruleset, c.shape)
        slot = index - TURN_BASE
        return _turn_action(allowed[slot] if slot < len(allowed) else -1)

    def encode(self, battle: Battle, slots: list[str], action: Action) -> int:
        """The index of an engine action."""
        kind, arg = action
        base = STEP_BASES.get(kind)
        if base is not None:
            return base + int(arg)  # type: ignore[arg-type]
        if kind == engine.END_TURN:
            return END_TURN_INDEX
        if kind == engine.RUN:
            return RUN_INDEX
        if kind == engine.READY:
            return READY_INDEX
        if kind in SLOT_KINDS:
            return self.slot_base(kind) + slots.index(str(arg))
        if kind == engine.TURN:
            c = battle.creatures[slots[0]]
            allowed = geometry.allowed_facings(battle.kind, battle.ruleset, c.shape)
            return TURN_BASE + allowed.index(int(arg))  # type: ignore[arg-type]
        return STEP_BASES[kind] + int(arg)  # type: ignore[arg-type]

    def mask(self, battle: Battle, slots: list[str]) -> np.ndarray:
        """The int8 mask of creature ``slots[0]`` from the object engine's legal actions
        (all zeros unless it is the actor). The env's masks come from the batched
        engine's scan (:mod:`facing_env.fast.legality`); this is the readable form."""
        mask = np.zeros(self.n, dtype=np.int8)
        if engine.actor(battle) is None or battle.turn.actor != slots[0]:
            return mask
        for action in engine.legal_actions(battle):
            mask[self.encode(battle, slots, action)] = 1
        return mask
