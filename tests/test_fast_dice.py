"""The batched engine's dice draw exactly what the reference ``Dice`` draws.

Same seed, same calls, same numbers and the same draw count, in every dice mode
(``facing_env.rules.dice``: a counter-based stream, env v2).
"""

from __future__ import annotations

import numpy as np
import pytest

from facing_env.fast import dice as fd
from facing_env.fast.state import allocate
from facing_env.rules.dice import DICE_MODES, Dice, stream_word

# their entry points are called from Python here only: one test process compiles them
# (pyproject's --dist loadgroup), not each
pytestmark = pytest.mark.xdist_group("kernel_twins")


def as_engine(*dice: int) -> tuple[np.int32, ...]:
    """Dice counts, sides and bonuses as the engine passes them (np.int32), so that
    ``fd.damage`` loads the version ``python -m facing_env warm`` compiled instead of
    compiling one of its own."""
    return tuple(np.int32(d) for d in dice)


def test_stream_words_agree() -> None:
    rng = np.random.default_rng(0)
    seeds = [0, 1, 2**63 - 1, 2**64 - 1, *map(int, rng.integers(0, 2**63, size=50))]
    for seed in seeds:
        for index in (0, 1, 2, 1000, 2**40):
            assert int(fd.stream_word(np.uint64(seed), np.int64(index))) == stream_word(seed, index)


@pytest.mark.parametrize("mode", DICE_MODES)
def test_every_draw_agrees_with_the_reference(mode: str) -> None:
    s = allocate(3, 1, 1, 1, 1, 1)
    rng = np.random.default_rng(5)
    for seed in (7, 2**62 + 3):
        ref = Dice(seed, mode)
        s.dice_seed[1], s.dice_count[1], s.deck_left[1] = seed, 0, 0
        code = DICE_MODES.index(mode)
        for _ in range(300):
            what = int(rng.integers(5))
            if what == 0:
                assert fd.d20(s, 1, code) == ref.d20()
            elif what == 1:
                assert fd.percent(s, 1, code) == ref.percent()
            elif what == 2:
                assert fd.uniform(s, 1) == ref.uniform()
            elif what == 3:
                assert fd.die(s, 1, 6) == ref.die(6)
            else:
                mult, extra = int(rng.integers(1, 4)), bool(rng.integers(2))
                want = ref.damage("2d6+1", mult, "3d6" if extra else None)
                got = fd.damage(s, 1, code, *as_engine(2, 6, 1), mult, *as_engine(3, 6, 0), extra)
                assert got == want
            assert s.dice_count[1] == ref.count
            assert s.deck_left[1] == len(ref._deck)
    assert s.dice_count[0] == s.dice_count[2] == 0  # other rows untouched
