"""The expert's learned priors (``facing_env.agents.prior``): the shipped skirmish prior is
found for the skirmish and nowhere else, it plays the expert's turns while more than two
creatures stand, prior files are validated, and an exported model plays as the model."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from facing_env.agents.expert import ExpertAgent
from facing_env.agents.lookahead import Lookahead
from facing_env.agents.prior import (
    FORMAT,
    PriorFileError,
    fingerprint,
    load_prior,
    shipped_priors,
)
from facing_env.env import raw_env
from facing_env.observation import ObservationLayout


def _start(scenario: str, seed: int = 0, **kwargs):
    env = raw_env(scenario=scenario, **kwargs)
    env.reset(seed=seed)
    return env, env.observe(env.agent_selection)


def _fingerprint(scenario: str, seed: int = 0, **kwargs) -> str:
    env, obs = _start(scenario, seed, **kwargs)
    look = Lookahead(64)
    look.load(env.battle, obs["action_mask"].shape[0])
    return fingerprint(look, env.battle)


def test_the_skirmish_prior_ships_and_fits_only_the_skirmish():
    """One prior ships, for the skirmish; its fingerprint is the skirmish's on every seed
    and no other scenario's (other rule sets, boards, perception)."""
    priors = shipped_priors()
    assert [p.scenario for p in priors.values()] == ["skirmish"]
    prior = next(iter(priors.values()))
    assert {_fingerprint("skirmish", seed) for seed in (0, 1, 7)} == {prior.fingerprint}
    for scenario, kwargs in [
        ("standard_skirmish", {}),
        ("side_rear_skirmish", {}),
        ("duel", {}),
        ("skirmish", {"perception": "facing"}),
    ]:
        assert _fingerprint(scenario, **kwargs) not in priors, (scenario, kwargs)
    assert (prior.layout.size, prior.n_actions, prior.max_rounds) == (2341, 47, 25)


def test_the_expert_plays_the_priors_turn_in_the_skirmish():
    """Four creatures stand: the expert's action is the prior's most likely legal action on
    the env's own observation (the prior reads the search rows' observation, which is the
    env's); without priors it is the search's."""
    prior = next(iter(shipped_priors().values()))
    for seed in (0, 3, 11):
        env, obs = _start("skirmish", seed)
        expert = ExpertAgent()
        action = expert.act_battle(env.battle, obs["action_mask"])
        assert expert.prior is prior
        want = prior.actions(obs["observation"][None], obs["action_mask"][None])[0]
        assert action == want
        alone = ExpertAgent(priors=False)
        alone.act_battle(env.battle, obs["action_mask"])
        assert alone.prior is None


def test_with_two_creatures_left_the_search_plays_not_the_prior():
    """The prior plays while more than two creatures stand; with the rogues down the
    expert plays what the search alone plays, and on these positions that is not what
    the prior would play (so the hand-over is seen)."""
    prior = next(iter(shipped_priors().values()))
    checked, differs = 0, 0
    for seed in range(12):
        env, _ = _start("skirmish", seed)
        battle = env.battle
        if battle.turn.actor not in ("red_fighter", "blue_fighter"):
            continue
        for rogue in ("red_rogue", "blue_rogue"):
            battle.creatures[rogue].hp = 0
        obs = env.observe(env.agent_selection)
        mask = obs["action_mask"]
        with_prior, alone = ExpertAgent(), ExpertAgent(priors=False)
        action = with_prior.act_battle(battle, mask)
        assert with_prior.prior is prior
        assert action == alone.act_battle(battle, mask), seed
        differs += action != prior.actions(obs["observation"][None], mask[None])[0]
        checked += 1
    assert checked >= 2 and differs >= 1, (checked, differs)


def _write(path: Path, **entries) -> Path:
    base = {
        "format": np.array(FORMAT),
        "fingerprint": np.array("0123456789abcdef"),
        "scenario": np.array("toy"),
        "source": np.array("a test"),
        "window": np.array(1, dtype=np.int64),
        "n_slots": np.array(1, dtype=np.int64),
        "max_rounds": np.array(10, dtype=np.int64),
        "n_actions": np.array(3, dtype=np.int64),
    }
    base.update(entries)
    for name in [k for k, v in base.items() if v is None]:
        del base[name]
    np.savez(path, **base)
    return path


def test_a_prior_plays_its_most_likely_legal_action(tmp_path):
    """A one-layer prior: the logits are the weights times the observation plus the bias,
    the action the best legal one (ties: the lowest index)."""
    d = ObservationLayout(1, 1).size
    weight = np.zeros((3, d), dtype=np.float16)
    weight[1, 0], weight[2, 0] = 1.0, 2.0
    prior = load_prior(
        _write(tmp_path / "p.npz", weight_0=weight, bias_0=np.array([0.5, 0, 0], np.float16))
    )
    obs = np.zeros((3, d), dtype=np.float32)
    obs[:, 0] = [1.0, 0.1, 1.0]
    masks = np.array([[1, 1, 1], [1, 1, 1], [1, 1, 0]], dtype=np.int8)
    np.testing.assert_allclose(
        prior.logits(obs)[:, :3], [[0.5, 1, 2], [0.5, 0.1, 0.2], [0.5, 1, 2]]
    )
    assert prior.actions(obs, masks).tolist() == [2, 0, 1]


@pytest.mark.parametrize(
    ("entries", "problem"),
    [
        ({"format": np.array("other-1")}, "format 'other-1'"),
        ({"scenario": None}, "entry 'scenario' is missing or not a string"),
        ({"window": np.array(0)}, "entry 'window' is missing or not a positive integer"),
        ({"n_actions": np.array(2.5)}, "entry 'n_actions' is missing or not a positive integer"),
        ({}, "no layers"),
        ({"weight_0": np.zeros((3, 4)), "bias_0": np.zeros(4)}, "layer 0 is missing a part"),
        ({"weight_0": np.zeros((3, 4)), "bias_0": np.zeros(3)}, "the layers take 4 values"),
        ({"fingerprint": np.array([1, 2])}, "entry 'fingerprint' is missing or not a string"),
        ({"window": np.array(2)}, "entry 'window' is 2, not odd"),
    ],
)
def test_a_bad_prior_file_is_refused_with_its_name_and_problem(tmp_path, entries, problem):
    path = _write(tmp_path / "bad.npz", **entries)
    with pytest.raises(PriorFileError, match=re.escape("bad.npz")) as error:
        load_prior(path)
    assert problem in str(error.value)


def test_a_prior_over_the_size_limit_is_refused_before_it_is_read(tmp_path, monkeypatch):
    """The archive's uncompressed size is checked first (a small file can inflate)."""
    import facing_env.agents.prior as prior_module

    path = _write(tmp_path / "big.npz", weight_0=np.zeros((3, 70)), bias_0=np.zeros(3))
    monkeypatch.setattr(prior_module, "MAX_MODEL_WEIGHTS_BYTES", 1000)
    with pytest.raises(PriorFileError, match=re.escape("big.npz: ")) as error:
        load_prior(path)
    assert "bytes uncompressed, over the limit of 1000" in str(error.value)


def test_a_prior_with_pickled_or_non_finite_values_is_refused(tmp_path):
    """Object arrays would need unpickling: refused, never loaded; NaN weights too."""
    pickled = tmp_path / "pickled.npz"
    np.savez(pickled, format=np.array([{"x": 1}], dtype=object))
    with pytest.raises(PriorFileError, match=re.escape("pickled.npz: not a prior archive")):
        load_prior(pickled)
    with pytest.raises(PriorFileError, match="not a prior archive"):
        load_prior(tmp_path / "missing.npz")
    (tmp_path / "text.npz").write_text("not a zip")
    with pytest.raises(PriorFileError, match=re.escape("text.npz: not a prior archive")):
        load_prior(tmp_path / "text.npz")
    weight = np.zeros((3, ObservationLayout(1, 1).size))
    weight[0, 0] = np.nan
    nan = _write(tmp_path / "nan.npz", weight_0=weight, bias_0=np.zeros(3))
    with pytest.raises(
        PriorFileError, match=re.escape("nan.npz: layer 0 holds values that are not finite")
    ):
        load_prior(nan)


def test_an_exported_model_plays_as_the_model(tmp_path):
    """``python -m facing_env.train.prior``: the prior of a MaskablePPO model gives the
    model's logits (float16 weights: to 1e-2) and its layout and fingerprint are the
    scenario's."""
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO

    from facing_env.train.prior import main
    from facing_env.train.team_vec_env import TeamVecEnv

    vec = TeamVecEnv("skirmish", 1, ["random"], seed=0)
    model = MaskablePPO("MlpPolicy", vec, seed=0, policy_kwargs={"net_arch": [32, 16]})
    model.save(tmp_path / "m.zip")
    vec.close()
    main([str(tmp_path / "m.zip"), "--scenario", "skirmish", "--out", str(tmp_path / "p.npz")])
    prior = load_prior(tmp_path / "p.npz")
    assert prior.fingerprint == _fingerprint("skirmish")
    assert [w.shape for w, _ in prior.layers] == [(32, 2341), (16, 32), (47, 16)]
    env, _ = _start("skirmish")
    obs = np.stack([env.observe(a)["observation"] for a in env.agents])
    with torch.no_grad():
        latent = model.policy.mlp_extractor.forward_actor(torch.as_tensor(obs))
        want = model.policy.action_net(latent).numpy()
    np.testing.assert_allclose(prior.logits(obs), want, atol=1e-2)


def test_exporting_a_model_of_another_layout_names_both(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from facing_env.train.prior import main
    from facing_env.train.team_vec_env import TeamVecEnv

    vec = TeamVecEnv("duel", 1, ["random"], seed=0)
    MaskablePPO("MlpPolicy", vec, seed=0, policy_kwargs={"net_arch": [8]}).save(tmp_path / "d")
    vec.close()
    with pytest.raises(SystemExit) as stop:
        main([str(tmp_path / "d.zip"), "--scenario", "skirmish", "--out", str(tmp_path / "p.npz")])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "d.zip: the model takes" in err and "skirmish has 2341 and 47" in err
    assert not (tmp_path / "p.npz").exists()


def test_while_more_than_two_stand_the_expert_is_the_prior_move_by_move():
    """A whole skirmish game against `flanker`: at every decision of the expert's creatures
    with more than two creatures standing, its action is the prior's on the env's own
    observation and mask (the plan on the search rows, mean dice, changes nothing: the
    expert re-reads the battle after every roll, and a waiting turn is not replayed)."""
    from facing_env.agents import make_agent

    prior = next(iter(shipped_priors().values()))
    env = raw_env(scenario="skirmish")
    expert, flanker = ExpertAgent(), make_agent("flanker")
    checked = 0
    for seed in (2, 9):
        env.reset(seed=seed)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            if not agent.startswith("red"):
                env.step(flanker.act(obs["observation"], obs["action_mask"], None))
                continue
            action = expert.act_battle(env.battle, obs["action_mask"], game=seed)
            if sum(c.hp > 0 for c in env.battle.creatures.values()) > 2:
                want = prior.actions(obs["observation"][None], obs["action_mask"][None])[0]
                assert action == want, (seed, env.battle.initiative.round)
                checked += 1
            env.step(action)
    assert checked >= 20
