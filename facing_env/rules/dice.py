"""Dice from a counter-based stream, or their expected values.

All randomness in a battle flows through one :class:`Dice`, seeded by the env, so the same
seed replays the same trajectory. The dice are a counter-based stream (env ``-v2``): the
``n``-th number a battle draws is a pure function of the battle's dice seed and ``n``
(:func:`stream_word`, SplitMix64's output function on ``seed + (n + 1) * golden``), so the
batched engine (:mod:`facing_env.fast`) draws exactly the same rolls without sharing a
generator object: it keeps one seed and one counter per battle. A die with ``sides``
faces reads the top 53 bits of the word as a fraction ``u`` and rolls ``floor(u * sides)
+ 1`` (:func:`stream_die`), in integer arithmetic.

Three modes lower the variance for experiments and training:

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

NATURAL_20 = 20
"""A natural 20 always hits; a natural 1 always misses (the d20 attack roll)."""


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


_MASK64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15


def stream_word(seed: int, index: int) -> int:
    """The 64-bit word number ``index`` of the dice stream of ``seed`` (SplitMix64)."""
    z = (seed + (index + 1) * _GOLDEN) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def stream_die(seed: int, index: int, sides: int) -> int:
    """Draw number ``index`` of the stream of ``seed`` as a die of ``sides`` faces, 1 to
    ``sides``: ``floor(u * sides) + 1`` with ``u`` the word's top 53 bits as a fraction."""
    return (((stream_word(seed, index) >> 11) * sides) >> 53) + 1


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
    return roll == NATURAL_20 or (roll != 1 and roll + bonus >= ac)


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
    """Rolls d20s, damage dice and percentile dice from the stream of one seed.

    ``seed`` is the stream's key: an int (0 to 2**64 - 1), or a numpy Generator to draw
    one from. ``count`` is the number of draws made so far (the next draw's index).
    """

    def __init__(self, seed: int | np.random.Generator, mode: str = "roll") -> None:
        if isinstance(seed, np.random.Generator):
            seed = int(seed.integers(0, 2**63))
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise TypeError(f"a dice seed must be an int or a numpy Generator, got {seed!r}")
        if not 0 <= int(seed) <= _MASK64:
            raise ValueError(f"a dice seed must be in 0 .. 2**64 - 1, got {seed}")
        self.seed = int(seed)
        self.count = 0
        self.mode = check_mode(mode)
        self._deck: list[int] = []

    def die(self, sides: int) -> int:
        """The next draw of the stream as a die of ``sides`` faces (1 to ``sides``)."""
        value = stream_die(self.seed, self.count, sides)
        self.count += 1
        return value

    def uniform(self) -> float:
        """The next draw of the stream as a fraction in [0, 1) (53 bits)."""
        value = (stream_word(self.seed, self.count) >> 11) * 2.0**-53
        self.count += 1
        return value

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
            if not self._deck:  # Fisher-Yates over the stream, last card first
                deck = list(range(1, 21))
                for j in range(19, 0, -1):
                    r = self.die(j + 1) - 1
                    deck[j], deck[r] = deck[r], deck[j]
                self._deck = deck
            return self._deck.pop()
        return self.die(20)

    def percent(self) -> float:
        """A d100 roll (50.5 in expected mode)."""
        if self.expected:
            return 50.5
        return self.die(100)

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
        return float(sum(self.die(sides) for _ in range(n)))
