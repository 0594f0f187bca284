"""The flat ``Discrete(n)`` action layout: indices and names (docs/design.md, turns and actions).

The codec from these indices to engine actions and back, and the exact mask, is
:class:`facing_env.rules.codec.ActionCodec`; the batched engine's twin is
:mod:`facing_env.fast.codec`.

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

from facing_env.rules import engine, geometry

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
STEP_BASES = {  # the first index of each directional block
    engine.MOVE: MOVE_BASE,
    engine.STEP_KEEP_FACING: STEP_BASE,
    engine.FIVE_FOOT_STEP: FIVE_FOOT_BASE,
}


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
