"""Typed outcomes of the engine: one record per thing that happened.

A log, a replay, a reward and a test all read the same records (docs/design.md, conventions).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from facing_env.types import Pos


class Event(NamedTuple):
    """Something that happened in a battle (an immutable record; a named tuple because the
    engine makes one or two per step and a tuple is built about four times faster than a
    frozen dataclass).

    ``kind``: ``initiative``, ``turn_start``, ``move``, ``five_foot_step``, ``turn``
    (facing change), ``run``, ``attack`` (also attacks of opportunity and cleaves, told
    apart by ``attack_kind``), ``death``, ``end_turn``, ``round``, ``ready``, ``charge``,
    ``withdraw``, ``trigger`` (a readied attack's trigger) and ``bump`` (a step or charge
    stopped by a foe the mover did not perceive, issue 36).
    """

    kind: str
    actor: str
    target: str | None = None
    pos: Pos | None = None
    facing: int | None = None
    cost: int = 0
    attack: str | None = None
    attack_kind: str | None = None
    roll: float | None = None
    total: float | None = None
    ac: int | None = None
    hit: bool = False
    critical: bool = False
    damage: float = 0  # whole hit points, except with mean dice (fractions)
    sneak_attack: bool = False
    own_area: str | None = None
    defender_area: str | None = None
    facing_modifier: int = 0
    round: int = 0

    def to_dict(self) -> dict[str, Any]:
        """A JSON-friendly dict without empty fields."""
        return {
            k: (list(v) if isinstance(v, tuple) else v)
            for k, v in self._asdict().items()
            if v not in (None, False, 0) or k in ("kind", "actor")
        }
