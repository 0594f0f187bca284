"""Per-team statistics from engine events (facing_env.match.team_stats) and their roll-up
in the evaluation report."""

from __future__ import annotations

from facing_env.evaluate import AgentResult
from facing_env.events import Event
from facing_env.match import team_stats

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
    assert agent.to_dict()["maneuvers"] == {"charge": 1, "withdraw": 1, "ready": 1, "trigger": 0}
