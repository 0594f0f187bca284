"""The benchmark's suite and its play: the tasks (:data:`TASKS`), the rating ladder's
anchors (:data:`ANCHORS`), the seeds, the runs of a method (:class:`Run`), the games as jobs
over processes (:func:`run_jobs`), and the reports they make (:func:`benchmark`,
:func:`headroom`, :func:`pin_anchors`). The command that plays them, and its documentation,
is :mod:`facing_env.evaluation.benchmark`; the statistics are in
:mod:`facing_env.evaluation.statistics`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from facing_env.evaluation import statistics as st
from facing_env.evaluation.report import DRAW, LOSS, WIN, Tally

FORMAT = "facing_env.benchmark/1"
"""The JSON report's layout and its version (docs/benchmarks.md)."""


@dataclass(frozen=True)
class Task:
    """One task of the suite: ``name``, a scenario and the scripted opponent; ``ladder``:
    whether the rating ladder plays its scenario (the anchors were pinned on the first
    six tasks' scenarios, so a task added later leaves the ladder as it was)."""

    name: str
    scenario: str
    opponent: str
    ladder: bool = True


TASKS: tuple[Task, ...] = (
    Task("mixed_party_vs_flanker", "benchmark/mixed_party", "flanker"),
    Task("ogre_vs_flanker", "ogre", "flanker"),
    Task("hex_skirmish_vs_defensive", "benchmark/hex_skirmish", "defensive"),
    Task("ruins_vs_flanker", "benchmark/ruins", "flanker"),
    Task("side_rear_skirmish_vs_defensive", "side_rear_skirmish", "defensive"),
    Task("standard_skirmish_vs_defensive", "standard_skirmish", "defensive"),
    Task("unseen_skirmish_vs_flanker", "benchmark/unseen_skirmish", "flanker", ladder=False),
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


def ladder_scenarios(tasks: Sequence[Task] = TASKS) -> tuple[str, ...]:
    """The scenarios of the tasks, in order, each once: where the ladder is played (the
    tasks with ``ladder``)."""
    return tuple(dict.fromkeys(t.scenario for t in tasks if t.ladder))


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


def _models_under(folder: Path) -> list[Path]:
    """Every ``model.zip`` under ``folder`` at any depth, through symbolic links to folders
    too (a folder of links to runs kept elsewhere), each real folder read once (a link
    back up the tree does not loop)."""
    seen: set[str] = set()
    found: list[Path] = []
    for root, dirs, files in os.walk(folder, followlinks=True):
        real = os.path.realpath(root)
        if real in seen:
            dirs[:] = []
            continue
        seen.add(real)
        dirs.sort()  # a folder reached twice is read where it comes first by name
        if "model.zip" in files:
            found.append(Path(root) / "model.zip")
    return sorted(found)


def runs_from_folder(folder: str | Path) -> list[Run]:
    """One :class:`Run` per (experiment, seed) of the ``train.py`` run folders under
    ``folder`` (any depth, through links to folders), each with the model of every
    scenario it trained (the newest when a scenario was trained twice); ``ValueError``
    when there is none."""
    found: dict[tuple[str, int], dict[str, tuple[int, str]]] = {}
    for model in _models_under(Path(folder)):
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


def keep(agents: Mapping[str, Any]) -> None:
    """Agents made already (the command line's checks made them), by name: this process
    plays with them instead of making them again."""
    _MADE.update(agents)


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
        out += [
            replace(job, start=lo, stop=min(job.stop, lo + chunk))
            for lo in range(job.start, job.stop, chunk)
        ]
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

        from facing_env.evaluation.match import init_worker

        context = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
        with ProcessPoolExecutor(workers, mp_context=context, initializer=init_worker) as pool:
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
    run: Run,
    index: int,
    tasks: Sequence[Task],
    games: int,
    *,
    seed: int = EVAL_SEED,
    tag: str = "task",
) -> list[Job]:
    """Run ``index``'s games of every task, keyed ``(tag, index, task name)``: task ``k`` of
    :data:`TASKS` seeded from ``seed + SEED_STRIDE k`` (its place in the whole suite, so a
    subset plays the same games; a task outside the suite takes the places after it,
    :func:`task_seed`)."""
    return [
        Job(
            (tag, index, t.name),
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
    *,
    tag: str = "ladder",
) -> list[Job]:
    """Run ``index``'s games against every anchor on every ladder scenario
    (:func:`ladder_seed`), keyed ``(tag, index, anchor, scenario)``."""
    return [
        Job(
            (tag, index, anchor, scenario),
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
                drawn = st.resample_runs(rates[:, None], reps, np.random.default_rng(seed))
                low, high = np.percentile(drawn.mean(axis=(1, 2)), [2.5, 97.5])
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
            jobs += suite_jobs(run, k, tasks, games, tag=tag)
            if anchors:
                jobs += ladder_jobs(run, k, scenarios, ladder_games, tag=f"{tag}-ladder")
    outcomes = run_jobs(jobs, workers=workers, progress=progress)
    x = collect(name, runs, tasks, outcomes, "x", anchors)
    report: dict[str, Any] = {
        **_header(),
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


def _header() -> dict[str, Any]:
    """A report's first keys: its layout (:data:`FORMAT`) and the versions that made it."""
    from facing_env import __version__
    from facing_env.registry import ENV_VERSION

    return {"format": FORMAT, "version": __version__, "env_version": ENV_VERSION}


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
        **_header(),
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
        **_header(),
        "scenarios": list(scenarios),
        "games_per_pair_and_scenario": games,
        "seed": HEADROOM_SEED,
        "pairs": [{"a": a, "b": b, **t.to_dict()} for (a, b), t in totals.items()],
        "ratings": {n: round(fitted[n], 1) for n in names},
    }
