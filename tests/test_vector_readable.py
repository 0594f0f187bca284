"""``VectorEnv(engine="readable")``: the batch on the readable engine (no compiling, issue
33) plays the battles of the compiled one, step for step: observations, masks, rewards
(the seat's and every creature's), ends, winners, lengths and final views."""

from __future__ import annotations

import numpy as np
import pytest

from facing_env.vector import VectorEnv
from tests.env_play import SCENARIOS


def _same_info(a: dict, b: dict) -> None:
    assert set(a) == set(b)
    for key in a:
        if key in ("final_obs", "final_info"):
            for x, y in zip(a[key], b[key], strict=True):
                if isinstance(x, dict):
                    assert set(x) == set(y)
                    for k in x:
                        np.testing.assert_allclose(x[k], y[k], rtol=0, atol=1e-6, err_msg=k)
                else:
                    assert x == y
        else:
            np.testing.assert_allclose(a[key], b[key], rtol=0, atol=1e-6, err_msg=key)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_readable_batch_plays_the_compiled_ones_battles(scenario):
    kwargs = {"num_envs": 3, "seed": 11, "max_rounds": 4, "final_observations": True}
    readable = VectorEnv(scenario, engine="readable", **kwargs)
    compiled = VectorEnv(scenario, engine="compiled", **kwargs)
    assert readable._readable and not compiled._readable
    obs_r, info_r = readable.reset()
    obs_c, info_c = compiled.reset()
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(150):
        np.testing.assert_allclose(obs_r["observation"], obs_c["observation"], atol=1e-6)
        np.testing.assert_array_equal(obs_r["action_mask"], obs_c["action_mask"])
        _same_info(info_r, info_c)
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in obs_c["action_mask"]])
        obs_r, rew_r, term_r, trunc_r, info_r = readable.step(acts)
        obs_c, rew_c, term_c, trunc_c, info_c = compiled.step(acts)
        np.testing.assert_allclose(rew_r, rew_c, atol=1e-5)
        np.testing.assert_array_equal(term_r, term_c)
        np.testing.assert_array_equal(trunc_r, trunc_c)
        ended += int((term_c | trunc_c).sum())
    assert ended >= 1  # the comparison covered battles that ended and restarted


def test_a_partial_step_and_a_reset_mask_agree():
    kwargs = {"num_envs": 4, "seed": 5}
    envs = [VectorEnv("skirmish", engine=e, **kwargs) for e in ("readable", "compiled")]
    outs = [e.reset() for e in envs]
    active = np.array([True, False, True, False])
    acts = np.zeros(4, dtype=np.int64)  # END_TURN is always allowed
    outs = [e.step(acts, active=active) for e in envs]
    np.testing.assert_allclose(outs[0][0]["observation"], outs[1][0]["observation"], atol=1e-6)
    np.testing.assert_array_equal(outs[0][0]["action_mask"], outs[1][0]["action_mask"])
    np.testing.assert_allclose(outs[0][1], outs[1][1], atol=1e-6)
    np.testing.assert_allclose(
        outs[0][4]["creature_rewards"], outs[1][4]["creature_rewards"], atol=1e-6
    )
    mask = np.array([False, True, False, False])
    outs = [e.reset(seed=[None, 99, None, None], options={"reset_mask": mask}) for e in envs]
    np.testing.assert_allclose(outs[0][0]["observation"], outs[1][0]["observation"], atol=1e-6)
    assert envs[0].battle(1).to_spec() == envs[1].battle(1).to_spec()


@pytest.mark.parametrize("scenario", ["ogre", "dragon", "skirmish"])
def test_dead_creatures_earn_nothing_more_on_either_engine(scenario):
    """The kernels pay nothing to a creature down before the step (the outcome and the
    draw included) and the draw at the round limit to those standing only: long battles
    with a draw weight, where creatures fall before the end."""
    kwargs = {"num_envs": 4, "seed": 21, "max_rounds": 30, "rewards": {"draw": -1.0}}
    readable = VectorEnv(scenario, engine="readable", **kwargs)
    compiled = VectorEnv(scenario, engine="compiled", **kwargs)
    obs, _ = compiled.reset()
    readable.reset()
    rng = np.random.default_rng(2)
    ended = 0
    for _ in range(600):
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in obs["action_mask"]])
        _, _, _, _, info_r = readable.step(acts)
        obs, _, term, trunc, info_c = compiled.step(acts)
        np.testing.assert_allclose(
            info_r["creature_rewards"], info_c["creature_rewards"], rtol=0, atol=1e-5
        )
        ended += int((term | trunc).sum())
    assert ended >= 1


def test_readable_and_compiled_returns_agree_under_skip_dead_steps():
    """The AEC env's returns per agent over whole ogre battles, dropped creatures kept to
    the end (Tianshou's and TorchRL's view): the same on both engines."""
    import facing_env

    for seed in range(4):
        totals = []
        for engine in ("readable", "compiled"):
            env = facing_env.skip_dead_steps(
                facing_env.env(scenario="ogre", engine=engine, rewards={"draw": -1.0})
            )
            env.reset(seed=seed)
            rng = np.random.default_rng(seed)
            total = dict.fromkeys(env.possible_agents, 0.0)
            for agent in env.agent_iter():
                obs, reward, done, cut, _ = env.last()
                total[agent] += reward
                legal = np.flatnonzero(obs["action_mask"])
                env.step(None if done or cut else int(rng.choice(legal)))
            totals.append(total)
        assert totals[0] == pytest.approx(totals[1], abs=1e-6), seed


def test_the_readable_keep_slot_is_the_kernels():
    from facing_env.fast.observation import KEEP as FAST_KEEP
    from facing_env.rules.play import KEEP

    assert KEEP == FAST_KEEP
