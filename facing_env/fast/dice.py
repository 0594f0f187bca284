"""The dice of the batched engine: :mod:`facing_env.rules.dice` over a :class:`State` row.

Each battle keeps its dice seed and draw count (``State.dice_seed``, ``dice_count``) and,
in deck mode, its deck; every function here draws exactly what the method of
:class:`facing_env.rules.dice.Dice` of the same name draws, so both engines roll the same
numbers (``tests/test_fast_dice.py``). ``mode`` is an index into
:data:`facing_env.rules.dice.DICE_MODES`.
"""

from __future__ import annotations

import math

import numpy as np

from facing_env.fast.jit import kernel
from facing_env.rules.dice import DICE_MODES

ROLL = DICE_MODES.index("roll")
EXPECTED = DICE_MODES.index("expected")
DECK = DICE_MODES.index("deck")
MEAN = DICE_MODES.index("mean")

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)
_S53 = np.uint64(53)
_ONE = np.uint64(1)


@kernel
def stream_word(seed, index):
    """``facing_env.rules.dice.stream_word`` in 64-bit unsigned arithmetic."""
    z = np.uint64(seed) + (np.uint64(index) + _ONE) * _GOLDEN
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@kernel
def die(s, i, sides):
    """``Dice.die``: the next draw of battle ``i`` as a die of ``sides`` faces."""
    w = stream_word(s.dice_seed[i], s.dice_count[i])
    s.dice_count[i] += 1
    return np.int64(((w >> _S11) * np.uint64(sides)) >> _S53) + 1


@kernel
def uniform(s, i):
    """``Dice.uniform``: the next draw as a fraction in [0, 1)."""
    w = stream_word(s.dice_seed[i], s.dice_count[i])
    s.dice_count[i] += 1
    return np.float64(w >> _S11) * 2.0**-53


@kernel
def d20(s, i, mode):
    """``Dice.d20``: 10.5 in expected mode, the next card in deck mode."""
    if mode == EXPECTED:
        return 10.5
    if mode == DECK:
        if s.deck_left[i] == 0:  # Fisher-Yates over the stream, last card first
            for v in range(20):
                s.deck[i, v] = v + 1
            for j in range(19, 0, -1):
                r = die(s, i, j + 1) - 1
                held = s.deck[i, j]
                s.deck[i, j] = s.deck[i, r]
                s.deck[i, r] = held
            s.deck_left[i] = 20
        s.deck_left[i] -= 1
        return np.float64(s.deck[i, s.deck_left[i]])
    return np.float64(die(s, i, 20))


@kernel
def percent(s, i, mode):
    """``Dice.percent``: a d100 (50.5 in expected mode)."""
    if mode == EXPECTED:
        return 50.5
    return np.float64(die(s, i, 100))


@kernel
def _roll(s, i, mode, n, sides):
    if n == 0:
        return 0.0
    if mode == EXPECTED:
        return n * (sides + 1) / 2.0
    total = 0
    for _ in range(n):
        total += die(s, i, sides)
    return np.float64(total)


@kernel
def damage(s, i, mode, n, sides, bonus, multiplier, extra_n, extra_sides, extra_bonus, extra):
    """``Dice.damage``: the dice ``multiplier`` times plus the ``extra`` dice once (when
    ``extra``), at least 1, rounded half up."""
    total = 0.0
    for _ in range(multiplier):
        total += _roll(s, i, mode, n, sides) + bonus
    if extra:
        total += _roll(s, i, mode, extra_n, extra_sides) + extra_bonus
    return max(1, math.floor(total + 0.5))
