"""An opponent league with prioritised fictitious self-play (PFSP) sampling.

The learner's opponents (scripted agents by name, frozen snapshots of the learner as
``model:PATH@T``) each keep a running estimate of the learner's win rate against them,
from the battles the training environments finish. The chance of drawing an opponent for
the next battle is proportional to ``max(floor, (1 - p) ** power)`` where ``p`` is that
win rate (a draw counts as not won, as in the evaluation), so the learner meets most
often the opponents it does worst against, as in AlphaStar's PFSP, while ``floor`` keeps
every opponent in the mix (an opponent never seen again is soon forgotten).

``weighting="variance"`` replaces ``(1 - p) ** power`` by ``(4 p (1 - p)) ** (power / 2)``
(``4 p (1 - p)`` at the default power: AlphaStar's variance weighting, scaled to 1 at
``p = 1/2``): the learner meets most the opponents it beats about half the time, and an
opponent it never beats only at ``floor``, so a run whose estimates are all near 0 early
on trains against the opponents it can learn from first.

No torch: ``train.py`` feeds it outcomes and copies :meth:`League.weights` into the
environments (``set_opponent_weights`` of :class:`facing_env.train.team_env.TeamLearnerEnv` and
:class:`facing_env.train.team_vec_env.TeamVecEnv`, which check them with :func:`check_weights`
and draw each battle's opponent with :func:`draw`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

WEIGHTINGS = ("hard", "variance")
"""How :class:`League` turns a win rate into a priority (see the module docstring)."""


@dataclass
class OpponentRecord:
    """Results of the learner against one opponent."""

    games: int = 0
    wins: int = 0
    win_rate: float = 0.5
    """exponential moving average of wins (1) and non-wins (0), starting at 0.5"""

    def add(self, won: bool, decay: float) -> None:
        """One finished battle."""
        self.games += 1
        self.wins += int(won)
        self.win_rate += (1.0 - decay) * (float(won) - self.win_rate)


@dataclass
class League:
    """Opponents and their PFSP weights (see the module docstring)."""

    power: float = 2.0
    """sharpness of the priority: 0 draws uniformly, 1 in proportion to the loss rate"""
    floor: float = 0.05
    """weight of an opponent the learner always beats (keeps it in the mix)"""
    decay: float = 0.98
    """the moving average keeps this much of its estimate per battle (~50 battles)"""
    weighting: str = "hard"
    """``hard``: ``(1 - p) ** power``; ``variance``: ``(4 p (1 - p)) ** (power / 2)``"""
    records: dict[str, OpponentRecord] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.power >= 0.0:
            raise ValueError(f"power must be >= 0, got {self.power}")
        if not 0.0 < self.floor <= 1.0:
            raise ValueError(f"floor must be in (0, 1], got {self.floor}")
        if not 0.0 <= self.decay < 1.0:
            raise ValueError(f"decay must be in [0, 1), got {self.decay}")
        if self.weighting not in WEIGHTINGS:
            names = ", ".join(repr(w) for w in WEIGHTINGS)
            raise ValueError(f"weighting must be one of {names}, got {self.weighting!r}")

    def add(self, name: str) -> None:
        """A new opponent (a snapshot starts as an even match)."""
        self.records.setdefault(name, OpponentRecord())

    def remove(self, name: str) -> None:
        """An opponent that leaves the pool."""
        self.records.pop(name, None)

    def record(self, name: str, won: bool) -> None:
        """The outcome of one battle against ``name`` (unknown names are added)."""
        self.add(name)
        self.records[name].add(won, self.decay)

    def weight(self, name: str) -> float:
        """The unnormalised chance of drawing ``name``."""
        rate = self.records[name].win_rate
        if self.weighting == "variance":
            return max(self.floor, (4.0 * rate * (1.0 - rate)) ** (self.power / 2.0))
        return max(self.floor, (1.0 - rate) ** self.power)

    def weights(self) -> dict[str, float]:
        """Every opponent's chance of being drawn next (they sum to 1)."""
        raw = {name: self.weight(name) for name in self.records}
        total = sum(raw.values())
        return {name: w / total for name, w in raw.items()}

    def summary(self) -> dict[str, tuple[int, float, float]]:
        """``name -> (games, win-rate estimate, chance of being drawn)``."""
        weights = self.weights()
        return {n: (r.games, r.win_rate, weights[n]) for n, r in self.records.items()}


def check_weights(weights: Mapping[str, float] | None) -> dict[str, float] | None:
    """A copy of ``weights`` (opponent name to relative chance) for the environments'
    ``set_opponent_weights``; a ``ValueError`` naming the entries that are not finite and
    >= 0. ``None`` (draw uniformly) stays None."""
    if weights is None:
        return None
    bad = {n: w for n, w in weights.items() if not (w >= 0.0 and w < float("inf"))}
    if bad:
        raise ValueError(f"opponent weights must be finite and >= 0, got {bad}")
    return dict(weights)


def draw(
    names: Sequence[str], weights: Mapping[str, float] | None, rng: np.random.Generator
) -> int:
    """The index into ``names`` of the next battle's opponent: drawn with chances
    proportional to ``weights`` (a name missing from them gets none), uniformly when
    ``weights`` is None or gives every name 0."""
    if weights is not None:
        w = np.array([weights.get(n, 0.0) for n in names], dtype=np.float64)
        if w.sum() > 0:
            return int(rng.choice(len(names), p=w / w.sum()))
    return int(rng.integers(len(names)))
