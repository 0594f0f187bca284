"""Behaviour cloning (``facing_env.train.imitation``): the teacher's decisions and returns are
recorded exactly, and a policy fitted to them plays the teacher's moves.

Needs the ``train`` extra (torch, sb3-contrib); CI installs it.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO

from facing_env.agents import make_agent
from facing_env.agents.base import act_batch
from facing_env.train.imitation import clone, demonstrations
from facing_env.train.team_vec_env import TeamVecEnv


@pytest.fixture(scope="module")
def demos():
    return demonstrations(
        "duel", "flanker", ["aggressive", "random"], 600, num_envs=8, seed=3, gamma=0.9
    )


def test_demonstrations_are_the_teachers_decisions_in_finished_battles(demos):
    """Every recorded action is the (deterministic) teacher's on the recorded observation
    and mask, and allowed by it; the samples end on a battle's last decision."""
    assert len(demos) >= 600
    assert demos.observations.shape == (len(demos), demos.observations.shape[1])
    again = act_batch(
        make_agent("flanker"), demos.observations, demos.masks, np.random.default_rng(0)
    )
    np.testing.assert_array_equal(again, demos.actions)
    assert demos.masks[np.arange(len(demos)), demos.actions].all()
    assert demos.last[-1] and demos.last.sum() == demos.battles >= 1
    assert 0 <= demos.wins <= demos.battles


def test_demonstration_returns_discount_the_rewards_to_each_battles_end(demos):
    """returns[t] = rewards[t] + gamma * returns[t + 1] inside a battle, and the last
    decision's return is its reward (gamma 0.9 here)."""
    following = np.append(demos.returns[1:], 0.0)
    following[demos.last] = 0.0
    np.testing.assert_allclose(demos.returns, demos.rewards + 0.9 * following, rtol=1e-5, atol=1e-6)
    assert np.abs(demos.rewards).sum() > 0  # damage was dealt


def test_demonstrations_reject_a_bad_sample_count():
    with pytest.raises(ValueError, match="samples must be at least 1, got 0"):
        demonstrations("duel", "flanker", ["random"], 0)


def test_a_cloned_policy_plays_the_teachers_moves(demos):
    """Fitted for a few epochs, the policy's most likely action is the teacher's on most
    held-out decisions (an untrained one agrees on few) and its value error falls."""
    env = TeamVecEnv("duel", 2, ["random"], seed=0)
    model = MaskablePPO("MlpPolicy", env, policy_kwargs={"net_arch": [64, 64]}, seed=0)
    before = clone(model.policy, demos, epochs=0, holdout=0.3, seed=1)
    after = clone(model.policy, demos, epochs=30, batch_size=64, holdout=0.3, seed=1)
    env.close()
    assert before["accuracy"] < 0.6
    assert after["accuracy"] > 0.85, after
    assert after["cross_entropy"] < before["cross_entropy"]
    assert after["value_error"] < before["value_error"]


def test_clone_rejects_a_bad_holdout(demos):
    with pytest.raises(ValueError, match="holdout must be in"):
        clone(object(), demos, holdout=1.0)


def test_dagger_records_the_teachers_choices_where_the_player_goes(demos):
    """With a ``player`` the player's actions are played (random here: it seldom wins)
    and the teacher's are recorded; ``+`` appends one set to another."""
    played = demonstrations(
        "duel",
        "flanker",
        ["aggressive"],
        300,
        num_envs=8,
        seed=5,
        player=make_agent("random"),
    )
    again = act_batch(
        make_agent("flanker"), played.observations, played.masks, np.random.default_rng(0)
    )
    np.testing.assert_array_equal(again, played.actions)
    assert played.wins <= played.battles // 4
    both = demos + played
    assert len(both) == len(demos) + len(played)
    assert both.battles == demos.battles + played.battles
    np.testing.assert_array_equal(both.actions[len(demos) :], played.actions)
    np.testing.assert_array_equal(both.last[: len(demos)], demos.last)


def test_progress_bars_count_decisions_and_batches_and_change_nothing(demos, capsys):
    """progress=True: a bar of the decisions gathered (ending at exactly ``samples``) and
    one of the minibatches fitted (the last epoch and loss after it), on stderr; the
    decisions and the fitted policy are those made without them."""
    pytest.importorskip("tqdm")
    shown = demonstrations(
        "duel",
        "flanker",
        ["aggressive", "random"],
        600,
        num_envs=8,
        seed=3,
        gamma=0.9,
        progress=True,
    )
    for field in ("observations", "masks", "actions", "rewards", "last", "returns"):
        np.testing.assert_array_equal(getattr(shown, field), getattr(demos, field))
    assert (shown.battles, shown.wins) == (demos.battles, demos.wins)
    err = capsys.readouterr().err.replace("\r", "\n")
    assert "clone: flanker decisions: 100%|" in err and "| 600/600 [" in err

    fitted = []
    for progress in (False, True):
        env = TeamVecEnv("duel", 2, ["random"], seed=0)
        model = MaskablePPO("MlpPolicy", env, policy_kwargs={"net_arch": [32]}, seed=0)
        env.close()
        fitted.append(
            clone(model.policy, demos, epochs=2, batch_size=256, seed=1, progress=progress)
        )
    assert fitted[0] == fitted[1]
    batches = 2 * -(-(len(demos) - round(len(demos) * 0.05)) // 256)  # 2 epochs of the fit
    err = capsys.readouterr().err.replace("\r", "\n").splitlines()
    last = [line for line in err if line.startswith("clone: fitting: 100%|")][-1]
    assert f"| {batches}/{batches} [" in last
    assert last.endswith(f", epoch 2/2, loss {fitted[1]['loss']:.4f}]")


def test_demonstrations_hold_their_observations_once(demos):
    """Issue 33: the observations live in one preallocated buffer (the array is a view of
    it, with room for the last battles' overrun), not in a list of rows and a stack."""
    obs = demos.observations
    assert obs.dtype == np.float32 and obs.base is not None and obs.base.ndim == 2
    assert obs.base.shape[0] >= len(demos) and np.shares_memory(obs, obs.base)
    assert demos.masks.base is not None and demos.masks.dtype == bool


def test_rows_grow_by_doubling_and_keep_what_was_appended():
    from facing_env.train.imitation import _Rows

    rows = _Rows(2, (3,), np.float32)
    rows.extend(np.ones((2, 3)))
    rows.extend(np.full((3, 3), 2.0))  # over the capacity: grows to 5 (2 * 2 < 2 + 3)
    assert rows.data.shape == (5, 3)
    rows.extend(np.full((1, 3), 3.0))  # grows to 10
    assert rows.data.shape == (10, 3)
    np.testing.assert_array_equal(rows.array()[:, 0], [1, 1, 2, 2, 2, 3])


def test_workers_split_the_gathering_and_each_share_is_a_one_worker_gathering():
    """``workers=2``: worker k plays its half of the battles seeded ``seed + k *
    WORKER_SEED_STRIDE`` for its half of the samples; the result is the two one-process
    gatherings joined in worker order, the same on every run, with a DAgger player too
    (forked, not pickled)."""
    from facing_env.train.imitation import WORKER_SEED_STRIDE

    modes = ["expected"] * 4 + ["roll"] * 4
    kw = dict(num_envs=8, gamma=0.9, player=make_agent("random"))
    both = demonstrations(
        "duel", "flanker", ["aggressive"], 400, seed=7, workers=2, dice_modes=modes, **kw
    )
    first = demonstrations(
        "duel",
        "flanker",
        ["aggressive"],
        200,
        seed=7,
        **{**kw, "num_envs": 4},
        dice_modes=modes[:4],
    )
    second = demonstrations(
        "duel",
        "flanker",
        ["aggressive"],
        200,
        seed=7 + WORKER_SEED_STRIDE,
        **{**kw, "num_envs": 4},
        dice_modes=modes[4:],
    )
    assert len(both) == len(first) + len(second) >= 400
    assert both.battles == first.battles + second.battles
    np.testing.assert_array_equal(both.actions, np.concatenate([first.actions, second.actions]))
    np.testing.assert_array_equal(both.observations[: len(first)], first.observations)
    np.testing.assert_allclose(both.returns[len(first) :], second.returns)


def test_demonstrations_reject_a_bad_worker_count():
    with pytest.raises(ValueError, match="workers must be at least 1, got 0"):
        demonstrations("duel", "flanker", ["random"], 10, workers=0)
