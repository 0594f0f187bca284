"""``facing_env.vector.VectorEnv``: the batch contract, and battle ``i`` identical to
``raw_env(scenario).reset(seed=s + i)`` given the same actions (auto-reset included)."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

from facing_env import vector
from facing_env.agents import make_agent
from facing_env.env import raw_env
from facing_env.errors import EnvStateError, IllegalActionError
from facing_env.rules import engine
from facing_env.scenario import scenario_names
from facing_env.vector import VectorEnv


def test_the_module_example_runs():
    result = doctest.testmod(vector, raise_on_error=False)
    assert result.attempted >= 4 and result.failed == 0


def test_shapes_dtypes_and_reused_buffers():
    venv = VectorEnv("skirmish", num_envs=3, seed=5)
    obs, info = venv.reset()
    k = len(venv.possible_agents)
    assert obs["observation"].shape == (3, venv.observation_size)
    assert obs["observation"].dtype == np.float32
    assert obs["action_mask"].shape == (3, venv.n_actions)
    assert obs["action_mask"].dtype == np.int8
    assert info["agent"].shape == (3,) and info["agent"].dtype == np.int64
    first = obs["observation"]
    out = venv.step(np.zeros(3, dtype=np.int64))  # END_TURN is always allowed
    assert out[0]["observation"] is first  # the same buffer, overwritten
    assert out[1].shape == (3,) and out[1].dtype == np.float32  # the first team's seat
    creature = out[4]["creature_rewards"]
    assert creature.shape == (3, k) and creature.dtype == np.float32
    again = venv.step(np.zeros(3, dtype=np.int64))
    assert again[1] is out[1] and again[4]["creature_rewards"] is creature
    assert out[2].shape == (3,) and out[2].dtype == bool
    assert out[3].shape == (3,) and out[3].dtype == bool


def _random_action(mask: np.ndarray, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


@pytest.mark.parametrize("scenario", scenario_names())
def test_every_battle_is_the_aec_env_with_seed_plus_i(scenario):
    """Random masked play for several battles per slot (auto-resets included): actors,
    observations, masks and rewards match the AEC env step by step."""
    n, seed, steps = 3, 40, 400 if scenario != "dragon" else 250
    venv = VectorEnv(scenario, num_envs=n, seed=seed, max_rounds=4)
    obs, info = venv.reset()
    rng = np.random.default_rng(0)
    seen: list[list[tuple]] = [[] for _ in range(n)]
    actions: list[list[int]] = [[] for _ in range(n)]
    rewards: list[list[np.ndarray]] = [[] for _ in range(n)]
    seat = np.array([a.startswith(f"{venv.teams[0]}_") for a in venv.possible_agents])
    ended: list[list[tuple[int, bool, int]]] = [[] for _ in range(n)]
    for t in range(steps):
        acts = np.array([_random_action(m, rng) for m in obs["action_mask"]], dtype=np.int64)
        for i in range(n):
            seen[i].append(
                (int(info["agent"][i]), obs["observation"][i].copy(), obs["action_mask"][i].copy())
            )
            actions[i].append(int(acts[i]))
        obs, rew, term, trunc, info = venv.step(acts)
        for i in range(n):
            rewards[i].append(info["creature_rewards"][i].copy())
            assert rew[i] == pytest.approx(float(rewards[i][-1][seat].sum()), abs=1e-5)
            assert not (term[i] and trunc[i])
            if term[i] or trunc[i]:
                ended[i].append((t, bool(term[i]), int(info["winner"][i])))
            else:
                assert info["winner"][i] == -1
    assert sum(map(len, ended)) > 0, "no battle ended: the auto-reset went untested"
    for i in range(n):
        ref_seen, ref_rewards, ref_ends = _replay_in_aec(
            scenario, seed + i, actions[i], max_rounds=4
        )
        assert ended[i] == ref_ends, f"battle {i}: how and when battles ended"
        for t, ((a, o, m), (ra, ro, rm)) in enumerate(zip(seen[i], ref_seen, strict=True)):
            assert a == ra, (i, t)
            np.testing.assert_array_equal(m, rm, err_msg=f"mask, battle {i}, step {t}")
            np.testing.assert_array_equal(o, ro, err_msg=f"observation, battle {i}, step {t}")
        np.testing.assert_allclose(np.array(rewards[i]), np.array(ref_rewards), rtol=0, atol=1e-6)


def _replay_in_aec(
    scenario: str, seed: int, actions: list[int], **env_kwargs
) -> tuple[list[tuple], list[np.ndarray], list[int]]:
    """What the AEC env shows when given ``actions`` (dead steps taken as they come, a
    reset without a seed after each battle): (agent, obs, mask) before every action, the
    per-creature rewards of every action, and each battle's end: (action index,
    terminated, winning team's index or -1)."""
    env = raw_env(scenario, **env_kwargs)
    env.reset(seed=seed)
    index = {a: i for i, a in enumerate(env.possible_agents)}
    seen, rewards, ends = [], [], []
    for action in actions:
        agent = env.agent_selection
        o = env.observe(agent)
        seen.append((index[agent], o["observation"].copy(), o["action_mask"].copy()))
        row = np.zeros(len(index), dtype=np.float64)
        env.step(action)
        for a, r in env.rewards.items():
            row[index[a]] += r
        while env.agents and (
            env.terminations[env.agent_selection] or env.truncations[env.agent_selection]
        ):
            env.step(None)
            for a, r in env.rewards.items():
                row[index[a]] += r
        rewards.append(row)
        if not env.agents:
            over = engine.is_over(env.battle)
            winner = engine.winner(env.battle) if over else None
            team = -1 if winner is None else list(env.scenario.teams).index(winner)
            ends.append((len(rewards) - 1, over, team))
            env.reset()
    return seen, rewards, ends


def test_scripted_agents_play_through_it_and_battles_report_their_end():
    """flanker against aggressive on the duel: every battle ends with a winner or a draw,
    ``episode_length`` counts its actions, rewards add up to the outcome's sign."""
    venv = VectorEnv("duel", num_envs=4, seed=11, max_rounds=8)
    agents = [make_agent("flanker"), make_agent("aggressive")]  # red_0, blue_0
    obs, info = venv.reset()
    rng = np.random.default_rng(1)
    returns = np.zeros((4, 2))
    lengths = np.zeros(4, dtype=np.int64)
    finished = []
    for _ in range(600):
        acts = np.array(
            [
                agents[info["agent"][i]].act(obs["observation"][i], obs["action_mask"][i], rng)
                for i in range(4)
            ],
            dtype=np.int64,
        )
        obs, _, term, trunc, info = venv.step(acts)
        returns += info["creature_rewards"]
        lengths += 1
        for i in np.flatnonzero(term | trunc):
            assert info["episode_length"][i] == lengths[i]
            assert 1 <= info["episode_rounds"][i] <= 9
            winner = int(info["winner"][i])
            if term[i]:
                assert winner in (0, 1)
                assert returns[i, winner] > returns[i, 1 - winner]
            else:
                assert winner == -1
            finished.append(winner)
            returns[i] = 0
            lengths[i] = 0
        assert (info["episode_length"][~(term | trunc)] == 0).all()
    assert len(finished) >= 4 and 0 in finished


def test_seeds_of_later_resets_and_reward_overrides():
    """A second ``reset()`` without a seed goes on from each slot's generator (as the AEC
    env's does); ``reset(seed=s)`` replays; ``rewards=`` reaches every battle."""
    venv = VectorEnv("procedural", num_envs=2, seed=3, rewards={"draw": -1.0})
    assert venv.scenario.rewards.draw == -1.0
    first = venv.reset()[0]["observation"].copy()
    second = venv.reset()[0]["observation"].copy()
    again = venv.reset(seed=3)[0]["observation"].copy()
    env = raw_env("procedural")
    env.reset(seed=4)
    env.reset()
    np.testing.assert_array_equal(second[1], env.observe(env.agent_selection)["observation"])
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, second)


def test_a_refused_constructor_leaves_nothing_to_clean_up(monkeypatch):
    """A constructor that raises must not make the garbage collector's ``close`` fail."""
    import gc
    import sys

    seen = []
    monkeypatch.setattr(sys, "unraisablehook", seen.append)
    for kwargs in ({"num_envs": 0}, {"num_envs": 2, "seed": -1}, {"num_envs": 2, "threads": 0}):
        with pytest.raises(ValueError):
            VectorEnv("duel", **kwargs)
    gc.collect()
    assert seen == []


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="num_envs must be an integer from 1 to"):
        VectorEnv("duel", num_envs=0)
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        VectorEnv("duel", num_envs=2, seed=-1)
    with pytest.raises(TypeError, match=r"VectorEnv: unknown option\(s\) \['bogus'\]"):
        VectorEnv("duel", num_envs=2, bogus=1)
    venv = VectorEnv("duel", num_envs=2, seed=0)
    with pytest.raises(EnvStateError, match="before reset"):
        venv.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(EnvStateError, match="before reset"):
        venv.battle(0)
    for bad in (-1, 1.5, "x", True):
        with pytest.raises(ValueError, match="seed must be a non-negative integer"):
            venv.reset(seed=bad)
    obs, _ = venv.reset()
    with pytest.raises(IllegalActionError, match=r"shape \(2,\)"):
        venv.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(IllegalActionError, match="integers"):
        venv.step(np.zeros(2))
    forbidden = int(np.flatnonzero(obs["action_mask"][1] == 0)[0])
    before = obs["observation"].copy()
    with pytest.raises(IllegalActionError, match=r"^battle 1: blue_0: action \d+ is not allowed"):
        venv.step(np.array([0, forbidden]))
    with pytest.raises(IllegalActionError, match=r"^battle 0: "):
        venv.step(np.array([venv.n_actions, 0]))
    np.testing.assert_array_equal(obs["observation"], before)  # nothing was stepped
    assert venv.battle(0).initiative.round == 1
    with pytest.raises(IndexError, match=r"battle index 2 is outside 0\.\.1"):
        venv.events(2)
    with pytest.raises(IndexError, match="battle index -1"):
        venv.render(-1)


def test_events_are_recorded_on_request():
    """``events(i)`` is the AEC env's event list of battle ``i`` with
    ``record_events=True`` (whole battles, auto-resets included), and a clear error
    without it."""
    venv = VectorEnv("duel", num_envs=2, seed=7, record_events=True, max_rounds=3)
    obs, _ = venv.reset()
    rng = np.random.default_rng(0)
    env = raw_env("duel", max_rounds=3)
    env.reset(seed=8)
    for _ in range(60):
        acts = np.array([_random_action(m, rng) for m in obs["action_mask"]], dtype=np.int64)
        obs, _, term, trunc, _ = venv.step(acts)
        env.step(int(acts[1]))
        while env.agents and (
            env.terminations[env.agent_selection] or env.truncations[env.agent_selection]
        ):
            env.step(None)
        if not env.agents:
            assert term[1] or trunc[1]
            env.reset()
        assert venv.events(1) == env.events
        assert engine.state_key(venv.battle(1)) == engine.state_key(env.battle)
    quiet = VectorEnv("duel", num_envs=1, seed=0)
    quiet.reset()
    with pytest.raises(EnvStateError, match="record_events=True"):
        quiet.events(0)


def test_readme_example_runs_as_printed():
    """The README's VectorEnv block (under the quick start) runs and returns the shapes
    its comments promise."""
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Quick start (PettingZoo)", 1)[1].split("\n## ", 1)[0]
    blocks = [b for b in re.findall(r"```python\n(.*?)```", section, re.DOTALL) if "VectorEnv" in b]
    assert len(blocks) == 1
    namespace: dict = {"__name__": "__readme__"}
    exec(compile(blocks[0], "README.md", "exec"), namespace)
    venv, rewards = namespace["venv"], namespace["rewards"]
    assert namespace["obs"]["observation"].shape == (1024, venv.observation_size)
    assert rewards.shape == (1024,)
    assert namespace["info"]["creature_rewards"].shape == (1024, len(venv.possible_agents))


def test_partial_steps_leave_the_other_battles_as_they_are():
    """``step(actions, active=rows)`` steps only ``rows``: battles stepped in two halves
    end where one VectorEnv stepping them all together is, and an inactive battle's
    observation, mask and actor stay while its rewards are 0 and it does not end."""
    whole = VectorEnv("skirmish", num_envs=4, seed=21, max_rounds=3)
    halves = VectorEnv("skirmish", num_envs=4, seed=21, max_rounds=3)
    obs, info = whole.reset()
    halves.reset()
    rng = np.random.default_rng(2)
    even = np.array([True, False, True, False])
    ends = 0
    for _ in range(120):
        acts = np.array([_random_action(m, rng) for m in obs["action_mask"]], dtype=np.int64)
        before = obs["observation"].copy(), obs["action_mask"].copy(), info["agent"].copy()
        junk = acts.copy()
        junk[~even] = whole.n_actions + 5  # inactive rows' actions are not read
        o1, _, t1, u1, i1 = halves.step(junk, active=even)
        r1 = i1["creature_rewards"].copy()  # the buffers are reused
        t1, u1 = t1.copy(), u1.copy()
        np.testing.assert_array_equal(o1["observation"][~even], before[0][~even])
        np.testing.assert_array_equal(o1["action_mask"][~even], before[1][~even])
        np.testing.assert_array_equal(i1["agent"][~even], before[2][~even])
        assert not (r1[~even]).any() and not (t1[~even] | u1[~even]).any()
        junk = acts.copy()
        junk[even] = -1
        o2, _, t2, u2, i2 = halves.step(junk, active=~even)
        r2 = i2["creature_rewards"]
        assert not (r2[even]).any()
        obs, _, term, trunc, info = whole.step(acts)
        rew = info["creature_rewards"]
        ends += int((term | trunc).sum())
        np.testing.assert_array_equal(o2["observation"], obs["observation"])
        np.testing.assert_array_equal(o2["action_mask"], obs["action_mask"])
        np.testing.assert_array_equal(i2["agent"], info["agent"])
        np.testing.assert_array_equal(r1[even], rew[even])
        np.testing.assert_array_equal(r2[~even], rew[~even])
        np.testing.assert_array_equal((t1 | t2), term)
        np.testing.assert_array_equal((u1 | u2), trunc)
    assert ends > 0
    with pytest.raises(ValueError, match=r"active must be 4 booleans"):
        halves.step(np.zeros(4, dtype=np.int64), active=np.ones(4, dtype=np.int64))
    mask = halves._engine.mask
    forbidden = int(np.flatnonzero(mask[2] == 0)[0])
    with pytest.raises(IllegalActionError, match=r"^battle 2: "):
        halves.step(np.array([0, 0, forbidden, 0]), active=even)
    halves.step(np.array([0, forbidden, 0, 0]), active=even)  # row 1 inactive: not read


def test_final_observations_are_the_aec_envs_last_views():
    """With ``final_observations=True``, a battle that ends gives every creature's
    observation of its last state: the AEC env's ``observe(agent)`` after the last
    action (dead steps taken)."""
    venv = VectorEnv("skirmish", num_envs=2, seed=30, max_rounds=2, final_observations=True)
    obs, info = venv.reset()
    rng = np.random.default_rng(4)
    env = raw_env("skirmish", max_rounds=2)
    env.reset(seed=31)
    checked = 0
    for _ in range(300):
        acts = np.array([_random_action(m, rng) for m in obs["action_mask"]], dtype=np.int64)
        obs, _, term, trunc, info = venv.step(acts)
        env.step(int(acts[1]))
        while env.agents and (
            env.terminations[env.agent_selection] or env.truncations[env.agent_selection]
        ):
            env.step(None)
        if not env.agents:
            assert term[1] or trunc[1]
            final = info["final_observation"]
            assert final.shape == (2, len(venv.possible_agents), venv.observation_size)
            for k, agent in enumerate(venv.possible_agents):
                np.testing.assert_array_equal(final[1, k], env.observe(agent)["observation"])
            checked += 1
            env.reset()
    assert checked >= 2
    assert "final_observation" not in VectorEnv("duel", num_envs=1).reset()[1]


def test_dice_modes_per_battle_from_the_next_start():
    """``set_dice_mode(mode, indices)``: battle 1 rolls expected dice from its next start
    on, as ``raw_env(dice="expected")`` does; battle 0 keeps rolling."""
    venv = VectorEnv("duel", num_envs=2, seed=50)
    venv.set_dice_mode("expected", [1])
    assert venv.dice_modes == ["roll", "expected"]
    obs, _ = venv.reset()
    calm, rolled = raw_env("duel", dice="expected"), raw_env("duel")
    calm.reset(seed=51)
    rolled.reset(seed=50)
    rng = np.random.default_rng(9)
    for _ in range(80):
        for i, env in ((0, rolled), (1, calm)):
            ref = env.observe(env.agent_selection)
            np.testing.assert_array_equal(obs["observation"][i], ref["observation"])
        acts = np.array([_random_action(m, rng) for m in obs["action_mask"]], dtype=np.int64)
        obs, *_ = venv.step(acts)
        for i, env in ((0, rolled), (1, calm)):
            env.step(int(acts[i]))
            while env.agents and (
                env.terminations[env.agent_selection] or env.truncations[env.agent_selection]
            ):
                env.step(None)
            if not env.agents:
                env.reset()
    assert calm.dice.mode == "expected" and rolled.dice.mode == "roll"
    with pytest.raises(ValueError, match="dice mode must be"):
        venv.set_dice_mode("loaded", [0])
    with pytest.raises(IndexError, match=r"0\.\.1"):
        venv.set_dice_mode("roll", [2])


def test_agent_teams_name_each_agents_side():
    venv = VectorEnv("skirmish", num_envs=2, seed=0)
    venv.reset()
    teams = venv.agent_teams(1)
    assert sorted(set(teams)) == sorted(venv.teams)
    assert [t for a, t in zip(venv.possible_agents, teams, strict=True) if a.startswith("red")] == [
        "red"
    ] * sum(a.startswith("red") for a in venv.possible_agents)


@pytest.mark.parametrize("scenario", ["duel", "skirmish", "procedural"])
def test_threads_step_the_same_battles(scenario):
    """``VectorEnv(threads=T)`` splits the rows among T threads: every output (observation,
    mask, actor, rewards, ends, winners, final observations) equals one thread's, step for
    step, with partial steps and restarts among them (three threads over 10 rows: ranges
    of 3, 3 and 4)."""
    kwargs = dict(num_envs=10, seed=5, max_rounds=4, final_observations=True)
    one = VectorEnv(scenario, threads=1, **kwargs)
    many = VectorEnv(scenario, threads=3, **kwargs)
    assert (one.threads, many.threads) == (1, 3)
    assert many._engine._ranges == [(0, 3), (3, 6), (6, 10)]
    obs, info = one.reset()
    other, _ = many.reset()
    rng = np.random.default_rng(8)
    ends = 0
    for step in range(150):
        acts = np.array([_random_action(m, rng) for m in obs["action_mask"]], dtype=np.int64)
        active = None if step % 3 else rng.random(10) < 0.5
        obs, rew, term, trunc, info = one.step(acts, active=active)
        other, rew2, term2, trunc2, info2 = many.step(acts, active=active)
        for name in ("observation", "action_mask"):
            np.testing.assert_array_equal(other[name], obs[name])
        for got, want in ((rew2, rew), (term2, term), (trunc2, trunc)):
            np.testing.assert_array_equal(got, want)
        for key in ("agent", "winner", "episode_length", "final_observation", "creature_rewards"):
            np.testing.assert_array_equal(info2[key], info[key])
        ends += int((term | trunc).sum())
    assert ends >= 10
    assert many._engine._pool is not None
    many.close()
    assert many.closed and many._engine._pool is None  # the threads stopped
    with pytest.raises(EnvStateError, match=r"step\(\) after close\(\)"):
        many.step(np.array([_random_action(m, rng) for m in other["action_mask"]]))


def test_default_threads_and_bad_threads(monkeypatch):
    """One thread per CPU, at most one per 64 battles; a bad count is named."""
    monkeypatch.setattr(vector.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    assert [vector.default_threads(n) for n in (1, 63, 64, 128, 1024)] == [1, 1, 1, 2, 2]
    assert VectorEnv("duel", num_envs=8).threads == 1
    assert VectorEnv("duel", num_envs=4, threads=8).threads == 4  # at most one per battle
    for bad in (0, -2, 1.5, "2", True):
        with pytest.raises(ValueError, match="threads must be a positive integer or None"):
            VectorEnv("duel", num_envs=2, threads=bad)


def test_a_tampered_mask_never_reaches_the_engine():
    """Issue 33: writing 1s into the returned action_mask (every action allowed) lets no
    forbidden action through: step checks the engine's own masks and raises
    IllegalActionError naming the battle, and the battles stay on the board."""
    from facing_env.errors import IllegalActionError

    venv = VectorEnv("duel", num_envs=4, seed=0)
    obs, _ = venv.reset()
    forbidden = np.argmin(obs["action_mask"], axis=1)  # a 0 in every row
    assert (obs["action_mask"][np.arange(4), forbidden] == 0).all()
    obs["action_mask"][:] = 1
    with pytest.raises(IllegalActionError):
        venv.step(forbidden)
    obs, *_ = venv.step(np.zeros(4, dtype=np.int64))  # END_TURN: still legal, still playing
    assert (obs["action_mask"][:, 0] == 1).all()
    for i in range(4):
        b = venv.battle(i)
        assert all(b.in_bounds(c.pos) for c in b.creatures.values())
    venv.close()


@pytest.mark.parametrize("scenario", ["duel", "procedural"])
def test_vector_env_and_aec_env_share_one_spec(scenario, monkeypatch):
    """Issue 32: one spec object (spaces, names, layout) for both faces; ``VectorEnv`` no
    longer builds a whole ``raw_env`` as a probe."""
    options = {"max_rounds": 7, "window": 9, "rewards": {"kill": 2.0}}
    aec = raw_env(scenario, **options)

    def refuse(*_args, **_kwargs):
        raise AssertionError("VectorEnv built a raw_env")

    monkeypatch.setattr(raw_env, "__init__", refuse)
    venv = VectorEnv(scenario, num_envs=2, seed=0, threads=1, **options)
    mine, theirs = venv.env_spec, aec.env_spec
    for field in ("max_rounds", "dice_mode", "layout", "codec", "possible_agents", "state_dims"):
        assert getattr(mine, field) == getattr(theirs, field), field
    assert mine.state_space == theirs.state_space and mine.action_space == theirs.action_space
    assert venv.single_observation_space == aec.observation_space(aec.possible_agents[0])
    assert venv.possible_agents == aec.possible_agents and venv.env_spec.max_rounds == 7
    assert venv.scenario.rewards.kill == 2.0
