"""Dice from an injected numpy Generator, or their expected values.

All randomness in a battle flows through one :class:`Dice`, seeded by the env, so the same
seed replays the same trajectory. Two modes lower the variance for experiments and
training:

- ``mode="expected"`` replaces every roll by its expected value (a d20 reads 10.5, damage
  its mean rounded half up, percentile dice never trigger a miss chance). An attack then
  hits or misses for sure: +2 and +4 are worth the same when +2 already turns a miss into
  a hit.
- ``mode="deck"`` draws d20s from a shuffled deck of the twenty faces, reshuffled when
  spent (one deck per battle); damage and percentile dice roll. Every face comes up once
  in twenty draws, so each point of attack bonus is worth one hit in twenty attacks, as
  with rolls, with much less luck over a battle.
- ``mode="mean"`` makes every attack deal its mean damage over the d20, the critical
  confirmation and the percentile roll (:func:`mean_damage`, hit points become fractions):
  a front attack that hits on 11+ deals half its damage, a flank attack (+2) 0.6 of it, a
  rear attack (+4) 0.7, every time. No luck, and each point of attack bonus still counts,
  which ``expected`` loses. Initiative still rolls.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np

from facing_env.limits import short_repr
from facing_env.spec import DICE_RE


@cache
def parse_dice(expr: str) -> tuple[int, int, int]:
    """``"2d6+3"`` -> ``(2, 6, 3)``; ``"4"`` -> ``(0, 0, 4)``."""
    m = DICE_RE.match(expr)
    if m is None:
        raise ValueError(f"bad dice expression {expr!r}")
    if m.group(4) is not None:
        return (0, 0, int(m.group(4)))
    bonus = int(m.group(3).replace(" ", "")) if m.group(3) else 0
    return (int(m.group(1)), int(m.group(2)), bonus)


DICE_MODES: tuple[str, ...] = ("roll", "expected", "deck", "mean")
"""The dice modes (see the module docstring)."""


def check_mode(mode: object, what: str = "dice mode") -> str:
    """``mode`` if it is one of :data:`DICE_MODES`, else a ``ValueError`` naming ``what``
    and the value."""
    if mode not in DICE_MODES:
        names = ", ".join(repr(m) for m in DICE_MODES)
        raise ValueError(f"{what} must be one of {names}, got {short_repr(mode)}")
    return str(mode)


def roll_hits(roll: float, bonus: float, ac: float) -> bool:
    """Whether a d20 ``roll`` with ``bonus`` hits ``ac``: a natural 20 always hits, a
    natural 1 always misses (the attack roll and the critical confirmation alike)."""
    return roll == 20 or (roll != 1 and roll + bonus >= ac)


def _hits(bonus: float, ac: float, low: int = 1) -> int:
    """How many d20 faces from ``low`` up hit ``ac`` with ``bonus`` (:func:`roll_hits`)."""
    return sum(1 for r in range(max(low, 1), 21) if roll_hits(r, bonus, ac))


def mean_damage(
    bonus: float,
    ac: float,
    *,
    damage: str,
    threat_range: int = 20,
    crit_multiplier: int = 2,
    concealment: int = 0,
    extra: str | None = None,
) -> float:
    """The mean damage of one attack (``mode="mean"``): the chance to hit times the mean
    of the damage dice plus ``extra`` (sneak attack, never multiplied), plus the chance of
    a confirmed critical (a hitting roll in the threat range, then a confirmation roll
    that hits) times the extra multiples; a miss chance of ``concealment`` percent scales
    it all. Dice count at their means (the one-point minimum of a roll is not modelled)."""
    n, sides, plus = parse_dice(damage)
    base = n * (sides + 1) / 2.0 + plus
    sneak = 0.0
    if extra is not None:
        en, es, eb = parse_dice(extra)
        sneak = en * (es + 1) / 2.0 + eb
    p_hit = _hits(bonus, ac) / 20.0
    p_critical = _hits(bonus, ac, threat_range) / 20.0 * p_hit
    mean = p_hit * (base + sneak) + p_critical * (crit_multiplier - 1) * base
    return (1.0 - concealment / 100.0) * mean


class Dice:
    """Rolls d20s, damage dice and percentile dice."""

    def __init__(self, rng: np.random.Generator, mode: str = "roll") -> None:
        self.rng = rng
        self.mode = check_mode(mode)
        self._deck: list[int] = []

    @property
    def mean(self) -> bool:
        """Whether attacks deal their mean damage (:func:`mean_damage`)."""
        return self.mode == "mean"

    @property
    def expected(self) -> bool:
        """Whether rolls are replaced by expected values."""
        return self.mode == "expected"

    def d20(self) -> float:
        """A d20 roll (10.5 in expected mode, the next card in deck mode)."""
        if self.expected:
            return 10.5
        if self.mode == "deck":
            if not self._deck:
                self._deck = [int(v) for v in self.rng.permutation(20) + 1]
            return self._deck.pop()
        return int(self.rng.integers(1, 21))

    def percent(self) -> float:
        """A d100 roll (50.5 in expected mode)."""
        if self.expected:
            return 50.5
        return int(self.rng.integers(1, 101))

    def damage(self, expr: str, multiplier: int = 1, extra: str | None = None) -> int:
        """Damage: the dice ``multiplier`` times (criticals) plus ``extra`` dice once
        (sneak attack is not multiplied); at least 1."""
        n, sides, bonus = parse_dice(expr)
        total = 0.0
        for _ in range(multiplier):
            total += self._roll(n, sides) + bonus
        if extra is not None:
            en, es, eb = parse_dice(extra)
            total += self._roll(en, es) + eb
        return max(1, math.floor(total + 0.5))

    def _roll(self, n: int, sides: int) -> float:
        if n == 0:
            return 0.0
        if self.expected:
            return n * (sides + 1) / 2.0
        return float(self.rng.integers(1, sides + 1, size=n).sum())
