"""The benchmark's statistics, numpy only (:mod:`facing_env.evaluation.suite` uses them).

Aggregates over runs and tasks as rliable computes them (Agarwal et al. 2021, "Deep
Reinforcement Learning at the Edge of the Statistical Precipice"), without its scipy and
arch dependencies:

- :func:`iqm`: the interquartile mean of every score of a ``runs x tasks`` matrix (scipy's
  ``trim_mean(scores, 0.25, axis=None)``, as rliable's ``aggregate_iqm``: ``int(n / 4)``
  scores cut from each end of the sorted ``n``, the mean of the rest);
- :func:`stratified_bootstrap`: the 95% percentile interval of a statistic when the runs
  of each task are resampled with replacement, independently per task (rliable's
  ``StratifiedBootstrap``); :func:`binomial_bootstrap` resamples the games of each task
  instead, for a single run (whose runs cannot be resampled);
- :func:`probability_of_improvement`: ``P(X > Y)`` per task, each run of ``X`` against each
  run of ``Y``, ties counting a half (the Mann-Whitney ``U`` over ``n m``), averaged over the
  tasks; :func:`improvement_interval` resamples the runs of both methods independently per
  task (rliable's ``StratifiedIndependentBootstrap``).

And the rating ladder's arithmetic, on the Elo scale (a 400-point gap is 10:1 odds):

- :func:`place`: the maximum-likelihood rating of one player given its results against
  players of fixed ratings (a draw scores a half), with the 95% likelihood-ratio interval;
- :func:`fit_ratings`: the ratings of every player of a round robin, some held fixed
  (how the ladder's anchors were pinned).

Every bootstrap takes a seed: the same inputs give the same interval.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import numpy as np

CONFIDENCE = 0.95
REPS = 2000
"""Bootstrap resamples (rliable's examples use 2,000 to 50,000; the interval's ends move by
about 0.005 between seeds at 2,000 on the benchmark's win rates)."""
SEED = 35
"""The bootstrap generator's default seed (issue 35)."""
ELO_SCALE = 400.0
"""Rating points for odds of 10:1."""
CHI2_1_95 = 3.841458820694124
"""The 95% quantile of chi-squared with one degree of freedom (the likelihood-ratio
interval: every rating whose log-likelihood is within half of this of the best)."""
MATRIX = 2
"""Scores come as a ``runs x tasks`` matrix (two axes)."""
PRECISION = 1e-9
"""Rating points to which :func:`place` finds its roots."""
RATING_SPAN = 2000.0
"""Ratings are searched within this many points of the anchors (a player that wins or
loses every game has no finite maximum: it is placed at the edge, and says so)."""


# -- aggregates over runs and tasks ------------------------------------------------------------


def iqm(scores: np.ndarray) -> float:
    """The interquartile mean of all the scores (any shape): sorted, ``int(n / 4)`` cut from
    each end, the mean of the rest (scipy's ``trim_mean(x, 0.25, axis=None)``)."""
    flat = np.sort(np.asarray(scores, dtype=float).ravel())
    if flat.size == 0:
        raise ValueError("the interquartile mean of no scores")
    cut = int(0.25 * flat.size)
    return float(flat[cut : flat.size - cut].mean())


def _iqm_rows(samples: np.ndarray) -> np.ndarray:
    """:func:`iqm` of each ``samples[i]`` (the rest of the axes flattened)."""
    flat = np.sort(samples.reshape(samples.shape[0], -1), axis=1)
    cut = int(0.25 * flat.shape[1])
    return flat[:, cut : flat.shape[1] - cut].mean(axis=1)


def _percentiles(values: np.ndarray, confidence: float) -> tuple[float, float]:
    tail = 100 * (1 - confidence) / 2
    low, high = np.percentile(values, [tail, 100 - tail])
    return float(low), float(high)


def resample_runs(scores: np.ndarray, reps: int, rng: np.random.Generator) -> np.ndarray:
    """``reps`` resamples of a ``runs x tasks`` matrix (``reps x runs x tasks``), each
    task's column resampled on its own: ``runs`` rows drawn with replacement, independently
    per task (the draw of rliable's stratified bootstrap)."""
    x = np.asarray(scores, dtype=float)
    rows = rng.integers(0, x.shape[0], size=(reps, *x.shape))
    return x[rows, np.arange(x.shape[1])]


def stratified_resamples(scores: np.ndarray, *, reps: int = REPS, seed: int = SEED) -> np.ndarray:
    """:func:`iqm` of ``reps`` resamples of a ``runs x tasks`` matrix
    (:func:`resample_runs`: rliable's stratified bootstrap). With one run every resample is
    the matrix."""
    x = np.asarray(scores, dtype=float)
    if x.ndim != MATRIX or x.size == 0:
        raise ValueError(f"scores must be a non-empty runs x tasks matrix, got shape {x.shape}")
    return _iqm_rows(resample_runs(x, reps, np.random.default_rng(seed)))


def stratified_bootstrap(
    scores: np.ndarray,
    *,
    reps: int = REPS,
    seed: int = SEED,
    confidence: float = CONFIDENCE,
) -> tuple[float, float]:
    """The percentile interval of :func:`iqm` over a ``runs x tasks`` matrix under the
    stratified bootstrap (:func:`stratified_resamples`)."""
    return _percentiles(stratified_resamples(scores, reps=reps, seed=seed), confidence)


def binomial_bootstrap(
    wins: np.ndarray,
    games: np.ndarray,
    *,
    reps: int = REPS,
    seed: int = SEED,
    confidence: float = CONFIDENCE,
) -> tuple[float, float]:
    """The percentile interval of :func:`iqm` of the win rates ``wins / games`` (``runs x
    tasks``) when each run's games of each task are resampled with replacement (its wins
    drawn ``Binomial(games, wins / games)``): the interval of a single run, whose runs
    cannot be resampled."""
    w = np.asarray(wins, dtype=float)
    n = np.asarray(games, dtype=np.int64)
    if w.shape != n.shape or w.ndim != MATRIX or w.size == 0 or (n < 1).any():
        raise ValueError("wins and games must be runs x tasks matrices of one shape, games >= 1")
    rng = np.random.default_rng(seed)
    drawn = rng.binomial(n, w / n, size=(reps, *n.shape)) / n
    return _percentiles(_iqm_rows(drawn), confidence)


def probability_of_improvement(x: np.ndarray, y: np.ndarray) -> float:
    """``P(X > Y)``: per task, the share of (run of ``x``, run of ``y``) pairs where ``x``
    scores more, ties counting a half; the mean over tasks. ``x`` is ``runs_x x tasks``,
    ``y`` ``runs_y x tasks``."""
    a, b = _pair(x, y)
    return float(_improvement(a[None], b[None])[0])


def _pair(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if a.ndim != MATRIX or b.ndim != MATRIX or a.shape[1] != b.shape[1] or 0 in a.shape + b.shape:
        raise ValueError(f"two runs x tasks matrices over the same tasks: {a.shape}, {b.shape}")
    return a, b


def _improvement(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """:func:`probability_of_improvement` of each ``(a[i], b[i])`` (``reps x runs x tasks``)."""
    ax, by = a[:, :, None, :], b[:, None, :, :]
    per_task = (ax > by).mean(axis=(1, 2)) + 0.5 * (ax == by).mean(axis=(1, 2))
    return per_task.mean(axis=1)


def improvement_interval(
    x: np.ndarray,
    y: np.ndarray,
    *,
    reps: int = REPS,
    seed: int = SEED,
    confidence: float = CONFIDENCE,
) -> tuple[float, float]:
    """The percentile interval of :func:`probability_of_improvement` when the runs of ``x``
    and of ``y`` are resampled with replacement, independently per task and per method."""
    a, b = _pair(x, y)
    rng = np.random.default_rng(seed)
    ra = resample_runs(a, reps, rng)
    rb = resample_runs(b, reps, rng)  # drawn after a's, from the same generator
    return _percentiles(_improvement(ra, rb), confidence)


# -- the rating ladder ------------------------------------------------------------------------


@dataclass(frozen=True)
class Record:
    """A player's results against one opponent of a given rating."""

    opponent: float
    """The opponent's rating."""
    score: float
    """Wins plus half the draws."""
    games: int


@dataclass(frozen=True)
class Placement:
    """A maximum-likelihood rating with its 95% likelihood-ratio interval."""

    rating: float
    low: float
    high: float
    edge: str | None = None
    """``"above"`` or ``"below"`` when the best rating is at the edge of the search (every
    game won, or lost): then it is a bound, not an estimate."""


def expected_score(rating: float, opponent: float) -> float:
    """The chance to win (a draw a half) of ``rating`` against ``opponent``."""
    return 1.0 / (1.0 + 10.0 ** ((opponent - rating) / ELO_SCALE))


def log_likelihood(rating: float, records: Iterable[Record]) -> float:
    """``sum S log p + (N - S) log (1 - p)`` over the records (``p`` the expected score)."""
    total = 0.0
    for r in records:
        p = expected_score(rating, r.opponent)
        if r.score > 0:
            total += r.score * math.log(p) if p > 0 else -math.inf
        if r.games - r.score > 0:
            total += (r.games - r.score) * math.log1p(-p) if p < 1 else -math.inf
    return total


def _bisect(f: Callable[[float], float], lo: float, hi: float) -> float:
    """The root of ``f``, which changes sign from ``lo`` to ``hi`` (to :data:`PRECISION`)."""
    f_lo = f(lo)
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        f_mid = f(mid)
        if (f_mid > 0) == (f_lo > 0):
            lo, f_lo = mid, f_mid
        else:
            hi = mid
        if hi - lo < PRECISION:
            break
    return 0.5 * (lo + hi)


def place(records: Iterable[Record], *, confidence: float = CONFIDENCE) -> Placement:
    """The rating that makes the results most likely against opponents of fixed ratings
    (logistic model, :func:`expected_score`; its score equation: the expected score over
    all games equals the score made), and the interval of ratings whose log-likelihood is
    within ``chi2_1(confidence) / 2`` of the best (the likelihood-ratio interval)."""
    recs = [r for r in records if r.games > 0]
    if not recs:
        raise ValueError("a rating needs at least one game")
    for r in recs:
        if not 0 <= r.score <= r.games:
            raise ValueError(f"a score of {r.score} in {r.games} games")
    lo = min(r.opponent for r in recs) - RATING_SPAN
    hi = max(r.opponent for r in recs) + RATING_SPAN

    def slope(x: float) -> float:
        return sum(r.score - r.games * expected_score(x, r.opponent) for r in recs)

    edge = None
    if slope(hi) >= 0:
        best, edge = hi, "above"
    elif slope(lo) <= 0:
        best, edge = lo, "below"
    else:
        best = _bisect(slope, lo, hi)
    if confidence == CONFIDENCE:
        drop = CHI2_1_95 / 2
    else:
        raise ValueError("only 95% likelihood-ratio intervals are implemented")
    top = log_likelihood(best, recs)

    def excess(x: float) -> float:
        return top - log_likelihood(x, recs) - drop

    low = lo if excess(lo) <= 0 else _bisect(excess, lo, best)
    high = hi if excess(hi) <= 0 else _bisect(excess, best, hi)
    return Placement(best, low, high, edge)


def fit_ratings(
    results: Iterable[tuple[str, str, float, int]],
    fixed: Mapping[str, float],
    *,
    tolerance: float = 1e-7,
    max_sweeps: int = 100_000,
) -> dict[str, float]:
    """Ratings of every player of ``results`` (``(a, b, score of a, games)``) that make
    them most likely, the players of ``fixed`` held at their ratings. The log-likelihood
    is concave in the free ratings, so placing each free player in turn against the
    others' current ratings (:func:`place`) climbs to its maximum. A player whose games
    are all won (or lost), counting through every chain of opponents, has no finite
    rating: it ends at the edge of :func:`place`'s search."""
    games = [(a, b, float(s), int(n)) for a, b, s, n in results if n > 0]
    players = sorted({p for a, b, _, _ in games for p in (a, b)} | set(fixed))
    ratings = {p: float(fixed.get(p, 0.0)) for p in players}
    free = [p for p in players if p not in fixed]
    for _ in range(max_sweeps):
        moved = 0.0
        for p in free:
            recs = [Record(ratings[b], s, n) for a, b, s, n in games if a == p]
            recs += [Record(ratings[a], n - s, n) for a, b, s, n in games if b == p]
            if not recs:
                continue
            new = place(recs).rating
            moved = max(moved, abs(new - ratings[p]))
            ratings[p] = new
        if moved < tolerance:
            break
    return ratings
