"""The flat ``Discrete(n)`` action codec and its exact mask (docs/design.md, turns and actions).

Layout, the same on square and hex grids (unused slots are always masked):

| index | action | argument |
|---|---|---|
| 0 | ``END_TURN`` | always legal for the acting agent |
| 1-8 | ``MOVE(dir)`` | turn toward ``dir`` (free while moving) and step one square |
| 9-16 | ``STEP_KEEP_FACING(dir)`` | step without turning (flank/rear cost double in ua35) |
| 17-24 | ``FIVE_FOOT_STEP(dir)`` | the 5-foot step (no attack of opportunity) |
| 25-32 | ``TURN(slot)`` | change facing to the creature's ``slot``-th allowed facing |
| 33 | ``RUN`` | declare a run (full-round, x4 speed) |
| 34 | ``READY`` | ready a melee attack against the first enemy stepping into reach |
| 35..35+K-1 | ``ATTACK(slot)`` | attack the creature in row ``slot`` of the observation's table |
| 35+K..35+2K-1 | ``CHARGE(slot)`` | charge that creature (full-round, one attack at +2) |
| 35+2K..35+3K-1 | ``WITHDRAW(slot)`` | withdraw from that creature (full-round) |

Directions: square ``N NE E SE S SW W NW``; hex ``E NE NW W SW SE`` (slots 7-8 unused).
Square facings are the eight directions; hex creatures have six facings each (single hexes
and hexagons face the neighbours, triangles the corners). ``K`` is the scenario's number of
creature slots. The mask is the encoding of ``engine.legal_actions``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from facing_env.errors import IllegalActionError
from facing_env.rules import engine, geometry
from facing_env.rules.battle import Battle
from facing_env.rules.engine import Action

N_DIRECTIONS = 8
END_TURN_INDEX = 0
MOVE_BASE = 1
STEP_BASE = MOVE_BASE + N_DIRECTIONS
FIVE_FOOT_BASE = STEP_BASE + N_DIRECTIONS
TURN_BASE = FIVE_FOOT_BASE + N_DIRECTIONS
RUN_INDEX = TURN_BASE + N_DIRECTIONS
READY_INDEX = RUN_INDEX + 1
ATTACK_BASE = READY_INDEX + 1
SLOT_KINDS = (engine.ATTACK, engine.CHARGE, engine.WITHDRAW)
"""The actions that take a creature slot, in block order from :data:`ATTACK_BASE`."""
_BASES = {
    engine.MOVE: MOVE_BASE,
    engine.STEP_KEEP_FACING: STEP_BASE,
    engine.FIVE_FOOT_STEP: FIVE_FOOT_BASE,
}


_DIRECTIONAL = engine._MOVES + engine._KEEPS + engine._FIVES
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
            return engine._END
        if index == RUN_INDEX:
            return engine._RUN
        if index == READY_INDEX:
            return engine._READY
        if index >= ATTACK_BASE:
            block, slot = divmod(index - ATTACK_BASE, self.n_slots)
            kind = SLOT_KINDS[block]
            if slot >= len(slots):
                return Action(kind, f"<empty slot {slot}>")
            if kind == engine.ATTACK:
                return engine._attack_action(slots[slot])
            return Action(kind, slots[slot])
        c = battle.creatures[slots[0]]
        allowed = geometry.allowed_facings(battle.kind, battle.ruleset, c.shape)
        slot = index - TURN_BASE
        return _turn_action(allowed[slot] if slot < len(allowed) else -1)

    def encode(self, battle: Battle, slots: list[str], action: Action) -> int:
        """The index of an engine action."""
        kind, arg = action
        base = _BASES.get(kind)
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
        return _BASES[kind] + int(arg)  # type: ignore[arg-type]

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


def action_names(kind: str = "square", n_slots: int = 2) -> list[str]:
    """Human-readable names of every index, e.g. ``MOVE(N)``, ``ATTACK(slot 1)``."""
    dirs = geometry.direction_names(geometry.GridKind(kind))
    names = ["END_TURN"]
    for label in ("MOVE", "STEP_KEEP_FACING", "FIVE_FOOT_STEP"):
        names += [
            f"{label}({dirs[i]})" if i < len(dirs) else f"{label}(unused)"
            for i in range(N_DIRECTIONS)
        ]
    names += [f"TURN(slot {i})" for i in range(N_DIRECTIONS)]
    names += ["RUN", "READY"]
    names += [f"{kind.upper()}(slot {i})" for kind in SLOT_KINDS for i in range(n_slots)]
    return names
