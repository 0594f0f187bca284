"""Checks of what a user hands the env, each a clear error naming the value: a battle
edited by hand before it is put in play (``raw_env.set_battle``, docs/api.md: the same
creatures on the same board, each where the rules allow it, as a scenario file is checked
by :func:`facing_env.rules.battle.check_placement`, and not over), a seed, a finite
number."""

from __future__ import annotations

import math

import numpy as np

from facing_env.errors import ScenarioError
from facing_env.limits import short_repr
from facing_env.rules import engine, geometry
from facing_env.rules.battle import Battle, check_placement


def check_edit(now: Battle, battle: Battle) -> None:
    """Raise ``TypeError`` unless ``battle`` is a :class:`Battle`, and ``ValueError`` naming
    the creature and field unless it is ``now`` (the battle in play) edited: the same
    creature ids in the same order, the same board, each creature's ``pos`` two integers
    with its space on the board, off blocked terrain and not shared (EP-STEP-01), its
    ``facing`` one it may take, its hit points finite numbers, and the battle not over."""
    if not isinstance(battle, Battle):
        raise TypeError(f"set_battle: expected a Battle, got {type(battle).__name__}")
    if list(battle.creatures) != list(now.creatures):
        raise ValueError(
            f"set_battle: the battle's creatures {list(battle.creatures)} are not this "
            f"episode's {list(now.creatures)} (same ids, same order)"
        )
    if battle.terrain.shape != now.terrain.shape:
        raise ValueError(
            f"set_battle: a {battle.terrain.shape} board, this episode's is {now.terrain.shape}"
        )
    names = geometry.facing_names(now.kind)
    for c in battle.creatures.values():
        ok_pos = (
            isinstance(c.pos, tuple)
            and len(c.pos) == 2  # noqa: PLR2004
            and all(is_int(v, -(2**31), 2**31 - 1) for v in c.pos)
        )
        if not ok_pos:
            raise ValueError(
                f"set_battle: creature {c.id!r}: pos must be a tuple of two integers, "
                f"got {short_repr(c.pos)}"
            )
        if not is_int(c.facing, 0, len(names) - 1):
            raise ValueError(
                f"set_battle: creature {c.id!r}: facing must be an integer from 0 to "
                f"{len(names) - 1} ({' '.join(names)}), got {short_repr(c.facing)}"
            )
        allowed = geometry.allowed_facings(now.kind, now.ruleset, c.shape)
        if c.has_facing and not c.faceless and c.facing not in allowed:  # as the loader
            raise ValueError(
                f"set_battle: creature {c.id!r}: facing {names[c.facing]} is not allowed "
                f"for it (allowed: {' '.join(names[i] for i in allowed)})"
            )
        for name in ("hp", "max_hp"):
            value = getattr(c, name)
            if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
                raise ValueError(
                    f"set_battle: creature {c.id!r}: {name} must be a number, got "
                    f"{short_repr(value)}"
                )
            if not math.isfinite(value):
                raise ValueError(
                    f"set_battle: creature {c.id!r}: {name} must be finite, got {value}"
                )
    try:
        check_placement(battle)
    except ScenarioError as exc:
        raise ValueError(f"set_battle: {exc}") from None
    if engine.is_over(battle):
        raise ValueError("set_battle: the battle is over (no creature could act)")


def check_seed(seed: object) -> None:
    """A ``ValueError`` naming ``seed`` unless it is None or a non-negative integer."""
    whole = isinstance(seed, (int, np.integer)) and not isinstance(seed, bool)
    if seed is not None and not (whole and seed >= 0):  # type: ignore[operator]
        raise ValueError(f"seed must be a non-negative integer or None, got {short_repr(seed)}")


def finite_number(value: object, name: str) -> float:
    """``value`` checked to be a finite number (not a boolean, a NaN or an infinity)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {short_repr(value)}")
    return float(value)


def is_int(value: object, low: int, high: int) -> bool:
    """Whether ``value`` is an integer (not a boolean) from ``low`` to ``high``."""
    return (
        isinstance(value, (int, np.integer))
        and not isinstance(value, bool)
        and low <= value <= high  # type: ignore[operator]
    )
