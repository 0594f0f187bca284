"""The benchmark (issue 35): its statistics on hand-worked examples, the rating ladder, the
suite's scenarios, the JSON layout and the command line's refusals."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import facing_env
from facing_env.evaluation import benchmark as bm
from facing_env.evaluation import statistics as st
from facing_env.evaluation import suite
from facing_env.evaluation.report import Tally

ROOT = Path(__file__).resolve().parent.parent

# -- the interquartile mean -----------------------------------------------------------------


def test_iqm_cuts_a_quarter_from_each_end_of_all_the_scores():
    # 8 scores: 2 cut from each end, (3 + 4 + 5 + 6) / 4
    assert st.iqm(np.array([[8, 1, 3, 6], [2, 7, 5, 4]])) == 4.5
    # 6 scores: int(6 / 4) = 1 cut from each end (scipy's trim_mean, as rliable):
    # sorted 0.1 0.2 0.4 0.5 0.8 0.9 -> (0.2 + 0.4 + 0.5 + 0.8) / 4
    assert st.iqm([[0.1, 0.9, 0.2], [0.8, 0.5, 0.4]]) == pytest.approx(0.475)
    # 3 scores: nothing cut
    assert st.iqm([[0.0, 0.5, 1.0]]) == 0.5
    # one outlier among 4 moves the IQM not at all, the mean by a quarter of it
    assert st.iqm([[0.5, 0.5, 0.5, 100.0]]) == 0.5
    with pytest.raises(ValueError):
        st.iqm([])


# -- the stratified bootstrap ---------------------------------------------------------------


def test_stratified_bootstrap_resamples_each_task_on_its_own():
    """Runs x tasks = [[0, 1], [1, 0]]. Resampling whole runs would always keep one 0 and
    one 1 per run: IQM 0.5 every time. Resampling each task's column on its own draws the
    number of ones K ~ Binomial(4, 1/2) over the four scores: IQM (the middle two of four)
    0 when K <= 1 (5/16), 0.5 when K = 2 (6/16), 1 when K >= 3 (5/16)."""
    scores = np.array([[0.0, 1.0], [1.0, 0.0]])
    samples = st.stratified_resamples(scores, reps=4000, seed=1)
    values, counts = np.unique(samples, return_counts=True)
    assert values.tolist() == [0.0, 0.5, 1.0]
    assert counts / 4000 == pytest.approx([5 / 16, 6 / 16, 5 / 16], abs=0.03)
    assert st.stratified_bootstrap(scores, reps=4000, seed=1) == (0.0, 1.0)


def test_stratified_bootstrap_is_seeded_and_a_single_run_has_no_spread():
    scores = np.array([[0.2, 0.9, 0.4], [0.3, 0.7, 0.6], [0.5, 0.8, 0.1]])
    assert st.stratified_bootstrap(scores, seed=3) == st.stratified_bootstrap(scores, seed=3)
    low, high = st.stratified_bootstrap(scores)
    assert low <= st.iqm(scores) <= high
    assert st.stratified_bootstrap(scores[:1]) == (st.iqm(scores[:1]), st.iqm(scores[:1]))


def test_binomial_bootstrap_of_a_single_run():
    """All won or all lost: no spread; 10 of 20 on one task: the interval of a binomial
    proportion (about 0.5 +- 0.22)."""
    games = np.array([[20, 20]])
    assert st.binomial_bootstrap(np.array([[20, 0]]), games) == (0.5, 0.5)
    low, high = st.binomial_bootstrap(np.array([[10]]), np.array([[20]]), reps=4000)
    assert low == pytest.approx(0.30, abs=0.03) and high == pytest.approx(0.70, abs=0.03)


# -- the probability of improvement ---------------------------------------------------------


def test_probability_of_improvement_worked_example():
    """Task 1: x {3, 5}, y {4, 2}: of the four pairs x wins 3 > 2, 5 > 4, 5 > 2: 3/4.
    Task 2: x {1, 1}, y {1, 0}: two ties (a half each) and two wins: 3/4.
    Task 3: x {0, 0}, y {1, 1}: 0. The mean over tasks: (3/4 + 3/4 + 0) / 3 = 1/2."""
    x = np.array([[3, 1, 0], [5, 1, 0]])
    y = np.array([[4, 1, 1], [2, 0, 1]])
    assert st.probability_of_improvement(x, y) == 0.5
    assert st.probability_of_improvement(y, x) == 0.5  # P(X > Y) + P(Y > X) = 1
    assert st.probability_of_improvement(x[:, :2], y[:, :2]) == 0.75
    low, high = st.improvement_interval(x, y)
    assert 0 <= low < 0.5 < high <= 1
    assert st.improvement_interval(x + 10, y) == (1.0, 1.0)
    with pytest.raises(ValueError):
        st.probability_of_improvement(x, y[:, :2])


# -- the ladder's arithmetic ----------------------------------------------------------------


def test_placement_against_one_anchor_is_the_log_odds():
    """7.5 points of 10 against an anchor at 0: odds 3:1, 400 log10(3) = 190.85 points."""
    placed = st.place([st.Record(0.0, 7.5, 10)])
    assert placed.rating == pytest.approx(400 * math.log10(3), abs=1e-6)
    assert placed.edge is None
    # the likelihood-ratio interval: the log-likelihood 3.8415 / 2 below its top at both ends
    top = st.log_likelihood(placed.rating, [st.Record(0.0, 7.5, 10)])
    for end in (placed.low, placed.high):
        drop = top - st.log_likelihood(end, [st.Record(0.0, 7.5, 10)])
        assert drop == pytest.approx(st.CHI2_1_95 / 2, abs=1e-6)
    # the same ends found by brute force on a grid of hundredths of a point
    grid = np.arange(-400.0, 800.0, 0.01)
    inside = grid[[top - st.log_likelihood(g, [st.Record(0.0, 7.5, 10)]) <= 1.92073 for g in grid]]
    assert placed.low == pytest.approx(inside[0], abs=0.02)
    assert placed.high == pytest.approx(inside[-1], abs=0.02)
    assert (round(placed.low), round(placed.high)) == (-38, 482)


def test_placement_between_two_anchors_and_at_the_edge():
    """15 of 20 against an anchor at -200 and 5 of 20 against one at +200: at 0 the expected
    scores are 0.760 and 0.240, 20 points of 40 as made: the rating is 0 exactly."""
    placed = st.place([st.Record(-200.0, 15, 20), st.Record(200.0, 5, 20)])
    assert placed.rating == pytest.approx(0.0, abs=1e-6)
    assert placed.low == pytest.approx(-placed.high, abs=1e-6)
    won = st.place([st.Record(0.0, 10, 10), st.Record(500.0, 4, 4)])
    assert (won.rating, won.high, won.edge) == (500.0 + st.RATING_SPAN, 2500.0, "above")
    # every game won: the log-likelihood climbs to 0 at the edge; the interval's low end is
    # where it is 3.8415 / 2 below that
    records = [st.Record(0.0, 10, 10), st.Record(500.0, 4, 4)]
    assert st.log_likelihood(won.low, records) == pytest.approx(-st.CHI2_1_95 / 2, abs=1e-3)
    assert st.place([st.Record(0.0, 0, 6)]).edge == "below"
    with pytest.raises(ValueError):
        st.place([st.Record(0.0, 7, 6)])


def test_fit_ratings_of_a_chain():
    """a (held at 0) scores 2.5 of 10 against b; b scores 2.5 of 10 against c: b is 190.85
    above a, c 190.85 above b (each pair's score is the one expected at those gaps)."""
    fitted = st.fit_ratings([("a", "b", 2.5, 10), ("b", "c", 2.5, 10)], {"a": 0.0})
    step = 400 * math.log10(3)
    assert fitted["a"] == 0.0
    assert fitted["b"] == pytest.approx(step, abs=1e-4)
    assert fitted["c"] == pytest.approx(2 * step, abs=1e-4)


def test_rating_of_tallies_counts_draws_as_halves():
    ladder = {"random": Tally(5, 5, 0), "expert": Tally(0, 0, 0)}
    r = suite.rating(ladder, {"random": 0.0, "expert": 500.0})
    assert r["elo"] == pytest.approx(400 * math.log10(3), abs=1e-6)  # 7.5 of 10
    assert r["games"] == 10 and r["edge"] is None
    assert set(r) == {"elo", "ci_low", "ci_high", "games", "edge"}


# -- the suite ------------------------------------------------------------------------------


def test_the_suite_is_named_and_its_anchors_are_pinned():
    names = [t.name for t in suite.TASKS]
    assert len(names) >= 6 and len(set(names)) == len(names)
    assert {t.opponent for t in suite.TASKS} <= set(suite.SCRIPTED)
    assert list(suite.ANCHORS) == ["random", "aggressive", "defensive", "flanker", "expert"]
    assert suite.ANCHORS["random"] == 0.0
    assert suite.ANCHORS == {
        "random": 0.0, "aggressive": 475.0, "defensive": 176.0, "flanker": 588.0, "expert": 599.0
    }  # fmt: skip
    # the evaluation's seeds start above every seed the project trains or evaluates on
    assert suite.EVAL_SEED >= 2_000_000
    assert suite.LADDER_SEED >= suite.EVAL_SEED + suite.SEED_STRIDE * 50
    assert suite.task_seed(suite.TASKS[2]) == 2_020_000
    # anchor 1 (aggressive) on the suite's third scenario: 2,500,000 + 10,000 (6 + 2)
    third = suite.TASKS[2].scenario
    assert suite.ladder_seed(1, third) == 2_580_000
    assert suite.ladder_seed(1, third, ["duel", third]) == 2_590_000
    assert suite.ladder_seed(0, "duel", ["duel"]) == 2_560_000


def test_benchmark_scenarios_play_in_the_env_and_the_vector_env():
    """The suite's own scenarios (``configs/benchmark/``, not in ``scenario_names()``, so the
    tests parametrized over every scenario leave them out): random masked play through the
    AEC env and a ``VectorEnv``."""
    from facing_env.vector import VectorEnv

    own = sorted({t.scenario for t in suite.TASKS if t.scenario.startswith("benchmark/")})
    assert len(own) >= 3
    assert not set(own) & set(facing_env.scenario_names())
    for scenario in own:
        env = facing_env.env(scenario=scenario)
        env.reset(seed=1)
        rng = np.random.default_rng(1)
        for steps, _agent in enumerate(env.agent_iter()):
            obs, _, term, trunc, _ = env.last()
            mask = obs["action_mask"]
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(mask))))
            if steps > 60:
                break
        env.close()
        venv = VectorEnv(scenario, num_envs=4, seed=1)
        obs, _ = venv.reset()
        for _ in range(40):
            m = obs["action_mask"]
            obs, *_ = venv.step(np.argmax(m * rng.random(m.shape), axis=1))
        venv.close()


def test_runs_from_train_py_folders(tmp_path):
    for folder in (
        "ruins__ppo__1__100",
        "ruins__ppo__1__200",  # trained again: the newer one
        "ogre__ppo__1__150",
        "ruins__ppo__2__300",
        "notes",
    ):
        (tmp_path / "a" / folder).mkdir(parents=True)
        (tmp_path / "a" / folder / "model.zip").write_bytes(b"")
    runs = suite.runs_from_folder(tmp_path)
    assert [r.name for r in runs] == ["ppo seed 1", "ppo seed 2"]
    assert runs[0].agent("benchmark/ruins") == f"model:{tmp_path}/a/ruins__ppo__1__200/model.zip"
    assert runs[0].agent("ogre").endswith("ogre__ppo__1__150/model.zip")
    with pytest.raises(ValueError, match="no model for scenario 'ogre'"):
        runs[1].agent("ogre")
    run = suite.Run("m", {"*": "model:x/{scenario}.zip"})
    assert run.agent("benchmark/ruins") == "model:x/ruins.zip"


def test_runs_through_links_to_folders(tmp_path):
    """A folder of links to run folders kept elsewhere is read like the folders themselves;
    a link back up the tree is read once, not followed round."""
    kept = tmp_path / "kept" / "ogre__ppo__3__100"
    kept.mkdir(parents=True)
    (kept / "model.zip").write_bytes(b"")
    picked = tmp_path / "picked"
    picked.mkdir()
    (picked / kept.name).symlink_to(kept, target_is_directory=True)
    (picked / "loop").symlink_to(picked, target_is_directory=True)
    runs = suite.runs_from_folder(picked)
    assert [r.name for r in runs] == ["ppo seed 3"]
    assert runs[0].agent("ogre") == f"model:{picked}/ogre__ppo__3__100/model.zip"


# -- playing and the JSON layout ------------------------------------------------------------

DUEL = suite.Task("duel_vs_flanker", "duel", "flanker")


def test_games_are_the_same_whatever_the_workers():
    """Random's games cut into jobs of :data:`CHUNK` games, played in one process or two."""
    jobs = suite.suite_jobs(suite.Run("random", {"*": "random"}), 0, [DUEL], 12)
    assert len(suite.split(jobs)) == 2
    one = suite.run_jobs(jobs, workers=1)
    two = suite.run_jobs(jobs, workers=2)
    assert one == two and len(one[("task", 0, DUEL.name)]) == 12


FORKED_POLICY_GAMES = """
import sys, torch
from sb3_contrib import MaskablePPO
from facing_env.evaluation import evaluate, suite
from facing_env.train.team_env import TeamLearnerEnv

path = sys.argv[1]
MaskablePPO("MlpPolicy", TeamLearnerEnv("duel", opponents=("random",)), seed=0).save(path)
torch.set_num_threads(2)
with torch.no_grad():  # the parent's OpenMP pool started, as a command's checks start it
    torch.nn.Linear(512, 512)(torch.randn(512, 512))
run = suite.Run("ppo", {"*": f"model:{path}"})
jobs = suite.suite_jobs(run, 0, [suite.Task("duel_vs_random", "duel", "random")], 16)
print(len(suite.run_jobs(jobs, workers=2)[("task", 0, "duel_vs_random")]))
report = evaluate.evaluate("duel", [f"model:{path}", "random"], 8, seed=5, workers=2)
print(sum(p.games for p in report.pairs))
"""


def test_policies_play_in_forked_workers_after_the_parent_ran_torch(tmp_path):
    """A regression: the benchmark's workers, forked from a parent that had loaded a
    policy (its checks do), hung at their first forward pass in torch's OpenMP pool; a worker now
    takes one torch thread (``match.init_worker``). Run apart, under a time limit, so a
    hang fails the test instead of stalling the suite."""
    pytest.importorskip("sb3_contrib")
    done = subprocess.run(
        [sys.executable, "-c", FORKED_POLICY_GAMES, str(tmp_path / "model.zip")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["16", "8"]


def test_json_layout(tmp_path):
    report = suite.benchmark(
        [suite.Run("aggressive", {"*": "aggressive"}), suite.Run("flanker", {"*": "flanker"})],
        name="scripted",
        baseline=[suite.Run("random", {"*": "random"})],
        baseline_name="random",
        tasks=[DUEL],
        games=4,
        ladder_games=2,
    )
    assert list(report) == [
        "format", "version", "env_version", "suite", "method", "runs", "tasks", "aggregate",
        "rating", "baseline", "probability_of_improvement", "marl_eval",
    ]  # fmt: skip
    assert report["format"] == "facing_env.benchmark/1"
    seed = 2_000_000 + 10_000 * len(suite.TASKS)  # the first place after the suite's tasks
    assert report["suite"]["tasks"] == [
        {"name": DUEL.name, "scenario": "duel", "opponent": "flanker", "seed": seed}
    ]
    task = report["tasks"][DUEL.name]
    assert set(task) == {
        "scenario", "opponent", "wins", "draws", "losses", "games", "win_rate", "ci_low",
        "ci_high", "runs", "interval",
    }  # fmt: skip
    assert task["games"] == 8 and task["runs"] == 2
    assert set(report["aggregate"]) == {
        "metric", "iqm", "ci_low", "ci_high", "mean", "runs", "tasks", "bootstrap", "reps", "seed"
    }  # fmt: skip
    assert report["aggregate"]["bootstrap"] == "runs"
    assert report["rating"]["games"] == 2 * 2 * len(suite.ANCHORS)
    assert report["rating"]["ci_low"] <= report["rating"]["elo"] <= report["rating"]["ci_high"]
    run = report["runs"][0]
    assert set(run) == {"name", "agents", "tasks", "ladder", "rating"}
    assert set(run["ladder"]) == set(suite.ANCHORS)
    assert report["baseline"]["aggregate"]["bootstrap"] == "games"
    pi = report["probability_of_improvement"]
    assert set(pi) == {"x", "y", "value", "ci_low", "ci_high", "reps", "seed"}
    games = report["marl_eval"]["facing_env"][DUEL.name]["scripted"]["run_1"]
    assert games["absolute_metrics"]["win_rate"] == games["step_0"]["win_rate"]
    assert sum(games["step_0"]["win_rate"]) == report["runs"][1]["tasks"][DUEL.name]["wins"]
    json.dumps(report)
    text = bm.markdown(report)
    assert "| duel_vs_flanker | duel | flanker |" in text and "P(`scripted` > `random`)" in text
    pytest.importorskip("matplotlib")
    from facing_env.evaluation.plots import benchmark_plots

    paths = benchmark_plots(report, tmp_path)
    assert [p.name for p in paths] == ["task_win_rates.png", "ladder.png"]


# -- the command line -----------------------------------------------------------------------

PROG = "python -m facing_env.benchmark"


@pytest.fixture
def no_games(monkeypatch):
    def refuse(*_args, **_kwargs):
        raise AssertionError("a game was played")

    monkeypatch.setattr(suite, "play_job", refuse)


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        ([], "give the agent to benchmark: --agent AGENT"),
        (["--agent", "wizard"], "unknown agent 'wizard'"),
        (["--agent", "random", "--baseline", "nope"], "--baseline: unknown agent 'nope'"),
        (["--agent", "model:no/such/{scenario}.zip"], "no model file"),
        (["--agent", "random", "--games", "0"], "--games must be an integer of at least 1"),
        (["--agent", "random", "--ladder-games", "-1"], "--ladder-games"),
        (["--agent", "random", "--tasks", "chess"], "--tasks: unknown task 'chess'"),
        (["--agent", "random", "--json", "out.txt"], "expected a .json file"),
        (["--agent", "random", "--markdown", "out.json"], "--markdown"),
        (["--agent", "random", "--runs", "."], "--agent and --runs"),
        (["--runs", "no/such/folder"], "is not a folder"),
        (["--agent", "random", "--headroom"], "give no agent"),
        (["--headroom", "--pin-anchors"], "give one"),
        (["--agent", "random", "--workers", "0"], "--workers"),
    ],
)
def test_refusals_in_one_line_before_any_game(capsys, no_games, argv, needle):
    start = time.perf_counter()
    with pytest.raises(SystemExit) as info:
        bm.main(argv)
    assert time.perf_counter() - start < 10
    assert info.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{PROG}: error: "), lines
    assert needle in lines[0], lines[0]


def test_an_empty_runs_folder_is_refused(capsys, no_games, tmp_path):
    with pytest.raises(SystemExit):
        bm.main(["--runs", str(tmp_path)])
    assert "no train.py run folders" in capsys.readouterr().err


def test_command_line_writes_json_and_markdown(tmp_path, capsys):
    out = tmp_path / "out.json"
    argv = ["--agent", "aggressive", "--tasks", "ogre_vs_flanker", "--games", "2"]
    argv += ["--ladder-games", "1", "--json", str(out), "--markdown", str(tmp_path / "r.md")]
    bm.main([*argv, "--workers", "1"])
    report = json.loads(out.read_text())
    assert list(report["tasks"]) == ["ogre_vs_flanker"]
    for key in ("win_rate", "ci_low", "ci_high", "games"):
        assert key in report["tasks"]["ogre_vs_flanker"]
    assert {"iqm", "ci_low", "ci_high"} <= set(report["aggregate"])
    assert {"elo", "ci_low", "ci_high"} <= set(report["rating"])
    captured = capsys.readouterr()
    assert "| ogre_vs_flanker | ogre | flanker |" in captured.out
    assert captured.err.splitlines() == [f"wrote {out}", f"wrote {tmp_path / 'r.md'}"]


def test_help_is_plain_text_and_the_tool_is_listed():
    from facing_env.__main__ import TOOLS

    assert "benchmark" in TOOLS
    run = subprocess.run(
        [sys.executable, "-m", "facing_env", "benchmark", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("usage: python -m facing_env.benchmark")
    assert "games per task (200; 20 with --quick)" in " ".join(run.stdout.split())
    for markup in ("``", ":func:", ":data:", ":mod:", "**"):
        assert markup not in run.stdout, markup
