"""PettingZoo conventions other trainers rely on (issue 34): dead-step-free battles,
``max_cycles``, the mask in ``info``."""

from __future__ import annotations

import numpy as np
import pettingzoo
import pytest
from gymnasium import spaces
from pettingzoo.test import api_test

import facing_env


@pytest.mark.parametrize("scenario", ["duel", "skirmish", "ogre", "procedural"])
def test_skip_dead_steps_passes_the_api_test(scenario):
    api_test(facing_env.skip_dead_steps(facing_env.env(scenario=scenario)), num_cycles=300)


def test_skip_dead_steps_selects_a_living_agent_until_the_battle_is_over():
    """Tianshou's PettingZoo env ends an episode when the selected agent is terminated:
    under skip_dead_steps that happens only once the battle is over, though creatures
    fall before the end (skirmish: four creatures, random play)."""
    deaths_before_end = 0
    for seed in range(6):
        env = facing_env.skip_dead_steps(facing_env.env(scenario="skirmish"))
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        over = False
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            done = [a for a in env.agents if env.terminations[a] or env.truncations[a]]
            if term or trunc:
                assert len(done) == len(env.agents)  # only once everyone is done
                over = True
                env.step(None)
                continue
            assert not over
            deaths_before_end += bool(done)
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert over and not env.agents
    assert deaths_before_end > 0  # the case the wrapper is for did happen


def test_skip_dead_steps_plays_the_same_battle():
    """Deferring the dead steps changes no trajectory: the same actions give the same
    events and winner as the plain env."""
    plain, skip = facing_env.raw_env(scenario="skirmish"), facing_env.raw_env(scenario="skirmish")
    facing_env.skip_dead_steps(skip)
    for env in (plain, skip):
        env.reset(seed=3)
    rng = np.random.default_rng(3)
    while plain.agents:
        agent = plain.agent_selection
        if plain.terminations[agent] or plain.truncations[agent]:
            plain.step(None)
            continue
        mask = plain.observe(agent)["action_mask"]
        action = int(rng.choice(np.flatnonzero(mask)))
        plain.step(action)
        while skip.agents and skip.agent_selection != agent:
            skip.step(None)  # the end's dead steps
        skip.step(action)
    assert skip.events == plain.events


def test_max_cycles_is_the_round_limit():
    """PettingZoo's max_cycles, accepted by env(), parallel_env() and pettingzoo.make,
    means rounds (the battle is truncated after that many)."""
    assert facing_env.raw_env(scenario="duel", max_cycles=3).max_rounds == 3
    assert facing_env.env(scenario="duel", max_cycles=4).unwrapped.max_rounds == 4
    par = facing_env.parallel_env(scenario="duel", max_cycles=5)
    assert par.unwrapped.max_rounds == 5
    made = pettingzoo.make("aec", "facing_env/Duel-v2", max_cycles=6)
    assert made.unwrapped.max_rounds == 6
    with pytest.raises(ValueError, match="max_cycles"):
        facing_env.raw_env(scenario="duel", max_cycles=3, max_rounds=4)
    with pytest.raises(ValueError, match="max_rounds"):
        facing_env.raw_env(scenario="duel", max_cycles=0)


def test_acting_agents_mask_is_in_its_info():
    """AgileRL reads the mask from info["action_mask"]: the acting agent's info holds a
    copy of its observation's mask; no other agent's info holds one."""
    env = facing_env.env(scenario="skirmish")
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    for agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        np.testing.assert_array_equal(info["action_mask"], obs["action_mask"])
        assert info["action_mask"] is not obs["action_mask"]
        others = [a for a in env.agents if a != agent and "action_mask" in env.infos[a]]
        assert not others
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_not_parallelizable_by_aec_to_parallel():
    assert facing_env.raw_env().metadata["is_parallelizable"] is False


def test_a_possible_agent_absent_from_a_procedural_battle_observes_a_placeholder():
    """Issue 34: ``observe()`` raised KeyError for possible agents a procedural battle did
    not draw (TorchRL and SuperSuit observe every possible agent)."""
    env = facing_env.env(scenario="procedural")
    for seed in range(40):
        env.reset(seed=seed)
        absent = [a for a in env.possible_agents if a not in env.agents]
        if absent:
            break
    assert absent, "no procedural battle in 40 seeds left a possible agent out"
    obs = env.observe(absent[0])
    space = env.observation_space(absent[0])["observation"]
    assert obs["observation"].shape == space.shape and not obs["observation"].any()
    assert obs["action_mask"].tolist() == [1] + [0] * (len(obs["action_mask"]) - 1)
    with pytest.raises(KeyError, match="not one of possible_agents"):
        env.observe("nobody_0")


def test_illegal_action_end_turn_lets_an_unmasked_learner_play():
    """Issue 34: an unmasked learner lost every game to ``TerminateIllegalWrapper``. With
    ``illegal_action="end_turn"`` a forbidden index ends the creature's turn: the same
    battle as END_TURN, the penalty added to its reward, the index in its info."""
    env = facing_env.env(scenario="duel", illegal_action="end_turn", illegal_penalty=-0.25)
    twin = facing_env.env(scenario="duel")
    env.reset(seed=3)
    twin.reset(seed=3)
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"]
    forbidden = int(np.flatnonzero(mask == 0)[0])
    env.step(forbidden)
    twin.step(0)  # END_TURN
    assert env.agent_selection == twin.agent_selection != agent
    assert env.rewards[agent] == pytest.approx(twin.rewards[agent] - 0.25)
    assert env.infos[agent]["illegal_action"] == forbidden
    np.testing.assert_array_equal(
        env.observe(env.agent_selection)["observation"],
        twin.observe(twin.agent_selection)["observation"],
    )
    rng = np.random.default_rng(0)
    env.reset(seed=4)
    for _agent in env.agent_iter(max_iter=3000):  # every index drawn, masks ignored
        _, _, termination, truncation, _ = env.last()
        env.step(None if termination or truncation else int(rng.integers(0, 41)))
    assert not env.agents  # the battle ran to its end


def test_illegal_action_is_checked():
    with pytest.raises(ValueError, match="illegal_action must be one of"):
        facing_env.env(scenario="duel", illegal_action="ignore")
    with pytest.raises(ValueError, match="illegal_penalty must be a finite number"):
        facing_env.env(scenario="duel", illegal_action="end_turn", illegal_penalty=float("nan"))


@pytest.mark.parametrize("scenario", ["duel", "skirmish", "procedural"])
def test_flat_observation_passes_the_api_test(scenario):
    """Issue 34: a Box observation (the vector alone), every agent's mask in its info."""
    env = facing_env.env(scenario=scenario, flat_observation=True)
    space = env.observation_space(env.possible_agents[0])
    assert isinstance(space, spaces.Box) and space.shape == (env.unwrapped.layout.size,)
    api_test(env, num_cycles=100)


def test_flat_observation_is_the_dict_vector_and_its_masks_are_in_the_infos():
    flat = facing_env.raw_env(scenario="skirmish", flat_observation=True)
    full = facing_env.raw_env(scenario="skirmish")
    flat.reset(seed=5)
    full.reset(seed=5)
    rng = np.random.default_rng(5)
    for _ in range(120):
        if not full.agents:
            break
        actor = full.agent_selection
        assert flat.agent_selection == actor
        for agent in full.agents:
            want = full.observe(agent)
            got = flat.observe(agent)
            assert got.shape == flat.observation_space(agent).shape
            np.testing.assert_array_equal(got, want["observation"])
            np.testing.assert_array_equal(flat.infos[agent]["action_mask"], want["action_mask"])
        dead = full.terminations[actor] or full.truncations[actor]
        mask = full.observe(actor)["action_mask"]
        action = None if dead else int(rng.choice(np.flatnonzero(mask)))
        full.step(action)
        flat.step(action)


def test_flat_observation_is_checked():
    with pytest.raises(ValueError, match="flat_observation must be True or False, got 'yes'"):
        facing_env.raw_env(flat_observation="yes")


def test_a_pettingzoo_without_registry_registers_nothing_and_fails_nothing(monkeypatch):
    """PettingZoo 1.24-1.26 have no ``register`` (issue 34: AgileRL pins < 1.27)."""
    from facing_env import registry

    assert registry.has_registry()
    monkeypatch.delattr(pettingzoo, "register")
    assert not registry.has_registry()
    registry.register_scenarios()  # a no-op, not an AttributeError


def test_parallel_env_gives_absent_procedural_agents_placeholders_at_reset():
    """TorchRL sizes every possible agent's entries from ``reset`` (issue 34)."""
    par = facing_env.parallel_env(scenario="procedural")
    for seed in range(20):
        observations, infos = par.reset(seed=seed)
        absent = set(par.possible_agents) - set(par.agents)
        if absent:
            break
    assert absent, "no procedural battle in 20 seeds left a possible agent out"
    assert set(observations) == set(infos) == set(par.possible_agents)
    for agent in absent:
        assert not observations[agent]["observation"].any() and infos[agent] == {}
        assert observations[agent]["action_mask"].tolist() == [1] + [0] * (
            observations[agent]["action_mask"].size - 1
        )
    rng = np.random.default_rng(0)
    while par.agents:
        actions = {
            a: int(rng.choice(np.flatnonzero(observations[a]["action_mask"]))) for a in par.agents
        }
        observations, *_ = par.step(actions)
        assert absent.isdisjoint(observations)  # left out of steps, as the dead are
    assert par.step({}) == ({}, {}, {}, {}, {})  # five dicts once nobody is left
