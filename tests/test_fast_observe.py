"""The batched engine's observation writer agrees with the env bit for bit.

``facing_env.fast.observation.observe_batch`` reads battles loaded into arrays
(``facing_env.fast.state.load``) and must write exactly ``env.observe(agent)
["observation"]`` for every creature, the actor and the others (one row at a time, the
creature's slot given), on states of every scenario reached by random masked play and by
the scripted agents (which charge, withdraw and ready attacks), with rolled and mean dice
(fractional hit points), and after the battle's end; and the actors' rows of many battles
at once. (The tests call the entry point ``VectorEnv`` uses, with its argument types: no
other compile.)
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest

import facing_env
from facing_env.agents import make_agent
from facing_env.fast.lookup import tables_of
from facing_env.fast.observation import KEEP, observe_batch, view_for
from facing_env.fast.state import allocate_for, load
from facing_env.observation import CHANNELS, FEATURES, SCALARS, TACTIC_SCALARS, TACTICS
from facing_env.rules import engine
from facing_env.rules.battle import Battle
from facing_env.scenario import Scenario, load_scenario, scenario_from_dict
from tests.env_play import SCENARIOS, masked_choice
from tests.reference import readable_env


@dataclass
class Snapshot:
    """A battle at a decision (or at its end) and the env's observation of every
    creature, by slot (spec order)."""

    battle: Battle
    views: dict[int, np.ndarray] = field(default_factory=dict)


def _snapshot(env: object) -> Snapshot:
    battle = env.battle
    ids = list(battle.creatures)
    snap = Snapshot(battle.copy())
    for agent, cid in env.agent_to_id.items():
        snap.views[ids.index(cid)] = env.observe(agent)["observation"].copy()
    return snap


def _play(
    scenario: str | Scenario, seed: int, dice: str, players: str | None, every: int, limit: int
) -> list[Snapshot]:
    """Snapshots of one episode, every ``every``-th living decision (at most ``limit``),
    and the state after its end: random masked actions, or a scripted agent per team."""
    env = readable_env(scenario=scenario, dice=dice)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    agents = {}
    if players is not None:
        names = players.split(",")
        agents = {t: make_agent(names[n % len(names)]) for n, t in enumerate(env.scenario.teams)}
    out: list[Snapshot] = []
    decisions, finished = 0, False
    for agent in env.agent_iter():
        obs, _, termination, truncation, _ = env.last()
        if termination or truncation:
            if not finished and (truncation or engine.is_over(env.battle)):
                out.append(_snapshot(env))  # the battle's end (won, or the round limit)
                finished = True
            env.step(None)
            continue
        if decisions % every == 0 and len(out) < limit:
            out.append(_snapshot(env))
        decisions += 1
        if agents:
            team = env.battle.creatures[env.agent_to_id[agent]].team
            action = agents[team].act(obs["observation"], obs["action_mask"], rng)
        else:
            action = masked_choice(rng, obs["action_mask"])
        env.step(action)
    return out


def _names(index: int, layout: object) -> str:
    """Where a value of the vector sits, by the layout's names."""
    w = layout.window
    if index < layout.window_size:
        cell, ch = divmod(index, len(CHANNELS))
        return f"window[{cell // w}, {cell % w}].{CHANNELS[ch]}"
    index -= layout.window_size
    if index < layout.table_size:
        row, col = divmod(index, len(FEATURES))
        return f"table[{row}].{FEATURES[col]}"
    index -= layout.table_size
    if index < len(SCALARS):
        return f"scalar.{SCALARS[index]}"
    index -= len(SCALARS)
    if index < layout.n_slots * len(TACTICS):
        row, col = divmod(index, len(TACTICS))
        return f"tactics[{row}].{TACTICS[col]}"
    return f"tactic_scalar.{TACTIC_SCALARS[index - layout.n_slots * len(TACTICS)]}"


def _check(got: np.ndarray, want: np.ndarray, layout: object, where: str) -> None:
    if np.array_equal(got, want):
        return
    bad = np.flatnonzero(got != want)[:8]
    detail = ", ".join(f"{_names(int(j), layout)}: {got[j]!r} != {want[j]!r}" for j in bad)
    raise AssertionError(f"{where}: {len(np.flatnonzero(got != want))} values differ: {detail}")


PLANS = {
    # (seed, dice, players, every, limit): random masked play, then the scripted agents
    "random": [(1, "roll", None, 2, 12), (2, "mean", None, 2, 12)],
    "scripted": [
        (3, "roll", "aggressive,defensive", 2, 10),
        (4, "mean", "flanker,aggressive", 2, 10),
        (5, "roll", "defensive,flanker", 2, 10),
        (6, "mean", "flanker", 2, 10),
    ],
}


def _compare(scenario: str | Scenario, plans: list[tuple]) -> tuple[int, int, int]:
    """Compare every snapshot of ``plans``; returns the number of states, of observations
    compared and of battles over among the states."""
    snaps = [s for plan in plans for s in _play(scenario, *plan)]
    name = scenario if isinstance(scenario, str) else scenario.name
    env = facing_env.raw_env(scenario=scenario)
    layout, max_rounds = env.layout, env.max_rounds
    s = allocate_for([x.battle for x in snaps])
    for i, x in enumerate(snaps):
        load(s, i, x.battle)
    t = tables_of(s)
    v = view_for(t, s, layout, max_rounds)
    rows = np.full((len(snaps), layout.size), np.nan, dtype=np.float32)
    slots = np.full(len(snaps), KEEP, dtype=np.int32)
    compared = 0
    for i, x in enumerate(snaps):
        for k, want in x.views.items():  # every creature: the actor, the others, the dead
            slots[i] = k  # the one row i: creature k's observation of battle i
            observe_batch(t, s, v, slots, rows, i, i + 1)
            _check(rows[i], want, layout, f"{name} state {i} slot {k}")
            compared += 1
        slots[i] = KEEP
    rows[:] = np.nan
    observe_batch(t, s, v, s.actor, rows, 0, len(rows))
    for i, x in enumerate(snaps):
        want = x.views[int(s.actor[i])] if s.actor[i] >= 0 else np.zeros(layout.size)
        _check(rows[i], want, layout, f"{name} batch row {i}")
    finished = sum(1 for x in snaps if engine.is_over(x.battle))
    assert (s.actor < 0).sum() == finished
    return len(snaps), compared, finished


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_observe_matches_the_env_random_play(scenario: str) -> None:
    states, compared, _ = _compare(scenario, PLANS["random"])
    assert states >= 20 and compared >= 2 * states


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_observe_matches_the_env_scripted_play(scenario: str) -> None:
    states, compared, finished = _compare(scenario, PLANS["scripted"])
    assert states >= 40 and compared >= 2 * states and finished >= 1


def test_layout_of_the_view() -> None:
    """The view's offsets are the env layout's."""
    env = facing_env.raw_env(scenario="procedural")
    scenario = load_scenario("procedural")
    battle = scenario.build(np.random.default_rng(0))
    s = allocate_for([battle])
    load(s, 0, battle)
    t = tables_of(s)
    v = view_for(t, s, env.layout, env.max_rounds)
    assert (v.size, v.table_at, v.tactics_at) == (
        env.layout.size,
        env.layout.window_size,
        env.layout.tactics_offset,
    )
    assert v.n_slots == scenario.max_creatures() == 6


def _creature(cid: str, team: str, pos: list[int], **fields: object) -> dict[str, object]:
    return {"id": cid, "team": team, "pos": pos, "size": "Medium", "hp": 30, **fields}


SWORD = {"name": "sword", "bonus": 6, "damage": "1d8+2"}
SLING = {"name": "sling", "kind": "ranged", "range": 50, "bonus": 5, "damage": "1d4"}
CHAIN = {"name": "spiked chain", "reach": 10, "bonus": 7, "damage": "2d4+3"}
HAND_MADE = {
    # ua35: a player character with iteratives and Great Cleave (trades attacks for
    # steps), Whirlwind Attack, a slinger whose first attack is ranged, a rogue, a Large
    # foe with reach and improved uncanny dodge, a Tiny one, a faceless one
    "square_specials": {
        "name": "square_specials",
        "ruleset": "ua35",
        "grid": {"kind": "square", "width": 9, "height": 8},
        "terrain": [{"pos": [4, 3], "kind": "difficult"}, {"pos": [2, 5], "kind": "impeded"},
                    {"pos": [6, 2], "kind": "pillar"}, {"pos": [0, 3], "kind": "hazardous"}],
        "creatures": [
            _creature("A", "pc", [2, 1], base_attack_bonus=11, player_character=True, hp=60,
                      feats=["Great Cleave", "Combat Reflexes"], attacks=[SWORD], facing="S"),
            _creature("B", "pc", [4, 0], size="Small", attacks=[SLING, SWORD], facing="S"),
            _creature("R", "pc", [6, 1], sneak_attack="3d6", rogue_level=8, attacks=[SWORD],
                      feats=["Whirlwind Attack", "Cleave"], player_character=True,
                      base_attack_bonus=6),
            _creature("L", "foe", [2, 5], size="Large", attacks=[CHAIN], facing="N",
                      improved_uncanny_dodge=4, speed=40, hp=50),
            _creature("T", "foe", [5, 6], size="Tiny", attacks=[{"name": "bite", "reach": 0}],
                      hp=4),
            _creature("J", "foe", [7, 6], size="Large", faceless=True, hp=12,
                      immune_to_sneak_attack=True, speed=20, attacks=[SWORD]),
        ],
    },
    # standard flanking on hexes (the 150-degree rule) with triangle and flower footprints
    "hex_standard": {
        "name": "hex_standard",
        "ruleset": "standard",
        "grid": {"kind": "hex", "width": 9, "height": 8},
        "terrain": [{"pos": [4, 1], "kind": "difficult"}, {"pos": [0, 1], "kind": "blocked"},
                    {"pos": [5, 3], "kind": "impeded"}, {"pos": [1, 6], "kind": "pillar"}],
        "creatures": [
            _creature("T", "foe", [2, 2], size="Large", attacks=[CHAIN], speed=40),
            _creature("A", "pc", [5, 1], sneak_attack="2d6", attacks=[SWORD]),
            _creature("H", "foe", [3, 5], size="Huge", speed=40, attacks=[SWORD]),
            _creature("B", "pc", [6, 4], player_character=True, base_attack_bonus=6,
                      attacks=[SWORD]),
            _creature("C", "pc", [0, 4], size="Small", attacks=[SLING]),
        ],
    },
    # standard flanking on squares: reach (corner lines), a Huge creature over a Medium
    # one (internal flanking, shared squares), all-around vision
    "square_standard_big": {
        "name": "square_standard_big",
        "ruleset": "standard",
        "grid": {"kind": "square", "width": 9, "height": 9},
        "creatures": [
            _creature("H", "foe", [3, 3], size="Huge", attacks=[CHAIN], hp=60),
            _creature("M", "pc", [6, 4], sneak_attack="2d6", attacks=[SWORD], speed=20),
            _creature("G", "pc", [1, 1], size="Large", attacks=[CHAIN], speed=40),
            _creature("R", "pc", [7, 6], sneak_attack="1d6", attacks=[SWORD, SLING]),
            _creature("V", "foe", [7, 1], all_around_vision=True, attacks=[SWORD]),
        ],
    },
    # side_rear: improved chieftain, pack fighters, uncanny dodge, Large creatures
    "side_rear_specials": {
        "name": "side_rear_specials",
        "ruleset": "side_rear",
        "grid": {"kind": "square", "width": 9, "height": 8},
        "creatures": [
            _creature("C", "red", [1, 1], improved_chieftain=True, sneak_attack="2d6",
                      attacks=[SWORD], facing="S"),
            _creature("P", "red", [4, 1], pack_fighter_bonus=2, attacks=[SWORD], facing="S"),
            _creature("L", "red", [6, 0], size="Large", attacks=[CHAIN], facing="S"),
            _creature("U", "blue", [2, 6], uncanny_dodge=True, attacks=[SWORD], facing="N"),
            _creature("W", "blue", [5, 5], size="Large", pack_fighter_bonus=4,
                      attacks=[SWORD], facing="N", all_around_vision=True),
        ],
    },
    # Great Cleave among weak foes: the cleave attack offered, iteratives traded for steps
    "cleave": {
        "name": "cleave",
        "ruleset": "ua35",
        "grid": {"kind": "square", "width": 7, "height": 6},
        "creatures": [
            _creature("A", "pc", [2, 2], base_attack_bonus=11, player_character=True, hp=80,
                      feats=["Great Cleave"], attacks=[{**SWORD, "bonus": 15}], facing="E"),
            _creature("B", "foe", [3, 2], hp=2, facing="W", attacks=[SWORD]),
            _creature("C", "foe", [3, 3], hp=2, facing="W", attacks=[SWORD]),
            _creature("D", "foe", [3, 1], hp=3, facing="W", attacks=[SWORD]),
            _creature("E", "foe", [6, 5], hp=60, attacks=[SWORD]),
        ],
    },
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(HAND_MADE))
def test_observe_matches_the_env_on_hand_made_battles(name: str) -> None:
    """Rules no shipped scenario reaches: player characters trading attacks for steps,
    a ranged first attack, Tiny and faceless creatures, improved uncanny dodge, standard
    flanking on hexes and with reach and internal creatures, the side_rear specials."""
    scenario = scenario_from_dict({"max_rounds": 12, **HAND_MADE[name]})
    plans = [
        (7, "roll", None, 1, 30),
        (8, "mean", None, 1, 30),
        (9, "roll", "aggressive,flanker", 1, 25),
        (10, "mean", "defensive,aggressive", 1, 25),
    ]
    states, compared, _ = _compare(scenario, plans)
    assert states >= 60 and compared >= 3 * states
