"""facing_env.ceiling: exact damage races and the exhaustive one-turn attack search.

The races are checked against values worked by hand and against the engine's own mean
damage; the search against ASCII boards, citing the rules that bound a duel (UA-MOVE-02,
UA-MOVE-05, UA-MOVE-06, UA-OPP-01, UA-OPP-02, UA-ATK-02, SRD-AOO-02, SRD-AOO-04)."""

from __future__ import annotations

import pytest

from facing_env import engine
from facing_env.ceiling import (
    Fighter,
    best_free_modifier,
    damage_distribution,
    duel_fighters,
    main,
    race,
    turn_attacks,
)
from facing_env.dice import Dice, mean_damage
from tests.boards import board

# The duel's fighter (configs/duel.yaml: the bestiary fighter with 52 hit points).
FIGHTER = {
    "hp": 52,
    "ac": 17,
    "dex": 13,
    "speed": 30,
    "base_attack_bonus": 3,
    "armor": "medium",
    "feats": ["Combat Reflexes"],
    "attacks": [{"name": "longsword", "bonus": 6, "damage": "1d8+3", "threat_range": 19}],
}

ORTHOGONAL = """
    . . . . . .
    . . A . . .
    . . B . . .
    . . . . . .
    . . . . . .
"""
DIAGONAL = """
    . . . . . .
    . A . . . .
    . . B . . .
    . . . . . .
    . . . . . .
"""


def _a_to_act(text: str, ruleset: str, a_facing: str, b_facing: str):
    b = board(
        text,
        ruleset,
        A={"facing": a_facing, "team": "a", **FIGHTER},
        B={"facing": b_facing, "team": "b", **FIGHTER},
    )
    engine.start(b, Dice(0), flat_footed_start=False)
    while b.turn.actor != "A":
        engine.apply(b, engine.Action(engine.END_TURN), Dice(0))
    return b


def _attacks(options) -> set[tuple[int, int]]:
    return {(o.facing_modifier, o.provoked) for o in options if o.kind == "attack"}


@pytest.mark.parametrize(("modifier", "mean"), [(0, 4.125), (2, 4.95), (4, 5.775)])
def test_damage_distribution_matches_the_engines_mean(modifier, mean):
    """The duel's longsword (+6, 1d8+3, threat 19-20, x2) against AC 17: front 4.125,
    flank (+2, UA-OPP-01) 4.95, rear (+4, UA-OPP-02) 5.775 damage per attack, the values
    of ``dice.mean_damage``; a miss (10 faces of 20 from the front) deals 0."""
    p = damage_distribution(6 + modifier, 17, "1d8+3", threat_range=19)
    assert p.sum() == pytest.approx(1.0)
    assert (p * range(len(p))).sum() == pytest.approx(mean)
    assert mean_damage(6 + modifier, 17, damage="1d8+3", threat_range=19) == pytest.approx(mean)
    assert p[0] == pytest.approx((10 - modifier) / 20)
    assert len(p) == 23  # a critical: 2d8+6, up to 22
    assert p[1] == p[2] == p[3] == 0.0  # a hit deals at least 1d8+3 = 4


def test_race_of_one_hit_point_fighters_worked_by_hand():
    """Each hits half the time (a d20 of 11 or more against AC 11) and any hit drops the
    foe. One round: the first mover wins 1/2, the second 1/4, a quarter is drawn; without
    a limit the first mover wins 1/2 + 1/4 * 1/2 + ... = 2/3."""
    one = Fighter(hp=1, ac=11, flat_footed_ac=11, attack_bonus=0, damage="1")
    r = race(one, one, modifier=0, foe_modifier=0, rounds=1)
    assert (r.won_first, r.won_second, r.lost_first, r.lost_second) == pytest.approx(
        (0.5, 0.25, 0.25, 0.5)
    )
    assert r.drawn == pytest.approx(0.25)
    long = race(one, one, modifier=0, foe_modifier=0, rounds=200)
    assert long.won_first == pytest.approx(2 / 3)
    assert long.won == pytest.approx(0.5)


def test_race_of_a_mirror_is_even():
    """Equal fighters with equal modifiers and openings: the initiative is the only
    difference, so over an even initiative each wins half of what is not drawn."""
    a, b = duel_fighters("duel")
    for modifier in (0, 2):
        r = race(a, b, modifier=modifier, foe_modifier=modifier, rounds=30)
        assert r.won + r.drawn / 2 == pytest.approx(0.5)
        assert r.won_first > 0.5 > r.won_second


def test_duel_ceiling_against_aggressive():
    """The duel's fighters with the learner always attacking from the flank (+2) and the
    foe from the front, the foe charging when it has the initiative: 0.660 (0.704 with the
    initiative, 0.616 without). Always from the rear would give 0.785."""
    a, b = duel_fighters("duel")
    assert a == b == Fighter(52, 17, 16, 6, "1d8+3", 19, 2)
    flank = race(a, b, modifier=2, foe_modifier=0, foe_opening="charge")
    assert round(flank.won, 3) == 0.660
    assert round(flank.won_first, 3) == 0.704
    assert round(flank.won_second, 3) == 0.616
    assert flank.drawn < 1e-6
    rear = race(a, b, modifier=4, foe_modifier=0, foe_opening="charge")
    assert round(rear.won, 3) == 0.785


def test_race_rejects_unknown_openings_and_rounds():
    a, b = duel_fighters("duel")
    with pytest.raises(ValueError, match="opening must be one of"):
        race(a, b, modifier=0, foe_modifier=0, opening="ambush")
    with pytest.raises(ValueError, match="rounds must be at least 1"):
        race(a, b, modifier=0, foe_modifier=0, rounds=0)
    with pytest.raises(ValueError, match="exactly two creatures"):
        duel_fighters("skirmish")


def test_turn_attacks_orthogonal_foe_facing_us():
    """UA-MOVE-05/06, UA-MOVE-02, UA-OPP-01/02, SRD-AOO-02/04: A (facing S) and B (facing
    N) stand orthogonally adjacent. A 5-foot step (no attack of opportunity) reaches B's
    flank square, so +2 is the best free attack; B's rear (+4) takes a walk that provokes
    one attack of opportunity; attacking without turning into its own flank or rear costs
    A -5 / -10 (UA-ATK-02)."""
    options = turn_attacks(_a_to_act(ORTHOGONAL, "ua35", "S", "N"), max_actions=3)
    found = _attacks(options)
    assert best_free_modifier(options) == 2
    assert (4, 1) in found and (4, 0) not in found
    assert {m for m, provoked in found if provoked == 0} == {-10, -8, -5, -3, 0, 2}


def test_turn_attacks_diagonal_foe_facing_us():
    """The same fighters diagonally adjacent, each facing the other: one 5-foot step only
    reaches B's front (its 45-degree squares), so the best free attack is 0; its flank and
    rear cost an attack of opportunity. Ending a turn diagonal to the foe, facing it, denies
    the foe any bonus next turn."""
    options = turn_attacks(_a_to_act(DIAGONAL, "ua35", "SE", "NW"), max_actions=3)
    found = _attacks(options)
    assert best_free_modifier(options) == 0
    assert {(2, 1), (4, 1)} <= found
    assert not any(m > 0 for m, provoked in found if provoked == 0)


def test_turn_attacks_without_facing():
    """Under ``standard`` rules there is no facing: with no ally to flank with
    (SRD-FLANK-01), every reachable attack has modifier 0."""
    options = turn_attacks(_a_to_act(ORTHOGONAL, "standard", "S", "N"), max_actions=3)
    assert _attacks(options) == {(0, 0), (0, 1)}


def test_turn_attacks_leaves_the_battle_alone():
    b = _a_to_act(ORTHOGONAL, "ua35", "S", "N")
    before = engine.state_key(b)
    turn_attacks(b, max_actions=2)
    assert engine.state_key(b) == before


def test_turn_attacks_needs_a_battle_in_progress():
    b = board(ORTHOGONAL, A={"team": "a"}, B={"team": "b"})
    with pytest.raises(ValueError, match="battle in progress"):
        turn_attacks(b)


def test_cli_prints_the_duel_table(capsys):
    rows = main(["--scenario", "duel"])
    out = capsys.readouterr().out
    assert "0.660" in out and "0.785" in out
    assert round(rows[0][1].won, 3) == 0.660


def test_cli_rejects_a_team_scenario(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--scenario", "skirmish"])
    assert exc.value.code == 2
    assert "exactly two creatures" in capsys.readouterr().err


def test_the_race_predicts_the_engine():
    """``flanker`` against ``aggressive`` on the duel plays the race's second row: +2 from
    the flank every attack but its walk-in opening (0), ``aggressive`` 0 with its charge
    opening. Over 2,000 seeded games (each side half of them) the engine's win rate is
    within three standard errors (0.032) of the race's 0.654: 0.646."""
    from facing_env.agents import make_agent
    from facing_env.match import play_games

    a, b = duel_fighters("duel")
    predicted = race(a, b, modifier=2, foe_modifier=0, opening_modifier=0, foe_opening="charge")
    flanker, aggressive = make_agent("flanker"), make_agent("aggressive")
    games = 2000
    lineups = [
        {"red": flanker, "blue": aggressive} if g % 2 == 0 else {"red": aggressive, "blue": flanker}
        for g in range(games)
    ]
    results = play_games("duel", lineups, 500_000)
    won = sum(r.winner == ("red" if g % 2 == 0 else "blue") for g, r in enumerate(results))
    assert round(predicted.won, 3) == 0.654
    assert won == 1293
    assert abs(won / games - predicted.won) < 0.032
