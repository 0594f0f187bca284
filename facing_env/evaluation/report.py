"""The results of an evaluation: per pair (wins, draws, losses and a Wilson interval on the
win rate), per agent (rating, damage, where its attacks came from), and the report that
holds them, as JSON and as markdown. :mod:`facing_env.evaluation.evaluate` plays the
games that fill it; :mod:`facing_env.evaluation.plots` draws it. The counting of wins,
draws and losses (:class:`Counted`) is shared with the benchmark's :class:`Tally`.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from facing_env.evaluation.match import (
    MANEUVERS,
)

AREAS = ("front", "flank", "side", "rear", "none")
WIN, DRAW, LOSS = 1, 0, -1
"""A game's outcome from one side (:meth:`Tally.of` counts them)."""


def wilson_interval(successes: float, n: int, z: float = 1.959964) -> tuple[float, float]:
    """95% Wilson score interval of a proportion (draws may count as half successes)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


class Counted:
    """Wins, draws and losses from one side, and what they give: the games, the win rate (a
    draw is not a win) and its Wilson interval. Shared by the dataclasses that declare the
    three counts (:class:`Tally`, :class:`PairResult`)."""

    wins: int
    draws: int
    losses: int

    @property
    def games(self) -> int:
        """Games counted."""
        return self.wins + self.draws + self.losses

    @property
    def win_rate(self) -> float:
        """Wins over games (a draw is not a win)."""
        return self.wins / self.games if self.games else 0.0

    def interval(self) -> tuple[float, float]:
        """The 95% Wilson interval of the win rate (:func:`wilson_interval`)."""
        return wilson_interval(self.wins, self.games)

    def counts(self) -> dict[str, Any]:
        """``wins draws losses games win_rate``."""
        return {
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "games": self.games,
            "win_rate": self.win_rate,
        }


@dataclass
class Tally(Counted):
    """Wins, draws and losses from one side (the benchmark's per task, per anchor)."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @classmethod
    def of(cls, outcomes: Sequence[int]) -> Tally:
        """Count outcomes (:data:`WIN`, :data:`DRAW`, :data:`LOSS`)."""
        return cls(outcomes.count(WIN), outcomes.count(DRAW), outcomes.count(LOSS))

    def __add__(self, other: Tally) -> Tally:
        return Tally(self.wins + other.wins, self.draws + other.draws, self.losses + other.losses)

    def to_dict(self) -> dict[str, Any]:
        """``wins draws losses games win_rate ci_low ci_high`` (the Wilson interval)."""
        low, high = self.interval()
        return {**self.counts(), "ci_low": low, "ci_high": high}


@dataclass
class PairResult(Counted):
    """Games between two agents, counted from ``a``'s side."""

    a: str
    b: str
    wins: int = 0
    draws: int = 0
    losses: int = 0

    def to_dict(self) -> dict[str, Any]:
        """JSON form, with the interval."""
        return {"a": self.a, "b": self.b, **self.counts(), "win_rate_ci95": list(self.interval())}


@dataclass
class AgentResult:
    """Everything one agent did over all its games."""

    name: str
    games: int = 0
    wins: int = 0
    rounds: int = 0
    damage_dealt: float = 0  # whole hit points except with mean dice
    attacks: Counter[str] = field(default_factory=Counter)
    bonus_attacks: int = 0
    sneak_attacks: int = 0
    attacks_of_opportunity: int = 0
    attack_origins: Counter[tuple[int, int]] = field(default_factory=Counter)
    maneuvers: Counter[str] = field(default_factory=Counter)
    rating_mu: float = 25.0
    rating_sigma: float = 25.0 / 3

    def shares(self) -> dict[str, float]:
        """Share of its chosen attacks by defender area."""
        total = sum(self.attacks.values())
        return {a: (self.attacks[a] / total if total else 0.0) for a in AREAS if a in self.attacks}

    @property
    def flank_or_rear_share(self) -> float:
        """Share of chosen attacks made from the defender's flank, side or rear."""
        total = sum(self.attacks.values())
        behind = self.attacks["flank"] + self.attacks["side"] + self.attacks["rear"]
        return behind / total if total else 0.0

    @property
    def positional_bonus_share(self) -> float:
        """Share of chosen attacks made with a net positive positional modifier: from the
        flank or rear (``ua35``), against a flanked defender (``side_rear``), or flanking
        with an ally opposite (``standard``). Comparable across rule sets."""
        total = sum(self.attacks.values())
        return self.bonus_attacks / total if total else 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "name": self.name,
            "games": self.games,
            "wins": self.wins,
            "rating": {
                "mu": self.rating_mu,
                "sigma": self.rating_sigma,
                "ordinal": self.rating_mu - 3 * self.rating_sigma,
            },
            "damage_per_round": self.damage_dealt / self.rounds if self.rounds else 0.0,
            "attacks": {a: self.attacks[a] for a in AREAS if self.attacks[a]},
            "attack_shares": self.shares(),
            "flank_or_rear_share": self.flank_or_rear_share,
            "positional_bonus_share": self.positional_bonus_share,
            "sneak_attacks": self.sneak_attacks,
            "attacks_of_opportunity": self.attacks_of_opportunity,
            "maneuvers": {k: self.maneuvers[k] for k in MANEUVERS},
            "attack_origins": {
                f"{dx},{dy}": n for (dx, dy), n in sorted(self.attack_origins.items())
            },
        }


@dataclass
class Report:
    """A whole evaluation."""

    scenario: str
    games_per_pair: int
    pairs: list[PairResult]
    agents: dict[str, AgentResult]

    def pair(self, a: str, b: str) -> PairResult:
        """The result of ``a`` against ``b`` (from ``a``'s side)."""
        for p in self.pairs:
            if (p.a, p.b) == (a, b):
                return p
            if (p.b, p.a) == (a, b):
                return PairResult(a, b, p.losses, p.draws, p.wins)
        raise KeyError(f"no games between {a!r} and {b!r}")

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "scenario": self.scenario,
            "games_per_pair": self.games_per_pair,
            "pairs": [p.to_dict() for p in self.pairs],
            "agents": {n: a.to_dict() for n, a in self.agents.items()},
        }

    def markdown(self) -> str:
        """The report as markdown tables."""
        lines = [
            f"## Evaluation on `{self.scenario}` ({self.games_per_pair} games per pair)",
            "",
            "| agent | vs | wins | draws | losses | win rate (95% CI) |",
            "|---|---|---|---|---|---|",
        ]
        for p in self.pairs:
            low, high = p.interval()
            lines.append(
                f"| {p.a} | {p.b} | {p.wins} | {p.draws} | {p.losses} | "
                f"{p.win_rate:.2f} ({low:.2f}-{high:.2f}) |"
            )
        lines += [
            "",
            "| agent | rating | damage/round | attacks front / flank / side / rear / none "
            "| flank+rear share | positional bonus share | sneak | AoO "
            "| charge / withdraw / ready / readied hit / turn / bump |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for a in sorted(self.agents.values(), key=lambda r: -(r.rating_mu - 3 * r.rating_sigma)):
            counts = " / ".join(str(a.attacks[x]) for x in AREAS)
            dpr = a.damage_dealt / a.rounds if a.rounds else 0.0
            lines.append(
                f"| {a.name} | {a.rating_mu - 3 * a.rating_sigma:.1f} | {dpr:.2f} | {counts} "
                f"| {a.flank_or_rear_share:.2f} | {a.positional_bonus_share:.2f} "
                f"| {a.sneak_attacks} | {a.attacks_of_opportunity} "
                f"| {' / '.join(str(a.maneuvers[k]) for k in MANEUVERS)} |"
            )
        return "\n".join(lines) + "\n"
