"""facing_env.evaluation.ceiling: exact damage races and the exhaustive one-turn attack search.

The races are checked against values worked by hand and against the engine's own mean
damage; the search against ASCII boards, citing the rules that bound a duel (UA-MOVE-02,
UA-MOVE-05, UA-MOVE-06, UA-OPP-01, UA-OPP-02, UA-ATK-02, SRD-AOO-02, SRD-AOO-04)."""

from __future__ import annotations

from functools import cache
from itertools import product
from pathlib import Path

import pytest

from facing_env.evaluation.ceiling import (
    AttackOption,
    Fighter,
    best_free_modifier,
    best_race,
    damage_distribution,
    duel_fighters,
    main,
    race,
    turn_attacks,
)
from facing_env.rules import engine
from facing_env.rules.dice import Dice, mean_damage, roll_hits
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


def _enumerated(bonus: int, ac: int, n: int, sides: int, flat: int, threat: int, mult: int):
    """{damage: chance} of one attack by listing every roll (attack, confirmation, dice)."""
    out: dict[int, float] = {}
    for roll, confirm in product(range(1, 21), repeat=2):
        if not roll_hits(roll, bonus, ac):
            out[0] = out.get(0, 0.0) + 1 / 400
            continue
        times = mult if roll >= threat and roll_hits(confirm, bonus, ac) else 1
        faces = list(product(range(1, sides + 1), repeat=n * times))
        for f in faces:
            k = max(1, sum(f) + times * flat)
            out[k] = out.get(k, 0.0) + 1 / 400 / len(faces)
    return out


@pytest.mark.parametrize(
    ("bonus", "ac", "damage", "n", "sides", "flat", "threat", "mult"),
    [
        (6, 17, "1d8+3", 1, 8, 3, 19, 2),
        (2, 14, "1d4-3", 1, 4, -3, 18, 3),
        (9, 12, "2d6-1", 2, 6, -1, 20, 2),
    ],
)
def test_damage_distribution_is_every_roll_listed(bonus, ac, damage, n, sides, flat, threat, mult):
    """Against every attack roll, confirmation roll and damage face listed one by one (a
    natural 1 misses, a 20 hits, the damage at least 1, a critical rolling the dice again)."""
    p = damage_distribution(bonus, ac, damage, threat_range=threat, crit_multiplier=mult)
    want = _enumerated(bonus, ac, n, sides, flat, threat, mult)
    assert {k: v for k, v in enumerate(p) if v > 0} == pytest.approx(want)


def _recursive_race(a: Fighter, b: Fighter, mod_a: int, mod_b: int, charge: bool, rounds: int):
    """P(a wins) with ``a`` first, by plain recursion over (attack index, both hit points)."""
    bonus = 2 if charge else 0
    da = damage_distribution(a.attack_bonus + mod_a, b.ac, a.damage, a.threat_range)
    db = damage_distribution(b.attack_bonus + mod_b, a.ac, b.damage, b.threat_range)
    opening = damage_distribution(
        a.attack_bonus + mod_a + bonus, b.flat_footed_ac, a.damage, a.threat_range
    )
    reply = damage_distribution(
        b.attack_bonus + mod_b, a.ac - (2 if charge else 0), b.damage, b.threat_range
    )

    @cache
    def value(i: int, ha: int, hb: int) -> float:
        if i == 2 * rounds:
            return 0.0
        mine = i % 2 == 0
        dist = (opening if i == 0 else da) if mine else (reply if i == 1 else db)
        total = 0.0
        for k, p in enumerate(dist):
            if mine:
                total += p * (1.0 if hb - k <= 0 else value(i + 1, ha, hb - k))
            else:
                total += p * (0.0 if ha - k <= 0 else value(i + 1, ha - k, hb))
        return total

    return value(0, a.hp, b.hp)


@pytest.mark.parametrize("charge", [False, True])
def test_race_is_the_plain_recursion(charge):
    """Small unequal fighters (the first one's flat-footed AC lower than its AC): the
    dynamic program is the recursion over every attack, to the last digit, with either
    mover first and a charging opener."""
    a = Fighter(hp=9, ac=15, flat_footed_ac=12, attack_bonus=4, damage="1d6+1", threat_range=19)
    b = Fighter(hp=11, ac=13, flat_footed_ac=11, attack_bonus=2, damage="1d4+2")
    opening = "charge" if charge else "attack"
    r = race(a, b, modifier=2, foe_modifier=-1, opening=opening, foe_opening=opening, rounds=6)
    assert r.won_first == pytest.approx(_recursive_race(a, b, 2, -1, charge, 6), abs=1e-12)
    assert r.lost_second == pytest.approx(_recursive_race(b, a, -1, 2, charge, 6), abs=1e-12)


def test_best_race_with_one_exchange_is_the_race():
    """With a single exchange there is nothing to choose: :func:`best_race` is :func:`race`
    (both movers, a charging foe)."""
    a, b = duel_fighters("duel")
    fixed = race(a, b, modifier=2, foe_modifier=0, foe_opening="charge")
    best = best_race(a, b, [(2, 0)], foe_opening="charge")
    assert (best.won_first, best.won_second) == pytest.approx((fixed.won_first, fixed.won_second))


def test_duel_race_of_flankers_exchanges():
    """The race in which the learner picks each turn +2 for +2 (from `flanker`'s flank) or
    0 for 0 (from its front diagonal): 0.521 (0.565 with the initiative, 0.477 without),
    above the best fixed race (0.508). A race, not a bound on a policy: play that changes
    the exchanges (the expert) wins more. With `aggressive`'s exchanges 0 for 0 never
    helps: the choice gives the fixed race's 0.660."""
    a, b = duel_fighters("duel")
    best = best_race(a, b, [(2, 2), (0, 0)], foe_opening_modifier=0)
    assert (round(best.won, 3), round(best.won_first, 3), round(best.won_second, 3)) == (
        0.521,
        0.565,
        0.477,
    )
    fixed = race(a, b, modifier=2, foe_modifier=2, foe_opening_modifier=0)
    assert round(fixed.won, 3) == 0.508
    aggressive = best_race(a, b, [(2, 0), (0, 0)], foe_opening="charge")
    assert round(aggressive.won, 3) == 0.660


def test_duel_race_against_aggressives_exchanges():
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


def test_a_creature_the_races_do_not_model_is_named_with_the_reason(tmp_path):
    duel = (Path(__file__).parents[1] / "facing_env" / "configs" / "duel.yaml").read_text()
    rogue = tmp_path / "rogue.yaml"
    rogue.write_text(
        duel.replace("template: fighter, hp: 52, team: red", "template: rogue, team: red")
    )
    with pytest.raises(ValueError, match="'red_fighter' has sneak attack, which the races do not"):
        duel_fighters(str(rogue))


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
    within three standard errors (0.032) of the race's 0.654 (it reads 1,293 wins, 0.646)."""
    from facing_env.agents import make_agent
    from facing_env.evaluation.match import play_games

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
    assert abs(won / games - predicted.won) < 0.032


CHARGE_LANE = """
    . . . . . . .
    . . . C . . .
    A . . . . B .
    . . . . . . .
"""


def _charge_board(a_hp: int = 52):
    pike = {**FIGHTER, "attacks": [{"name": "pike", "bonus": 40, "damage": "1d8+3"}]}
    b = board(
        CHARGE_LANE,
        A={"facing": "E", "team": "a", **FIGHTER, "hp": a_hp},
        B={"facing": "W", "team": "b", **FIGHTER},
        C={"facing": "S", "team": "b", **pike},
    )
    engine.start(b, Dice(0), flat_footed_start=False)
    while b.turn.actor != "A":
        engine.apply(b, engine.Action(engine.END_TURN), Dice(0))
    return b


def test_turn_attacks_lists_charges_and_leaves_out_a_drop():
    """EP-CHG-01, EP-CHG-02: A's charge at B runs past C, whose square-leaving attack of
    opportunity counts; the charge at C (facing S) ends in C's flank (+2) and draws
    nothing. With 1 hit point A drops to C's attack on the way, so that charge is left out."""
    found = turn_attacks(_charge_board(), max_actions=0)
    assert found == {
        AttackOption("B", "charge", 0, 1),
        AttackOption("C", "charge", 2, 0),
    }
    assert turn_attacks(_charge_board(a_hp=1), max_actions=0) == {AttackOption("C", "charge", 2, 0)}


def _unpruned(b, depth: int) -> set:
    from facing_env.rules.attacks import facing_modifier

    me, out = b.turn.actor, set()
    for action in engine.legal_actions(b):
        if action.kind == engine.ATTACK:
            out.add((action.arg, facing_modifier(b, me, action.arg)))
        elif depth and action.kind in (
            engine.MOVE,
            engine.FIVE_FOOT_STEP,
            engine.TURN,
            engine.STEP_KEEP_FACING,
        ):
            after = b.copy()
            engine.apply(after, action, Dice(0))
            if after.turn is not None and after.turn.actor == me:
                out |= _unpruned(after, depth - 1)
    return out


@pytest.mark.parametrize(
    "board_of", [lambda: _a_to_act(ORTHOGONAL, "ua35", "S", "N"), _charge_board]
)
def test_turn_attacks_finds_what_an_unpruned_search_finds(board_of):
    """The pruned search reaches exactly the (target, facing modifier) pairs of plain
    attacks that trying every sequence of up to two actions reaches."""
    b = board_of()
    pruned = {
        (o.target, o.facing_modifier) for o in turn_attacks(b, max_actions=2) if o.kind == "attack"
    }
    assert pruned == _unpruned(b, 2)
    assert pruned  # the boards put a foe within one step
