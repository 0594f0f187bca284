"""The opponent league (PFSP priorities) and the learner env's weighted opponent draw."""

from __future__ import annotations

import pytest

from facing_env.train.league import League
from facing_env.train.team_env import TeamLearnerEnv


def test_new_opponents_are_even_and_drawn_alike() -> None:
    league = League()
    for name in ("random", "flanker"):
        league.add(name)
    assert league.weights() == {"random": 0.5, "flanker": 0.5}


def test_priority_follows_the_loss_rate_with_a_floor() -> None:
    league = League(power=2.0, floor=0.05, decay=0.0)  # decay 0: the last battle decides
    league.record("random", won=True)
    league.record("flanker", won=False)
    league.record("defensive", won=False)
    assert league.weight("random") == 0.05
    assert league.weight("flanker") == 1.0
    weights = league.weights()
    assert weights["flanker"] == pytest.approx(1.0 / 2.05)
    assert weights["random"] == pytest.approx(0.05 / 2.05)


def test_variance_weighting_favours_even_matches() -> None:
    """``weighting="variance"``: ``4 p (1 - p)`` at power 2 (1 at an even match), the floor
    for an opponent always or never beaten; ``(4 p (1 - p)) ** (power / 2)`` otherwise."""
    league = League(decay=0.5, weighting="variance")  # one battle moves 0.5 halfway
    league.record("aggressive", won=True)  # 0.75
    league.record("random", won=True)
    league.record("random", won=True)  # 0.875
    league.add("flanker")  # 0.5
    assert league.weight("aggressive") == pytest.approx(0.75)
    assert league.weight("random") == pytest.approx(4 * 0.875 * 0.125)
    assert league.weight("flanker") == 1.0
    hopeless = League(decay=0.0, weighting="variance", floor=0.05)
    hopeless.record("defensive", won=False)  # p = 0
    assert hopeless.weight("defensive") == 0.05
    sharp = League(power=4.0, decay=0.5, weighting="variance")
    sharp.record("aggressive", won=True)
    assert sharp.weight("aggressive") == pytest.approx(0.75**2)
    with pytest.raises(ValueError, match="weighting must be one of 'hard', 'variance'"):
        League(weighting="soft")


def test_the_win_rate_is_a_moving_average() -> None:
    league = League(decay=0.5)
    league.record("aggressive", won=True)  # 0.5 -> 0.75
    league.record("aggressive", won=True)  # -> 0.875
    league.record("aggressive", won=False)  # -> 0.4375
    games, rate, _ = league.summary()["aggressive"]
    assert games == 3
    assert rate == pytest.approx(0.4375)


def test_power_zero_is_uniform_and_bad_settings_are_refused() -> None:
    league = League(power=0.0, decay=0.0)
    league.record("a", won=True)
    league.record("b", won=False)
    assert league.weights() == {"a": 0.5, "b": 0.5}
    with pytest.raises(ValueError, match="floor"):
        League(floor=0.0)
    with pytest.raises(ValueError, match="decay"):
        League(decay=1.0)


def test_removed_snapshots_leave_the_league() -> None:
    league = League()
    league.add("model:runs/x/snapshots/step_1.zip@1")
    league.add("random")
    league.remove("model:runs/x/snapshots/step_1.zip@1")
    assert list(league.weights()) == ["random"]


def test_env_draws_opponents_by_weight() -> None:
    env = TeamLearnerEnv("duel", opponents=["random", "aggressive"])
    env.reset(seed=0)
    env.set_opponent_weights({"random": 0.0, "aggressive": 1.0})
    seen = set()
    for _ in range(5):
        _, info = env.reset()
        seen.add(info["opponent"])
    assert seen == {"aggressive"}
    env.set_opponent_weights(None)  # uniform again
    names = {env.reset()[1]["opponent"] for _ in range(20)}
    assert names == {"random", "aggressive"}
    with pytest.raises(ValueError, match="finite"):
        env.set_opponent_weights({"random": float("nan")})


def test_weighted_draws_are_reproducible() -> None:
    def draws() -> list[str]:
        env = TeamLearnerEnv("duel", opponents=["random", "aggressive", "flanker"])
        env.reset(seed=3)
        env.set_opponent_weights({"random": 0.2, "aggressive": 0.3, "flanker": 0.5})
        return [env.reset()[1]["opponent"] for _ in range(12)]

    first = draws()
    assert first == draws()
    assert len(set(first)) > 1


@pytest.mark.parametrize("dice", ["roll", "expected"])
def test_the_last_info_of_a_battle_names_its_dice(dice: str) -> None:
    """train.py's league ranks opponents by the battles whose dice the evaluation rolls."""
    env = TeamLearnerEnv("duel", opponents=["aggressive"], dice=dice)
    env.reset(seed=0)
    done, info = False, {}
    while not done:
        mask = env.action_masks()
        _, _, term, trunc, info = env.step(int(mask.nonzero()[0][0]))
        done = term or trunc
    assert info["dice"] == dice
    assert "won" in info


def test_check_weights_and_draw_shared_by_both_envs() -> None:
    """``league.check_weights`` copies or refuses; ``league.draw`` follows the weights,
    ignores names they miss, and is uniform (one ``integers`` draw) without them."""
    import numpy as np

    from facing_env.train import league

    given = {"a": 1.0, "b": 0.0}
    copied = league.check_weights(given)
    assert copied == given and copied is not given
    assert league.check_weights(None) is None
    for bad in ({"a": -1.0}, {"a": float("nan")}, {"b": float("inf")}):
        with pytest.raises(ValueError, match="opponent weights must be finite and >= 0"):
            league.check_weights(bad)
    rng = np.random.default_rng(0)
    assert {league.draw(["a", "b", "c"], {"b": 2.0, "z": 9.0}, rng) for _ in range(50)} == {1}
    for weights in (None, {"z": 1.0}, {"a": 0.0}):  # nothing to follow: uniform
        mine, twin = np.random.default_rng(3), np.random.default_rng(3)
        got = [league.draw(["a", "b", "c"], weights, mine) for _ in range(20)]
        assert got == [int(twin.integers(3)) for _ in range(20)]
    rng = np.random.default_rng(1)
    counts = np.bincount(
        [league.draw(["a", "b"], {"a": 1.0, "b": 3.0}, rng) for _ in range(4000)], minlength=2
    )
    assert 0.72 < counts[1] / 4000 < 0.78  # 3 to 1
