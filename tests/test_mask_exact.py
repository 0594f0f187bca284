"""The action mask is exact, and the fast paths agree with their slow oracles.

On random reachable states of every built-in scenario (random masked play from a seeded
reset, see ``tests/env_play.py``):

- every index of ``Discrete(n)`` the mask allows applies to a copy of the battle (with a
  fresh ``Dice`` of the same mode), and every index it forbids raises
  ``IllegalActionError`` without changing the battle (docs/api.md, "Actions");
- the env's mask (the batched engine's one-pass scan) is the encoding of
  ``engine.legal_actions`` (every candidate checked by ``why_illegal``), and the movement
  cost the scan records for each legal step (what ``apply`` pays) is ``rules.step_cost``'s;
- the env's observation of every agent equals the slow cell-by-cell build of
  ``facing_env/rules/observation.py`` (clipped to ``observation.BOUND`` like the env's).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import facing_env
from facing_env import IllegalActionError, observation, rules
from facing_env.fast.legality import FULL_ROUND as FULL_ROUND_CODE
from facing_env.rules import engine, legality
from facing_env.rules import observation as reference
from facing_env.rules.dice import Dice
from facing_env.scenario import load_scenario
from tests.env_play import SCENARIOS, copy_battle, walk

PROPERTY = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
DICE = ("roll", "expected")
SWEEP_EVERY = 60  # full-episode sweep: check the mask at every 60th decision


def _sort_key(action: engine.Action) -> tuple[str, str]:
    return (action.kind, repr(action.arg))


def check_mask_exact(env) -> None:
    """Apply every index of the acting agent's action space to copies of the battle."""
    battle = env.battle
    agent = env.agent_selection
    cid = env.agent_to_id[agent]
    assert engine.actor(battle) is battle.creatures[cid]
    mask = env.observe(agent)["action_mask"]
    assert mask.shape == (env.codec.n,) and mask.dtype == np.int8
    assert set(np.unique(mask)) <= {0, 1}
    assert mask[0] == 1, "END_TURN is always legal for the acting agent"
    before = engine.state_key(battle)
    refused = copy_battle(battle)  # illegal actions must leave it untouched
    for index in range(env.codec.n):
        allowed = bool(mask[index])
        target = copy_battle(battle) if allowed else refused
        action = env.codec.decode(target, env.slots[cid], index)
        dice = Dice(np.random.default_rng(index), env.dice_mode)
        if allowed:
            engine.apply(target, action, dice)
        else:
            with pytest.raises(IllegalActionError):
                engine.apply(target, action, dice)
            assert engine.state_key(refused) == before, f"refused {action} changed the battle"
    assert engine.state_key(battle) == before, "trying actions on copies changed the battle"


def check_legal_matches_reference(env) -> None:
    """The env's mask (the batched engine's scan) is the encoding of the actions
    ``why_illegal`` accepts, and the cost the scan records for each legal step (what the
    engine's apply pays) is ``rules.step_cost``'s (via ``legality._step``)."""
    battle, agent = env.battle, env.agent_selection
    slots = env.slots[env.agent_to_id[agent]]
    mask = env.observe(agent)["action_mask"]
    slow = engine.reference_legal_actions(battle)
    assert len(set(slow)) == len(slow), f"duplicate legal actions: {slow}"
    want = np.zeros_like(mask)
    for action in slow:
        want[env.codec.encode(battle, slots, action)] = 1
    np.testing.assert_array_equal(mask, want)
    c = engine.actor(battle)
    cost = env._engine.cost[0]
    for action in slow:
        if action.kind in (engine.MOVE, engine.STEP_KEEP_FACING):
            expected, why = legality._step(battle, c, action.arg, action.kind == engine.MOVE)
            assert why is None and expected is not None
            expected = FULL_ROUND_CODE if expected == rules.FULL_ROUND else expected
            index = env.codec.encode(battle, slots, action)
            assert cost[index] == expected, action


def check_observations_match_reference(env) -> None:
    layout = reference.ObservationLayout(env.layout.window, env.layout.n_slots)
    assert layout.size == env.layout.size
    for agent in env.agents:
        slots = env.slots[env.agent_to_id[agent]]
        slow = reference.build(env.battle, slots, layout, env.max_rounds)
        slow = np.clip(slow, -observation.BOUND, observation.BOUND)
        fast = env.observe(agent)["observation"]
        assert fast.dtype == np.float32
        np.testing.assert_allclose(fast, slow, rtol=0, atol=1e-6, err_msg=f"agent {agent}")


@PROPERTY
@given(
    scenario=st.sampled_from(SCENARIOS),
    dice=st.sampled_from(DICE),
    seed=st.integers(0, 2**32 - 1),
    decisions=st.integers(0, 400),
)
def test_mask_allows_exactly_the_actions_that_apply(scenario, dice, seed, decisions):
    env = walk(scenario, seed, decisions, dice=dice)
    check_mask_exact(env)


@PROPERTY
@given(
    scenario=st.sampled_from(SCENARIOS),
    dice=st.sampled_from(DICE),
    seed=st.integers(0, 2**32 - 1),
    decisions=st.integers(0, 400),
)
def test_legal_actions_and_observations_match_the_slow_oracles(scenario, dice, seed, decisions):
    seen = []

    def visit(env) -> None:
        check_legal_matches_reference(env)
        if len(seen) % 25 == 0:
            check_observations_match_reference(env)
        seen.append(1)

    env = walk(scenario, seed, decisions, dice=dice, visit=visit)
    check_observations_match_reference(env)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_whole_episode_sweep(scenario):
    """One whole seeded episode per scenario: oracles at every decision, the mask at every
    60th, observations of every agent at every 20th."""
    count = [0]

    def visit(env) -> None:
        check_legal_matches_reference(env)
        if count[0] % 20 == 0:
            check_observations_match_reference(env)
        if count[0] % SWEEP_EVERY == 0:
            check_mask_exact(env)
        count[0] += 1

    walk(scenario, 7, 10**9, visit=visit)  # more decisions than any episode: plays it out
    assert count[0] > 20


def test_mask_of_waiting_agents_is_empty_in_the_codec_and_a_placeholder_in_the_env():
    env = walk("skirmish", 3, 5)
    actor = env.agent_selection
    for agent in env.agents:
        slots = env.slots[env.agent_to_id[agent]]
        codec_mask = env.codec.mask(env.battle, slots)
        env_mask = env.observe(agent)["action_mask"]
        if agent == actor:
            np.testing.assert_array_equal(codec_mask, env_mask)
        else:
            assert not codec_mask.any()
            assert np.flatnonzero(env_mask).tolist() == [0]


def test_battle_copy_is_an_independent_copy():
    battle = load_scenario("duel").build(np.random.default_rng(0))
    engine.start(battle, Dice(np.random.default_rng(0)))
    twin = battle.copy()
    assert engine.state_key(twin) == engine.state_key(battle)
    engine.apply(twin, engine.Action(engine.END_TURN), Dice(np.random.default_rng(1)))
    assert engine.state_key(twin) != engine.state_key(battle)
    assert twin.rules is battle.rules or twin.rules == battle.rules


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_observations_match_the_oracle_over_several_episodes_of_one_env(scenario):
    """One env, four seeded episodes (procedural scenarios change the creatures between
    them), the oracle every 7th decision."""
    env = facing_env.raw_env(scenario=scenario)
    rng = np.random.default_rng(11)
    checked = 0
    for episode in range(4):
        env.reset(seed=100 + episode)
        for step, _agent in enumerate(env.agent_iter(max_iter=250)):
            obs, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            if step % 7 == 0:
                check_observations_match_reference(env)
                checked += 1
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert checked >= 20


def _duel_with(**red: object) -> dict:
    sword = {"name": "sword", "bonus": 5, "damage": "1d8+3"}
    fighter = {"size": "medium", "hp": 30, "ac": 16, "attacks": [sword]}
    return {
        "name": "memo",
        "ruleset": "ua35",
        "map": ".......\n" * 7,
        "creatures": [
            {"id": "red", "team": "red", "pos": [3, 1], "facing": "S", **fighter, **red},
            {"id": "blue", "team": "blue", "pos": [3, 3], "facing": "N", **fighter},
        ],
    }


def test_a_new_scenario_with_the_same_ids_gives_new_rows():
    """Same ids, different spec (here reach 10 ft instead of 5): the next episode must not
    reuse anything of the last (red 2 squares away threatens blue only with reach)."""
    from facing_env.scenario import scenario_from_dict

    env = facing_env.raw_env(scenario=scenario_from_dict(_duel_with()))
    env.reset(seed=0)
    reach = observation.FEATURES.index("i_threaten_it")
    red, blue = env.agent_to_id["red_0"], "blue"
    table = observation.ObservationLayout(env.layout.window, env.layout.n_slots)
    assert env.slots[red][1] == blue
    battle = env.battle
    battle.creatures[red].flat_footed = battle.creatures[blue].flat_footed = False
    env.set_battle(battle)
    row = table.split(env.observe("red_0")["observation"])[1][1]
    assert row[reach] == 0.0
    env.scenario = scenario_from_dict(_duel_with(attacks=[{"name": "glaive", "reach": 10}]))
    env.reset(seed=0)
    battle = env.battle
    battle.creatures[red].flat_footed = battle.creatures[blue].flat_footed = False
    env.set_battle(battle)
    row = table.split(env.observe("red_0")["observation"])[1][1]
    assert row[reach] == 1.0
    check_observations_match_reference(env)


@pytest.mark.parametrize(
    ("teams", "lone"),
    [
        (("a", "b", "c", "d", "e", "f"), 5),  # a free-for-all
        (("a", "b", "b", "c", "c", "c"), 0),  # three teams, none over three creatures
        (("a", "a", "a", "a", "a", "b"), 5),  # one team of five
    ],
)
def test_threat_channels_are_capped_at_four_threateners(teams, lone):
    """The board accumulates 0.25 per threatening creature and clamps only when an
    observer can have more than four allies or enemies (``fast.observe``): the cell
    (2, 2), threatened by the five creatures around it, reads 1.0 for the one creature
    whose enemies they all are, as the oracle's min(count, 4) / 4; every agent's whole
    observation equals the oracle's."""
    from facing_env.scenario import scenario_from_dict

    around = iter([(1, 1), (2, 1), (3, 1), (1, 2), (3, 2)])
    cells = [(1, 3) if i == lone else next(around) for i in range(6)]  # all around (2, 2)
    sword = {"name": "sword", "bonus": 5, "damage": "1d8+3"}
    creatures = [
        {
            "id": f"c{i}",
            "size": "medium",
            "hp": 20,
            "ac": 15,
            "attacks": [sword],
            "feats": ["Combat Reflexes"],  # threatens while flat-footed
            "team": teams[i],
            "pos": list(cells[i]),
            "facing": "N",
        }
        for i in range(6)
    ]
    spec = {"name": "crowd", "ruleset": "ua35", "map": "........\n" * 8, "creatures": creatures}
    env = facing_env.raw_env(scenario=scenario_from_dict(spec))
    env.reset(seed=0)
    check_observations_match_reference(env)
    me = env.battle.creatures[f"c{lone}"]
    agent = env.id_to_agent[me.id]
    window, _, _ = env.layout.split(env.observe(agent)["observation"])
    half = env.layout.window // 2
    assert tuple(me.pos) == (1, 3)
    enemy = observation.CHANNELS.index("threatened_by_enemies")
    assert window[2 - 3 + half, 2 - 1 + half, enemy] == 1.0
