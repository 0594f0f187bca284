"""Scripted agents: only masked actions in every scenario, determinism, the registry, the
observation view, and the positional play each agent is named for (UA-OPP-02, SRD-AOO-04)."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import facing_env
from facing_env.actions import ATTACK_BASE, FIVE_FOOT_BASE, READY_INDEX, TURN_BASE
from facing_env.agents import AGENT_NAMES, ObservationView, choose, make_agent
from facing_env.agents.view import layout_of
from facing_env.scenario import load_scenario, scenario_from_dict
from facing_env.types import GridKind
from tests.reference.arena import Episode, attack_origins, play, wilson

SCRIPTED = tuple(name for name in AGENT_NAMES)
SEEDS = (0, 1, 2)


def _seeds(name: str) -> tuple[int, ...]:
    """The seeds an agent plays here: the expert's full episodes (a search per turn) on
    one of them, the other agents' on all three."""
    return SEEDS[:1] if name == "expert" else SEEDS


def _everyone(scenario: str, name: str) -> dict[str, object]:
    return {team: make_agent(name) for team in load_scenario(scenario).teams}


@pytest.mark.parametrize("scenario", facing_env.scenario_names())
@pytest.mark.parametrize("name", SCRIPTED)
def test_agent_only_takes_masked_actions(scenario: str, name: str) -> None:
    """Full episodes with one agent controlling every creature: ``play`` raises on any
    action the mask does not allow."""
    for seed in _seeds(name):
        episode = play(scenario, _everyone(scenario, name), seed)
        assert episode.steps > 0


@pytest.mark.parametrize("name", SCRIPTED)
def test_agents_mixed_on_skirmish(name: str) -> None:
    """Each agent against the flanker, on both sides of the skirmish."""
    for seed in _seeds(name):
        play("skirmish", {"red": make_agent(name), "blue": make_agent("flanker")}, seed)
        play("skirmish", {"red": make_agent("flanker"), "blue": make_agent(name)}, seed)


def _actions(scenario: str, name: str, seed: int) -> list[int]:
    env = facing_env.env(scenario=scenario)
    env.reset(seed=seed)
    agent, rng, out = make_agent(name), np.random.default_rng(seed), []
    for _ in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        action = None
        if not (termination or truncation):
            action = choose(
                agent,
                observation["observation"],
                observation["action_mask"],
                rng,
                lambda: env.unwrapped.battle,
            )
            out.append(action)
        env.step(action)
    return out


@pytest.mark.parametrize("name", SCRIPTED)
def test_agents_are_deterministic_given_the_seed(name: str) -> None:
    first = _actions("skirmish", name, 3)
    assert first == _actions("skirmish", name, 3)
    assert all(type(a) is int for a in first)


def test_random_agent_follows_its_generator() -> None:
    env = facing_env.env(scenario="duel")
    env.reset(seed=0)
    observation = env.observe(env.agent_selection)
    agent = make_agent("random")
    draws = [
        agent.act(observation["observation"], observation["action_mask"], np.random.default_rng(s))
        for s in range(30)
    ]
    assert len(set(draws)) > 1
    assert all(observation["action_mask"][a] for a in draws)


# -- registry ---------------------------------------------------------------------------------


def test_make_agent_names() -> None:
    assert AGENT_NAMES == ("random", "aggressive", "flanker", "defensive", "expert")
    for name in AGENT_NAMES:
        assert callable(make_agent(name).act)
    assert callable(make_agent("expert").act_battle)


def test_make_agent_unknown_name_lists_the_valid_ones() -> None:
    with pytest.raises(ValueError, match="flanker, defensive, expert, model:PATH"):
        make_agent("sneaky")


def test_make_agent_model_needs_a_path() -> None:
    with pytest.raises(ValueError, match="model:"):
        make_agent("model:")


def test_learned_agent_without_sb3_names_the_train_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sb3_contrib", None)  # import fails as if not installed
    with pytest.raises(ImportError, match="'train' extra"):
        make_agent("model:runs/policy.zip")


# -- observation view -------------------------------------------------------------------------


@pytest.mark.parametrize("scenario", facing_env.scenario_names())
def test_view_infers_layout_grid_and_reach(scenario: str) -> None:
    env = facing_env.env(scenario=scenario)
    env.reset(seed=0)
    raw = env.unwrapped
    observation = env.observe(env.agent_selection)
    view = ObservationView(observation["observation"], observation["action_mask"])
    assert view.layout == raw.layout
    assert view.grid is GridKind(raw.battle.kind.value)
    me = raw.battle.creatures[raw.agent_to_id[env.agent_selection]]
    assert view.reach == max(1, facing_env.rules.opportunity.melee_reach(me) // 5)
    assert view.value(0, "is_self") == 1.0
    living = [c for c in raw.battle.creatures.values() if c.team != me.team]
    assert len(view.enemies) == len(living)


def test_layout_of_rejects_impossible_lengths() -> None:
    with pytest.raises(ValueError, match="no observation layout"):
        layout_of(100, 36)


# -- positional play ------------------------------------------------------------------------

_DUEL = {
    "name": "test",
    "ruleset": "ua35",
    "grid": {"kind": "square", "width": 11, "height": 11},
    "max_rounds": 3,
}


def _first_turn(red: dict, blue: dict, name: str, *more: dict) -> tuple[list[int], list]:
    """The actions of red's first turn (red acts first: Dex 40) and the events they made;
    ``more`` are further blue creatures."""
    blues = [{"team": "blue", **b} for b in (blue, *more)]
    spec = {**_DUEL, "creatures": [{"dex": 40, "team": "red", **red}, *blues]}
    env = facing_env.env(scenario=scenario_from_dict(spec), flat_footed_start=False)
    env.reset(seed=0)
    raw, agent, rng = env.unwrapped, make_agent(name), np.random.default_rng(0)
    actions: list[int] = []
    start = len(raw.events)
    while env.agent_selection.startswith("red") and not any(raw.terminations.values()):
        observation = env.observe(env.agent_selection)
        actions.append(agent.act(observation["observation"], observation["action_mask"], rng))
        env.step(actions[-1])
    return actions, raw.events[start:]


ROGUE = {"id": "rogue", "template": "rogue"}
GNOLL = {"id": "gnoll", "template": "gnoll"}


def test_flanker_five_foot_steps_into_the_flank() -> None:
    """In a foe's front, the flanker 5-foot steps to its flank (no attack of opportunity),
    turns to face it and attacks with +2 (UA-OPP-01)."""
    actions, events = _first_turn(
        {**ROGUE, "pos": [5, 4], "facing": "S"}, {**GNOLL, "pos": [5, 5], "facing": "N"}, "flanker"
    )
    assert FIVE_FOOT_BASE <= actions[0] < TURN_BASE
    attacks = [e for e in events if e.kind == "attack"]
    assert [(e.actor, e.defender_area) for e in attacks] == [("rogue", "flank")]


def test_flanker_walks_around_the_threat_to_the_rear() -> None:
    """Three squares in front of a foe, the flanker walks around its threatened squares
    and strikes from the rear with sneak attack; nothing provokes (UA-OPP-02, UA-SNK-01)."""
    _, events = _first_turn(
        {**ROGUE, "pos": [5, 2], "facing": "S"}, {**GNOLL, "pos": [5, 5], "facing": "N"}, "flanker"
    )
    attacks = [e for e in events if e.kind == "attack"]
    assert [(e.actor, e.attack_kind, e.defender_area) for e in attacks] == [
        ("rogue", "attack", "rear")
    ]


def test_aggressive_attacks_what_is_in_front() -> None:
    actions, _ = _first_turn(
        {**ROGUE, "pos": [5, 4], "facing": "S"},
        {**GNOLL, "pos": [5, 5], "facing": "N"},
        "aggressive",
    )
    assert actions[0] == ATTACK_BASE + 1


def test_aggressive_charges_when_it_can() -> None:
    """Four squares from the gnoll with a clear lane, the aggressive rogue charges it
    (CHARGE(slot 1): 35 + 2 slots + 1) and strikes at +2 (EP-CHG-01)."""
    actions, events = _first_turn(
        {**ROGUE, "pos": [5, 1], "facing": "N"},
        {**GNOLL, "pos": [5, 6], "facing": "N"},
        "aggressive",
    )
    assert actions[0] == ATTACK_BASE + 2 + 1
    assert [e.kind for e in events][:2] == ["charge", "attack"]
    assert events[1].attack_kind == "charge" and events[0].pos == (5, 5)


def test_defensive_withdraws_when_flanked() -> None:
    """Between two gnolls that threaten it, the defensive rogue withdraws (EP-WDR-01) from
    one of them and walks out of both threats; the primary target makes no attack of
    opportunity."""
    actions, events = _first_turn(
        {**ROGUE, "pos": [5, 5], "facing": "E"},
        {**GNOLL, "pos": [4, 5], "facing": "E"},
        "defensive",
        {**GNOLL, "id": "gnoll2", "pos": [6, 5], "facing": "W"},
    )
    withdrawal = [e for e in events if e.kind == "withdraw"]
    assert len(withdrawal) == 1 and actions[0] >= ATTACK_BASE + 2 * 3
    primary = withdrawal[0].target
    assert not [e for e in events if e.kind == "attack" and e.actor == primary]
    rogue = [e for e in events if e.kind == "move" and e.actor == "rogue"]
    assert rogue and max(abs(rogue[-1].pos[0] - 5), abs(rogue[-1].pos[1] - 5)) >= 2


def test_defensive_turns_to_face_the_nearest_enemy() -> None:
    actions, _ = _first_turn(
        {**ROGUE, "pos": [5, 2], "facing": "N"},
        {**GNOLL, "pos": [5, 6], "facing": "N"},
        "defensive",
    )
    assert actions == [TURN_BASE + 4, READY_INDEX, 0]  # face south, ready (UA-PER-02), hold


# -- evaluation helpers -----------------------------------------------------------------------


def test_attack_origins_and_wilson() -> None:
    episode = play("duel", {"red": make_agent("flanker"), "blue": make_agent("aggressive")}, 0)
    assert isinstance(episode, Episode)
    counts = attack_origins(episode, {"red": "flanker", "blue": "aggressive"})
    made = sum(1 for e in episode.events if e.kind == "attack" and e.attack_kind != "aoo")
    assert sum(counts.values()) == made
    assert {label for label, _ in counts} <= {"flanker", "aggressive"}
    low, high = wilson(70, 100)
    assert low == pytest.approx(0.604, abs=1e-3) and high == pytest.approx(0.781, abs=1e-3)
