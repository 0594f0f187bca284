"""The scripted agents on batches (their kernels, ``facing_env.agents.kernels``, issue 18).

``aggressive``, ``flanker`` and ``defensive`` are numba kernels that ``act`` runs on a
batch of one: ``act_batch`` must give, row for row, exactly what ``act`` gives, and both
exactly what the agents gave before the kernels (``tests/reference/agents.py``, the
``ObservationView`` implementation kept as the oracle). The states come from every
built-in scenario (square and hex, ua35, side_rear and standard rules), reached by the
scripted agents and random masked play, plus a hex and a square board with Large and Huge
creatures on rough ground and other window sizes. ``random`` draws what ``RandomAgent``
draws, row after row.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import facing_env
from facing_env import actions
from facing_env.agents import (
    AGENT_NAMES,
    BATCH_AGENT_NAMES,
    BatchAgent,
    RandomAgent,
    aggressive,
    defensive,
    flanker,
    make_agent,
    make_batch_agent,
)
from facing_env.agents.kernels import spec as kernel_spec
from facing_env.env import raw_env
from facing_env.observation import Column, ObservationLayout, Scalar
from facing_env.scenario import Scenario, scenario_from_dict
from tests.reference.agents import REFERENCES

DETERMINISTIC = ("aggressive", "flanker", "defensive")
STATES = 300  # per scenario
ROOT = Path(__file__).resolve().parents[1]

_MAP = """\
............
..~~....%...
..~~...#....
.....o......
....###.....
.........~~.
...%%....~~.
............
....o.......
............
............
............"""


def _big_creatures(kind: str, ruleset: str) -> Scenario:
    """A Large ogre and a Huge dragon (hex: a triangle and a hexagon) against three
    Medium creatures, among walls, pillars, difficult and impeded ground."""
    square = kind == "square"
    return scenario_from_dict(
        {
            "name": f"big_{kind}_{ruleset}",
            "ruleset": ruleset,
            "max_rounds": 20,
            "grid": {"kind": kind, "width": 12, "height": 12},
            "map": _MAP,
            "creatures": [
                {"id": "ogre", "template": "ogre", "team": "monsters", "pos": [2, 9],
                 "facing": "S" if square else "WSW"},
                {"id": "dragon", "template": "young_dragon", "team": "monsters",
                 "pos": [8, 2], "facing": "S" if square else "SW"},
                {"id": "fighter", "template": "fighter", "team": "party", "pos": [1, 1],
                 "facing": "N" if square else "NE"},
                {"id": "rogue", "template": "rogue", "team": "party", "pos": [5, 0],
                 "facing": "N" if square else "NE"},
                {"id": "cleric", "template": "cleric", "team": "party",
                 "pos": [10, 11] if square else [4, 10], "facing": "N" if square else "NE"},
            ],
        }
    )  # fmt: skip


def _states(
    scenario: str | Scenario, n: int, seed: int, **env_kwargs: object
) -> tuple[np.ndarray, np.ndarray]:
    """``n`` (observation, mask) pairs of acting creatures: each episode gives each team
    one of the four agents, and a quarter of the steps are random masked actions."""
    rng = np.random.default_rng(seed)
    players = [make_agent(name) for name in BATCH_AGENT_NAMES]
    observations, masks = [], []
    episode = 0
    while len(observations) < n:
        env = raw_env(scenario=scenario, **env_kwargs)
        env.reset(seed=seed * 1000 + episode)
        episode += 1
        team_player: dict[str, object] = {}
        for agent in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            obs, mask = observation["observation"], observation["action_mask"]
            observations.append(obs.copy())
            masks.append(mask.copy())
            if len(observations) == n:
                break
            team = env.battle.creatures[env.agent_to_id[agent]].team
            player = team_player.setdefault(team, players[int(rng.integers(len(players)))])
            if rng.random() < 0.25:
                player = players[0]  # random
            env.step(player.act(obs, mask, rng))
    return np.stack(observations), np.stack(masks)


CASES: list[tuple[str, object, dict]] = [
    *((name, name, {}) for name in facing_env.scenario_names()),
    *((f"big_{k}_{r}", (k, r), {}) for k in ("square", "hex") for r in ("ua35", "side_rear")),
    ("skirmish_window_7", "skirmish", {"window": 7}),
    ("dragon_window_15", "dragon", {"window": 15}),
]


@pytest.fixture(scope="module")
def states() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    out = {}
    for i, (label, scenario, kwargs) in enumerate(CASES):
        if isinstance(scenario, tuple):
            scenario = _big_creatures(*scenario)
        out[label] = _states(scenario, STATES, seed=11 + i, **kwargs)
    return out


def test_every_built_in_scenario_is_covered() -> None:
    labels = {label for label, _, _ in CASES}
    assert set(facing_env.scenario_names()) <= labels
    kinds, rules = set(), set()
    for name in facing_env.scenario_names():
        env = raw_env(scenario=name)
        env.reset(seed=0)
        kinds.add(env.battle.kind.value)
        rules.add(env.battle.ruleset.value)
    assert kinds == {"square", "hex"} and rules == {"ua35", "side_rear", "standard"}


@pytest.mark.parametrize("name", DETERMINISTIC)
def test_act_batch_is_act_row_for_row(states: dict, name: str) -> None:
    """Whole batches (and a shuffled one) against one ``act`` per row, exactly."""
    agent = make_agent(name)
    rng = np.random.default_rng(0)
    for label, (obs, masks) in states.items():
        batch = make_batch_agent(name).act_batch(obs, masks, rng)
        assert batch.dtype == np.int64 and batch.shape == (len(obs),)
        rows = np.array([agent.act(o, m, rng) for o, m in zip(obs, masks, strict=True)])
        np.testing.assert_array_equal(batch, rows, err_msg=f"{name} on {label}")
        order = np.random.default_rng(1).permutation(len(obs))
        np.testing.assert_array_equal(agent.act_batch(obs[order], masks[order], rng), rows[order])


@pytest.mark.parametrize("name", DETERMINISTIC)
def test_kernels_match_the_reference_agents(states: dict, name: str) -> None:
    """The kernels against the ObservationView agents they replaced, state by state."""
    reference = REFERENCES[name]()
    chosen = set()
    for label, (obs, masks) in states.items():
        batch = make_batch_agent(name).act_batch(obs, masks, None)
        expected = np.array([reference.act(o, m, None) for o, m in zip(obs, masks, strict=True)])
        bad = np.flatnonzero(batch != expected)
        assert bad.size == 0, (
            f"{name} on {label}: {bad.size} of {len(obs)} rows differ, first row {bad[0]}: "
            f"kernel {batch[bad[0]]}, reference {expected[bad[0]]}"
        )
        assert all(masks[i, a] for i, a in enumerate(batch))
        chosen.update(_kind(int(a), masks.shape[1]) for a in batch)
    # the states are varied enough to make each agent walk, turn, attack and end its turn
    assert {"end", "move", "turn", "attack"} <= chosen, chosen


def _kind(index: int, n_actions: int) -> str:
    n_slots = (n_actions - actions.ATTACK_BASE) // 3
    if index == actions.END_TURN_INDEX:
        return "end"
    if index < actions.STEP_BASE:
        return "move"
    if actions.FIVE_FOOT_BASE <= index < actions.TURN_BASE:
        return "five_foot_step"
    if actions.TURN_BASE <= index < actions.RUN_INDEX:
        return "turn"
    if index == actions.READY_INDEX:
        return "ready"
    if actions.ATTACK_BASE <= index < actions.ATTACK_BASE + n_slots:
        return "attack"
    return "other"


# -- random ---------------------------------------------------------------------------------


def _random_masks(n: int, n_actions: int, seed: int) -> np.ndarray:
    masks = (np.random.default_rng(seed).random((n, n_actions)) < 0.2).astype(np.int8)
    masks[:, 0] = 1  # END_TURN
    masks[::7] = 0
    masks[::7, 5] = 1  # one legal action only
    masks[3] = 0  # none at all: END_TURN, no draw
    return masks


def test_random_is_legal_uniform_and_seeded() -> None:
    masks = _random_masks(64, 47, seed=0)
    obs = np.zeros((64, 2341), dtype=np.float32)
    agent = make_batch_agent("random")
    draws = np.stack([agent.act_batch(obs, masks, np.random.default_rng(s)) for s in range(400)])
    for row in range(len(masks)):
        legal = set(np.flatnonzero(masks[row]).tolist()) or {0}
        assert set(draws[:, row].tolist()) == legal  # every legal action comes up, no other
    first = agent.act_batch(obs, masks, np.random.default_rng(42))
    np.testing.assert_array_equal(first, agent.act_batch(obs, masks, np.random.default_rng(42)))


def test_random_draws_what_random_agent_draws_row_after_row(states: dict) -> None:
    masks = np.concatenate([_random_masks(200, 47, seed=1), states["skirmish"][1]])
    obs = np.zeros((len(masks), 1), dtype=np.float32)
    batch = make_agent("random").act_batch(obs, masks, np.random.default_rng(7))
    rng = np.random.default_rng(7)
    rows = [RandomAgent().act(o, m, rng) for o, m in zip(obs, masks, strict=True)]
    np.testing.assert_array_equal(batch, rows)


# -- API ------------------------------------------------------------------------------------


def test_every_make_agent_name_has_a_batch_version(states: dict) -> None:
    assert tuple(n for n in AGENT_NAMES if n != "expert") == BATCH_AGENT_NAMES
    obs, masks = states["duel"]
    for name in BATCH_AGENT_NAMES:
        agent = make_batch_agent(name)
        assert isinstance(agent, BatchAgent) and repr(agent) == f"BatchAgent({name!r})"
        got = make_agent(name).act_batch(obs, masks, np.random.default_rng(3))
        np.testing.assert_array_equal(got, agent.act_batch(obs, masks, np.random.default_rng(3)))
        assert agent.act(obs[0], masks[0], np.random.default_rng(3)) == got[0]
        assert agent.act_batch(obs[:0], masks[:0], None).shape == (0,)


def test_batch_agent_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="unknown batch agent 'sneaky'"):
        make_batch_agent("sneaky")
    agent = make_batch_agent("flanker")
    with pytest.raises(ValueError, match=r"\(N, D\) observations"):
        agent.act_batch(np.zeros(2341, np.float32), np.zeros(47, np.int8), None)
    with pytest.raises(ValueError, match="no observation layout"):
        agent.act_batch(np.zeros((1, 100), np.float32), np.zeros((1, 36), np.int8), None)


def test_the_spec_reads_the_named_offsets() -> None:
    """The kernels' tables come from the named offsets, the kernels' constants and an
    agent's parameters, and survive their round trip through arrays (``_spec`` rebuilds
    the Spec positionally); the parameters an agent does not set are 0, and a name that is
    not a parameter is refused."""
    layout = ObservationLayout(11, 4)
    n_actions = actions.ATTACK_BASE + 3 * 4
    key = kernel_spec.parameter_key(flanker.PARAMETERS)
    tables = kernel_spec._tables(layout.size, n_actions, key)
    spec = kernel_spec.spec_for(layout.size, n_actions, flanker.PARAMETERS)
    assert tuple(spec) == (*tables.ints.tolist(), *tables.floats.tolist())
    assert len(spec) == len(kernel_spec._INT_FIELDS) + len(kernel_spec._FLOAT_FIELDS)
    assert spec.col_distance == Column.DISTANCE and spec.sc_hex_grid == Scalar.HEX_GRID
    assert spec.table == layout.window_size and spec.window == 11 and spec.n_slots == 4
    assert spec.scalars == layout.window_size + layout.table_size
    assert spec.tactic_scalars == layout.size - 2
    assert spec.attack_base == actions.ATTACK_BASE and spec.far == 0.0
    assert (spec.value_rear, spec.bonus_stay, spec.strike_distance) == (4.0, 0.6, 7)
    assert (spec.assumed_speed, spec.diagonal_cost) == (6, 1.5)
    rushing = kernel_spec.spec_for(layout.size, n_actions, aggressive.PARAMETERS)
    assert rushing.far == 1e6 and (rushing.value_rear, rushing.strike_distance) == (0.0, 0)
    differ = {f for f in spec._fields if getattr(spec, f) != getattr(rushing, f)}
    assert differ and differ <= kernel_spec._PARAMETER_FIELDS
    with pytest.raises(ValueError, match="not agent parameters of the Spec: sneaky"):
        kernel_spec.spec_for(layout.size, n_actions, {"sneaky": 1.0})


def test_each_kernel_reads_only_its_own_agents_parameters() -> None:
    """An agent's tables hold its own parameters only (the other agents' are 0): its
    kernels read none of the other agents' parameters, and the shared kernels read none."""

    def read(path: Path) -> set[str]:
        fields = re.findall(r"\bs\.(\w+)", path.read_text())
        return set(fields) & kernel_spec._PARAMETER_FIELDS

    for module in (aggressive, flanker, defensive):
        assert read(Path(module.__file__)) <= set(getattr(module, "PARAMETERS", {}))
    assert read(Path(flanker.__file__)) == set(flanker.PARAMETERS)
    shared = sorted(Path(kernel_spec.__file__).parent.glob("*.py"))
    assert len(shared) >= 6 and all(read(path) == set() for path in shared)


def test_the_kernels_run_as_plain_python() -> None:
    """``NUMBA_DISABLE_JIT=1`` runs the same source as Python and gets the same actions."""
    script = """
import numpy as np
import numba
from facing_env.agents import make_batch_agent
from tests.reference.agents import REFERENCES
from tests.test_batch_agents import _states
assert numba.config.DISABLE_JIT
for scenario in ("skirmish", "hex_duel", "ogre"):
    obs, masks = _states(scenario, 40, seed=5)
    for name, cls in REFERENCES.items():
        got = make_batch_agent(name).act_batch(obs, masks, None)
        want = [cls().act(o, m, None) for o, m in zip(obs, masks)]
        assert got.tolist() == want, (scenario, name)
print("ok")
"""
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-3000:]
