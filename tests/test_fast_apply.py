"""The batched engine's apply kernel plays exactly like the object engine.

Whole battles of every scenario, side by side: the AEC env (the reference: object
engine and ``Dice``) and one ``State`` row stepped by ``facing_env.fast.resolve`` with
the same actions (random masked play and the scripted agents, whose play reaches
charges, withdrawals and readied attacks), under every dice mode. After every action the
row must equal ``load`` of the reference battle field by field (dice counter included),
and the step's events must be the reference's.
"""

from __future__ import annotations

import numpy as np
import pytest

from facing_env.agents import make_agent
from facing_env.fast import resolve as fapply
from facing_env.fast.codec import decode
from facing_env.fast.events import allocate_events, to_events
from facing_env.fast.lookup import tables_of
from facing_env.fast.state import State, allocate_for, load
from facing_env.rules import engine
from facing_env.rules.dice import DICE_MODES
from tests.env_play import SCENARIOS
from tests.reference import readable_env


def _compare(kernel: State, reference: State, where: str) -> None:
    for name in State._fields:
        got, want = getattr(kernel, name)[0], getattr(reference, name)[0]
        if name == "remaining":
            n = int(reference.n_remaining[0])
            got, want = got[:n], want[:n]
        if name == "order":
            n = int(reference.n_order[0])
            got, want = got[:n], want[:n]
        if name == "deck":
            n = int(reference.deck_left[0])
            got, want = got[:n], want[:n]
        turn = name.startswith("turn_") or name in ("provoked", "remaining", "n_remaining")
        if turn and reference.actor[0] < 0:  # the battle is over: no turn to compare
            continue
        nan = got.dtype.kind == "f"  # spot_margin: NaN where no Spot check was rolled
        assert np.array_equal(got, want, equal_nan=nan), (
            f"{where}: {name}: kernel {got!r}, reference {want!r}"
        )


def _play(scenario: str, seed: int, dice: str, players: dict[str, str], steps: int) -> int:
    env = readable_env(scenario=scenario, dice=dice)
    env.reset(seed=seed)
    s = allocate_for([env.battle], n=1)
    load(s, 0, env.battle, env.dice)
    t = tables_of(s)
    ref = allocate_for([env.battle], n=1)
    ev = allocate_events(1)
    mask = np.zeros((1, env.codec.n), dtype=np.int8)
    cost = np.zeros((1, env.codec.n), dtype=np.int32)
    mode = DICE_MODES.index(env.dice_mode)
    ids = list(env.battle.creatures)
    names = [[a.name for a in c.attacks] for c in env.battle.creatures.values()]
    agents = {a: make_agent(players.get(a.split("_")[0], "random")) for a in env.possible_agents}
    rng = np.random.default_rng(seed)
    fapply.auto_end(t, s, 0, ev, mask, cost)  # the scan of the first state
    done = 0
    while env.agents and done < steps:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        obs = env.observe(agent)
        assert np.array_equal(mask[0], obs["action_mask"]), f"{scenario} {seed}: mask at {done}"
        index = agents[agent].act(obs["observation"], obs["action_mask"], rng)
        before = len(env.events)
        env.step(index)
        kind, arg = decode(t, s, 0, index, env.codec.n_slots)
        ev.count[0] = 0
        fapply.apply(t, s, 0, ev, kind, arg, cost[0, index], mask, cost, mode)
        where = f"{scenario} seed {seed} dice {dice} action {done} ({index})"
        assert not ev.overflow[0]
        assert to_events(ev, 0, ids, names) == env.events[before:], where
        load(ref, 0, env.battle, env.dice)
        _compare(s, ref, where)
        assert bool(fapply.is_over(s, 0)) is engine.is_over(env.battle)
        done += 1
    return done


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_random_and_scripted_play_match_the_object_engine(scenario: str) -> None:
    played = 0
    for seed, players in (
        (1, {}),
        (2, {"red": "aggressive", "blue": "defensive"}),
        (3, {"red": "flanker", "blue": "aggressive", "party": "defensive"}),
        (4, {"blue": "flanker", "red": "defensive", "dragon": "aggressive"}),
    ):
        played += _play(scenario, seed, "roll", players, 400)
    assert played > 200


@pytest.mark.parametrize("dice", [d for d in DICE_MODES if d != "roll"])
def test_every_dice_mode_matches(dice: str) -> None:
    for scenario in ("duel", "skirmish", "hex_duel"):
        _play(scenario, 5, dice, {"red": "aggressive", "blue": "flanker"}, 300)
