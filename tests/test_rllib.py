"""The RLlib adapter on every scenario, and a tiny train_rllib.py run (the ``rllib`` extra)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

import facing_env
from facing_env.agents import make_agent
from facing_env.evaluation.match import play_game

ray = pytest.importorskip("ray")

from facing_env.train.rllib import (  # noqa: E402  (after the skip)
    MASK_KEY,
    OBS_KEY,
    SHARED,
    FacingRLlibEnv,
    ModuleAgent,
    module_spec,
    policy_ids,
    shared_policy,
    team_policy,
)

ROOT = Path(__file__).resolve().parents[1]


def test_importing_facing_env_does_not_import_ray():
    code = (
        "import sys, facing_env, facing_env.agents, facing_env.evaluation.evaluate;"
        "import facing_env.train.team_env;"
        "assert 'ray' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def _play(env: FacingRLlibEnv, seed: int) -> None:
    """One battle of masked random actions, checking the multi-agent contract each step
    and that every reward the AEC env hands out reaches its agent."""
    raw = env.env.unwrapped
    truth: dict[str, float] = defaultdict(float)
    step = raw.step

    def counting_step(action):
        step(action)
        for a, r in raw.rewards.items():
            truth[a] += r

    raw.step = counting_step
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    (actor,) = obs
    assert actor == env.env.agent_selection
    got: dict[str, float] = defaultdict(float)
    finished: set[str] = set()
    for _ in range(5000):
        for agent, o in obs.items():
            assert env.observation_spaces[agent].contains(o), agent
            assert set(o) == {OBS_KEY, MASK_KEY} and o[MASK_KEY].dtype == np.float32
        action = int(rng.choice(np.flatnonzero(obs[actor][MASK_KEY])))
        obs, rewards, terms, truncs, _ = env.step({actor: action})  # raises if illegal
        assert set(rewards) == set(obs) == set(terms) - {"__all__"} == set(truncs) - {"__all__"}
        for agent in obs:
            got[agent] += rewards[agent]
            assert agent not in finished, f"{agent} observed after its final observation"
            if terms[agent] or truncs[agent]:
                finished.add(agent)
                if terms[agent] and not env.battle_over:  # died mid-battle
                    assert raw.battle.creatures[raw.agent_to_id[agent]].hp <= 0
        if terms["__all__"] or truncs["__all__"]:
            assert not env.env.agents
            break
        live = [a for a in obs if not (terms[a] or truncs[a])]
        assert live == [env.env.agent_selection]  # exactly one creature acts next
        actor = live[0]
    else:
        pytest.fail("battle did not end")
    del raw.step
    if env.battle_over:
        assert terms["__all__"] and not truncs["__all__"]
    else:  # timed out; RLlib calls an ending with a death in the last step terminated
        assert truncs["__all__"] or terms["__all__"]
    assert finished == set(raw.agent_to_id)  # every creature got a final observation
    for agent in raw.agent_to_id:
        assert got[agent] == pytest.approx(truth[agent]), agent


@pytest.mark.parametrize("scenario", facing_env.scenario_names())
def test_adapter_plays_every_scenario(scenario):
    env = FacingRLlibEnv({"scenario": scenario, "illegal_action": "raise"})
    assert set(env.possible_agents) == set(env.observation_spaces) == set(env.action_spaces)
    for seed in range(2):
        _play(env, seed)


def test_adapter_final_observations_of_the_dead_and_truncation():
    env = FacingRLlibEnv({"scenario": "skirmish", "max_rounds": 1, "illegal_action": "raise"})
    _play(env, 0)  # one round: the battle is truncated, every creature gets its last step
    env = FacingRLlibEnv({"scenario": "skirmish", "dice": "expected"})
    deaths = 0
    for seed in range(6):
        _play(env, seed)
        deaths += sum(c.hp <= 0 for c in env.env.unwrapped.battle.creatures.values())
    assert deaths  # some creature died mid-battle and was finalised


def test_adapter_handles_illegal_actions():
    env = FacingRLlibEnv({"scenario": "duel"})
    obs, _ = env.reset(seed=0)
    ((actor, o),) = obs.items()
    illegal = int(np.flatnonzero(o[MASK_KEY] == 0)[0])
    env.step({actor: illegal})  # END_TURN instead, -0.1 at the actor's next observation
    assert env.env.illegal_actions == 1
    strict = FacingRLlibEnv({"scenario": "duel", "illegal_action": "raise"})
    obs, _ = strict.reset(seed=0)
    with pytest.raises(facing_env.IllegalActionError):
        strict.step({next(iter(obs)): illegal})
    with pytest.raises(ValueError, match="illegal_action"):
        FacingRLlibEnv({"illegal_action": "ignore"})


def test_rllib_env_checker_accepts_the_adapter():
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    for scenario in ("duel", "procedural"):
        check_multiagent_environments(FacingRLlibEnv({"scenario": scenario}))


def test_policy_mapping():
    assert team_policy("red_0") == "red" and team_policy("party_2") == "party"
    assert shared_policy("blue_1") == SHARED
    assert policy_ids("ogre", "team") == list(facing_env.load_scenario("ogre").teams)
    assert policy_ids("duel", "shared") == [SHARED]
    with pytest.raises(ValueError, match="policies"):
        policy_ids("duel", "league")


@pytest.mark.parametrize("scenario", ["duel", "skirmish", "hex_duel", "dragon"])
def test_untrained_module_plays_legal_games(scenario):
    env = FacingRLlibEnv({"scenario": scenario})
    spec = module_spec([SHARED], hiddens=(16,))
    spec.rl_module_specs[SHARED].observation_space = env.observation_spaces[env.agents[0]]
    spec.rl_module_specs[SHARED].action_space = env.action_spaces[env.agents[0]]
    module = spec.build()[SHARED]
    teams = facing_env.load_scenario(scenario).teams
    for deterministic in (True, False):
        agent = ModuleAgent(module, deterministic=deterministic)
        # raw_env raises IllegalActionError on anything the mask forbids
        players = {teams[0]: agent, teams[1]: make_agent("random")}
        result = play_game(scenario, players, seed=1, max_rounds=3)
        assert result.actions


def test_tiny_ppo_training_checkpoints_and_plays(tmp_path, monkeypatch):
    """Two tiny runs in one Ray session: a shared policy sampled in the driver, team
    policies with one env runner actor; each is checkpointed, reloaded and evaluated."""
    monkeypatch.syspath_prepend(str(ROOT))
    sys.modules.pop("train_rllib", None)
    import train_rllib

    tiny = {
        "total_timesteps": 256,
        "train_batch_size": 128,
        "minibatch_size": 64,
        "num_epochs": 1,
        "hiddens": (32,),
        "checkpoint_every": 1,
        "keep_checkpoints": 1,
        "final_eval_games": 2,
        "final_eval_agents": ("random",),
        "runs_dir": str(tmp_path),
    }
    ray.init(address="local", num_cpus=2, include_dashboard=False)
    try:
        shared = train_rllib.main(train_rllib.Args(num_env_runners=0, **tiny))
        team = train_rllib.main(
            train_rllib.Args(policies="team", num_env_runners=1, initial_eval_games=2, **tiny)
        )
    finally:
        ray.shutdown()
    for checkpoint, names in ((shared, ["learned"]), (team, ["learned_red", "learned_blue"])):
        run_dir = checkpoint.parent
        assert (run_dir / "report.json").exists() and (run_dir / "report.md").exists()
        assert len(list((run_dir / "checkpoints").glob("iter_*"))) == 1
        report = json.loads((run_dir / "report.json").read_text())
        assert set(report["agents"]) == {*names, "random"}
    assert (team.parent / "report_initial.json").exists()
    agents = {"red": make_agent(f"rllib:{team}#red"), "blue": make_agent(f"rllib:{shared}")}
    result = play_game("duel", agents, seed=3)  # illegal actions would raise
    assert result.actions
    with pytest.raises(ValueError, match="name one"):
        make_agent(f"rllib:{team}")
    with pytest.raises(ValueError, match="no module 'green'"):
        make_agent(f"rllib:{team}#green")
    with pytest.raises(ValueError, match="needs a checkpoint path"):
        make_agent("rllib:")
    monkeypatch.chdir(tmp_path)  # the README's rllib:runs/RUN/checkpoint#shared form
    relative = team.relative_to(tmp_path)
    assert not relative.is_absolute()
    assert isinstance(make_agent(f"rllib:{relative}#red"), ModuleAgent)


def test_a_relative_checkpoint_path_is_read_from_the_current_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match=f"no RLlib checkpoint folder at {tmp_path}/runs/x"):
        make_agent("rllib:runs/x/checkpoint#shared")


@pytest.mark.parametrize(
    ("options", "needle"),
    [
        ({"total_timesteps": 0}, "--total-timesteps must be an integer of at least 1, got 0"),
        ({"final_eval_agents": ("wizrd",)}, "--final-eval-agents: unknown agent 'wizrd'"),
        ({"num_env_runners": -1}, "--num-env-runners"),
        ({"hiddens": ()}, "--hiddens"),
        ({"max_minutes": float("inf")}, "--max-minutes"),
        ({"env_kwargs": {"window": 2}}, "--env-kwargs: window"),
        ({"policies": "teams"}, "--policies"),
    ],
)
def test_train_rllib_checks_every_option_before_ray_starts(monkeypatch, capsys, options, needle):
    monkeypatch.syspath_prepend(str(ROOT))
    sys.modules.pop("train_rllib", None)
    import train_rllib

    def refuse(*_args, **_kwargs):
        raise AssertionError("Ray started")

    monkeypatch.setattr(ray, "init", refuse)  # train_rllib imports ray only when it starts it
    monkeypatch.setattr(train_rllib, "ppo_config", refuse)
    with pytest.raises(SystemExit) as info:
        train_rllib.main(train_rllib.Args(**options))
    assert info.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("train_rllib.py: error: "), lines
    assert needle in lines[0], lines[0]
