"""Per-team statistics from engine events (facing_env.evaluation.match.team_stats), their roll-up
in the evaluation report, and games played in batches (facing_env.evaluation.match.play_games)."""

from __future__ import annotations

import numpy as np
import pytest

from facing_env.agents import make_agent
from facing_env.evaluation.match import aec_actions, play_game, play_games, team_stats
from facing_env.evaluation.report import AgentResult
from facing_env.events import Event

TEAMS = {"a": "red", "b": "blue"}


def _attack(area: str | None, modifier: int, kind: str = "attack", damage: int = 0) -> Event:
    return Event(
        "attack",
        "a",
        "b",
        attack_kind=kind,
        defender_area=area,
        facing_modifier=modifier,
        hit=damage > 0,
        damage=damage,
    )


def test_attacks_are_counted_by_defender_area_and_positional_bonus():
    """UA-OPP-01/02: +2 from the flank, UA-ATK-02: -5 into one's own flank (net -3 is no
    bonus); SRD-FLANK-01: classic flanking (+2, no defender area) counts as a bonus; an
    attack of opportunity is not a chosen attack."""
    events = [
        _attack("flank", 2, damage=5),
        _attack("front", 0),
        _attack("flank", -3),
        _attack("rear", 4, damage=7),
        _attack(None, 2),
        _attack("front", 4, kind="aoo", damage=3),
        _attack("front", 0, kind="cleave"),
    ]
    red = team_stats(events, TEAMS)["red"]
    assert dict(red.attacks) == {"flank": 2, "front": 2, "rear": 1, "none": 1}
    assert red.bonus_attacks == 3
    assert red.attacks_of_opportunity == 1
    assert red.damage_dealt == 15
    assert red.hits == 3


def test_positional_bonus_share_rolls_up():
    r = AgentResult("x")
    r.attacks.update({"front": 6, "flank": 3, "rear": 1})
    r.bonus_attacks = 4
    assert r.positional_bonus_share == 0.4
    assert r.flank_or_rear_share == 0.4
    assert r.to_dict()["positional_bonus_share"] == 0.4
    assert AgentResult("idle").positional_bonus_share == 0.0


def test_charges_withdrawals_and_readied_attacks_are_counted():
    """Env v1: a charge's attack and a readied attack are chosen attacks (by defender area);
    the charge, withdraw, ready and trigger events are counted for the team that made them
    (a trigger for the readier) and rolled up per agent."""
    events = [
        Event("charge", "a", "b", pos=(3, 0), cost=3),
        _attack("front", 0, kind="charge", damage=4),
        Event("ready", "b"),
        Event("withdraw", "a", "b", cost=6),
        Event("trigger", "b", "a", pos=(1, 0)),
        Event("attack", "b", "a", attack_kind="readied", defender_area="flank", hit=True, damage=2),
        Event("ready", "a"),
    ]
    stats = team_stats(events, TEAMS)
    red, blue = stats["red"], stats["blue"]
    assert dict(red.maneuvers) == {"charge": 1, "withdraw": 1, "ready": 1}
    assert dict(blue.maneuvers) == {"ready": 1, "trigger": 1}
    assert dict(red.attacks) == {"front": 1} and dict(blue.attacks) == {"flank": 1}
    assert (red.damage_dealt, blue.damage_dealt) == (4, 2)
    agent = AgentResult("aggressive")
    agent.maneuvers.update(red.maneuvers)
    assert agent.to_dict()["maneuvers"] == {
        "charge": 1,
        "withdraw": 1,
        "ready": 1,
        "trigger": 0,
        "turn": 0,
        "bump": 0,
    }


@pytest.mark.parametrize(
    ("scenario", "a", "b"),
    [
        ("duel", "flanker", "random"),
        ("skirmish", "aggressive", "defensive"),
        ("procedural", "random", "flanker"),
        ("hex_duel", "defensive", "flanker"),
    ],
)
def test_play_games_plays_the_games_play_game_plays(scenario, a, b):
    """Game ``g`` of a batch is ``play_game(..., seed + g)``: the same winner, rounds,
    per-team statistics (attack origins included), events and actions (the dead steps,
    which the batch does not take, put back by ``aec_actions``)."""
    agents = {a: make_agent(a), b: make_agent(b)}
    teams = ("red", "blue")
    lineups = [
        {teams[0]: agents[a], teams[1]: agents[b]}
        if g % 2 == 0
        else {teams[0]: agents[b], teams[1]: agents[a]}
        for g in range(6)
    ]
    seen = []
    batch = play_games(scenario, lineups, 900, progress=seen.append, max_rounds=6)
    assert len(batch) == 6 and seen == [1] * 6
    origins = 0
    for g, (lineup, got) in enumerate(zip(lineups, batch, strict=True)):
        want = play_game(scenario, lineup, 900 + g, max_rounds=6)
        assert got.seed == want.seed == 900 + g
        assert (got.winner, got.rounds) == (want.winner, want.rounds), g
        assert got.events == want.events, g
        assert got.teams == want.teams, g
        assert got.actions == [x for x in want.actions if x[1] is not None]
        full, env = aec_actions(scenario, got.seed, got.actions, max_rounds=6)
        assert full == want.actions and env.events == want.events
        origins += sum(sum(s.attack_origins.values()) for s in got.teams.values())
    assert origins > 0


def test_aec_actions_names_a_record_that_does_not_fit():
    game = play_game("duel", {"red": make_agent("aggressive"), "blue": make_agent("flanker")}, 3)
    short = [x for x in game.actions if x[1] is not None]
    with pytest.raises(ValueError, match="needs more than"):
        aec_actions("duel", 3, short[:-1])
    with pytest.raises(ValueError, match="left over"):
        aec_actions("duel", 3, [*short, short[-1]])
    wrong = [(("blue_0" if n == "red_0" else "red_0"), x) for n, x in short]
    with pytest.raises(ValueError, match="acts, the record names"):
        aec_actions("duel", 3, wrong)
    assert np.sum([x is None for _, x in game.actions]) >= 1  # the loser's dead step
