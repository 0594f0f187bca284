"""Smoke tests with the trainers users bring (issue 34, item 5; the ``interop`` extra):
Tianshou's collector on the AEC env, TorchRL's PettingZoo wrapper (parallel and AEC), and
SuperSuit's vector envs under Stable-Baselines3. Each plays whole battles and asserts that
every episode the trainer ends is a battle that ended (a winner, or the round limit), and
the known failure without :func:`facing_env.skip_dead_steps` where there is one. RLlib has
``tests/test_rllib.py``; SB3 with masks, ``tests/test_training.py``. Small budgets: a few
battles each."""

from __future__ import annotations

import re
import warnings
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest
from pettingzoo.utils.wrappers import BaseWrapper

import facing_env
from facing_env.env import TurnBasedParallel
from facing_env.rules import engine


class BattleEnds(BaseWrapper):
    """Records, at each reset after at least one step, whether the battle had ended."""

    ended: ClassVar[list[bool]] = []  # class-wide: trainers copy their envs

    def __init__(self, env):
        super().__init__(env)
        self.steps = 0

    def step(self, action):
        self.steps += 1
        super().step(action)

    def reset(self, seed=None, options=None):
        if self.steps:
            raw = self.env.unwrapped
            battle = raw.battle
            over = engine.is_over(battle) or battle.initiative.round > raw.max_rounds
            BattleEnds.ended.append(over)
        self.steps = 0
        super().reset(seed=seed, options=options)


def _aec(scenario: str, skip: bool, **kwargs):
    env = facing_env.env(scenario=scenario, **kwargs)
    return BattleEnds(facing_env.skip_dead_steps(env) if skip else env)


@pytest.mark.parametrize(
    ("scenario", "skip"), [("skirmish", True), ("ogre", True), ("skirmish", False)]
)
def test_tianshou_collects_whole_battles_with_skip_dead_steps(scenario, skip):
    pytest.importorskip("tianshou")
    from tianshou.algorithm.multiagent.marl import MultiAgentPolicy
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
    from tianshou.data import Collector
    from tianshou.env import DummyVectorEnv, PettingZooEnv

    BattleEnds.ended = []
    env = PettingZooEnv(_aec(scenario, skip))
    random = MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space).policy
    policy = MultiAgentPolicy({agent: random for agent in env.agents})
    collector = Collector(policy, DummyVectorEnv([lambda: PettingZooEnv(_aec(scenario, skip))]))
    collector.reset()
    np.random.seed(0)  # Tianshou's random policy draws from numpy's global generator
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stats = collector.collect(n_episode=4)
    assert stats.n_collected_episodes == 4
    assert len(BattleEnds.ended) >= 4
    if skip:
        assert all(BattleEnds.ended)  # every episode is a whole battle
    else:
        assert not all(BattleEnds.ended)  # the issue: cut at the first death


@pytest.mark.parametrize(
    ("scenario", "parallel"),
    [("skirmish", True), ("ogre", True), ("procedural", True), ("skirmish", False)],
)
def test_torchrl_rolls_out_whole_battles_with_masks(scenario, parallel):
    pytest.importorskip("torchrl")
    from torchrl.envs import PettingZooWrapper

    BattleEnds.ended = []
    aec = _aec(scenario, skip=True)
    if parallel:  # facing_env.parallel_env's class, over the recording wrapper
        source, kwargs = TurnBasedParallel(aec), {"done_on_any": False}
    else:
        source, kwargs = aec, {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = PettingZooWrapper(env=source, use_mask=True, seed=3, **kwargs)
        td = env.reset()
        episodes = 0
        for _ in range(4000):
            td = env.step(env.rand_action(td))
            if td["next", "done"].item():
                episodes += 1
                if episodes == 3:
                    break
                td = env.reset()
            else:
                td = env.step_mdp(td)
    assert episodes == 3
    raw = aec.unwrapped
    assert engine.is_over(raw.battle) or raw.battle.initiative.round > raw.max_rounds
    assert BattleEnds.ended == [True, True]  # the two battles reset after


def test_supersuit_vector_env_trains_sb3_on_whole_battles():
    ss = pytest.importorskip("supersuit")
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel
    from stable_baselines3 import PPO

    BattleEnds.ended = []
    aec = _aec("skirmish", skip=True, flat_observation=True, illegal_action="end_turn")
    par = ss.frame_stack_v1(turn_based_aec_to_parallel(aec), 2)
    venv = ss.pettingzoo_env_to_vec_env_v1(par)
    venv = ss.concat_vec_envs_v1(venv, 1, num_cpus=0, base_class="stable_baselines3")
    assert venv.num_envs == 4 and venv.observation_space.shape == (2 * aec.unwrapped.layout.size,)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = PPO("MlpPolicy", venv, n_steps=64, batch_size=64, n_epochs=1, verbose=0)
        model.learn(128)
        obs = venv.reset()  # a user's reset, mid-battle: not counted
        BattleEnds.ended = []
        battles = 0
        for _ in range(3000):
            obs, _, done, _ = venv.step(model.predict(obs)[0])
            battles += int(done.all())
            if battles == 3:
                break
    assert battles == 3
    assert len(BattleEnds.ended) == 3 and all(BattleEnds.ended)


CUTS = (
    ("learn(10_000)", "learn(128)"),
    ("n_steps=256", "n_steps=32"),
    ("n_episode=4", "n_episode=1"),
    ("rollout(1000", "rollout(100"),
)
"""The docs' training budgets and the test's."""


def test_the_recipes_of_docs_interop_run():
    """Every code block of docs/interop.md runs (the training budgets cut down)."""
    for name in ("tianshou", "torchrl", "supersuit"):
        pytest.importorskip(name)
    text = (Path(__file__).parent.parent / "docs" / "interop.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) == 4
    cut: set[str] = set()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i, block in enumerate(blocks):
            code = block
            for long, short in CUTS:
                code = code.replace(long, short)
            cut.update(long for long, _ in CUTS if long in block)
            exec(compile(code, f"docs/interop.md block {i}", "exec"), {})
