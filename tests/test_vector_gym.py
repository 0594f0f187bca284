"""``facing_env.vector.VectorEnv`` as a ``gymnasium.vector.VectorEnv`` (issue 34, item 4):
batched spaces, SAME_STEP auto-reset metadata, a team seat's ``(N,)`` rewards, gymnasium's
info masks and ``final_obs``, lists of seeds, ``reset_mask``, ``closed``, the context
manager, the repr, and gymnasium's vector wrappers on top."""

from __future__ import annotations

import inspect

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space
from gymnasium.wrappers.vector import DictInfoToList, RecordEpisodeStatistics

from facing_env.agents import make_agent
from facing_env.env import raw_env
from facing_env.errors import EnvStateError
from facing_env.rules import engine
from facing_env.vector import VectorEnv

ENDED = ("winner", "episode_length", "episode_rounds", "final_obs", "final_info")
SAME_STEP_STATS = "_autoreset_mode" in inspect.getsource(RecordEpisodeStatistics.step)
"""Whether this gymnasium's ``RecordEpisodeStatistics`` counts SAME_STEP auto-resets
(gymnasium 1.3 on; ray's pin, 1.2.2, assumes NEXT_STEP: it drops the first step of every
episode after a slot's first, so only first episodes are exact there)."""


def _random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One allowed action per row."""
    return np.array([rng.choice(np.flatnonzero(m)) for m in mask], dtype=np.int64)


def _seat(venv: VectorEnv, team: str) -> np.ndarray:
    """The columns of ``team``'s creatures."""
    return np.array([a.startswith(f"{team}_") for a in venv.possible_agents])


def _finish(env: raw_env) -> bool:
    """Take the AEC env's dead steps; True when the battle is over."""
    while env.agents and (
        env.terminations[env.agent_selection] or env.truncations[env.agent_selection]
    ):
        env.step(None)
    return not env.agents


def _aec_view(env: raw_env) -> tuple[np.ndarray, np.ndarray]:
    """The acting agent's observation and mask in the AEC env."""
    o = env.observe(env.agent_selection)
    return o["observation"], o["action_mask"]


def test_it_is_a_gymnasium_vector_env_with_batched_spaces():
    venv = VectorEnv("skirmish", num_envs=3, seed=1, max_rounds=2)
    aec = raw_env("skirmish")
    assert isinstance(venv, gymnasium.vector.VectorEnv)
    assert venv.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    assert venv.metadata["render_modes"] == ["ansi"]
    assert venv.single_observation_space == aec.observation_space(aec.possible_agents[0])
    assert venv.single_action_space == gymnasium.spaces.Discrete(venv.n_actions)
    assert venv.observation_space == batch_space(venv.single_observation_space, 3)
    assert venv.observation_space["observation"].shape == (3, venv.observation_size)
    assert venv.observation_space["action_mask"].shape == (3, venv.n_actions)
    assert venv.action_space == gymnasium.spaces.MultiDiscrete([venv.n_actions] * 3)
    assert venv.num_envs == 3 and not venv.closed and venv.unwrapped is venv
    obs, _ = venv.reset()
    assert venv.observation_space.contains(obs)
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(150):
        obs, _, term, trunc, _ = venv.step(_random_actions(obs["action_mask"], rng))
        assert venv.observation_space.contains(obs)
        ends += int((term | trunc).sum())
    assert ends > 0
    assert venv.render(2).count("\n") > 3


def test_rewards_are_the_reward_teams_seat():
    """``rewards[i]`` is what ``reward_team``'s creatures earned in the step (the first
    team by default); ``info["creature_rewards"]`` every creature's."""
    red = VectorEnv("skirmish", num_envs=4, seed=2, max_rounds=3)
    blue = VectorEnv("skirmish", num_envs=4, seed=2, max_rounds=3, reward_team="blue")
    assert (red.reward_team, blue.reward_team) == ("red", "blue")
    obs, _ = red.reset()
    blue.reset()
    rng = np.random.default_rng(3)
    seats = {"red": _seat(red, "red"), "blue": _seat(red, "blue")}
    assert seats["red"].sum() == seats["blue"].sum() == 2
    nonzero = 0
    brute = make_agent("aggressive")  # attacks: rewards for both sides
    for _ in range(120):
        views = zip(obs["observation"], obs["action_mask"], strict=True)
        acts = np.array([brute.act(o, m, rng) for o, m in views])
        obs, r_red, *_, info = red.step(acts)
        _, r_blue, *_, info_blue = blue.step(acts)
        creature = info["creature_rewards"]
        np.testing.assert_array_equal(creature, info_blue["creature_rewards"])
        np.testing.assert_allclose(r_red, creature[:, seats["red"]].sum(1), rtol=0, atol=1e-6)
        np.testing.assert_allclose(r_blue, creature[:, seats["blue"]].sum(1), rtol=0, atol=1e-6)
        nonzero += int((r_red != 0).sum() + (r_blue != 0).sum())
    assert nonzero > 10


def test_record_episode_statistics_counts_the_seats_returns_and_lengths():
    """gymnasium's ``RecordEpisodeStatistics`` steps whole battles: its returns are the seat
    team's creature rewards summed over the battle, its lengths ``info["episode_length"]``,
    and battle 0's first return is the AEC env's returns of the team's agents."""
    venv = VectorEnv("skirmish", num_envs=3, seed=40, max_rounds=3, reward_team="blue")
    env = RecordEpisodeStatistics(venv)
    assert repr(env) == (
        "<RecordEpisodeStatistics, VectorEnv('skirmish', num_envs=3, seed=40, reward_team='blue')>"
    )
    obs, _ = env.reset()
    seat = _seat(venv, "blue")
    rng = np.random.default_rng(5)
    returns, lengths, episodes = np.zeros(3), np.zeros(3, dtype=np.int64), 0
    ended_before = np.zeros(3, dtype=bool)
    aec = raw_env("skirmish", max_rounds=3)
    aec.reset(seed=40)
    aec_return, first = 0.0, None
    for _ in range(250):
        acts = _random_actions(obs["action_mask"], rng)
        obs, _, term, trunc, info = env.step(acts)
        returns += info["creature_rewards"][:, seat].sum(axis=1)
        lengths += 1
        if first is None:
            aec.step(int(acts[0]))
            aec_return += sum(r for a, r in aec.rewards.items() if a.startswith("blue_"))
            while aec.agents and (
                aec.terminations[aec.agent_selection] or aec.truncations[aec.agent_selection]
            ):
                aec.step(None)
                aec_return += sum(r for a, r in aec.rewards.items() if a.startswith("blue_"))
        done = term | trunc
        if not done.any():
            assert "episode" not in info
            continue
        np.testing.assert_array_equal(info["_episode"], done)
        exact = done if SAME_STEP_STATS else done & ~ended_before
        np.testing.assert_allclose(info["episode"]["r"][exact], returns[exact], rtol=0, atol=1e-5)
        np.testing.assert_array_equal(info["episode"]["l"][exact], lengths[exact])
        np.testing.assert_array_equal(info["episode"]["l"][exact], info["episode_length"][exact])
        ended_before |= done
        if done[0] and first is None:
            assert not aec.agents  # the AEC battle ended with the same action
            first = float(info["episode"]["r"][0])
            assert first == pytest.approx(aec_return, abs=1e-5)
        returns[done], lengths[done] = 0.0, 0
        episodes += int(done.sum())
    assert episodes >= 6 and first is not None
    assert len(env.return_queue) == episodes and len(env.length_queue) == episodes


def test_info_masks_and_final_obs_are_set_in_the_rows_that_ended():
    """``_key`` masks: ``agent`` and ``creature_rewards`` in every row, the ended-battle
    keys in exactly the rows that ended; ``final_obs[i]`` is the seat's first creature's
    AEC ``observe`` after the last action (observation and mask), ``final_info[i]`` the
    ended battle's winner and length; DictInfoToList reads the masks."""
    venv = VectorEnv("skirmish", num_envs=2, seed=30, max_rounds=2, reward_team="blue")
    seat_agent = "blue_0"
    obs, info = venv.reset()
    assert info["_agent"].all() and "creature_rewards" not in info and "final_obs" not in info
    for key in ("winner", "episode_length", "episode_rounds"):
        assert not info[f"_{key}"].any()
    rng = np.random.default_rng(4)
    env = raw_env("skirmish", max_rounds=2)
    env.reset(seed=31)
    checked = 0
    for _ in range(300):
        acts = _random_actions(obs["action_mask"], rng)
        obs, _, term, trunc, info = venv.step(acts)
        ended = term | trunc
        assert info["_agent"].all() and info["_creature_rewards"].all()
        for key in ("winner", "episode_length", "episode_rounds", "final_obs", "final_info"):
            np.testing.assert_array_equal(info[f"_{key}"], ended, err_msg=key)
        assert all(info["final_obs"][i] is None for i in np.flatnonzero(~ended))
        assert all(info["final_info"][i] is None for i in np.flatnonzero(~ended))
        for i in np.flatnonzero(ended):
            assert info["final_info"][i] == {
                "winner": int(info["winner"][i]),
                "episode_length": int(info["episode_length"][i]),
                "episode_rounds": int(info["episode_rounds"][i]),
            }
            assert venv.single_observation_space.contains(info["final_obs"][i])
        env.step(int(acts[1]))
        if _finish(env):
            assert ended[1]
            want = env.observe(seat_agent)
            got = info["final_obs"][1]
            np.testing.assert_array_equal(got["observation"], want["observation"])
            np.testing.assert_array_equal(got["action_mask"], want["action_mask"])
            checked += 1
            env.reset()
        else:
            assert not ended[1]
    assert checked >= 3
    listed = DictInfoToList(VectorEnv("duel", num_envs=2, seed=0, max_rounds=1))
    obs, infos = listed.reset()
    assert [i.keys() for i in infos] == [{"agent"}, {"agent"}]
    every = {"agent", "creature_rewards"}
    for _ in range(100):
        obs, _, term, trunc, infos = listed.step(_random_actions(obs["action_mask"], rng))
        for i, row in enumerate(infos):
            assert row.keys() == (every | set(ENDED) if term[i] or trunc[i] else every)
        if (term | trunc).any():
            break
    assert (term | trunc).any()


def test_final_obs_is_the_seats_row_of_every_creatures_final_observation():
    venv = VectorEnv("duel", num_envs=3, seed=8, max_rounds=2, final_observations=True)
    obs, info = venv.reset()
    assert not info["_final_observation"].any()
    rng = np.random.default_rng(1)
    seen = 0
    for _ in range(200):
        obs, _, term, trunc, info = venv.step(_random_actions(obs["action_mask"], rng))
        ended = term | trunc
        np.testing.assert_array_equal(info["_final_observation"], ended)
        for i in np.flatnonzero(ended):
            np.testing.assert_array_equal(
                info["final_obs"][i]["observation"], info["final_observation"][i, 0]
            )
            seen += 1
    assert seen >= 3


def test_a_list_of_seeds_reproduces_the_aec_envs_battles():
    """``reset(seed=[...])``: battle ``i`` is ``raw_env().reset(seed=seeds[i])``; a None
    goes on from the slot's generator (the constructor's ``seed + i`` at first)."""
    venv = VectorEnv("procedural", num_envs=3, seed=10)
    obs, info = venv.reset(seed=[7, None, 3])
    assert venv.seed is None
    for i, s in enumerate([7, 11, 3]):
        ref = raw_env("procedural")
        ref.reset(seed=s)
        o, m = _aec_view(ref)
        np.testing.assert_array_equal(obs["observation"][i], o, err_msg=f"battle {i}")
        np.testing.assert_array_equal(obs["action_mask"][i], m)
        assert venv.possible_agents[info["agent"][i]] == ref.agent_selection
    obs, _ = venv.reset(seed=(None, np.int64(5), None))
    for i, seeds in enumerate([(7, None), (5,), (3, None)]):
        ref = raw_env("procedural")
        for s in seeds:
            ref.reset(seed=s)
        np.testing.assert_array_equal(obs["observation"][i], _aec_view(ref)[0])
    obs, _ = venv.reset(seed=20)
    assert venv.seed == 20
    ref = raw_env("procedural")
    ref.reset(seed=22)
    np.testing.assert_array_equal(obs["observation"][2], _aec_view(ref)[0])


def test_reset_mask_restarts_only_the_masked_battles():
    """``reset(options={"reset_mask": m})`` restarts battle 1 alone (from its generator,
    or its seed), leaves the others' state, rows and episode counts as they were, and
    RecordEpisodeStatistics agrees with the lengths it reports."""
    venv = VectorEnv("duel", num_envs=3, seed=60, max_rounds=3)
    env = RecordEpisodeStatistics(venv)
    obs, _ = env.reset()
    rng = np.random.default_rng(6)
    steps = 0
    while steps < 4 or any(venv.battle(i).initiative.round < 2 for i in range(3)):
        obs, _, term, trunc, _ = env.step(_random_actions(obs["action_mask"], rng))
        steps += 1
        assert not (term | trunc).any(), "a battle ended before the reset"
    before = obs["observation"].copy(), obs["action_mask"].copy()
    keys = [engine.state_key(venv.battle(i)) for i in range(3)]
    mask = np.array([False, True, False])
    options = {"reset_mask": mask}
    obs, info = env.reset(seed=100, options=options)
    ref = raw_env("duel", max_rounds=3)
    ref.reset(seed=101)
    np.testing.assert_array_equal(obs["observation"][1], _aec_view(ref)[0])
    assert venv.battle(1).initiative.round == 1
    for i in (0, 2):
        np.testing.assert_array_equal(obs["observation"][i], before[0][i])
        np.testing.assert_array_equal(obs["action_mask"][i], before[1][i])
        assert engine.state_key(venv.battle(i)) == keys[i]
    assert info["_agent"].all() and not info["_winner"].any()
    lengths = np.array([steps, 0, steps])
    ended = np.zeros(3, dtype=bool)
    for _ in range(400):
        obs, _, term, trunc, info = env.step(_random_actions(obs["action_mask"], rng))
        lengths += 1
        done = term | trunc
        if done.any():
            first = done & ~ended
            np.testing.assert_array_equal(info["episode_length"][first], lengths[first])
            rows = done if SAME_STEP_STATS else first
            np.testing.assert_array_equal(info["episode"]["l"][rows], info["episode_length"][rows])
            ended |= done
            lengths[done] = 0
        if ended.all():
            break
    assert ended.all()


def test_closed_and_the_context_manager():
    with VectorEnv("duel", num_envs=130, seed=0) as venv:
        assert venv.threads == 2 or venv.threads == 1
        venv.reset()
        venv.step(np.zeros(130, dtype=np.int64))
        assert not venv.closed
    assert venv.closed and venv._engine._pool is None
    with pytest.raises(EnvStateError, match=r"^step\(\) after close\(\): this VectorEnv is closed"):
        venv.step(np.zeros(130, dtype=np.int64))
    with pytest.raises(EnvStateError, match=r"^reset\(\) after close\(\)"):
        venv.reset()
    venv.close()  # twice: nothing
    assert venv.battle(0).initiative.round == 1  # the views still read the last battles
    with pytest.raises(RuntimeError, match="inside"), VectorEnv("duel", num_envs=1) as inner:
        raise RuntimeError("inside")
    assert inner.closed


def test_repr():
    assert repr(VectorEnv("duel", num_envs=4, seed=0)) == "VectorEnv('duel', num_envs=4, seed=0)"
    venv = VectorEnv("skirmish", num_envs=2, reward_team="red")
    assert repr(venv) == "VectorEnv('skirmish', num_envs=2, seed=None)"
    venv.reset(seed=5)
    assert repr(venv) == "VectorEnv('skirmish', num_envs=2, seed=None)"  # the constructor's
    assert str(VectorEnv("duel", reward_team="blue")) == (
        "VectorEnv('duel', num_envs=1, seed=None, reward_team='blue')"
    )


def test_bad_seeds_options_and_reward_teams_are_named():
    """Each refused call names the problem and starts no battle."""
    with pytest.raises(
        ValueError, match=r"^reward_team must be one of the scenario's teams \['red', 'blue'\],"
    ):
        VectorEnv("duel", num_envs=2, reward_team="green")
    with pytest.raises(ValueError, match="got 3"):
        VectorEnv("duel", num_envs=2, reward_team=3)
    venv = VectorEnv("duel", num_envs=3, seed=0)
    with pytest.raises(EnvStateError, match="before the first reset"):
        venv.reset(options={"reset_mask": np.array([True, False, False])})
    obs, _ = venv.reset()
    rng = np.random.default_rng(0)
    obs, *_ = venv.step(_random_actions(obs["action_mask"], rng))
    before = obs["observation"].copy()
    keys = [engine.state_key(venv.battle(i)) for i in range(3)]
    refused = [
        ({"seed": [1, 2]}, ValueError, r"^seed: a list of seeds needs 3 \(one per battle\), got 2"),
        ({"seed": [1, "x", 2]}, ValueError, r"^seed\[1\] must be a non-negative integer or None"),
        ({"seed": [1, 2, -4]}, ValueError, r"^seed\[2\] must be a non-negative integer"),
        ({"seed": [1, True, 2]}, ValueError, r"^seed\[1\]"),
        ({"seed": 1.5}, ValueError, r"^seed must be a non-negative integer, None or a list"),
        ({"seed": "12"}, ValueError, r"^seed must be a non-negative integer"),
        ({"seed": -1}, ValueError, r"^seed must be a non-negative integer or None, got -1"),
        (
            {"options": {"reset_mask": None, "x": 1}},
            ValueError,
            r"unknown reset option\(s\) \['x'\]",
        ),
        ({"options": {"seed": 3}}, ValueError, r"\['seed'\]: VectorEnv\.reset understands only"),
        ({"options": [("reset_mask", 1)]}, TypeError, r"^options must be a dict or None"),
        ({"options": {"reset_mask": [True, False, True]}}, TypeError, r"numpy bool array"),
        ({"options": {"reset_mask": np.array([1, 0, 1])}}, TypeError, r"numpy bool array"),
        ({"options": {"reset_mask": np.ones(2, dtype=bool)}}, ValueError, r"shape \(3,\)"),
        ({"options": {"reset_mask": np.zeros(3, dtype=bool)}}, ValueError, r"with 0 true"),
    ]
    for kwargs, error, message in refused:
        with pytest.raises(error, match=message):
            venv.reset(**kwargs)
        assert [engine.state_key(venv.battle(i)) for i in range(3)] == keys, kwargs
    np.testing.assert_array_equal(obs["observation"], before)  # the buffer was not written
