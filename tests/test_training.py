"""The single-agent learner view, the evaluation command and a tiny end-to-end train.py run.

Needs the ``train`` extra (stable-baselines3, sb3-contrib, openskill, tyro); CI installs it.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import facing_env
from facing_env.env import raw_env
from facing_env.evaluation.evaluate import main as evaluate_main
from facing_env.evaluation.report import wilson_interval
from facing_env.train.team_env import TeamLearnerEnv

sb3_contrib = pytest.importorskip("sb3_contrib")

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("scenario", ["duel", "skirmish", "hex_duel"])
def test_learner_view_passes_gymnasium_check_env(scenario):
    check_env(TeamLearnerEnv(scenario, opponents=["random"]), skip_render_check=True)


def _play(env: TeamLearnerEnv, rng: np.random.Generator) -> tuple[float, dict]:
    total, done, info = 0.0, False, {}
    while not done:
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        _, reward, terminated, truncated, info = env.step(action)
        total += reward
        done = terminated or truncated
    return total, info


@pytest.mark.parametrize("scenario", ["duel", "skirmish", "ogre"])
def test_every_reward_of_the_learners_team_is_credited(scenario):
    """Rewards the AEC env gives any creature of the learner's team, including those earned
    between the learner's turns (damage taken, the outcome) and during ``reset``, all reach
    the learner: per episode the sums agree."""
    env = TeamLearnerEnv(scenario, opponents=["aggressive"])
    raw = env.env
    ledger: list[float] = []
    step = raw.step

    def counting_step(action):
        step(action)
        mine = [a for a in raw.rewards if raw.teams[raw.agent_to_id[a]] == env.team]
        ledger.append(sum(raw.rewards[a] for a in mine))

    raw.step = counting_step
    rng = np.random.default_rng(3)
    for seed in range(3):
        ledger.clear()
        env.reset(seed=seed)  # what the opponent's turns earn before the learner acts counts
        total, _ = _play(env, rng)
        assert total == pytest.approx(sum(ledger))
        assert any(ledger)  # the episode did pay something (damage or the outcome)


def test_learner_view_handles_illegal_actions_as_documented():
    env = TeamLearnerEnv("duel", opponents=["random"])
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    *_, info = env.step(illegal)
    assert info["illegal_action"] == illegal
    strict = TeamLearnerEnv("duel", opponents=["random"], illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(facing_env.IllegalActionError):
        strict.step(illegal)


def test_learner_view_rejects_bad_options():
    with pytest.raises(ValueError, match="learner_team 'green'"):
        TeamLearnerEnv("duel", learner_team="green")
    with pytest.raises(ValueError, match=r"nobody"):
        TeamLearnerEnv("duel", opponents=["nobody"])
    env = TeamLearnerEnv("duel", opponents=["random"])
    with pytest.raises(ValueError, match="opponent 'flanker' is not in the pool"):
        env.reset(seed=0, options={"opponent": "flanker"})


@pytest.mark.parametrize("vec", ["dummy", "subproc"])
def test_learner_view_under_vector_envs(vec):
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    cls = DummyVecEnv if vec == "dummy" else SubprocVecEnv
    venv = cls([lambda: TeamLearnerEnv("duel", opponents=["random"]) for _ in range(2)])
    try:
        venv.seed(0)
        venv.reset()
        rng = np.random.default_rng(0)
        for _ in range(50):
            masks = get_action_masks(venv)
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            venv.step(actions)
    finally:
        venv.close()


def test_wilson_interval_known_values():
    low, high = wilson_interval(50, 100)
    assert (round(low, 3), round(high, 3)) == (0.404, 0.596)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_evaluate_command_writes_json_markdown_and_replays(tmp_path, capsys):
    out, md, rec = tmp_path / "r.json", tmp_path / "r.md", tmp_path / "replays"
    argv = ["--scenario", "skirmish", "--agents", "flanker", "aggressive", "random"]
    argv += ["--games", "4", "--json", str(out), "--markdown", str(md), "--record", str(rec)]
    evaluate_main(argv)
    printed = capsys.readouterr()
    assert printed.out.startswith("## Evaluation on `skirmish` (4 games per pair)")
    assert "wrote" not in printed.out  # stdout is the report alone
    assert printed.err.splitlines() == [  # no bars: stderr is not a terminal
        f"wrote {out}",
        f"wrote {md}",
        f"wrote {rec}{os.sep} (12 replays)",
    ]
    data = json.loads(out.read_text())
    assert {(p["a"], p["b"]) for p in data["pairs"]} == {
        ("flanker", "aggressive"),
        ("flanker", "random"),
        ("aggressive", "random"),
    }
    for p in data["pairs"]:
        assert p["wins"] + p["draws"] + p["losses"] == 4
    flanker = data["agents"]["flanker"]
    assert set(flanker["attacks"]) <= {"front", "flank", "rear", "none"}
    assert sum(flanker["attacks"].values()) > 0
    assert "rating" in flanker and "damage_per_round" in flanker
    assert "| flanker | aggressive |" in md.read_text()
    records = sorted(rec.glob("*.json"))
    assert len(records) == 12
    replay = json.loads(records[0].read_text())
    assert replay["format"] == "facing_env.replay/1" and replay["actions"]


@pytest.mark.parametrize("progress", ["on", "off", "auto"])
def test_evaluate_command_draws_a_bar_per_pair_on_stderr(capsys, progress):
    """--progress on: one bar per pair counting its games, each ending full; off, or auto
    when stderr is not a terminal (captured here): none. stdout holds the report alone."""
    pytest.importorskip("tqdm")
    argv = ["--agents", "flanker", "aggressive", "random", "--games", "3"]
    evaluate_main([*argv, "--progress", progress])
    printed = capsys.readouterr()
    assert printed.out.startswith("## Evaluation on `duel` (3 games per pair)")
    assert "%|" not in printed.out
    lines = printed.err.replace("\r", "\n").splitlines()
    full = [line.split(":")[0] for line in lines if "100%|" in line and "| 3/3 [" in line]
    if progress != "on":
        assert printed.err == ""
        return
    assert list(dict.fromkeys(full)) == [
        "flanker vs aggressive",
        "flanker vs random",
        "aggressive vs random",
    ]
    starts = [line.split(":")[0] for line in lines if "0%|" in line and "| 0/3 [" in line]
    assert starts == ["flanker vs aggressive", "flanker vs random", "aggressive vs random"]


def test_evaluate_calls_pair_progress_once_per_pair_and_counts_every_game():
    from facing_env.evaluation.evaluate import evaluate

    calls: list[tuple[str, str, int]] = []
    counted: dict[tuple[str, str], int] = {}
    every: list[int] = []

    def pair(a: str, b: str, games: int):
        calls.append((a, b, games))
        counted[a, b] = 0

        def step(n: int) -> None:
            counted[a, b] += n

        return step

    evaluate(
        "duel", ["flanker", "random", "aggressive"], 3, pair_progress=pair, progress=every.append
    )
    assert calls == [
        ("flanker", "random", 3),
        ("flanker", "aggressive", 3),
        ("random", "aggressive", 3),
    ]
    assert counted == {
        ("flanker", "random"): 3,
        ("flanker", "aggressive"): 3,
        ("random", "aggressive"): 3,
    }
    assert every == [1] * 9


def test_evaluate_command_names_bad_input(capsys):
    with pytest.raises(SystemExit):
        evaluate_main(["--agents", "random", "wizard", "--games", "1"])
    assert "wizard" in capsys.readouterr().err


@pytest.fixture
def train(monkeypatch):
    """train.py, freshly imported from the repository's root."""
    monkeypatch.syspath_prepend(str(ROOT))
    sys.modules.pop("train", None)
    import train

    return train


def test_train_py_end_to_end_with_a_tiny_budget(tmp_path, train):
    """train, save, load, evaluate: the whole pipeline in well under a minute."""

    args = train.Args(
        total_timesteps=512,
        clone="flanker",
        clone_samples=200,  # a tiny sample
        clone_rounds=1,
        clone_epochs=4,
        n_steps=64,
        n_envs=2,
        batch_size=64,
        n_epochs=1,
        eval_every=256,
        eval_games=2,
        self_play=True,
        snapshot_every=256,
        checkpoint_every=256,
        final_eval_games=2,
        final_eval_agents=("random",),
        runs_dir=str(tmp_path),
        progress_bar=False,
    )
    model_path = train.main(args)
    run_dir = model_path.parent
    assert model_path.name == "model.zip" and model_path.exists()
    assert json.loads((run_dir / "clone.json").read_text())[0]["samples"] >= 200
    assert (run_dir / "report.json").exists() and (run_dir / "report.md").exists()
    assert list((run_dir / "snapshots").glob("*.zip"))  # self-play snapshots were taken
    assert json.loads((run_dir / "args.json").read_text())["eval_temperature"] == 0.0
    report = json.loads((run_dir / "report.json").read_text())
    assert report["pairs"][0]["a"] == "learned"
    markdown = (run_dir / "report.md").read_text()
    for picture in ("win_rates", "learning_curves", "attack_origins"):  # plots, linked
        assert (run_dir / f"{picture}.png").exists() and f"]({picture}.png)" in markdown
    from facing_env.agents import make_agent

    agent = make_agent(f"model:{model_path}")
    env = facing_env.env(scenario="duel")
    env.reset(seed=0)
    obs, *_ = env.last()
    action = agent.act(obs["observation"], obs["action_mask"], np.random.default_rng(0))
    assert obs["action_mask"][action] == 1


def test_train_py_on_the_batched_vec_env(tmp_path, train):
    """--vec-env vector: the same run on TeamVecEnv (snapshots join and leave the pool,
    the dice curriculum reaches the battles, the league's weights are set)."""
    args = train.Args(
        total_timesteps=768,
        clone=None,
        n_steps=64,
        n_envs=4,
        batch_size=64,
        n_epochs=1,
        eval_every=0,
        self_play=True,
        snapshot_every=256,
        max_snapshots=1,
        expected_dice_final=0.0,
        final_eval_games=2,
        final_eval_agents=("random",),
        runs_dir=str(tmp_path),
        progress_bar=False,
        vec_env="vector",
        rewards={"draw": -1.0},
    )
    vec = train.make_vec_env(args, {})
    inner = vec.venv
    assert inner.venv.dice_modes == ["expected", "expected", "roll", "roll"]
    assert inner.venv.scenario.rewards.draw == -1.0
    vec.close()
    model_path = train.main(args)
    assert model_path.exists() and len(list((model_path.parent / "snapshots").glob("*.zip"))) >= 2


def test_train_py_clones_a_scripted_agent_before_ppo(tmp_path, train, capsys):
    """--clone: the rounds of cloning are measured in clone.json (the first on the
    agent's own battles, the next DAgger's), then PPO trains from the cloned policy.
    stdout: the run folder and the TensorBoard command first (before the cloning), the
    model's path last; --no-progress-bar: nothing on stderr."""
    args = train.Args(
        total_timesteps=128,
        n_steps=64,
        n_envs=2,
        batch_size=64,
        n_epochs=1,
        eval_every=0,
        checkpoint_every=0,
        final_eval_games=0,
        clone="flanker",
        clone_samples=400,
        clone_rounds=2,
        clone_dagger_share=0.5,
        clone_epochs=1,
        runs_dir=str(tmp_path),
        progress_bar=False,
    )
    model_path = train.main(args)
    run_dir = model_path.parent
    printed = capsys.readouterr()
    lines = printed.out.splitlines()
    assert lines[:2] == [
        f"run folder: {run_dir}{os.sep}",
        f"TensorBoard: tensorboard --logdir {run_dir / 'tb'}",
    ]
    assert lines[2].startswith("clone round 1/2: flanker won ")
    assert lines[3].startswith("clone round 2/2: the cloned policy won ")
    assert lines[-1] == str(model_path) and len(lines) == 6
    assert list((run_dir / "tb").rglob("events.out.tfevents.*"))  # the folder it names
    assert "clone:" not in printed.err and "%|" not in printed.err
    rounds = json.loads((run_dir / "clone.json").read_text())
    assert [r["round"] for r in rounds] == [1, 2]
    assert rounds[0]["samples"] >= 200 and rounds[1]["samples"] >= rounds[0]["samples"] + 200
    assert all(0.0 <= r["accuracy"] <= 1.0 and r["battles"] >= 1 for r in rounds)


def test_train_py_clones_the_expert_and_plays_it_as_an_opponent(tmp_path, train):
    """--clone expert with DAgger, and the expert in the opponent pool: the search agent
    gets its battles in the demonstrations' batched envs and in the learner's env."""
    args = train.Args(
        total_timesteps=128,
        n_steps=64,
        n_envs=2,
        batch_size=64,
        n_epochs=1,
        eval_every=0,
        checkpoint_every=0,
        final_eval_games=0,
        clone="expert",
        clone_samples=240,
        clone_rounds=2,
        clone_epochs=1,
        opponents=("expert",),
        runs_dir=str(tmp_path),
        progress_bar=False,
    )
    model_path = train.main(args)
    rounds = json.loads((model_path.parent / "clone.json").read_text())
    assert [r["round"] for r in rounds] == [1, 2]
    assert rounds[0]["samples"] >= 120 and rounds[0]["battles"] >= 1


def test_train_py_expected_dice_share_splits_the_training_envs(train):
    """The first round(share * n_envs) environments use expected dice, the others roll."""

    args = train.Args(n_envs=4, expected_dice_share=0.5, opponents=("random",))
    modes = []
    for rank in range(args.n_envs):
        env = train.make_env(args, rank, {})()
        modes.append(env.unwrapped.env.dice_mode)
        env.close()
    assert modes == ["expected", "expected", "roll", "roll"]
    # unset, the share is the scenario's recipe's: every skirmish environment rolls
    for scenario, share in (("skirmish", 0.0), ("duel", 0.5)):
        unset = train.Args(scenario=scenario, n_envs=4, opponents=("random",))
        assert train._dice_share(unset, 0) == share
        assert train._batched(unset, {}, 4)["dice_modes"] == (
            ["roll"] * 4 if share == 0.0 else ["expected", "expected", "roll", "roll"]
        )
    with pytest.raises(SystemExit, match="expected-dice-share"):
        train.main(train.Args(expected_dice_share=1.5))
    with pytest.raises(SystemExit, match=r"eval-temperature must be .* got -1"):
        train.main(train.Args(eval_temperature=-1.0))


def test_train_py_dice_curriculum_and_reward_overrides(train):
    """--expected-dice-final moves the share linearly over the run; set_dice_mode switches
    an environment from its next battle; --rewards reaches the training environments."""

    args = train.Args(
        n_envs=8,
        total_timesteps=1000,
        expected_dice_share=0.5,
        expected_dice_final=0.0,
        rewards={"draw": -1.0},
        opponents=("random",),
    )
    assert [train._dice_share(args, t) for t in (0, 500, 1000, 2000)] == [0.5, 0.25, 0.0, 0.0]
    assert train._dice_share(train.Args(expected_dice_share=0.5), 10**9) == 0.5
    env = train.make_env(args, 0, {})()
    raw = env.unwrapped.env
    assert raw.dice_mode == "expected" and raw.scenario.rewards.draw == -1.0
    deck = train.make_env(dataclasses.replace(args, low_variance_dice="deck"), 3, {})()
    assert deck.unwrapped.env.dice_mode == "deck"
    assert train.make_env(args, 4, {})().unwrapped.env.dice_mode == "roll"
    env.unwrapped.set_dice_mode("roll")
    env.reset(seed=3)
    assert raw.dice.mode == "roll"
    with pytest.raises(ValueError, match="dice mode must be"):
        env.unwrapped.set_dice_mode("rolled")
    env.close()


def test_train_py_curriculum_moves_the_boundary_and_keeps_the_base_dice(
    monkeypatch, tmp_path, train
):
    """Each rollout end sets every environment's dice: the first round(share * n_envs)
    get --low-variance-dice, the others --dice (or the scenario's), never a hard-coded
    'roll'."""

    calls: list[tuple[str, tuple, list]] = []

    class FakeVec:
        def env_method(self, name, *args, indices=None):
            calls.append((name, args, indices))

    class FakeLogger:
        def record(self, *_args):
            pass

    args = train.Args(
        n_envs=4, total_timesteps=1000, expected_dice_share=0.5, expected_dice_final=0.0
    )
    callback = train.SelfPlayAndEvalCallback(args, tmp_path, {"dice": "deck"})
    assert callback.base_dice == "deck"
    assert train.SelfPlayAndEvalCallback(args, tmp_path, {}).base_dice == "roll"
    fake = FakeVec()
    monkeypatch.setattr(type(callback), "training_env", property(lambda _self: fake))
    monkeypatch.setattr(type(callback), "logger", property(lambda _self: FakeLogger()))
    for steps, want in (
        (0, ["expected"] * 2 + ["deck"] * 2),
        (500, ["expected"] + ["deck"] * 3),
        (1000, ["deck"] * 4),
    ):
        calls.clear()
        callback.num_timesteps = steps
        callback._on_rollout_end()
        modes = [a[0] for name, a, _ in calls if name == "set_dice_mode"]
        assert modes == want, steps
        assert [i for name, _, i in calls if name == "set_dice_mode"] == [[0], [1], [2], [3]]


def test_dice_mode_literals_list_every_mode():
    """The scenario and replay schemas accept exactly :data:`facing_env.rules.dice.DICE_MODES`."""
    import typing

    from facing_env.render.record import EnvKwargs
    from facing_env.rules.dice import DICE_MODES
    from facing_env.scenario import ScenarioFile

    scenario = ScenarioFile.model_fields["dice"].annotation
    replay = typing.get_args(EnvKwargs.model_fields["dice"].annotation)[0]
    assert typing.get_args(scenario) == DICE_MODES
    assert typing.get_args(replay) == DICE_MODES


def test_reward_overrides_change_only_the_named_weights():
    base = raw_env("duel").scenario.rewards
    weights = raw_env("duel", rewards={"draw": -1, "rear_attack": 0.02}).scenario.rewards
    assert (weights.draw, weights.rear_attack) == (-1.0, 0.02)
    assert weights.model_dump() | {"draw": base.draw, "rear_attack": 0.0} == base.model_dump()
    assert raw_env("duel").scenario.rewards.draw == base.draw  # the cached scenario is intact
    for bad, needle in (
        ({"drw": 1.0}, "rewards: unknown weights ['drw']"),
        ({"draw": float("nan")}, "rewards.draw: Input should be a finite number, got nan"),
        ({"draw": True}, "rewards.draw"),
        ([("draw", 1.0)], "rewards must be a mapping"),
    ):
        with pytest.raises(ValueError) as info:
            raw_env("duel", rewards=bad)
        assert needle in str(info.value)


@pytest.fixture
def train_module(monkeypatch, train):
    """train.py, with its environments and model refusing to be built."""

    def refuse(*_args, **_kwargs):
        raise AssertionError("training started")

    for name in ("DummyVecEnv", "SubprocVecEnv", "MaskablePPO", "set_random_seed"):
        monkeypatch.setattr(train, name, refuse)
    return train


@pytest.mark.parametrize(
    ("options", "needle"),
    [
        ({"total_timesteps": -1}, "--total-timesteps must be an integer of at least 0, got -1"),
        ({"clone": None, "total_timesteps": 0}, "--total-timesteps 0 trains nothing without"),
        ({"final_eval_agents": ("random", "wizrd")}, "--final-eval-agents: unknown agent 'wizrd'"),
        ({"opponents": ("model:no/such.zip",)}, "--opponents: no model file"),
        ({"opponents": ()}, "--opponents needs at least one agent"),
        ({"n_envs": 0}, "--n-envs"),
        ({"batch_size": -1}, "--batch-size"),
        ({"net_arch": (0,)}, "--net-arch"),
        ({"net_arch": (10**6,)}, "--net-arch"),
        ({"learning_rate": float("nan")}, "--learning-rate"),
        ({"gamma": 2.0}, "--gamma"),
        ({"league_weighting": "soft"}, "--league-weighting must be one of 'hard', 'variance'"),
        ({"vec_env": "threads"}, "--vec-env must be one of 'dummy', 'subproc', 'vector'"),
        (
            {"vec_env": "vector", "approach_shaping": 0.1},
            "--approach-shaping needs --vec-env dummy or subproc",
        ),
        ({"dice": "rolled"}, "--dice"),
        ({"perception": "xray"}, "--perception must be one of full, facing, spot, got 'xray'"),
        ({"env_kwargs": {"max_rounds": 0}}, "--env-kwargs: max_rounds"),
        ({"env_kwargs": {"bogus": 1}}, "--env-kwargs: unknown keys ['bogus']"),
        ({"exp_name": "a/b"}, "--exp-name"),
        ({"scenario": "nope"}, "unknown scenario 'nope'"),
        ({"eval_every": 10, "eval_games": 0}, "--eval-games"),
        ({"expected_dice_final": -0.5}, "--expected-dice-final"),
        (
            {"low_variance_dice": "roll"},
            "--low-variance-dice must be one of 'expected', 'deck', 'mean'",
        ),
        ({"rewards": {"victroy": 1.0}}, "--rewards: unknown weights ['victroy']"),
        ({"clone": "flankr"}, "--clone: unknown agent 'flankr'"),
        ({"clone": "flanker", "clone_samples": 0}, "--clone-samples"),
        ({"clone": "flanker", "clone_rounds": 0}, "--clone-rounds"),
        (
            {"clone": "flanker", "clone_samples": 2, "clone_rounds": 3},
            "--clone-samples must be at least --clone-rounds",
        ),
        (
            {
                "clone": "flanker",
                "clone_samples": 10,
                "clone_rounds": 3,
                "clone_dagger_share": 0.05,
            },
            "--clone-samples must be at least --clone-rounds",
        ),
        ({"clone_dagger_share": 1.0}, "--clone-dagger-share must be below 1"),
        ({"clone_dagger_share": float("nan")}, "--clone-dagger-share must be a finite number"),
    ],
)
def test_train_py_checks_every_option_before_training(train_module, capsys, options, needle):
    start = time.perf_counter()
    with pytest.raises(SystemExit) as info:
        train_module.main(train_module.Args(**options))
    assert time.perf_counter() - start < 2.0
    assert info.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("train.py: error: "), lines
    assert needle in lines[0], lines[0]


def test_train_py_refuses_a_runs_folder_it_cannot_write(train_module, capsys, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(SystemExit) as info:
        train_module.main(train_module.Args(runs_dir=str(blocker / "runs")))
    assert info.value.code == 2 and "--runs-dir" in capsys.readouterr().err
    assert not (blocker.parent / "runs").exists()


def test_train_py_exits_2_with_one_line_from_the_shell():
    proc = subprocess.run(
        [sys.executable, "train.py", "--clone-rounds", "0"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
    )
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert proc.stderr.strip().splitlines() == [
        "train.py: error: --clone-rounds must be an integer of at least 1, got 0"
    ]


def test_train_py_learning_rate_decays_to_zero_and_stays_there(train):
    """SB3 passes the remaining progress; the last rollout overshoots the budget (< 0)."""

    schedule = train._schedule(3e-4)
    assert [schedule(p) for p in (1.0, 0.5, 0.0, -0.00096)] == [3e-4, 1.5e-4, 0.0, 0.0]


def test_approach_potential_counts_squares_to_the_nearest_enemy():
    """``approach=w``: phi = -w * mean squares from each living learner creature to the
    nearest living enemy, capped at APPROACH_CAP."""
    from facing_env.train.team_env import APPROACH_CAP

    env = TeamLearnerEnv("skirmish", opponents=["random"], approach=0.1, learner_team="red")
    env.reset(seed=0)
    battle = env.env.battle
    red = [c for c in battle.creatures.values() if c.team == "red"]
    blue = [c for c in battle.creatures.values() if c.team == "blue"]
    for c in battle.creatures.values():
        battle.remove_dead(c)
    red[0].pos, red[1].pos = (0, 0), (0, 2)
    # blue[0] is 3 squares from red[0] and 4 from red[1] (two diagonals count 3 squares
    # under the alternating rule, then one straight); blue[1] is 7 and 5 squares away
    blue[0].pos, blue[1].pos = (3, 0), (0, 7)
    battle.rebuild_occupancy()
    assert env.potential(battle) == pytest.approx(-0.1 * (3 + 4) / 2)
    blue[0].hp = 0  # only blue[1] is left
    assert env.potential(battle) == pytest.approx(-0.1 * (7 + 5) / 2)
    red[0].pos = (0, 30)  # 23 squares: beyond the cap
    assert APPROACH_CAP < 23
    assert env.potential(battle) == pytest.approx(-0.1 * (APPROACH_CAP + 5) / 2)
    env.env.set_battle(env.env.battle)  # the env's own battle is its potential's default
    assert env.potential() != env.potential(battle)
    assert TeamLearnerEnv("duel", opponents=["random"]).potential() == 0.0


def test_approach_shaping_adds_up_to_the_first_potential():
    """Undiscounted (gamma 1), the shaping terms of a battle telescope: shaped and plain
    returns of the same battle and actions differ by -phi of the first decision (phi of a
    finished battle is 0), so the outcome still decides everything else."""
    plain = TeamLearnerEnv("duel", opponents=["aggressive"], learner_team="red")
    shaped = TeamLearnerEnv(
        "duel", opponents=["aggressive"], learner_team="red", approach=0.05, gamma=1.0
    )
    for seed in (0, 1):
        plain.reset(seed=seed)
        shaped.reset(seed=seed)
        first = shaped.potential()
        assert first < 0
        rng = np.random.default_rng(seed)
        totals, done = [0.0, 0.0], False
        steps = 0
        while not done:
            assert np.array_equal(plain.action_masks(), shaped.action_masks())
            action = int(rng.choice(np.flatnonzero(plain.action_masks())))
            for i, env in enumerate((plain, shaped)):
                _, reward, terminated, truncated, _ = env.step(action)
                totals[i] += reward
            done = terminated or truncated
            steps += 1
        assert steps > 10
        assert totals[1] - totals[0] == pytest.approx(-first)


def test_approach_shaping_options_are_checked():
    with pytest.raises(ValueError, match="approach must be a finite number >= 0, got -1"):
        TeamLearnerEnv("duel", approach=-1)
    with pytest.raises(ValueError, match="gamma must be in"):
        TeamLearnerEnv("duel", approach=0.1, gamma=2.0)


def test_approach_shaping_keeps_the_potential_at_the_round_limit():
    """A battle stopped at the round limit is truncated, not decided: the learner
    bootstraps from the value of the state it stopped in, so the last step earns
    ``gamma * phi(s_T) - phi(s_{T-1})`` (standing apart pays nothing); a decided battle's
    phi is 0."""
    env = TeamLearnerEnv(
        "duel",
        opponents=["defensive"],
        learner_team="red",
        approach=0.05,
        gamma=0.9,
        max_rounds=2,
    )
    env.reset(seed=0)
    truncated = False
    while not truncated:
        before = env.potential()
        # end the turn at once: nobody closes in, the round limit ends the battle
        _, reward, terminated, truncated, _ = env.step(0)
        assert not terminated
    after = env.potential()
    assert after < 0  # still apart
    plain = TeamLearnerEnv("duel", opponents=["defensive"], learner_team="red", max_rounds=2)
    plain.reset(seed=0)
    done, plain_reward = False, 0.0
    while not done:
        _, plain_reward, terminated, truncated_plain, _ = plain.step(0)
        done = terminated or truncated_plain
    assert reward - plain_reward == pytest.approx(0.9 * after - before)


def test_train_py_options_left_unset_take_the_scenarios_recipe(train):
    """The duel's recipe is a clone of the expert (60k of its own decisions, then two DAgger
    rounds of 20k, 20 passes, the MLP with the round's thermometer code) with no PPO; the
    skirmish's the same with a plain MLP on rolled dice only; every other scenario's a
    clone of flanker (a plain MLP) and 800k PPO steps, half the environments on expected
    dice; an option given wins over the recipe."""
    duel = train.with_recipe(train.Args())
    assert (duel.clone, duel.clone_samples, duel.clone_rounds, duel.clone_epochs) == (
        "expert",
        100_000,
        3,
        20,
    )
    assert duel.total_timesteps == 0 and duel.clone_dagger_share == 0.4
    assert duel.policy == "clock" and duel.expected_dice_share == 0.5
    assert train.clone_shares(100_000, 3, 0.4) == [60_000, 20_000, 20_000]
    skirmish = train.with_recipe(train.Args(scenario="skirmish"))
    assert (skirmish.clone, skirmish.clone_samples, skirmish.clone_rounds) == (
        "expert",
        100_000,
        3,
    )
    assert (skirmish.clone_epochs, skirmish.total_timesteps) == (20, 0)
    assert skirmish.clone_dagger_share == 0.4 and skirmish.policy == "mlp"
    assert skirmish.expected_dice_share == 0.0
    other = train.with_recipe(train.Args(scenario="ogre"))  # DEFAULT_RECIPE
    assert (other.clone, other.clone_samples, other.clone_rounds) == ("flanker", 200_000, 1)
    assert (other.total_timesteps, other.policy, other.expected_dice_share) == (
        800_000,
        "mlp",
        0.5,
    )
    path = train.with_recipe(train.Args(scenario=str(ROOT / "facing_env/configs/duel.yaml")))
    assert path.clone == "expert"  # a file takes its stem's recipe
    given = train.with_recipe(
        train.Args(
            clone=None, total_timesteps=1000, clone_epochs=3, policy="mlp", expected_dice_share=1.0
        )
    )
    assert (given.clone, given.total_timesteps, given.clone_epochs) == (None, 1000, 3)
    assert given.expected_dice_share == 1.0
    assert given.policy == "mlp"
    assert given.clone_samples == 100_000


def test_clone_shares_split_the_samples_over_the_rounds(train):
    assert train.clone_shares(900, 1, 0.5) == [900]
    assert train.clone_shares(900, 3, None) == [300, 300, 300]
    assert train.clone_shares(1000, 3, 0.2) == [800, 100, 100]
    assert train.clone_shares(10, 3, 0.05) == [10, 0, 0]  # refused by the checks


def test_train_py_with_no_ppo_steps_saves_and_evaluates_the_clone(tmp_path, train):
    """--total-timesteps 0: the cloned policy is the model (no PPO update, no rollout);
    args.json records the recipe's resolved options."""
    args = train.Args(
        clone="flanker",
        clone_samples=300,
        clone_epochs=2,
        total_timesteps=0,
        clone_workers=1,
        final_eval_games=2,
        final_eval_agents=("random",),
        runs_dir=str(tmp_path),
        progress_bar=False,
    )
    model_path = train.main(args)
    run_dir = model_path.parent
    recorded = json.loads((run_dir / "args.json").read_text())
    assert recorded["total_timesteps"] == 0 and recorded["clone_epochs"] == 2
    assert recorded["clone_rounds"] == 3 and recorded["clone_dagger_share"] == 0.4  # the duel's
    assert recorded["policy"] == "clock"
    rounds = json.loads((run_dir / "clone.json").read_text())
    assert [r["round"] for r in rounds] == [1, 2, 3]
    assert [r["samples"] >= n for r, n in zip(rounds, (180, 240, 300), strict=True)] == [True] * 3
    assert json.loads((run_dir / "report.json").read_text())["pairs"][0]["a"] == "learned"
    from sb3_contrib import MaskablePPO

    from facing_env.train.policies import ClockExtractor

    model = MaskablePPO.load(model_path)
    assert model.num_timesteps == 0
    assert isinstance(model.policy.features_extractor, ClockExtractor)
