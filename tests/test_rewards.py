"""Rewards from events: exact values for each weight."""

from __future__ import annotations

import pytest

from facing_env.events import Event
from facing_env.rules.rewards import event_rewards, outcome_rewards
from facing_env.scenario import RewardWeights

TEAMS = {"a": "red", "b": "blue", "c": "red"}
W = RewardWeights(
    damage_dealt=0.1, damage_taken=-0.05, kill=0.5, flank_attack=0.02, rear_attack=0.04
)


def test_damage_kill_and_positional_weights():
    events = [
        Event("attack", "a", "b", attack_kind="attack", hit=True, damage=6, defender_area="rear"),
        Event("attack", "c", "b", attack_kind="attack", defender_area="flank"),
        Event("attack", "b", "a", attack_kind="aoo", hit=True, damage=2, defender_area="rear"),
        Event("attack", "a", "b", attack_kind="cleave", hit=True, damage=4, defender_area="front"),
        Event("death", "b"),
    ]
    got = event_rewards(events, TEAMS, W)
    assert got["a"] == pytest.approx(0.1 * 6 + 0.04 + 0.1 * 4 + 0.5 - 0.05 * 2)
    assert got["c"] == pytest.approx(0.02)
    assert got["b"] == pytest.approx(0.1 * 2 - 0.05 * 10)  # an AoO earns no shaping


def test_positional_weights_of_the_defender():
    """``flank_attack_taken`` / ``rear_attack_taken`` charge the creature attacked from its
    flank (or side) / rear by a chosen attack, hit or miss; an AoO from the rear, none."""
    w = RewardWeights(damage_dealt=0.0, flank_attack_taken=-0.02, rear_attack_taken=-0.05)
    events = [
        Event("attack", "a", "b", attack_kind="attack", hit=False, defender_area="rear"),
        Event("attack", "c", "b", attack_kind="attack", defender_area="side"),
        Event("attack", "b", "a", attack_kind="aoo", hit=True, damage=2, defender_area="rear"),
        Event("attack", "b", "c", attack_kind="charge", defender_area="flank"),
        Event("attack", "b", "a", attack_kind="attack", defender_area="front"),
    ]
    got = event_rewards(events, TEAMS, w)
    assert got["b"] == pytest.approx(-0.05 - 0.02)
    assert got["c"] == pytest.approx(-0.02)
    assert got.get("a", 0.0) == 0.0


def test_outcome_weights():
    assert outcome_rewards(TEAMS, "red", W) == {"a": 1.0, "b": -1.0, "c": 1.0}
    assert outcome_rewards(TEAMS, None, W) == {"a": 0.0, "b": 0.0, "c": 0.0}
