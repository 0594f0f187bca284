"""Fuzz: thousands of random masked turns on every scenario, checking invariants each step.

Played through ``facing_env.env`` (PettingZoo's wrappers included) with uniformly random
masked actions from a seeded generator. After every step:

- living creatures never overlap, never leave the map and never stand on blocked terrain;
  the occupancy index matches their spaces; facings are allowed ones;
- hit points only fall, and by exactly the damage the step's attack events record; a
  creature dies once, in the step its hit points reach 0;
- the dead never act (no event of theirs after their death, no attack on them), and their
  agents only ever take PettingZoo's ``None`` dead step; the acting agent is the engine's
  actor; nobody attacks an ally;
- ``damage_ledger`` is the damage each agent's attacks recorded; every step's rewards are
  the scenario weights applied to the step's events (damage dealt and taken, kills) plus
  the outcome (victory / defeat / draw, truncation draw); over an episode each agent's
  rewards received through ``last()`` add up to those weights times its ledger, damage
  taken, kills and outcome;
- the actor's observation lies in its space; truncation comes only after ``max_rounds``.
"""

from __future__ import annotations

from collections import Counter, defaultdict

import numpy as np
import pytest

import facing_env
from facing_env.events import Event
from facing_env.rules import engine, geometry
from facing_env.types import Terrain
from tests.env_play import SCENARIOS, masked_choice

TURNS_PER_CASE = 1000  # whole episodes until at least this many: > 16,000 turns in all
DICE = ("roll", "expected")
LIVING_ACTS = {
    "turn_start",
    "move",
    "five_foot_step",
    "turn",
    "run",
    "attack",
    "charge",
    "withdraw",
    "ready",
    "trigger",
}
MANEUVERS = {"charge", "withdraw", "ready", "trigger"}
"""The events of the tactical actions (env v1): random play must exercise every one."""


def _snapshot(battle) -> dict[str, int]:
    return {cid: c.hp for cid, c in battle.creatures.items()}


def check_board(battle) -> None:
    occupied: dict[tuple[int, int], str] = {}
    for c in battle.living():
        for cell in battle.cells_of(c):
            assert battle.in_bounds(cell), f"{c.id} left the map at {cell}"
            assert battle.terrain_at(cell) not in (Terrain.BLOCKED, Terrain.PILLAR), (
                f"{c.id} stands on blocked terrain at {cell}"
            )
            assert cell not in occupied, f"{c.id} overlaps {occupied[cell]} at {cell}"
            occupied[cell] = c.id
        if battle.table(c) is not None:
            assert c.facing in geometry.allowed_facings(battle.kind, battle.ruleset, c.shape)
    index = {cell: ids for cell, ids in battle._occupancy.items() if ids}
    assert index == {cell: [cid] for cell, cid in occupied.items()}, "stale occupancy index"


def check_events(battle, events: list[Event], hp_before: dict[str, int], teams) -> None:
    dead = {cid for cid, hp in hp_before.items() if hp <= 0}
    damage: Counter[str] = Counter()
    deaths = []
    died_now: set[str] = set()
    for e in events:
        assert e.actor not in dead, f"{e.actor}, dead before the step, appears in {e}"
        if e.kind in LIVING_ACTS:
            assert e.actor not in died_now, f"dead {e.actor} acted: {e}"
        else:  # an actor killed on its own turn (attack of opportunity) still ends it
            assert e.actor not in died_now or e.kind in ("end_turn", "round"), e
        if e.kind == "attack":
            assert e.target not in dead | died_now, f"attack on the dead: {e}"
            assert teams[e.actor] != teams[e.target], f"friendly fire: {e}"
            assert e.damage >= 0 and (e.damage == 0 or e.hit)
            damage[e.target] += e.damage
        if e.kind == "death":
            deaths.append(e.actor)
            died_now.add(e.actor)
    for cid, c in battle.creatures.items():
        assert c.hp <= hp_before[cid], f"{cid} gained hit points"
        assert hp_before[cid] - c.hp == damage[cid], f"{cid}: hp change is not the damage dealt"
    newly_dead = {cid for cid, c in battle.creatures.items() if c.hp <= 0 < hp_before[cid]}
    assert sorted(deaths) == sorted(newly_dead), "one death event per creature reaching 0 hp"


def expected_rewards(env, events: list[Event], agents: list[str]) -> dict[str, float]:
    """The step's rewards, from the scenario weights and the events, for ``agents``."""
    u = env.unwrapped
    w = u.scenario.rewards
    team = {cid: c.team for cid, c in u.battle.creatures.items()}
    out = dict.fromkeys(agents, 0.0)
    last_hit: dict[str, str] = {}

    def add(cid: str, value: float) -> None:
        agent = u.id_to_agent[cid]
        if agent in out:
            out[agent] += value

    for e in events:
        if e.kind == "attack" and e.attack_kind != "aoo":  # positional shaping weights
            if e.defender_area in ("flank", "side"):
                add(e.actor, w.flank_attack)
                add(e.target, w.flank_attack_taken)
            elif e.defender_area == "rear":
                add(e.actor, w.rear_attack)
                add(e.target, w.rear_attack_taken)
        if e.kind == "attack" and e.damage:
            add(e.actor, w.damage_dealt * e.damage)
            add(e.target, w.damage_taken * e.damage)
            last_hit[e.target] = e.actor
        elif e.kind == "death" and e.actor in last_hit:
            add(last_hit[e.actor], w.kill)
    if engine.is_over(u.battle):
        winner = engine.winner(u.battle)
        for cid in team:
            if winner is None:
                add(cid, w.draw)
            else:
                add(cid, w.victory if team[cid] == winner else w.defeat)
    elif u.battle.initiative.round > u.max_rounds:
        for agent in agents:
            if not u.terminations[agent]:
                out[agent] += w.draw
    return out


def play_episode(env, rng: np.random.Generator) -> int:  # noqa: C901  (every invariant, in step order)
    """One whole episode with every invariant checked; returns the living turns played."""
    u = env.unwrapped
    w = u.scenario.rewards
    teams = {cid: c.team for cid, c in u.battle.creatures.items()}
    received: defaultdict[str, float] = defaultdict(float)
    expected_total: defaultdict[str, float] = defaultdict(float)
    taken: Counter[str] = Counter()
    kills: Counter[str] = Counter()
    outcome: defaultdict[str, float] = defaultdict(float)
    positional: defaultdict[str, float] = defaultdict(float)
    check_board(u.battle)
    assert not any(u.terminations.values()) and not any(u.truncations.values())
    turns = 0
    for agent in env.agent_iter():
        obs, reward, termination, truncation, _ = env.last()
        received[agent] += reward
        cid = u.agent_to_id[agent]
        creature = u.battle.creatures[cid]
        if termination or truncation:
            over = engine.is_over(u.battle) or u.battle.initiative.round > u.max_rounds
            assert creature.hp <= 0 or over, f"living {agent} terminated mid-battle"
            n_events, key = len(u.events), engine.state_key(u.battle)
            env.step(None)
            assert len(u.events) == n_events and engine.state_key(u.battle) == key
            assert agent not in u.agents, "the dead step removes the agent"
            continue
        assert creature.hp > 0, f"dead {agent} was asked to act"
        assert engine.actor(u.battle).id == cid
        assert env.observation_space(agent).contains(obs)
        hp_before = _snapshot(u.battle)
        ledger_before = dict(u.damage_ledger)
        agents_before = list(u.agents)
        round_before = u.battle.initiative.round
        n_events = len(u.events)
        env.step(masked_choice(rng, obs["action_mask"]))
        turns += 1
        events = u.events[n_events:]
        check_board(u.battle)
        check_events(u.battle, events, hp_before, teams)
        assert u.battle.initiative.round >= round_before
        assert set(u.agents) == set(agents_before), "agents leave only by their dead step"
        for a in u.agents:
            mine = u.agent_to_id[a]
            dealt = sum(e.damage for e in events if e.kind == "attack" and e.actor == mine)
            assert u.damage_ledger[a] == ledger_before[a] + dealt
            if u.battle.creatures[u.agent_to_id[a]].hp <= 0:
                assert u.terminations[a], f"{a} is dead but not terminated"
            if u.truncations[a]:
                assert u.battle.initiative.round > u.max_rounds
        want = expected_rewards(env, events, list(u.agents))
        assert u.rewards == pytest.approx(want), f"rewards {u.rewards} != {want}"
        for a, value in want.items():
            expected_total[a] += value
        last_hit: dict[str, str] = {}
        for e in events:
            if e.kind == "attack" and e.attack_kind != "aoo" and e.actor in u.id_to_agent:
                defender = u.id_to_agent[e.target]
                if e.defender_area in ("flank", "side"):
                    positional[u.id_to_agent[e.actor]] += w.flank_attack
                    positional[defender] += w.flank_attack_taken
                elif e.defender_area == "rear":
                    positional[u.id_to_agent[e.actor]] += w.rear_attack
                    positional[defender] += w.rear_attack_taken
            if e.kind == "attack" and e.damage:
                taken[u.id_to_agent[e.target]] += e.damage
                last_hit[e.target] = e.actor
            elif e.kind == "death":
                kills[u.id_to_agent[last_hit[e.actor]]] += 1
        if engine.is_over(u.battle) or any(u.truncations.values()):
            winner = engine.winner(u.battle)
            for a in u.agents:
                if engine.is_over(u.battle):
                    mine = teams[u.agent_to_id[a]]
                    outcome[a] += (
                        w.draw if winner is None else w.victory if mine == winner else w.defeat
                    )
                elif u.truncations[a]:
                    outcome[a] += w.draw
            assert all(u.terminations[a] or u.truncations[a] for a in u.agents)
    assert not u.agents
    for agent in u.agent_to_id:  # every reward has been handed out
        assert received[agent] == pytest.approx(expected_total[agent])
        from_ledger = (
            w.damage_dealt * u.damage_ledger[agent]
            + w.damage_taken * taken[agent]
            + w.kill * kills[agent]
            + outcome[agent]
            + positional[agent]
        )
        assert received[agent] == pytest.approx(from_ledger), agent
    total_damage = sum(e.damage for e in u.events if e.kind == "attack")
    assert sum(u.damage_ledger.values()) == total_damage
    return turns


@pytest.mark.parametrize("dice", DICE)
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_random_masked_play_keeps_every_invariant(scenario, dice):
    env = facing_env.env(scenario=scenario, dice=dice)
    rng = np.random.default_rng([SCENARIOS.index(scenario), DICE.index(dice)])
    turns, seed = 0, 0
    while turns < TURNS_PER_CASE:
        env.reset(seed=seed)
        turns += play_episode(env, rng)
        seed += 1


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_random_play_charges_withdraws_and_readies(scenario):
    """Random masked play exercises every tactical action on every scenario (each appears
    as an event: a charge, a withdrawal, a readied attack and its trigger) with every
    invariant of :func:`play_episode` holding, the positional reward weights included."""
    shaped = {
        "flank_attack": 0.01,
        "rear_attack": 0.02,
        "flank_attack_taken": -0.03,
        "rear_attack_taken": -0.04,
    }
    env = facing_env.env(scenario=scenario, dice="roll", rewards=shaped)
    rng = np.random.default_rng([7, SCENARIOS.index(scenario)])
    seen: set[str] = set()
    for seed in range(200):
        env.reset(seed=1000 + seed)
        play_episode(env, rng)
        seen |= {e.kind for e in env.unwrapped.events} & MANEUVERS
        if seen == MANEUVERS:
            return
    pytest.fail(f"{scenario}: random play never produced {sorted(MANEUVERS - seen)}")


def test_dead_agents_only_take_the_none_step():
    """A dead agent's only step is ``None``: any action raises before touching the env."""
    env = facing_env.raw_env(scenario="dragon", dice="roll")
    rng = np.random.default_rng(5)
    for seed in range(20):
        env.reset(seed=seed)
        for agent in env.agent_iter():
            obs, _, termination, truncation, _ = env.last()
            if termination or truncation:
                assert np.flatnonzero(obs["action_mask"]).tolist() == [0]
                key, n_events = engine.state_key(env.battle), len(env.events)
                with pytest.raises(ValueError, match="only valid action is None"):
                    env.step(0)
                assert agent in env.agents and env.agent_selection == agent
                assert engine.state_key(env.battle) == key and len(env.events) == n_events
                if env.battle.creatures[env.agent_to_id[agent]].hp <= 0 and env.agents[1:]:
                    return
                env.step(None)
                continue
            env.step(masked_choice(rng, obs["action_mask"]))
    pytest.fail("no creature died in 20 dragon episodes")
