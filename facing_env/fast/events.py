"""The events of the batched engine: one buffer row per battle, read back as ``Event``.

:class:`Events` holds, per battle, the events of the step in progress (``count`` of
them), one column per field of :class:`facing_env.events.Event`: kinds, creatures (slots)
and attack kinds as codes, ``None`` as -1 (or NaN for the floats). :func:`to_events`
turns a row into the reference's ``Event`` records, which the tests compare with the
object engine's and the replays and rewards read.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from facing_env.events import Event
from facing_env.fast.jit import helper, kernel
from facing_env.fast.state import AREA_CODES
from facing_env.rules import engine
from facing_env.types import AttackKind

EVENT_KINDS: tuple[str, ...] = (
    "initiative",
    "turn_start",
    engine.MOVE,
    engine.FIVE_FOOT_STEP,
    engine.TURN,
    engine.RUN,
    engine.ATTACK,
    "death",
    "end_turn",
    "round",
    engine.READY,
    engine.CHARGE,
    engine.WITHDRAW,
    engine.TRIGGER,
    engine.BUMP,
)
"""Event kinds as codes."""
ATTACK_KINDS: tuple[str, ...] = (*(k.value for k in AttackKind), "traded")
"""``Event.attack_kind`` values as codes (``traded``: a 5-foot step bought with an attack)."""

E_TURN_START = EVENT_KINDS.index("turn_start")
E_MOVE = EVENT_KINDS.index(engine.MOVE)
E_FIVE = EVENT_KINDS.index(engine.FIVE_FOOT_STEP)
E_TURN = EVENT_KINDS.index(engine.TURN)
E_RUN = EVENT_KINDS.index(engine.RUN)
E_ATTACK = EVENT_KINDS.index(engine.ATTACK)
E_DEATH = EVENT_KINDS.index("death")
E_END_TURN = EVENT_KINDS.index("end_turn")
E_ROUND = EVENT_KINDS.index("round")
E_READY = EVENT_KINDS.index(engine.READY)
E_CHARGE = EVENT_KINDS.index(engine.CHARGE)
E_WITHDRAW = EVENT_KINDS.index(engine.WITHDRAW)
E_TRIGGER = EVENT_KINDS.index(engine.TRIGGER)
E_BUMP = EVENT_KINDS.index(engine.BUMP)

NO_AC = -(1 << 30)
"""``ac`` of an event without one (``None``)."""


class Events(NamedTuple):
    """Per battle, the events of the step in progress (``(N, E)`` columns)."""

    count: np.ndarray  # (N,) int32
    overflow: np.ndarray  # (N,) bool: more than E events in one step (raised by the caller)
    kind: np.ndarray  # int8 EVENT_KINDS
    actor: np.ndarray  # int32 slot
    target: np.ndarray  # int32 slot, -1: none
    x: np.ndarray  # int32 (pos), with has_pos
    y: np.ndarray  # int32
    has_pos: np.ndarray  # bool
    facing: np.ndarray  # int32, -1: none
    cost: np.ndarray  # int32
    attack: np.ndarray  # int32 attack index (the first of its name), -1: none
    attack_kind: np.ndarray  # int8 ATTACK_KINDS, -1: none
    roll: np.ndarray  # float64, NaN: none
    total: np.ndarray  # float64, NaN: none
    ac: np.ndarray  # int32, NO_AC: none
    hit: np.ndarray  # bool
    critical: np.ndarray  # bool
    damage: np.ndarray  # float64
    sneak_attack: np.ndarray  # bool
    own_area: np.ndarray  # int8 AREA_CODES, -1: none
    defender_area: np.ndarray  # int8 AREA_CODES, -1: none
    facing_modifier: np.ndarray  # int32
    round: np.ndarray  # int32


def allocate_events(n: int, capacity: int = 256) -> Events:
    """Buffers for ``n`` battles of at most ``capacity`` events per step."""
    types = {
        "kind": np.int8, "attack_kind": np.int8, "own_area": np.int8,
        "defender_area": np.int8, "roll": np.float64, "total": np.float64,
        "damage": np.float64, "has_pos": np.bool_, "hit": np.bool_, "critical": np.bool_,
        "sneak_attack": np.bool_,
    }  # fmt: skip
    columns = {
        name: np.zeros((n, capacity), dtype=types.get(name, np.int32))
        for name in Events._fields[2:]
    }
    return Events(np.zeros(n, np.int32), np.zeros(n, np.bool_), **columns)


@kernel
def append_events(ev, i, log):
    """Append row ``i``'s events to row 0 of ``log`` (a buffer of the same columns that
    gathers many steps' events, read back by :func:`to_events` when asked for); sets
    ``log.overflow[0]`` instead when they do not fit."""
    n, at = ev.count[i], log.count[0]
    if at + n > log.kind.shape[1]:
        log.overflow[0] = True
        return
    for j in range(n):
        log.kind[0, at + j] = ev.kind[i, j]
        log.actor[0, at + j] = ev.actor[i, j]
        log.target[0, at + j] = ev.target[i, j]
        log.x[0, at + j] = ev.x[i, j]
        log.y[0, at + j] = ev.y[i, j]
        log.has_pos[0, at + j] = ev.has_pos[i, j]
        log.facing[0, at + j] = ev.facing[i, j]
        log.cost[0, at + j] = ev.cost[i, j]
        log.attack[0, at + j] = ev.attack[i, j]
        log.attack_kind[0, at + j] = ev.attack_kind[i, j]
        log.roll[0, at + j] = ev.roll[i, j]
        log.total[0, at + j] = ev.total[i, j]
        log.ac[0, at + j] = ev.ac[i, j]
        log.hit[0, at + j] = ev.hit[i, j]
        log.critical[0, at + j] = ev.critical[i, j]
        log.damage[0, at + j] = ev.damage[i, j]
        log.sneak_attack[0, at + j] = ev.sneak_attack[i, j]
        log.own_area[0, at + j] = ev.own_area[i, j]
        log.defender_area[0, at + j] = ev.defender_area[i, j]
        log.facing_modifier[0, at + j] = ev.facing_modifier[i, j]
        log.round[0, at + j] = ev.round[i, j]
    log.count[0] = at + n


@helper
def emit(ev, i, kind, actor, round_):
    """Append an event with every optional field empty; its index, -1 on overflow."""
    n = ev.count[i]
    if n >= ev.kind.shape[1]:
        ev.overflow[i] = True
        return -1
    ev.count[i] = n + 1
    ev.kind[i, n] = kind
    ev.actor[i, n] = actor
    ev.target[i, n] = -1
    ev.has_pos[i, n] = False
    ev.x[i, n] = 0
    ev.y[i, n] = 0
    ev.facing[i, n] = -1
    ev.cost[i, n] = 0
    ev.attack[i, n] = -1
    ev.attack_kind[i, n] = -1
    ev.roll[i, n] = np.nan
    ev.total[i, n] = np.nan
    ev.ac[i, n] = NO_AC
    ev.hit[i, n] = False
    ev.critical[i, n] = False
    ev.damage[i, n] = 0.0
    ev.sneak_attack[i, n] = False
    ev.own_area[i, n] = -1
    ev.defender_area[i, n] = -1
    ev.facing_modifier[i, n] = 0
    ev.round[i, n] = round_
    return n


@helper
def emit_at(ev, i, kind, actor, round_, target, x, y, facing):
    """:func:`emit` of an event that happens at ``(x, y)`` (a step, a bump, a charge's
    destination) with ``target`` (-1: none) and the actor's ``facing``; its index, -1 on
    overflow."""
    e = emit(ev, i, kind, actor, round_)
    if e >= 0:
        ev.target[i, e] = target
        ev.has_pos[i, e] = True
        ev.x[i, e] = x
        ev.y[i, e] = y
        ev.facing[i, e] = facing
    return e


def to_events(ev: Events, i: int, ids: list[str], attack_names: list[list[str]]) -> list[Event]:
    """Row ``i`` as ``Event`` records; ``ids[k]`` names slot ``k``, ``attack_names[k][a]``
    its attacks."""
    out = []
    for n in range(int(ev.count[i])):
        actor = int(ev.actor[i, n])
        target = int(ev.target[i, n])
        attack = int(ev.attack[i, n])
        kind = int(ev.attack_kind[i, n])
        own, opp = int(ev.own_area[i, n]), int(ev.defender_area[i, n])
        roll, total = float(ev.roll[i, n]), float(ev.total[i, n])
        damage = float(ev.damage[i, n])
        out.append(
            Event(
                EVENT_KINDS[int(ev.kind[i, n])],
                ids[actor],
                None if target < 0 else ids[target],
                pos=(int(ev.x[i, n]), int(ev.y[i, n])) if ev.has_pos[i, n] else None,
                facing=None if ev.facing[i, n] < 0 else int(ev.facing[i, n]),
                cost=int(ev.cost[i, n]),
                attack=None if attack < 0 else attack_names[actor][attack],
                attack_kind=None if kind < 0 else ATTACK_KINDS[kind],
                roll=None if np.isnan(roll) else roll,
                total=None if np.isnan(total) else total,
                ac=None if ev.ac[i, n] == NO_AC else int(ev.ac[i, n]),
                hit=bool(ev.hit[i, n]),
                critical=bool(ev.critical[i, n]),
                damage=int(damage) if damage == int(damage) else damage,
                sneak_attack=bool(ev.sneak_attack[i, n]),
                own_area=None if own < 0 else AREA_CODES[own].value,
                defender_area=None if opp < 0 else AREA_CODES[opp].value,
                facing_modifier=int(ev.facing_modifier[i, n]),
                round=int(ev.round[i, n]),
            )
        )
    return out
