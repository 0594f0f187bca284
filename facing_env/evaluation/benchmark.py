"""The benchmark: a named suite of tasks, the aggregate over runs, and a rating ladder.

``python -m facing_env.benchmark --agent AGENT [--quick] --json PATH [--markdown PATH]``

A task is a scenario and a scripted opponent (:data:`TASKS`); the agent plays each task's
games on both sides (the first team in even games, the second in odd ones) over fixed
evaluation seeds, task ``k`` from ``2,000,000 + 10,000 k`` (:data:`EVAL_SEED`; every seed
the project trains or evaluates on elsewhere is below 1,100,000). Per task the report gives
wins, draws, losses, the win rate (a draw is not a win) and its 95% Wilson interval.

Several runs of one method (``--agent`` repeated, or ``--runs DIR``: the ``train.py`` run
folders under DIR, ``<scenario>__<exp>__<seed>__<time>/model.zip``, one run per seed) give
the aggregate over runs as rliable computes it: the interquartile mean (IQM) of every
run's win rate on every task, with a 95% stratified-bootstrap interval (the runs of each
task resampled; with one run, each task's games: :mod:`facing_env.evaluation.statistics`).
``--baseline`` (or ``--baseline-runs``) names a second method, played the same way, and the
report adds the probability that the first improves on it, with its interval.

The rating ladder places the agent on the Elo scale by games against the anchors
(:data:`ANCHORS`: ``random``, ``aggressive``, ``defensive``, ``flanker`` and ``expert`` at
ratings pinned once from a large round robin and published with the version), on every
scenario of the suite, both sides: the maximum-likelihood rating with the anchors fixed and
its 95% likelihood-ratio interval, so ratings compare across runs and machines.

An agent is a scripted agent's name, ``model:PATH[@T]`` or ``rllib:PATH[#ID]`` as in
``python -m facing_env.evaluate``; a policy is trained for one scenario (its observation
size and actions are the scenario's), so ``{scenario}`` in a path is replaced by each task's
scenario name (``model:runs/seed1/{scenario}/model.zip``; ``benchmark/ruins`` reads
``ruins``). ``--games`` sets the games per task (200; 20 with ``--quick``) and
``--ladder-games`` the games per anchor on each ladder scenario (20; 2 with ``--quick``).
``--headroom`` plays the suite with the expert and every scripted agent instead, over seeds
apart from the evaluation's (``3,000,000`` on), and reports each task's headroom: the
expert's win rate less the best scripted agent's. ``--pin-anchors`` plays the anchors'
round robin on the ladder's scenarios and prints the ratings that :data:`ANCHORS` pins.

The report's markdown goes to stdout; a progress bar counting games and the ``wrote PATH``
lines to stderr. Every argument is checked before the first game; a mistake ends the
command with one line on stderr and exit status 2. The JSON layout is documented in
docs/benchmarks.md ("The JSON report") and versioned by its ``format``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from facing_env import cli
from facing_env.errors import FacingEnvError
from facing_env.evaluation import statistics as st
from facing_env.evaluation.report import wilson_interval

FORMAT = "facing_env.benchmark/1"
"""The JSON report's layout and its version (docs/benchmarks.md)."""


@dataclass(frozen=True)
class Task:
    """One task of the suite: ``name``, a scenario and the scripted opponent."""

    name: str
    scenario: str
    opponent: str


TASKS: tuple[Task, ...] = (
    Task("mixed_party_vs_flanker", "benchmark/mixed_party", "flanker"),
    Task("ogre_vs_flanker", "ogre", "flanker"),
    Task("hex_skirmish_vs_defensive", "benchmark/hex_skirmish", "defensive"),
    Task("ruins_vs_flanker", "benchmark/ruins", "flanker"),
    Task("side_rear_skirmish_vs_defensive", "side_rear_skirmish", "defensive"),
    Task("standard_skirmish_vs_defensive", "standard_skirmish", "defensive"),
)
"""The suite (docs/benchmarks.md: why each task, and its measured headroom)."""

ANCHORS: Mapping[str, float] = {
    "random": 0.0,
    "aggressive": 475.0,
    "defensive": 176.0,
    "flanker": 588.0,
    "expert": 599.0,
}
"""The ladder's pinned ratings (Elo scale, ``random`` at 0): the fit of ``--pin-anchors
--ladder-games 20`` (2026-11-26: 1,200 games, every pair 20 games on each of the suite's six
scenarios), rounded to the point; docs/benchmarks.md has the games. They define the scale:
a new version of an anchor (the expert) is placed on it, not pinned again, unless the
version's notes say so."""

SCRIPTED = ("random", "aggressive", "flanker", "defensive")
"""The scripted agents a task's headroom compares the expert with."""

EVAL_SEED = 2_000_000
"""Task ``k``'s games are seeded ``EVAL_SEED + SEED_STRIDE k`` on."""
LADDER_SEED = 2_500_000
"""The ladder's games: anchor ``i`` on ladder scenario ``j`` seeded from
``LADDER_SEED + SEED_STRIDE (i * scenarios + j)``."""
HEADROOM_SEED = 3_000_000
"""``--headroom`` and ``--pin-anchors`` play from here: the tasks were chosen, and the
anchors pinned, on games that are not the evaluation's."""
SEED_STRIDE = 10_000
"""Seeds apart between two tasks (so at most this many games per task)."""
GAMES = 200
QUICK_GAMES = 20
"""Games per task (both sides, half each), full and ``--quick``."""
LADDER_GAMES = 20
QUICK_LADDER_GAMES = 2
"""Games per anchor on each ladder scenario, full and ``--quick``."""
CHUNK = 8
"""Games a worker plays per job when an agent chooses game by game (the expert)."""
WIN, DRAW, LOSS = 1, 0, -1


def ladder_scenarios(tasks: Sequence[Task] = TASKS) -> tuple[str, ...]:
    """The scenarios of the tasks, in order, each once: where the ladder is played."""
    return tuple(dict.fromkeys(t.scenario for t in tasks))


def scenario_key(scenario: str) -> str:
    """The name ``{scenario}`` stands for: the file's stem (``benchmark/ruins``: ``ruins``),
    as ``train.py`` names its run folders."""
    return Path(scenario).stem


# -- runs: which agent plays each scenario ---------------------------------------------------


@dataclass(frozen=True)
class Run:
    """One run of a method: the agent that plays each scenario (``"*"``: any scenario; a
    ``{scenario}`` in a name is replaced by :func:`scenario_key`)."""

    name: str
    agents: Mapping[str, str]

    def agent(self, scenario: str) -> str:
        """The agent name for ``scenario``; ``ValueError`` when the run has none."""
        key = scenario_key(scenario)
        name = self.agents.get(key, self.agents.get("*"))
        if name is None:
            raise ValueError(f"run {self.name!r} has no model for scenario {key!r}")
        return name.replace("{scenario}", key)


RUN_FOLDER = re.compile(r"^(?P<scenario>.+?)__(?P<exp>.+)__(?P<seed>\d+)__(?P<time>\d+)$")
"""``train.py``'s run folder name: ``<scenario stem>__<exp name>__<seed>__<unix time>``."""


def runs_from_folder(folder: str | Path) -> list[Run]:
    """One :class:`Run` per (experiment, seed) of the ``train.py`` run folders under
    ``folder`` (any depth), each with the model of every scenario it trained (the newest
    when a scenario was trained twice); ``ValueError`` when there is none."""
    found: dict[tuple[str, int], dict[str, tuple[int, str]]] = {}
    for model in sorted(Path(folder).rglob("model.zip")):
        m = RUN_FOLDER.match(model.parent.name)
        if m is None:
            continue
        models = found.setdefault((m["exp"], int(m["seed"])), {})
        stamp = int(m["time"])
        if m["scenario"] not in models or models[m["scenario"]][0] < stamp:
            models[m["scenario"]] = (stamp, f"model:{model}")
    if not found:
        raise ValueError(
            f"no train.py run folders (<scenario>__<exp>__<seed>__<time>/model.zip) in {folder}"
        )
    return [
        Run(f"{exp} seed {seed}", {s: name for s, (_, name) in sorted(models.items())})
        for (exp, seed), models in sorted(found.items())
    ]


def method_name(specs: Sequence[str], folder: str | None) -> str:
    """A method's name in the report: the runs folder's name, or the agent given."""
    if folder is not None:
        return Path(folder).name or str(folder)
    unique = list(dict.fromkeys(specs))
    return unique[0] if len(unique) == 1 else " + ".join(unique)


# -- playing ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Job:
    """Games ``start .. stop - 1`` of a block: ``agent`` against ``opponent`` on
    ``scenario``, game ``g`` seeded ``seed + g``, ``agent`` on the first team when ``g``
    is even. ``key`` names the block (its outcomes are gathered under it)."""

    key: tuple[Any, ...]
    scenario: str
    seed: int
    agent: str
    opponent: str
    start: int
    stop: int


_MADE: dict[str, Any] = {}
"""Agents made by name, once per process (:func:`_agent`)."""


def _agent(name: str) -> Any:
    if name not in _MADE:
        from facing_env.agents import make_agent

        _MADE[name] = make_agent(name)
    return _MADE[name]


def play_job(job: Job) -> list[int]:
    """The outcomes of a job's games from its agent's side (:data:`WIN`, :data:`DRAW`,
    :data:`LOSS`), played as the battles of one ``VectorEnv``
    (:func:`facing_env.evaluation.match.play_games`)."""
    from facing_env.evaluation.match import play_games
    from facing_env.scenario import load_scenario

    first, second = load_scenario(job.scenario).teams[:2]
    agent, opponent = _agent(job.agent), _agent(job.opponent)
    lineups, sides = [], []
    for g in range(job.start, job.stop):
        mine, theirs = (first, second) if g % 2 == 0 else (second, first)
        lineups.append({mine: agent, theirs: opponent})
        sides.append(mine)
    results = play_games(job.scenario, lineups, job.seed + job.start)
    return [
        DRAW if r.winner is None else WIN if r.winner == side else LOSS
        for r, side in zip(results, sides, strict=True)
    ]


def _slow(name: str) -> bool:
    """Whether an agent chooses game by game (the expert, ``random``, sampled policies)."""
    agent = _agent(name)
    return getattr(agent, "plans", False) or not (
        getattr(agent, "deterministic", False) and hasattr(agent, "act_batch")
    )


def split(jobs: Sequence[Job], chunk: int = CHUNK) -> list[Job]:
    """Jobs with an agent that chooses game by game cut into jobs of at most ``chunk``
    games (spread over the workers); the others whole (one batch plays them all)."""
    out: list[Job] = []
    for job in jobs:
        if not (_slow(job.agent) or _slow(job.opponent)):
            out.append(job)
            continue
        for lo in range(job.start, job.stop, chunk):
            out.append(
                Job(
                    job.key,
                    job.scenario,
                    job.seed,
                    job.agent,
                    job.opponent,
                    lo,
                    min(job.stop, lo + chunk),
                )
            )
    return out


def run_jobs(
    jobs: Sequence[Job], *, workers: int = 1, progress: Callable[[int], None] | None = None
) -> dict[tuple[Any, ...], list[int]]:
    """Play every job: the outcomes of each key's games, in game order. With ``workers`` >
    1 the jobs of agents that choose game by game run in that many processes; the outcomes
    are the same (each game is seeded on its own)."""
    parts = split(jobs)
    done: dict[int, list[int]] = {}
    slow = [k for k, j in enumerate(parts) if _slow(j.agent) or _slow(j.opponent)]
    pooled = slow if workers > 1 and len(slow) > 1 else []
    here = [k for k in range(len(parts)) if k not in pooled]

    def play_here() -> None:
        for k in here:
            done[k] = play_job(parts[k])
            if progress is not None:
                progress(parts[k].stop - parts[k].start)

    if not pooled:
        play_here()
    else:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed

        context = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
        with ProcessPoolExecutor(workers, mp_context=context) as pool:
            futures = {pool.submit(play_job, parts[k]): k for k in pooled}
            play_here()  # the batched games, while the workers play the others
            for future in as_completed(futures):
                k = futures[future]
                done[k] = future.result()
                if progress is not None:
                    progress(parts[k].stop - parts[k].start)
    out: dict[tuple[Any, ...], list[int]] = {}
    for k in sorted(done, key=lambda k: (parts[k].key, parts[k].start)):
        out.setdefault(parts[k].key, []).extend(done[k])
    return out


def suite_jobs(
    run: Run, index: int, tasks: Sequence[Task], games: int, *, seed: int = EVAL_SEED
) -> list[Job]:
    """Run ``index``'s games of every task: task ``k`` of :data:`TASKS` seeded from
    ``seed + SEED_STRIDE k`` (its place in the whole suite, so a subset plays the same
    games; a task outside the suite takes the places after it, :func:`task_seed`)."""
    return [
        Job(
            ("task", index, t.name),
            t.scenario,
            task_seed(t, tasks, seed),
            run.agent(t.scenario),
            t.opponent,
            0,
            games,
        )
        for t in tasks
    ]


def task_seed(task: Task, tasks: Sequence[Task] = TASKS, seed: int = EVAL_SEED) -> int:
    """The first seed of a task's games: ``seed + SEED_STRIDE k``, ``k`` its place in
    :data:`TASKS` (or, for a task outside the suite, ``len(TASKS)`` plus its place in
    ``tasks``)."""
    k = TASKS.index(task) if task in TASKS else len(TASKS) + list(tasks).index(task)
    return seed + SEED_STRIDE * k


def ladder_seed(anchor: int, scenario: str, scenarios: Sequence[str] = ()) -> int:
    """The first seed of the games against anchor number ``anchor`` (in :data:`ANCHORS`) on
    a ladder scenario: ``LADDER_SEED + SEED_STRIDE (S anchor + j)``, ``j`` the scenario's
    place among the suite's ``S`` scenarios (:func:`ladder_scenarios`; one outside the
    suite takes ``S`` plus its place in ``scenarios``, with anchors ``S + len(scenarios)``
    apart), so a subset of the tasks plays the same ladder games as the whole suite."""
    suite = ladder_scenarios()
    extra = [s for s in scenarios if s not in suite]
    j = suite.index(scenario) if scenario in suite else len(suite) + extra.index(scenario)
    return LADDER_SEED + SEED_STRIDE * ((len(suite) + len(extra)) * anchor + j)


def ladder_jobs(
    run: Run,
    index: int,
    scenarios: Sequence[str],
    games: int,
    anchors: Sequence[str] = tuple(ANCHORS),
) -> list[Job]:
    """Run ``index``'s games against every anchor on every ladder scenario
    (:func:`ladder_seed`)."""
    return [
        Job(
            ("ladder", index, anchor, scenario),
            scenario,
            ladder_seed(i, scenario, scenarios),
            run.agent(scenario),
            anchor,
            0,
            games,
        )
        for i, anchor in enumerate(anchors)
        for scenario in scenarios
    ]


# -- results ------------------------------------------------------------------------------------


@dataclass
class Tally:
    """Wins, draws and losses from one side."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @classmethod
    def of(cls, outcomes: Sequence[int]) -> Tally:
        """Count outcomes (:data:`WIN`, :data:`DRAW`, :data:`LOSS`)."""
        return cls(outcomes.count(WIN), outcomes.count(DRAW), outcomes.count(LOSS))

    def __add__(self, other: Tally) -> Tally:
        return Tally(self.wins + other.wins, self.draws + other.draws, self.losses + other.losses)

    @property
    def games(self) -> int:
        """Games counted."""
        return self.wins + self.draws + self.losses

    @property
    def win_rate(self) -> float:
        """Wins over games (a draw is not a win)."""
        return self.wins / self.games if self.games else 0.0

    def to_dict(self) -> dict[str, Any]:
        """``wins draws losses games win_rate ci_low ci_high`` (the Wilson interval)."""
        low, high = wilson_interval(self.wins, self.games)
        return {
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "games": self.games,
            "win_rate": self.win_rate,
            "ci_low": low,
            "ci_high": high,
        }


def rating(ladder: Mapping[str, Tally], anchors: Mapping[str, float] = ANCHORS) -> dict[str, Any]:
    """The ladder's placement of a player with these results against the anchors:
    ``elo ci_low ci_high games edge`` (:func:`facing_env.evaluation.statistics.place`)."""
    records = [
        st.Record(anchors[a], t.wins + 0.5 * t.draws, t.games) for a, t in ladder.items() if t.games
    ]
    placed = st.place(records)
    return {
        "elo": placed.rating,
        "ci_low": placed.low,
        "ci_high": placed.high,
        "games": sum(t.games for t in ladder.values()),
        "edge": placed.edge,
    }


@dataclass
class MethodResult:
    """Every run of one method: per run and task a :class:`Tally`, per run and anchor the
    ladder's."""

    name: str
    runs: list[Run]
    tasks: list[Task]
    scores: list[dict[str, Tally]] = field(default_factory=list)
    ladders: list[dict[str, Tally]] = field(default_factory=list)

    def matrix(self) -> np.ndarray:
        """Win rates, ``runs x tasks``."""
        return np.array([[s[t.name].win_rate for t in self.tasks] for s in self.scores])

    def aggregate(self, *, reps: int = st.REPS, seed: int = st.SEED) -> dict[str, Any]:
        """The IQM over runs and tasks with its 95% stratified-bootstrap interval (over the
        runs; with one run, over each task's games)."""
        x = self.matrix()
        if len(self.runs) > 1:
            low, high = st.stratified_bootstrap(x, reps=reps, seed=seed)
            method = "runs"
        else:
            wins = np.array([[s[t.name].wins for t in self.tasks] for s in self.scores])
            games = np.array([[s[t.name].games for t in self.tasks] for s in self.scores])
            low, high = st.binomial_bootstrap(wins, games, reps=reps, seed=seed)
            method = "games"
        return {
            "metric": "win_rate",
            "iqm": st.iqm(x),
            "ci_low": low,
            "ci_high": high,
            "mean": float(x.mean()),
            "runs": len(self.runs),
            "tasks": len(self.tasks),
            "bootstrap": method,
            "reps": reps,
            "seed": seed,
        }

    def task_summary(self, *, reps: int = st.REPS, seed: int = st.SEED) -> dict[str, Any]:
        """Per task over the runs: games, wins, draws, losses, the mean win rate and its 95%
        interval (one run: Wilson; several: the runs resampled)."""
        out: dict[str, Any] = {}
        for k, t in enumerate(self.tasks):
            total = sum((s[t.name] for s in self.scores), Tally())
            entry = {"scenario": t.scenario, "opponent": t.opponent, **total.to_dict()}
            if len(self.scores) > 1:
                rates = self.matrix()[:, k]
                rng = np.random.default_rng(seed)
                means = rates[rng.integers(0, len(rates), size=(reps, len(rates)))].mean(axis=1)
                low, high = np.percentile(means, [2.5, 97.5])
                entry.update(win_rate=float(rates.mean()), ci_low=float(low), ci_high=float(high))
            entry["runs"] = len(self.scores)
            entry["interval"] = "wilson" if len(self.scores) == 1 else "bootstrap over runs"
            out[t.name] = entry
        return out

    def rating(self) -> dict[str, Any] | None:
        """The ladder's placement from every run's ladder games together (None without)."""
        if not self.ladders or not any(t.games for lad in self.ladders for t in lad.values()):
            return None
        pooled: dict[str, Tally] = {}
        for lad in self.ladders:
            for anchor, t in lad.items():
                pooled[anchor] = pooled.get(anchor, Tally()) + t
        return rating(pooled)

    def to_dict(self) -> dict[str, Any]:
        """The method's part of the JSON report."""
        runs = []
        for k, run in enumerate(self.runs):
            entry: dict[str, Any] = {
                "name": run.name,
                "agents": dict(run.agents),
                "tasks": {t.name: self.scores[k][t.name].to_dict() for t in self.tasks},
            }
            if self.ladders:
                lad = self.ladders[k]
                entry["ladder"] = {a: t.to_dict() for a, t in lad.items()}
                entry["rating"] = rating(lad) if any(t.games for t in lad.values()) else None
            runs.append(entry)
        return {
            "method": self.name,
            "runs": runs,
            "tasks": self.task_summary(),
            "aggregate": self.aggregate(),
            "rating": self.rating(),
        }


def collect(
    name: str,
    runs: Sequence[Run],
    tasks: Sequence[Task],
    outcomes: Mapping[tuple[Any, ...], list[int]],
    tag: str,
    anchors: Sequence[str] | None,
) -> MethodResult:
    """A :class:`MethodResult` from the outcomes of :func:`run_jobs` (keys tagged ``tag``)."""
    result = MethodResult(name, list(runs), list(tasks))
    for k in range(len(runs)):
        result.scores.append({t.name: Tally.of(outcomes[(tag, k, t.name)]) for t in tasks})
        if anchors is not None:
            lad: dict[str, Tally] = {}
            for key, outs in outcomes.items():
                if key[0] == f"{tag}-ladder" and key[1] == k:
                    lad[key[2]] = lad.get(key[2], Tally()) + Tally.of(outs)
            result.ladders.append({a: lad.get(a, Tally()) for a in anchors})
    return result


def _tagged(jobs: list[Job], tag: str) -> list[Job]:
    """The jobs with their keys' kind replaced by ``tag`` (``task``) or ``tag-ladder``."""
    return [
        Job(
            (tag if j.key[0] == "task" else f"{tag}-ladder", *j.key[1:]),
            j.scenario,
            j.seed,
            j.agent,
            j.opponent,
            j.start,
            j.stop,
        )
        for j in jobs
    ]


def benchmark(
    runs: Sequence[Run],
    *,
    name: str,
    baseline: Sequence[Run] = (),
    baseline_name: str = "baseline",
    tasks: Sequence[Task] = TASKS,
    games: int = GAMES,
    ladder_games: int = LADDER_GAMES,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
    quick: bool = False,
) -> dict[str, Any]:
    """Play the suite (and the ladder, unless ``ladder_games`` is 0) for every run of the
    method and of the baseline; the JSON report (docs/benchmarks.md, "The JSON report")."""
    scenarios = ladder_scenarios(tasks)
    anchors = tuple(ANCHORS) if ladder_games else None
    jobs: list[Job] = []
    for tag, method in (("x", runs), ("y", baseline)):
        for k, run in enumerate(method):
            jobs += _tagged(suite_jobs(run, k, tasks, games), tag)
            if anchors:
                jobs += _tagged(ladder_jobs(run, k, scenarios, ladder_games), tag)
    outcomes = run_jobs(jobs, workers=workers, progress=progress)
    x = collect(name, runs, tasks, outcomes, "x", anchors)
    report: dict[str, Any] = {
        "format": FORMAT,
        **_versions(),
        "suite": suite_dict(tasks, games, ladder_games, quick),
        **x.to_dict(),
        "baseline": None,
        "probability_of_improvement": None,
    }
    if baseline:
        y = collect(baseline_name, baseline, tasks, outcomes, "y", anchors)
        report["baseline"] = y.to_dict()
        low, high = st.improvement_interval(x.matrix(), y.matrix())
        report["probability_of_improvement"] = {
            "x": name,
            "y": baseline_name,
            "value": st.probability_of_improvement(x.matrix(), y.matrix()),
            "ci_low": low,
            "ci_high": high,
            "reps": st.REPS,
            "seed": st.SEED,
        }
    report["marl_eval"] = marl_eval([x] + ([y] if baseline else []), outcomes)
    return report


def _versions() -> dict[str, Any]:
    from facing_env import __version__
    from facing_env.registry import ENV_VERSION

    return {"version": __version__, "env_version": ENV_VERSION}


def suite_dict(tasks: Sequence[Task], games: int, ladder_games: int, quick: bool) -> dict:
    """The suite's description in the report: tasks with their seeds, games, the ladder."""
    scenarios = ladder_scenarios(tasks)
    return {
        "quick": quick,
        "games_per_task": games,
        "tasks": [
            {
                "name": t.name,
                "scenario": t.scenario,
                "opponent": t.opponent,
                "seed": task_seed(t, tasks),
            }
            for t in tasks
        ],
        "ladder": {
            "anchors": dict(ANCHORS),
            "scenarios": list(scenarios),
            "games_per_anchor_and_scenario": ladder_games,
            "seed": LADDER_SEED,
        },
    }


def marl_eval(methods: Sequence[MethodResult], outcomes: Mapping) -> dict[str, Any]:
    """The games in marl-eval's raw layout: ``{"facing_env": {task: {method: {run_k:
    {"step_0": {"step_count": 0, "win_rate": [...]}, "absolute_metrics": {"win_rate":
    [...]}}}}}}``, one 0 or 1 per game (a draw is 0)."""
    out: dict[str, Any] = {}
    for tag, m in zip(("x", "y"), methods, strict=False):
        for t in m.tasks:
            for k in range(len(m.runs)):
                won = [float(o == WIN) for o in outcomes[(tag, k, t.name)]]
                out.setdefault(t.name, {}).setdefault(m.name, {})[f"run_{k}"] = {
                    "step_0": {"step_count": 0, "win_rate": won},
                    "absolute_metrics": {"win_rate": won},
                }
    return {"facing_env": out}


# -- headroom and the anchors' round robin -------------------------------------------------------


def headroom(
    tasks: Sequence[Task] = TASKS,
    games: int = GAMES,
    *,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Each task played by the expert and by every scripted agent (:data:`SCRIPTED`), over
    seeds from :data:`HEADROOM_SEED`: per task each agent's results, the best scripted
    agent and the headroom (the expert's win rate less the best scripted one's)."""
    players = ("expert", *SCRIPTED)
    jobs = []
    for k, p in enumerate(players):
        jobs += suite_jobs(Run(p, {"*": p}), k, tasks, games, seed=HEADROOM_SEED)
    outcomes = run_jobs(jobs, workers=workers, progress=progress)
    out: dict[str, Any] = {}
    for t in tasks:
        tallies = {p: Tally.of(outcomes[("task", k, t.name)]) for k, p in enumerate(players)}
        best = max(SCRIPTED, key=lambda p: tallies[p].win_rate)
        out[t.name] = {
            "scenario": t.scenario,
            "opponent": t.opponent,
            "agents": {p: tallies[p].to_dict() for p in players},
            "best_scripted": best,
            "headroom": tallies["expert"].win_rate - tallies[best].win_rate,
        }
    return {
        "format": FORMAT,
        **_versions(),
        "seed": HEADROOM_SEED,
        "games_per_task": games,
        "headroom": out,
    }


def pin_anchors(
    scenarios: Sequence[str] | None = None,
    games: int = LADDER_GAMES,
    *,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """The anchors' round robin: every pair on every ladder scenario, ``games`` games each
    (both sides), seeds from :data:`HEADROOM_SEED`; the ratings that fit it best with
    ``random`` at 0 (:func:`facing_env.evaluation.statistics.fit_ratings`)."""
    scenarios = ladder_scenarios() if scenarios is None else tuple(scenarios)
    names = tuple(ANCHORS)
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    jobs = [
        Job((a, b, s), s, HEADROOM_SEED + SEED_STRIDE * (p * len(scenarios) + j), a, b, 0, games)
        for p, (a, b) in enumerate(pairs)
        for j, s in enumerate(scenarios)
    ]
    outcomes = run_jobs(jobs, workers=workers, progress=progress)
    totals: dict[tuple[str, str], Tally] = {}
    for (a, b, _), outs in outcomes.items():
        totals[(a, b)] = totals.get((a, b), Tally()) + Tally.of(outs)
    fitted = st.fit_ratings(
        [(a, b, t.wins + 0.5 * t.draws, t.games) for (a, b), t in totals.items()],
        {"random": 0.0},
    )
    return {
        "format": FORMAT,
        **_versions(),
        "scenarios": list(scenarios),
        "games_per_pair_and_scenario": games,
        "seed": HEADROOM_SEED,
        "pairs": [{"a": a, "b": b, **t.to_dict()} for (a, b), t in totals.items()],
        "ratings": {n: round(fitted[n], 1) for n in names},
    }


# -- markdown ---------------------------------------------------------------------------------


def _ci(entry: Mapping[str, Any], key: str = "win_rate") -> str:
    return f"{entry[key]:.2f} ({entry['ci_low']:.2f}-{entry['ci_high']:.2f})"


def markdown(report: Mapping[str, Any]) -> str:
    """The report as markdown: a table of tasks, the aggregate, the rating, and the
    baseline's with the probability of improvement."""
    suite = report["suite"]
    lines = [
        f"## Benchmark of `{report['method']}` ({len(report['runs'])} run(s), "
        f"{suite['games_per_task']} games per task{', quick' if suite['quick'] else ''})",
        "",
    ]
    lines += _method_lines(report)
    base = report.get("baseline")
    if base:
        lines += ["", f"### Baseline `{base['method']}`", "", *_method_lines(base)]
        pi = report["probability_of_improvement"]
        lines += [
            "",
            f"P(`{pi['x']}` > `{pi['y']}`) = {pi['value']:.2f} "
            f"({pi['ci_low']:.2f}-{pi['ci_high']:.2f})",
        ]
    return "\n".join(lines) + "\n"


def _method_lines(part: Mapping[str, Any]) -> list[str]:
    lines = [
        "| task | scenario | opponent | wins | draws | losses | win rate (95% CI) |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, t in part["tasks"].items():
        lines.append(
            f"| {name} | {t['scenario']} | {t['opponent']} | {t['wins']} | {t['draws']} "
            f"| {t['losses']} | {_ci(t)} |"
        )
    agg = part["aggregate"]
    lines += [
        "",
        f"IQM of the win rate over {agg['runs']} run(s) x {agg['tasks']} tasks: {_ci(agg, 'iqm')}"
        f" (stratified bootstrap over the {agg['bootstrap']}, {agg['reps']} resamples)",
    ]
    r = part.get("rating")
    if r:
        edge = f", at the edge of the search ({r['edge']})" if r["edge"] else ""
        lines.append(
            f"Rating on the ladder: {r['elo']:.0f} ({r['ci_low']:.0f}-{r['ci_high']:.0f}), "
            f"{r['games']} games against the anchors{edge}"
        )
    return lines


def headroom_markdown(report: Mapping[str, Any]) -> str:
    """The headroom table: per task each agent's win rate, the best scripted, the margin."""
    names = ("expert", *SCRIPTED)
    lines = [
        f"## Headroom ({report['games_per_task']} games per task and agent, seeds "
        f"{report['seed']:,} on)",
        "",
        "| task | " + " | ".join(names) + " | best scripted | headroom |",
        "|---|" + "---|" * (len(names) + 2),
    ]
    for name, h in report["headroom"].items():
        rates = " | ".join(_ci(h["agents"][n]) for n in names)
        lines.append(f"| {name} | {rates} | {h['best_scripted']} | {h['headroom']:+.2f} |")
    return "\n".join(lines) + "\n"


def anchors_markdown(report: Mapping[str, Any]) -> str:
    """The round robin's pairs and the fitted ratings."""
    lines = [
        f"## Anchors ({report['games_per_pair_and_scenario']} games per pair on each of "
        f"{len(report['scenarios'])} scenarios)",
        "",
        "| a | b | wins | draws | losses | win rate of a (95% CI) |",
        "|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {p['a']} | {p['b']} | {p['wins']} | {p['draws']} | {p['losses']} | {_ci(p)} |"
        for p in report["pairs"]
    ]
    lines += ["", "| anchor | rating |", "|---|---|"]
    lines += [f"| {n} | {r:.1f} |" for n, r in report["ratings"].items()]
    return "\n".join(lines) + "\n"


# -- command line -------------------------------------------------------------------------------

PROG = "python -m facing_env.benchmark"
PROGRESS: dict[str, bool | None] = {"auto": None, "on": True, "off": False}


def _parser() -> argparse.ArgumentParser:
    parser = cli.parser(PROG, __doc__)
    parser.add_argument(
        "--agent",
        action="append",
        default=[],
        help="the agent (a name, model:PATH[@T] with {scenario} in PATH, rllib:PATH[#ID]); "
        "repeat for several runs of one method",
    )
    parser.add_argument("--runs", help="a folder of train.py run folders: one run per seed")
    parser.add_argument(
        "--baseline",
        action="append",
        default=[],
        help="a second method's agent (repeat for its runs): the report adds P(agent > baseline)",
    )
    parser.add_argument("--baseline-runs", help="a folder of the second method's run folders")
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"{QUICK_GAMES} games per task and {QUICK_LADDER_GAMES} per anchor and ladder "
        f"scenario instead of {GAMES} and {LADDER_GAMES}",
    )
    parser.add_argument(
        "--games",
        type=int,
        default=argparse.SUPPRESS,
        help=f"games per task ({GAMES}; {QUICK_GAMES} with --quick)",
    )
    parser.add_argument(
        "--ladder-games",
        type=int,
        default=argparse.SUPPRESS,
        help=f"games per anchor on each ladder scenario ({LADDER_GAMES}; {QUICK_LADDER_GAMES} "
        "with --quick; 0: no ladder)",
    )
    parser.add_argument(
        "--tasks",
        nargs="+",
        default=argparse.SUPPRESS,
        help="play only these tasks, by name (all of the suite when not given)",
    )
    parser.add_argument("--json", help="write the report as JSON here (.json)")
    parser.add_argument("--markdown", help="write the report as markdown here (.md)")
    parser.add_argument("--plots", help="draw the report's plots (PNG) in this folder")
    parser.add_argument(
        "--headroom",
        action="store_true",
        help="measure each task's headroom (the expert and every scripted agent) instead",
    )
    parser.add_argument(
        "--pin-anchors",
        action="store_true",
        help="play the anchors' round robin and print the ratings to pin instead",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=os.cpu_count() or 1,
        help="processes for the games of agents that choose game by game, such as the expert "
        "(default: one per CPU core)",
    )
    parser.add_argument(
        "--progress",
        choices=PROGRESS,
        default="auto",
        help="a progress bar of the games on stderr: 'auto' when stderr is a terminal",
    )
    return parser


@dataclass
class Plan:
    """The checked arguments."""

    mode: str
    runs: list[Run]
    name: str
    baseline: list[Run]
    baseline_name: str
    tasks: list[Task]
    games: int
    ladder_games: int


def check(args: argparse.Namespace) -> Plan:
    """Check every argument before any game; ``ValueError`` naming the argument."""
    cli.count(args.workers, "--workers")
    modes = [m for m in ("headroom", "pin_anchors") if getattr(args, m)]
    if len(modes) > 1:
        raise ValueError("--headroom and --pin-anchors are separate runs: give one")
    mode = modes[0] if modes else "benchmark"
    games = getattr(args, "games", QUICK_GAMES if args.quick else GAMES)
    cli.count(games, "--games", high=SEED_STRIDE)
    ladder = getattr(args, "ladder_games", QUICK_LADDER_GAMES if args.quick else LADDER_GAMES)
    cli.count(ladder, "--ladder-games", low=0 if mode == "benchmark" else 1, high=SEED_STRIDE)
    tasks = list(TASKS)
    if getattr(args, "tasks", None):
        known = {t.name: t for t in TASKS}
        unknown = [n for n in args.tasks if n not in known]
        if unknown:
            raise ValueError(f"--tasks: unknown task {unknown[0]!r}; known: {', '.join(known)}")
        tasks = [known[n] for n in dict.fromkeys(args.tasks)]
    cli.output_file(args.json, "--json", (".json",))
    cli.output_file(args.markdown, "--markdown", (".md", ".markdown"))
    cli.output_folder(args.plots, "--plots")
    if args.plots:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise ValueError("--plots needs matplotlib: pip install -e '.[render]'") from None
    given = args.agent or args.runs or args.baseline or args.baseline_runs
    if mode != "benchmark":
        if given:
            raise ValueError(f"--{mode.replace('_', '-')} plays the anchors: give no agent")
        return Plan(mode, [], mode, [], "", tasks, games, ladder)
    runs = _method(args.agent, args.runs, "--agent", "--runs", required=True)
    base = _method(args.baseline, args.baseline_runs, "--baseline", "--baseline-runs")
    _check_agents(runs + base, tasks, ladder > 0)
    return Plan(
        mode,
        runs,
        method_name(args.agent, args.runs),
        base,
        method_name(args.baseline, args.baseline_runs) if base else "",
        tasks,
        games,
        ladder,
    )


def _method(
    specs: Sequence[str],
    folder: str | None,
    option: str,
    folder_option: str,
    *,
    required: bool = False,
) -> list[Run]:
    if specs and folder:
        raise ValueError(f"{option} and {folder_option} name the same method's runs: give one")
    if folder:
        cli.input_folder(folder, folder_option)
        try:
            return runs_from_folder(folder)
        except ValueError as exc:
            raise ValueError(f"{folder_option}: {exc}") from None
    if not specs and required:
        raise ValueError(f"give the agent to benchmark: {option} AGENT (or {folder_option} DIR)")
    return [Run(s, {"*": s}) for s in specs]


def _check_agents(runs: Sequence[Run], tasks: Sequence[Task], ladder: bool) -> None:
    """Make every run's agent of every scenario it plays, and check each policy against its
    scenario's layout (:func:`facing_env.cli.agents`)."""
    scenarios = list(ladder_scenarios(tasks))
    from facing_env.scenario import load_scenario

    for s in scenarios:
        load_scenario(s)
    for run in runs:
        for s in scenarios:
            try:
                name = run.agent(s)
            except ValueError as exc:
                raise ValueError(f"--agent: {exc}") from None
            _MADE.update(cli.agents([name], "--agent", s))
    del ladder


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Command-line entry point: checks every argument, then plays."""
    args = _parser().parse_args(argv)
    try:
        plan = check(args)
    except (ValueError, FacingEnvError) as exc:
        cli.fail(PROG, str(exc))
    try:
        report, text = _play(plan, args)
        print(text, end="", flush=True)
        _write(args, report, text)
    except (ValueError, FacingEnvError, ImportError, OSError) as exc:
        cli.fail(PROG, str(exc))
    return report


def _total(plan: Plan) -> int:
    """Games the plan plays (the progress bar's length)."""
    scen = len(ladder_scenarios(plan.tasks))
    if plan.mode == "headroom":
        return (1 + len(SCRIPTED)) * len(plan.tasks) * plan.games
    if plan.mode == "pin_anchors":
        return math.comb(len(ANCHORS), 2) * scen * plan.ladder_games
    runs = len(plan.runs) + len(plan.baseline)
    return runs * (len(plan.tasks) * plan.games + len(ANCHORS) * scen * plan.ladder_games)


def _play(plan: Plan, args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    bar = cli.progress_bar(_total(plan), "benchmark", enabled=PROGRESS[args.progress], unit="game")
    with bar:
        if plan.mode == "headroom":
            report = headroom(plan.tasks, plan.games, workers=args.workers, progress=bar.update)
            return report, headroom_markdown(report)
        if plan.mode == "pin_anchors":
            report = pin_anchors(
                ladder_scenarios(plan.tasks),
                plan.ladder_games,
                workers=args.workers,
                progress=bar.update,
            )
            return report, anchors_markdown(report)
        report = benchmark(
            plan.runs,
            name=plan.name,
            baseline=plan.baseline,
            baseline_name=plan.baseline_name,
            tasks=plan.tasks,
            games=plan.games,
            ladder_games=plan.ladder_games,
            workers=args.workers,
            progress=bar.update,
            quick=args.quick,
        )
    return report, markdown(report)


def _write(args: argparse.Namespace, report: Mapping[str, Any], text: str) -> None:
    from facing_env.evaluation.evaluate import image_links, wrote

    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))
        wrote(args.json)
    images: list[Path] = []
    if args.plots and "suite" in report:
        from facing_env.evaluation.plots import benchmark_plots

        images = benchmark_plots(report, args.plots)
        for image in images:
            wrote(image)
    if args.markdown:
        md = Path(args.markdown)
        md.write_text(text + image_links(images, md.parent))
        wrote(md)


if __name__ == "__main__":
    cli.run_main(main)
