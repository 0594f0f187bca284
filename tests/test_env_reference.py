"""The AEC env (arrays stepped by :mod:`facing_env.fast`) against the reference env
(``raw_env(engine="readable")``: the object engine, ``why_illegal`` and the reference
observation): same actors, observations, masks, rewards, terminations, truncations,
events, battles and global states after every action, on every scenario, with random
masked play and with the scripted agents (docs/design.md, speed: one fast engine)."""

from __future__ import annotations

import numpy as np
import pytest

import facing_env
from facing_env.agents import make_agent
from facing_env.rules import perception as rules
from tests.env_play import SCENARIOS
from tests.reference import readable_env


def _same(env, ref, checks: dict) -> None:
    assert env.agents == ref.agents
    assert env.agent_selection == ref.agent_selection
    assert env.rewards == ref.rewards
    assert env._cumulative_rewards == ref._cumulative_rewards
    assert env.terminations == ref.terminations and env.truncations == ref.truncations
    assert len(env.events) == len(ref.events)
    assert [e.to_dict() for e in env.events[-8:]] == [e.to_dict() for e in ref.events[-8:]]
    assert env.battle.to_spec() == ref.battle.to_spec()
    assert env.battle.heard == ref.battle.heard  # issue 36: perception's own state
    assert env.battle.last_seen == ref.battle.last_seen
    assert env.battle.spot_rolls == ref.battle.spot_rolls
    assert env.dice.count == ref.dice.count
    battle = ref.battle
    for agent in env.agents:
        checks["hidden"] += len(rules.unseen(battle, ref.agent_to_id[agent]))
        got, want = env.observe(agent), ref.observe(agent)
        np.testing.assert_array_equal(got["action_mask"], want["action_mask"], err_msg=agent)
        np.testing.assert_allclose(
            got["observation"], want["observation"], rtol=0, atol=1e-6, err_msg=agent
        )
        checks["observations"] += 1
    np.testing.assert_allclose(env.state(), ref.state(), rtol=0, atol=1e-6)


def _play(
    scenario: str,
    seed: int | None,
    players: str | None,
    dice: str | None,
    limit: int,
    pair: tuple | None = None,
    perception: str | None = None,
) -> dict:
    env, ref = pair or (
        facing_env.raw_env(scenario=scenario, dice=dice, engine="compiled", perception=perception),
        readable_env(scenario=scenario, dice=dice, perception=perception),
    )
    env.reset(seed=seed)
    ref.reset(seed=seed)
    rng = np.random.default_rng(seed or 0)
    agents = {}
    if players is not None:
        names = players.split(",")
        agents = {t: make_agent(names[n % len(names)]) for n, t in enumerate(env.scenario.teams)}
    checks = {"observations": 0, "steps": 0, "hidden": 0}
    _same(env, ref, checks)
    for agent in env.agent_iter(max_iter=limit):
        obs, _, termination, truncation, _ = env.last()
        if termination or truncation:
            action = None
        elif agents:
            team = env.battle.creatures[env.agent_to_id[agent]].team
            action = agents[team].act(obs["observation"], obs["action_mask"], rng)
        else:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
        ref.step(action)
        checks["steps"] += 1
        _same(env, ref, checks)
    assert [e.to_dict() for e in env.events] == [e.to_dict() for e in ref.events]
    assert env.damage_ledger == ref.damage_ledger
    return checks


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_random_play_matches_the_reference(scenario):
    checks = _play(scenario, seed=11, players=None, dice=None, limit=120)
    assert checks["steps"] >= 60 and checks["observations"] >= 120


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("players", ["aggressive,defensive", "flanker,aggressive"])
def test_scripted_play_matches_the_reference(scenario, players):
    _play(scenario, seed=5, players=players, dice=None, limit=80)


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize(
    ("perception", "players"),
    [("facing", None), ("spot", "aggressive,flanker")],
)
def test_limited_perception_matches_the_reference(scenario, perception, players):
    """Issue 36: under ``perception="facing"`` and ``"spot"`` both engines hide the same
    foes from the same creatures (observations and masks), bump into them alike, hear,
    forget and roll Spot against Hide alike and keep the same last-known positions, after
    every action of every scenario."""
    checks = _play(scenario, seed=13, players=players, dice=None, limit=160, perception=perception)
    assert checks["steps"] >= 10


@pytest.mark.parametrize("perception", ["facing", "spot"])
def test_limited_perception_restarts_match_the_reference(perception):
    """Later battles of one env restart in the arrays: what was heard, seen and spotted
    starts over (``spot``: everyone's first checks after the initiative)."""
    pair = (
        facing_env.raw_env(scenario="skirmish", engine="compiled", perception=perception),
        readable_env(scenario="skirmish", perception=perception),
    )
    for seed in (3, None):
        _play("skirmish", seed=seed, players=None, dice=None, limit=300, pair=pair)


@pytest.mark.parametrize("dice", ["expected", "deck", "mean"])
def test_every_dice_mode_matches_the_reference(dice):
    _play("skirmish", seed=2, players="aggressive", dice=dice, limit=150)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_later_episodes_of_one_env_match_the_reference(scenario):
    """A fixed scenario's later battles restart in the arrays (``fast.start.restart``:
    the opening, a new dice seed, initiative, the first turn) instead of being built and
    loaded again: one env, whole battles seeded and unseeded, against the reference."""
    pair = (
        facing_env.raw_env(scenario=scenario, engine="compiled"),
        readable_env(scenario=scenario),
    )
    for seed in (3, None, 4):
        _play(scenario, seed=seed, players=None, dice=None, limit=400, pair=pair)


@pytest.mark.parametrize("dice", ["expected", "deck"])
def test_restarts_under_other_dice_match_the_reference(dice):
    pair = (
        facing_env.raw_env(scenario="duel", dice=dice, engine="compiled"),
        readable_env(scenario="duel", dice=dice),
    )
    for seed in (1, None, None):
        _play("duel", seed=seed, players=None, dice=dice, limit=400, pair=pair)


def _initiative_duel(red_feats: list[str]) -> dict:
    sword = {"name": "sword", "bonus": 5, "damage": "1d8+3"}
    fighter = {"size": "medium", "hp": 30, "ac": 16, "attacks": [sword]}
    return {
        "name": "initiative",
        "ruleset": "ua35",
        "map": ".......\n" * 7,
        "creatures": [
            {"id": "red", "team": "red", "pos": [1, 1], "facing": "S", "dex": 10,
             "feats": red_feats, **fighter},
            {"id": "blue", "team": "blue", "pos": [5, 5], "facing": "N", "dex": 14,
             **fighter},
        ],
    }  # fmt: skip


@pytest.mark.parametrize(("feats", "first"), [([], "blue"), (["Improved Initiative"], "red")])
def test_a_restart_rolls_initiative_and_the_first_round_as_the_rules_say(feats, first):
    """SRD-INIT-01 (d20 + Dexterity modifier, +4 with Improved Initiative) and SRD-FF-01
    (flat-footed until one's first turn) in a restarted battle (``fast.start.restart``),
    with expected dice (every d20 is 10.5): blue (Dex 14, +2) acts before red (Dex 10,
    +0) at 12.5 against 10.5, unless red has Improved Initiative (14.5)."""
    from facing_env.scenario import scenario_from_dict

    env = facing_env.raw_env(scenario=scenario_from_dict(_initiative_duel(feats)), dice="expected")
    for seed in (0, None):  # the second reset restarts in the arrays
        env.reset(seed=seed)
        assert (env._engine.templates[0] is None) == (seed is None)  # restarted in arrays
        order = [e.actor for e in env.events if e.kind == "initiative"]
        assert order == [first, "blue" if first == "red" else "red"]
        battle = env.battle
        assert battle.turn.actor == first and battle.initiative.round == 1
        assert {c.id: c.flat_footed for c in battle.creatures.values()} == {
            first: False,
            order[1]: True,
        }
