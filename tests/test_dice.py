"""The dice modes of a battle (the scenario setting ``dice``): ``expected`` (every d20
reads 10.5, damage its mean rounded half up), ``deck`` (d20s dealt from a shuffled deck
of the twenty faces), the counter-based SplitMix64 stream behind ``roll``, and ``mean``
(every attack deals its mean damage over the rolls, ``mean_damage``; UA-OPP-02 through
the attack bonus).

Boards, actions and dice come from tests/engine_boards.py (:class:`ScriptedDice` hands
out the d20s a test lists; ``begin`` scripts the initiative order). Square directions
and facings are indexed ``N NE E SE S SW W NW`` = 0..7.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from facing_env import rules
from facing_env.rules import engine
from facing_env.rules.dice import Dice, mean_damage, parse_dice
from facing_env.rules.turns import AttackSlot
from tests.boards import board
from tests.engine_boards import (
    END,
    attack,
    attacks_in,
    begin,
    expected_dice,
    legal_of,
)

# ==========================================================================================
# Expected-value dice (the scenario setting ``dice: expected``)
# ==========================================================================================


@pytest.mark.parametrize(
    ("damage", "expected"),
    [
        ("1d6", 4),  # 3.5 rounds half up
        ("2d6", 7),
        ("1d8+3", 8),  # 7.5
        ("1d4+1", 4),  # 3.5
        ("1d12", 7),  # 6.5
        ("3d4", 8),  # 7.5
        ("1d3", 2),
        ("4", 4),
        ("1d2-5", 1),  # at least 1
    ],
)
def test_expected_mode_rolls_read_their_mean(damage, expected):
    """``dice: expected``: the d20 reads 10.5 and damage its mean rounded half up (at
    least 1): A (+2) hits AC 10 with 12.5."""
    b = board(
        "A B",
        A={"facing": "E", "attacks": [{"bonus": 2, "damage": damage}]},
        B={"facing": "W", "hp": 100},
    )
    begin(b, "A", "B")
    [hit] = attacks_in(engine.apply(b, attack("B"), expected_dice()))
    assert (hit.roll, hit.total, hit.hit, hit.damage) == (10.5, 12.5, True, expected)


@pytest.mark.parametrize(("ac", "hit"), [(10, True), (11, False)])
def test_expected_mode_hits_iff_10_5_plus_bonus_reaches_ac(ac, hit):
    """``dice: expected``: 10.5 + 0 hits AC 10 and misses AC 11."""
    b = board("A B", A={"facing": "E"}, B={"facing": "W", "ac": ac})
    begin(b, "A", "B")
    [ev] = attacks_in(engine.apply(b, attack("B"), expected_dice()))
    assert (ev.hit, ev.damage) == (hit, 4 if hit else 0)


def test_expected_mode_initiative_and_log_do_not_depend_on_the_seed():
    """``dice: expected``: initiative is 10.5 + Dex modifier (C +4, A +1, B 0) and, with no
    full ties, the whole event log is the same for every seed."""

    def play(seed: int) -> list:
        b = board(
            ". A B .\n. . C .",
            A={"dex": 12, "team": "x", "facing": "E"},
            B={"team": "y", "facing": "W"},
            C={"dex": 18, "team": "y", "facing": "N"},
        )
        dice = expected_dice(seed)
        events = engine.start(b, dice)
        for _ in range(12):
            if engine.actor(b) is None:
                break
            foes = legal_of(b, engine.ATTACK)
            events += engine.apply(b, attack(foes[0]) if foes else END, dice)
        return [e.to_dict() for e in events]

    log = play(0)
    assert [e["actor"] for e in log if e["kind"] == "initiative"] == ["C", "A", "B"]
    assert play(1) == log
    assert play(12345) == log


# ==========================================================================================
# Deck dice (``dice: deck``): d20s drawn from a shuffled deck of the twenty faces
# ==========================================================================================


def test_deck_mode_deals_each_face_once_per_twenty_draws():
    """Every run of twenty d20s is a permutation of 1..20, dealt from the seeded
    generator (the same seed deals the same cards); damage still rolls."""
    dice = Dice(np.random.default_rng(7), "deck")
    draws = [dice.d20() for _ in range(60)]
    for k in range(3):
        assert sorted(draws[20 * k : 20 * (k + 1)]) == list(range(1, 21))
    again = Dice(np.random.default_rng(7), "deck")
    assert [again.d20() for _ in range(60)] == draws
    assert len({Dice(np.random.default_rng(s), "deck").d20() for s in range(40)}) > 5
    assert {dice.damage("1d8") for _ in range(200)} == set(range(1, 9))


def test_deck_mode_twenty_attacks_hit_exactly_by_the_faces():
    """``dice: deck``: twenty attacks at +0 against AC 11 hit on the faces 11-19 and the
    natural 20 (ten hits; a 1 always misses), whatever the seed; a +2 attacker hits
    twelve times. (The weapon threatens no critical here, so no confirmation roll draws a
    card in between.)"""
    for bonus, hits in ((0, 10), (2, 12)):
        for seed in (1, 2):
            b = board(
                "A B",
                A={"facing": "E", "attacks": [{"bonus": bonus, "damage": "1"}]},
                B={"facing": "W", "hp": 1000, "ac": 11},
            )
            begin(b, "A", "B")
            dice = Dice(np.random.default_rng(seed), "deck")
            a, d = b.creatures["A"], b.creatures["B"]
            slot = AttackSlot(dataclasses.replace(a.attacks[0], threat_range=21), 0)
            rolls, count = [], 0
            for _ in range(20):
                [ev] = attacks_in(engine.resolve_attack(b, a, d, slot, "attack", dice))
                rolls.append(ev.roll)
                count += ev.hit
            assert sorted(rolls) == list(range(1, 21))
            assert count == hits, (bonus, seed)


def test_the_dice_stream_is_splitmix64_by_counter():
    """The dice are a counter-based stream: draw ``n`` of seed ``s`` is SplitMix64's output
    for the state ``s + (n + 1) * golden`` (seed 0 gives the published first outputs),
    whatever was drawn before; a die reads the top 53 bits as a fraction."""
    from facing_env.rules.dice import stream_die, stream_word

    assert [stream_word(0, n) for n in range(3)] == [
        0xE220A8397B1DCDAF,
        0x6E789E6AA1B965F4,
        0x06C45D188009454F,
    ]
    dice = Dice(12345, "roll")
    draws = [dice.d20(), dice.percent(), dice.die(6), dice.uniform()]
    assert dice.count == 4
    assert draws[:3] == [
        stream_die(12345, 0, 20),
        stream_die(12345, 1, 100),
        stream_die(12345, 2, 6),
    ]
    assert draws[3] == (stream_word(12345, 3) >> 11) / 2.0**53
    faces = [stream_die(99, n, 20) for n in range(20_000)]
    assert set(faces) == set(range(1, 21))
    assert max(faces.count(f) for f in range(1, 21)) < 1.1 * 1000  # uniform within 10%
    with pytest.raises(ValueError, match="dice seed"):
        Dice(-1)
    with pytest.raises(TypeError, match="dice seed"):
        Dice("7")  # type: ignore[arg-type]


def test_dice_modes_are_checked():
    with pytest.raises(
        ValueError, match="dice mode must be one of 'roll', 'expected', 'deck', 'mean'"
    ):
        Dice(np.random.default_rng(0), "loaded")


# ==========================================================================================
# Mean dice (``dice: mean``): every attack deals its mean damage over the rolls
# ==========================================================================================


@pytest.mark.parametrize(
    ("bonus", "kwargs", "expected"),
    [
        # the duel's fighter (+6, 1d8+3, 19-20/x2) against AC 17: hits on 11+ (0.5), a
        # critical on 19-20 confirmed half the time: 0.5 * 7.5 + 0.1 * 0.5 * 7.5
        (6, {"damage": "1d8+3", "threat_range": 19}, 4.125),
        (8, {"damage": "1d8+3", "threat_range": 19}, 4.95),  # +2 from the flank: 9+ (0.6)
        (10, {"damage": "1d8+3", "threat_range": 19}, 5.775),  # +4 from the rear: 7+ (0.7)
        # a natural 20 always hits, a natural 1 always misses
        (-30, {"damage": "4", "threat_range": 21}, 0.2),
        (30, {"damage": "4", "threat_range": 21}, 3.8),
        # sneak attack dice are added once, never multiplied: +0 against AC 11 hits on 11+;
        # 0.5 * (3.5 + 7) + (2 / 20) * 0.5 * 3.5; a 20% miss chance scales it all
        (6 - 6, {"damage": "1d6", "threat_range": 19, "extra": "2d6"}, 5.425),
        (0, {"damage": "1d6", "threat_range": 19, "extra": "2d6", "concealment": 20}, 4.34),
        (0, {"damage": "1d6", "threat_range": 20, "crit_multiplier": 3}, 0.5 * 3.5 + 0.025 * 7),
    ],
)
def test_mean_damage_is_the_mean_over_the_rolls(bonus, kwargs, expected):
    ac = 17 if kwargs["damage"] == "1d8+3" else 11
    assert mean_damage(bonus, ac, **kwargs) == pytest.approx(expected)


@pytest.mark.parametrize(("defender_facing", "damage"), [("W", 1.0), ("E", 1.4)])
def test_mean_mode_attack_deals_mean_damage_by_area(defender_facing, damage):
    """``dice: mean`` (UA-OPP-02 through the attack bonus): a +0 attack for 2 damage
    against AC 11 deals 0.5 * 2 from the defender's front (hits on 11+) and 0.7 * 2 from
    its rear (+4: 7+), every time; hit points become fractions."""
    b = board(
        "A B",
        A={"facing": "E", "attacks": [{"bonus": 0, "damage": "2"}]},
        B={"facing": defender_facing, "hp": 10, "ac": 11},
    )
    begin(b, "A", "B")
    dice = Dice(np.random.default_rng(0), "mean")
    a, d = b.creatures["A"], b.creatures["B"]
    slot = AttackSlot(dataclasses.replace(a.attacks[0], threat_range=21), 0)
    for n in (1, 2):
        [ev] = attacks_in(engine.resolve_attack(b, a, d, slot, "attack", dice))
        assert ev.hit and ev.roll == 10.5 and not ev.critical
        assert ev.damage == pytest.approx(damage)
        assert d.hp == pytest.approx(10 - n * damage)


def test_mean_mode_battle_shows_fractional_hit_points():
    """A whole duel with ``dice="mean"`` plays through the env; the text rendering shows
    the fractions of hit points briefly (``:g``)."""
    import re

    import facing_env

    env = facing_env.env(scenario="duel", dice="mean", render_mode="ansi")
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    for _agent in env.agent_iter(200):
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    hps = [float(h) for h in re.findall(r"hp ([0-9.]+)/52", env.render())]
    assert hps and any(h != int(h) for h in hps)
    assert all(len(str(h).split(".")[-1]) <= 6 for h in hps)


class _FacesDice(Dice):
    """Dice that deal given d20 faces and percentile rolls, damage at the means."""

    def __init__(self, d20s: list[int], percent: int = 100) -> None:
        super().__init__(np.random.default_rng(0))
        self._d20s, self._percent = list(d20s), percent

    def d20(self) -> int:
        return self._d20s.pop(0)

    def percent(self) -> int:
        return self._percent

    def _roll(self, n: int, sides: int) -> float:
        return n * (sides + 1) / 2.0

    def damage(self, expr: str, multiplier: int = 1, extra: str | None = None) -> float:
        n, sides, bonus = parse_dice(expr)
        total = multiplier * (self._roll(n, sides) + bonus)
        if extra is not None:
            en, es, eb = parse_dice(extra)
            total += self._roll(en, es) + eb
        return total


@pytest.mark.parametrize(("bonus", "threat", "multiplier"), [(0, 19, 2), (5, 18, 3), (-8, 20, 2)])
def test_mean_damage_is_the_average_of_resolve_attack_over_every_face(bonus, threat, multiplier):
    """``mean_damage`` against the engine itself: ``resolve_attack`` with every d20 face
    for the attack and every face for the confirmation (damage dice at their means),
    averaged over the 400 pairs, is the mean damage of the attack's modifiers."""
    b = board(
        "A B",
        A={"facing": "E", "attacks": [{"bonus": bonus, "damage": "1d8+2"}]},
        B={"facing": "W", "hp": 10_000, "ac": 14},
    )
    begin(b, "A", "B")
    a, d = b.creatures["A"], b.creatures["B"]
    attack = dataclasses.replace(a.attacks[0], threat_range=threat, crit_multiplier=multiplier)
    slot = AttackSlot(attack, 0)
    total = 0.0
    for face in range(1, 21):
        for confirm in range(1, 21):
            hp = d.hp
            engine.resolve_attack(b, a, d, slot, "attack", _FacesDice([face, confirm]))
            total += hp - d.hp
    mods = rules.attack_breakdown(b, a, d, kind="attack", attack=attack.name)
    expected = mean_damage(
        mods.total,
        mods.target_ac,
        damage="1d8+2",
        threat_range=threat,
        crit_multiplier=multiplier,
    )
    assert total / 400 == pytest.approx(expected)
    assert expected > 0
