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
    mask = np.array([False, True, False, False])
    outs = [e.reset(seed=[None, 99, None, None], options={"reset_mask": mask}) for e in envs]
    np.testing.assert_allclose(outs[0][0]["observation"], outs[1][0]["observation"], atol=1e-6)
    assert envs[0].battle(1).to_spec() == envs[1].battle(1).to_spec()
