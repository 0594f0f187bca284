"""The PettingZoo surface: PettingZoo's own API and seed tests on every scenario, the
registry, ``render_mode="ansi"``, ``state()`` and the README quick start.

PettingZoo's checks report some problems only as warnings; the ones about the action mask,
NaN or infinite observations, observations of the wrong dtype or shape, and actions out of
their space are turned into errors here, and so is an illegal move (which PettingZoo logs
rather than warns about). Three warnings are expected and ignored: a ``Dict`` observation
with an ``action_mask`` key is PettingZoo's documented convention for masked actions, yet
api_test notes that it is "not a NumPy array" and that the space "probably should be" a
Box; and a procedural episode may field fewer creatures than its ``possible_agents`` (the
most it can have), which the parallel test notes.
"""

from __future__ import annotations

import contextlib
import copy
import io
import pickle
import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, parallel_api_test, seed_test
from pettingzoo.utils.env_logger import EnvLogger

import facing_env
from facing_env.render.text import creature_letters
from facing_env.rules import engine
from facing_env.types import GridKind
from tests.env_play import SCENARIOS, masked_choice

README = Path(__file__).resolve().parents[1] / "README.md"
FATAL_WARNINGS = (
    r"Action mask",  # not an array, NaN, infinity, wrong shape or dtype, all zeros, not 0/1
    r"Observation contains",  # NaNs, infinity
    r"Observation numpy array is (not a numeric dtype|all zeros)",
    r"Observation has more than 3 dimensions",
    r"Observation is a single number",
    r"Observations (between agents are different classes|are different shapes|have different)",
    r"The observation contains negative numbers and is in the shape of a graphical",
    r"Agent's (minimum|maximum)",  # infinite or degenerate bounds of a space
    r"Agents have different (observation|action) space sizes",
    r"Reward should be",
    r"Live agent was not given|Agent was given .* but was dead",
    r"Environment .* was expected to be an instance of",  # pettingzoo.make
)
EXPECTED_WARNINGS = (
    r"Observation is not a NumPy array",
    r"Observation space for each agent probably should be",
    # procedural episodes field 1-3 creatures a side: possible_agents lists the maximum
    r"No agents present but not all possible_agents are terminated or truncated",
)


@pytest.fixture
def strict_pettingzoo():
    """Turn PettingZoo's warnings about masks and observations into errors, and fail on
    any illegal move or out-of-space action it logs."""
    EnvLogger.flush()
    with warnings.catch_warnings():
        for message in EXPECTED_WARNINGS:
            warnings.filterwarnings("ignore", message=message)
        for message in FATAL_WARNINGS:
            warnings.filterwarnings("error", message=message)
        yield
    logged = list(EnvLogger.mqueue)
    EnvLogger.flush()
    assert not logged, f"PettingZoo logged: {logged}"


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_pettingzoo_api_test(scenario, strict_pettingzoo):
    api_test(facing_env.env(scenario=scenario), num_cycles=1000)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_pettingzoo_api_test_on_the_raw_env(scenario, strict_pettingzoo):
    api_test(facing_env.raw_env(scenario=scenario, dice="expected"), num_cycles=1000)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_pettingzoo_seed_test(scenario, strict_pettingzoo):
    seed_test(lambda: facing_env.env(scenario=scenario), num_cycles=500)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_pettingzoo_parallel_api_test(scenario, strict_pettingzoo):
    parallel_api_test(facing_env.parallel_env(scenario=scenario), num_cycles=1000)


@pytest.mark.parametrize("perception", ["facing", "spot"])
@pytest.mark.parametrize("scenario", ["skirmish"])
def test_pettingzoo_tests_pass_under_limited_perception(scenario, perception, strict_pettingzoo):
    """Issue 36: the AEC and parallel envs under ``perception`` pass PettingZoo's API,
    parallel API and seed tests."""
    api_test(facing_env.env(scenario=scenario, perception=perception), num_cycles=500)
    parallel_api_test(
        facing_env.parallel_env(scenario=scenario, perception=perception), num_cycles=500
    )
    seed_test(lambda: facing_env.env(scenario=scenario, perception=perception), num_cycles=300)


def test_every_scenario_is_registered():
    assert set(facing_env.registered_ids().values()) == set(SCENARIOS)
    for env_id in facing_env.registered_ids():
        assert re.fullmatch(r"facing_env/[A-Z][A-Za-z]*-v2", env_id), env_id
        assert env_id in pettingzoo.aec_registry
        assert env_id in pettingzoo.parallel_registry
    assert facing_env.registered_ids()["facing_env/SideRearSkirmish-v2"] == "side_rear_skirmish"
    facing_env.register_scenarios()  # a second registration is harmless


@pytest.mark.parametrize("env_id", sorted(facing_env.registered_ids()))
def test_registry_make(env_id, strict_pettingzoo):
    name = facing_env.registered_ids()[env_id]
    env = pettingzoo.make("aec", env_id)
    assert isinstance(env, pettingzoo.AECEnv)
    assert env.unwrapped.scenario.name == facing_env.load_scenario(name).name
    env.reset(seed=0)
    obs, *_ = env.last()
    assert env.observation_space(env.agent_selection).contains(obs)
    env.step(masked_choice(np.random.default_rng(0), obs["action_mask"]))

    tuned = pettingzoo.make("aec", env_id, dice="expected", max_rounds=3, window=7)
    assert tuned.unwrapped.dice_mode == "expected" and tuned.unwrapped.max_rounds == 3
    assert tuned.unwrapped.layout.window == 7

    par = pettingzoo.make("parallel", env_id)
    assert isinstance(par, pettingzoo.ParallelEnv)
    observations, infos = par.reset(seed=0)
    # every possible agent: placeholders for those a procedural battle leaves out
    assert set(observations) == set(infos) == set(par.possible_agents)
    assert set(par.agents) <= set(par.possible_agents)


def _grid_char(battle, text_lines: list[str], pos: tuple[int, int]) -> str:
    row, col = battle.column(pos)
    indent = 1 if battle.kind is GridKind.HEX and row % 2 else 0
    line = text_lines[row]
    return line[indent + 2 * col] if indent + 2 * col < len(line) else ""


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_ansi_render_shows_every_living_creature(scenario):
    env = facing_env.env(scenario=scenario, render_mode="ansi")
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    u = env.unwrapped
    for i, _agent in enumerate(env.agent_iter()):
        if i % 15 == 0:
            text = env.render()
            assert isinstance(text, str)
            lines = text.split("\n")
            letters = creature_letters(u.battle)
            for cid, c in u.battle.creatures.items():
                legend = [line for line in lines[u.battle.height :] if f" {cid} " in line]
                assert len(legend) == 1, f"{cid} missing from the legend:\n{text}"
                if c.hp > 0:
                    assert f"hp {c.hp}/{c.max_hp}" in legend[0]
                    for cell in u.battle.cells_of(c):
                        assert _grid_char(u.battle, lines, cell) == letters[cid], (
                            f"{cid} not drawn at {cell}:\n{text}"
                        )
                else:
                    assert "dead" in legend[0]
        obs, _, termination, truncation, _ = env.last()
        env.step(None if termination or truncation else masked_choice(rng, obs["action_mask"]))
    assert engine.is_over(u.battle) or u.battle.initiative.round > u.max_rounds
    assert env.render().count(" dead ") == sum(c.hp <= 0 for c in u.battle.creatures.values())
    env.close()


def test_render_without_a_mode_returns_none():
    env = facing_env.env(scenario="duel")
    env.reset(seed=0)
    assert env.render() is None
    with pytest.raises(ValueError, match="render_mode"):
        facing_env.raw_env(scenario="duel", render_mode="rgb_array_list")  # not a mode of ours


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_state_lies_in_the_state_space(scenario):
    env = facing_env.env(scenario=scenario)
    space = env.unwrapped.state_space
    for seed in range(3):  # procedural boards change size from episode to episode
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for i, _agent in enumerate(env.agent_iter(400)):
            if i % 5 == 0:
                state = env.state()
                assert state.dtype == np.float32 and state.shape == space.shape
                assert space.contains(state), f"state out of its space at step {i}"
                assert np.isfinite(state).all()
            obs, _, termination, truncation, _ = env.last()
            action = None if termination or truncation else masked_choice(rng, obs["action_mask"])
            env.step(action)


def _readme_block(heading: str) -> str:
    text = README.read_text(encoding="utf-8")
    section = text.split(f"## {heading}", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert match, f"no python block under '## {heading}'"
    return match.group(1)


def test_readme_quick_start_runs_as_printed(strict_pettingzoo):
    code = _readme_block("Quick start (PettingZoo)")
    assert "agent_iter" in code and "import facing_env" in code
    namespace: dict = {"__name__": "__readme__"}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(README), "exec"), namespace)
    env = namespace["env"]
    assert env.agents == [], "the quick start plays the episode to its end"
    printed = out.getvalue()
    for cid in env.unwrapped.battle.creatures:
        assert cid in printed


def test_illegal_actions_raise_in_raw_env_and_end_the_game_in_env():
    raw = facing_env.raw_env(scenario="duel")
    raw.reset(seed=0)
    mask = raw.observe(raw.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(facing_env.IllegalActionError, match="illegal action"):
        raw.step(illegal)
    with pytest.raises(facing_env.IllegalActionError, match="outside"):
        raw.step(raw.codec.n)

    env = facing_env.env(scenario="duel")
    env.reset(seed=0)
    offender = env.agent_selection
    obs, *_ = env.last()
    EnvLogger.suppress_output()
    try:
        env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    finally:
        EnvLogger.unsuppress_output()
        EnvLogger.flush()
    assert all(env.terminations.values())
    assert env.rewards[offender] == -1
    for _agent in env.agent_iter():
        env.step(None)
    assert env.agents == []


@pytest.mark.parametrize(
    "action",
    [None, 1.0, 0.0, True, False, "0", b"0", [0], np.array([0]), np.float32(0), -1, 10**400],
    ids=repr,
)
def test_raw_env_refuses_anything_but_an_index_for_a_live_agent(action):
    raw = facing_env.raw_env(scenario="duel")
    raw.reset(seed=0)
    before = (raw.agent_selection, len(raw.events))
    with pytest.raises(facing_env.IllegalActionError, match="Discrete") as info:
        raw.step(action)
    assert len(str(info.value)) < 200
    assert (raw.agent_selection, len(raw.events)) == before  # nothing happened


def test_raw_env_takes_numpy_integers():
    raw = facing_env.raw_env(scenario="duel")
    raw.reset(seed=0)
    raw.step(np.int64(0))  # END_TURN
    raw.step(np.array(0, dtype=np.int32))
    assert len(raw.events) > 2


def test_stepping_before_reset_or_after_the_end_is_a_named_error():
    raw = facing_env.raw_env(scenario="duel")
    with pytest.raises(facing_env.EnvStateError, match="before reset"):
        raw.step(0)
    raw.reset(seed=0)
    while raw.agents:
        _, _, done, truncated, _ = raw.last()
        raw.step(None if done or truncated else 0)
    with pytest.raises(facing_env.EnvStateError, match="episode ended"):
        raw.step(0)
    with pytest.raises(facing_env.EnvStateError, match="episode ended"):
        raw.step(None)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_rounds": True}, "max_rounds"),
        ({"window": True}, "window"),
        ({"max_rounds": 0}, "max_rounds"),
    ],
)
def test_env_options_are_not_booleans(kwargs, message):
    with pytest.raises(ValueError, match=message):
        facing_env.raw_env(scenario="duel", **kwargs)


def _play(env: Any, actions: int) -> None:
    """Step ``actions`` times with the highest legal index (deterministic)."""
    for _ in range(actions):
        if not env.agents:
            return
        _, _, done, truncated, _ = env.last()
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        env.step(None if done or truncated else int(legal[-1]))


@pytest.mark.parametrize("scenario", ["skirmish", "hex_duel", "procedural"])
@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_an_env_and_its_battle_copy_and_pickle(scenario, how):
    """Copies play on exactly as the original (the arrays, the bound kernels left out and
    bound again, the battle object)."""
    clone = copy.deepcopy if how == "deepcopy" else lambda x: pickle.loads(pickle.dumps(x))
    fresh = facing_env.raw_env(scenario=scenario)
    clone(fresh).reset(seed=3)
    env = facing_env.raw_env(scenario=scenario)
    env.reset(seed=3)
    _play(env, 6)
    twin = clone(env)
    battle = clone(env.battle)
    assert battle.to_spec() == env.battle.to_spec()
    _play(env, 40)
    _play(twin, 40)
    assert [e.to_dict() for e in twin.events] == [e.to_dict() for e in env.events]
    assert twin.rewards == env.rewards and twin.agents == env.agents


@pytest.mark.parametrize("engine_name", ["readable", "compiled"])
def test_battle_is_a_snapshot_and_set_battle_puts_an_edit_in_play(engine_name):
    """``env.battle`` is a copy (an edit changes nothing in play); ``set_battle`` puts it in
    play: the observation and the mask follow the edit, and the dice go on as they were."""
    env = facing_env.raw_env(scenario="duel", engine=engine_name)
    env.reset(seed=3)
    agent = env.agent_selection
    cid = env.agent_to_id[agent]
    before = env.observe(agent)["observation"].copy()
    snapshot = env.battle
    snapshot.creatures[cid].hp = 1
    assert env.battle.creatures[cid].hp != 1  # the snapshot's edit is not in play
    np.testing.assert_array_equal(env.observe(agent)["observation"], before)
    env.set_battle(snapshot)
    assert env.battle.creatures[cid].hp == 1
    assert not np.array_equal(env.observe(agent)["observation"], before)
    snapshot.creatures[cid].hp = 7  # set_battle kept a copy
    assert env.battle.creatures[cid].hp == 1
    with pytest.raises(ValueError, match="read-only"):
        snapshot.terrain[0, 0] = 1  # the board is shared, read-only
    assert env.battle.initiative == snapshot.initiative and env.battle.turn == snapshot.turn
    assert env.battle.initiative is not env.battle.initiative
    count = env.dice.count
    env.set_battle(env.battle)
    assert env.dice.count == count


def test_set_battle_refuses_another_battle_by_name():
    env = facing_env.raw_env(scenario="duel")
    with pytest.raises(facing_env.EnvStateError, match=r"set_battle\(\) before reset"):
        env.set_battle(None)  # type: ignore[arg-type]
    env.reset(seed=0)
    with pytest.raises(TypeError, match="set_battle: expected a Battle, got dict"):
        env.set_battle({})  # type: ignore[arg-type]
    other = facing_env.raw_env(scenario="skirmish")
    other.reset(seed=0)
    with pytest.raises(ValueError, match=r"set_battle: the battle's creatures \["):
        env.set_battle(other.battle)
    over = env.battle
    for c in over.creatures.values():
        if c.team != over.creatures[env.agent_to_id[env.agent_selection]].team:
            c.hp = -10
    with pytest.raises(ValueError, match="set_battle: the battle is over"):
        env.set_battle(over)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda c, b: setattr(c, "pos", (100, 100)), r"space \[100, 100\] is off the 9x9 board"),
        (lambda c, b: setattr(c, "pos", (-1, -1)), r"space \[-1, -1\] is off the 9x9 board"),
        (lambda c, b: setattr(c, "pos", (3, 3)), r"space \[3, 3\] is blocked terrain"),
        (
            lambda c, b: setattr(c, "pos", b.creatures["blue_fighter"].pos),
            r"creature 'blue_fighter': field 'pos': space \[4, 7\] overlaps creature 'red_fig",
        ),
        (lambda c, b: setattr(c, "pos", [4, 1]), "pos must be a tuple of two integers"),
        (lambda c, b: setattr(c, "facing", 17), "facing must be an integer from 0 to 7"),
        (lambda c, b: setattr(c, "hp", "5"), "hp must be a number, got '5'"),
        (lambda c, b: setattr(c, "hp", float("nan")), "hp must be finite, got nan"),
    ],
)
def test_set_battle_refuses_an_edit_the_rules_do_not_allow(edit, message):
    """docs/api.md: anything but this episode's battle, validly edited, is refused with a
    ValueError naming the creature and the field, placement checked as a scenario's
    (EP-STEP-01): not a crash deep in the rules, nor play with a creature off the board."""
    for engine_name in ("readable", "compiled"):
        env = facing_env.raw_env(scenario="duel", engine=engine_name)
        env.reset(seed=0)
        battle = env.battle
        edit(battle.creatures["red_fighter"], battle)
        with pytest.raises(ValueError, match=message) as info:
            env.set_battle(battle)
        assert "red_fighter" in str(info.value)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_set_battle_takes_back_every_battle_it_gave(scenario):
    """The checks refuse only edits the rules do not allow: the battle as ``battle`` gives
    it, at every step of a game, is taken back on every scenario (large creatures, hexes,
    faceless ones, the side_rear facings) and the game goes on the same."""
    env = facing_env.raw_env(scenario=scenario, engine="compiled")
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(40):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        env.set_battle(env.battle)
        env.step(masked_choice(rng, env.observe(agent)["action_mask"]))


def test_reset_and_state_name_their_misuse():
    env = facing_env.raw_env(scenario="duel")
    with pytest.raises(facing_env.EnvStateError, match=r"state\(\) before reset\(\)"):
        env.state()
    for seed in (-1, 1.5, "a", True):
        with pytest.raises(ValueError, match="seed must be a non-negative integer or None, got"):
            env.reset(seed=seed)  # type: ignore[arg-type]
