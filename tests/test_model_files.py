"""Saved models are untrusted input: loading one unpickles nothing and bad files get a
clear error naming the file (docs/api.md, "Security of input files")."""

from __future__ import annotations

import base64
import json
import os
import pickle
import time
import tracemalloc
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO

from facing_env.agents.learned import LearnedAgent, ModelFileError, load_model, sharpen
from facing_env.train.team_env import TeamLearnerEnv


@pytest.fixture(scope="module")
def saved_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    env = TeamLearnerEnv("duel", opponents=("random",))
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=16, seed=0, device="cpu")
    path = tmp_path_factory.mktemp("model") / "model.zip"
    model.save(path)
    return path


class _Marker:
    """Unpickling this writes a file: proof that something was executed."""

    target = ""

    def __reduce__(self) -> tuple:
        return (Path(self.target).write_text, ("executed",))


def test_load_model_unpickles_nothing(saved_model: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import cloudpickle

    def refuse(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("cloudpickle.loads was called")

    monkeypatch.setattr(cloudpickle, "loads", refuse)
    model = load_model(saved_model)
    assert model.observation_space.shape == TeamLearnerEnv("duel").observation_space.shape

    assert model.action_space.n == 41  # 35 + 3 x 2 slots (env v1)


def test_the_loaded_policy_acts_as_the_saved_one(saved_model: Path) -> None:
    from facing_env.agents.learned import PolicyAgent

    ours, sb3 = PolicyAgent(load_model(saved_model)), PolicyAgent(MaskablePPO.load(saved_model))
    env = TeamLearnerEnv("duel", opponents=("aggressive",))
    obs, _ = env.reset(seed=0)
    for _ in range(40):
        mask = env.action_masks()
        expected = sb3.probabilities(obs, mask)
        np.testing.assert_array_equal(ours.probabilities(obs, mask), expected)
        obs, _, done, truncated, _ = env.step(int(np.argmax(expected)))
        if done or truncated:
            obs, _ = env.reset()


def test_a_pickled_payload_is_not_executed(saved_model: Path, tmp_path: Path) -> None:
    marker = tmp_path / "executed.txt"
    _Marker.target = str(marker)
    evil = tmp_path / "evil.zip"
    with zipfile.ZipFile(saved_model) as src, zipfile.ZipFile(evil, "w") as dst:
        for name in src.namelist():
            payload = src.read(name)
            if name == "data":
                data = json.loads(payload)
                blob = base64.b64encode(pickle.dumps(_Marker())).decode()
                data["policy_class"] = {":type:": "x", ":serialized:": blob}
                data["extra_entry"] = {":type:": "x", ":serialized:": blob}
                payload = json.dumps(data).encode()
            dst.writestr(name, payload)
    agent = LearnedAgent(evil)
    env = TeamLearnerEnv("duel", opponents=("random",))
    obs, _ = env.reset(seed=0)
    action = agent.act(obs, env.action_masks(), np.random.default_rng(0))
    assert env.action_masks()[action]
    assert not marker.exists()


def _rewrite(src: Path, dst: Path, edit: object) -> Path:
    """A copy of a model archive with its ``data`` JSON passed through ``edit``."""
    with zipfile.ZipFile(src) as a, zipfile.ZipFile(dst, "w") as b:
        for name in a.namelist():
            payload = a.read(name)
            if name == "data":
                data = json.loads(payload)
                edit(data)  # type: ignore[operator]
                payload = json.dumps(data).encode()
            b.writestr(name, payload)
    return dst


def test_a_model_file_cannot_make_the_loader_import_a_module(
    saved_model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "imported.txt"
    (tmp_path / "planted_env_module.py").write_text(
        f"from pathlib import Path\nPath({str(marker)!r}).write_text('imported')\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    evil = _rewrite(
        saved_model, tmp_path / "env.zip", lambda d: d.update(env="planted_env_module:Env-v0")
    )
    assert load_model(evil).action_space.n == 41
    assert not marker.exists()


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d["policy_kwargs"].update(net_arch=[10**9]), "net_arch needs at most"),
        (lambda d: d["policy_kwargs"].update(activation_fn="x"), "unsupported policy_kwargs"),
        (lambda d: d["observation_space"].update(_shape=[3, 3]), "flat float Box"),
        (lambda d: d["action_space"].update(n="0"), "Discrete"),
        (lambda d: d["policy_kwargs"].update(net_arch=[8]), "weights do not fit"),
        (lambda d: d["policy_kwargs"].update(net_arch=[True, True]), "net_arch needs at most"),
        (lambda d: d["action_space"].update(n=41.7), "n must be a whole number, got 41.7"),
    ],
)
def test_a_model_file_outside_the_limits_names_the_problem(
    saved_model: Path, tmp_path: Path, edit: object, message: str
) -> None:
    bad = _rewrite(saved_model, tmp_path / "bad.zip", edit)
    with pytest.raises(ModelFileError, match=message):
        load_model(bad)


def test_a_file_that_is_not_a_model_names_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "notes.zip"
    bad.write_text("hello")
    with pytest.raises(ModelFileError, match=r"notes\.zip: not a stable-baselines3 model"):
        load_model(bad)


def test_a_model_of_another_layout_says_so(saved_model: Path) -> None:
    agent = LearnedAgent(saved_model)
    with pytest.raises(ValueError, match="another scenario's layout"):
        agent.act(np.zeros(10, np.float32), np.ones(36, np.int8), np.random.default_rng(0))


# -- temperature ------------------------------------------------------------------------------


def test_sharpen_exact_values() -> None:
    probs = np.array([0.6, 0.4, 0.0])
    np.testing.assert_allclose(sharpen(probs, 0.5), [0.36 / 0.52, 0.16 / 0.52, 0.0])
    np.testing.assert_allclose(sharpen(probs, 1.0), probs)
    assert sharpen(np.array([1e-300, 1.0]), 0.01).tolist() == [0.0, 1.0]
    assert sharpen(probs, 1e-310).tolist() == [1.0, 0.0, 0.0]  # overflow: greedy


def test_model_spec_temperature(saved_model: Path) -> None:
    from facing_env.agents import make_agent

    agent = make_agent(f"model:{saved_model}@0.25")
    assert isinstance(agent, LearnedAgent)
    assert (agent.path, agent.temperature, agent.deterministic) == (saved_model, 0.25, False)
    greedy = make_agent(f"model:{saved_model}@0")
    assert isinstance(greedy, LearnedAgent) and greedy.deterministic
    plain = make_agent(f"model:{saved_model}")  # greedy, as stable-baselines3 evaluates
    assert isinstance(plain, LearnedAgent) and plain.deterministic
    sampled = make_agent(f"model:{saved_model}@1")
    assert isinstance(sampled, LearnedAgent) and sampled.temperature == 1.0
    with pytest.raises(ValueError, match="temperature after '@' must be >= 0, got -1"):
        make_agent(f"model:{saved_model}@-1")
    for tail in ("abc", ""):  # a mistyped temperature is refused, not read as greedy play
        with pytest.raises(ValueError, match=f"must be a number, got '{tail}'"):
            make_agent(f"model:{saved_model}@{tail}")
    with pytest.raises(TypeError, match="an agent is named by a string, got NoneType"):
        make_agent(None)  # type: ignore[arg-type]
    named = saved_model.with_name("policy@1.zip")  # an '@' in the file name itself
    named.write_bytes(saved_model.read_bytes())
    whole = make_agent(f"model:{named.with_suffix('')}")
    assert isinstance(whole, LearnedAgent) and whole.path == named.with_suffix("")


def test_greedy_play_takes_the_most_likely_action(saved_model: Path) -> None:
    env = TeamLearnerEnv("duel", opponents=("random",))
    obs, _ = env.reset(seed=3)
    greedy = LearnedAgent(saved_model, temperature=0.0)
    probs = greedy.probabilities(obs, env.action_masks())
    rngs = [np.random.default_rng(i) for i in range(5)]
    assert {greedy.act(obs, env.action_masks(), rng) for rng in rngs} == {int(np.argmax(probs))}


@pytest.mark.parametrize(
    ("scenario", "kind"), [("skirmish", "EntityExtractor"), ("duel", "ClockExtractor")]
)
def test_an_extractor_model_loads_without_unpickling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scenario: str, kind: str
) -> None:
    """A model with a features extractor of facing_env.train.policies (EntityExtractor;
    ClockExtractor, the duel's recipe): rebuilt by name from the JSON, the same
    probabilities as stable-baselines3's own loader."""
    import cloudpickle

    from facing_env.agents.learned import PolicyAgent
    from facing_env.train import policies

    env = TeamLearnerEnv(scenario, opponents=("random",))
    layout = env.env.layout
    kwargs = (
        policies.entity_policy_kwargs(layout, [32])
        if kind == "EntityExtractor"
        else policies.clock_policy_kwargs(layout, [32], 30)
    )
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=16, seed=0, policy_kwargs=kwargs)
    path = tmp_path / "extractor.zip"
    model.save(path)
    reference = PolicyAgent(MaskablePPO.load(path))
    monkeypatch.setattr(cloudpickle, "loads", lambda *_a, **_k: pytest.fail("unpickled"))
    loaded = load_model(path)
    assert isinstance(loaded.policy.features_extractor, getattr(policies, kind))
    obs, _ = env.reset(seed=1)
    mask = env.action_masks()
    np.testing.assert_allclose(
        PolicyAgent(loaded).probabilities(obs, mask), reference.probabilities(obs, mask), atol=1e-6
    )


@pytest.mark.parametrize(("round_", "ones"), [(1, 1), (8, 8), (9, 9), (30, 30)])
def test_the_clock_codes_the_round_as_a_thermometer(round_: int, ones: int) -> None:
    """ClockExtractor: the observation unchanged, then 30 features (the duel's max_rounds)
    of which the first ``round`` are 1: rounds 8 and 9, one scalar step of 1/30 apart, differ
    in one whole input."""
    import torch

    from facing_env.env import raw_env
    from facing_env.observation import Scalar
    from facing_env.train.policies import ClockExtractor

    env = raw_env(scenario="duel")
    env.reset(seed=0)
    lay = env.layout
    obs = env.observe(env.agent_selection)["observation"].copy()
    obs[lay.window_size + lay.table_size + Scalar.ROUND_FRACTION] = np.float32(round_ / 30)
    space = env.observation_space(env.agent_selection)["observation"]
    extractor = ClockExtractor(space, lay.window, lay.n_slots, 30)
    out = extractor(torch.as_tensor(obs[None]))[0].numpy()
    assert out.shape == (obs.size + 30,)
    np.testing.assert_array_equal(out[: obs.size], obs)
    assert out[obs.size :].tolist() == [1.0] * ones + [0.0] * (30 - ones)


@pytest.mark.parametrize(
    ("kind", "entry", "value", "message"),
    [
        (
            "EntityExtractor",
            "features_extractor_class",
            "<class 'os.system'>",
            "unsupported features_extractor",
        ),
        (
            "EntityExtractor",
            "features_extractor_kwargs",
            {"window": 10**9, "n_slots": 2},
            "integers in",
        ),
        ("EntityExtractor", "features_extractor_kwargs", {"window": 11, "evil": 1}, "integers in"),
        (  # each extractor takes only its own arguments
            "ClockExtractor",
            "features_extractor_kwargs",
            {"window": 11, "n_slots": 2, "rounds": 30, "conv_channels": 8},
            "integers in",
        ),
    ],
)
def test_extractor_entries_are_checked(
    saved_model: Path, tmp_path: Path, kind: str, entry: str, value: object, message: str
) -> None:
    with zipfile.ZipFile(saved_model) as archive:
        members = {n: archive.read(n) for n in archive.namelist()}
    data = json.loads(members["data"])
    kwargs = data["policy_kwargs"]
    kwargs["features_extractor_class"] = f"<class 'facing_env.train.policies.{kind}'>"
    kwargs["features_extractor_kwargs"] = {"window": 11, "n_slots": 2}
    kwargs[entry] = value
    members["data"] = json.dumps(data).encode()
    bad = tmp_path / "bad.zip"
    with zipfile.ZipFile(bad, "w") as archive:
        for name, blob in members.items():
            archive.writestr(name, blob)
    with pytest.raises(ModelFileError, match=message):
        load_model(bad)


# -- hostile model files ----------------------------------------------------------------------


def _replace_member(src: Path, dst: Path, name: str, payload: bytes) -> Path:
    """A copy of a model archive with one member replaced."""
    with zipfile.ZipFile(src) as a, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as b:
        for member in a.namelist():
            b.writestr(member, payload if member == name else a.read(member))
    return dst


def test_the_layout_is_checked_before_any_network_is_built(
    saved_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sb3_contrib.common.maskable import policies

    def refuse(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("a network was built")

    monkeypatch.setattr(policies, "MaskableActorCriticPolicy", refuse)
    with pytest.raises(ModelFileError, match="another scenario's layout") as info:
        load_model(saved_model, observation_size=10, actions=41)
    assert "10 and 41" in str(info.value)
    agent = LearnedAgent(saved_model)
    with pytest.raises(ModelFileError, match="another scenario's layout"):
        agent.check_layout(10, 41)


def test_a_member_that_inflates_too_far_is_refused_before_it_is_read(
    saved_model: Path, tmp_path: Path
) -> None:
    from facing_env.limits import MAX_MODEL_DATA_BYTES

    bomb = _replace_member(saved_model, tmp_path / "bomb.zip", "data", b" " * (17 << 20))
    # hardly larger than the model, but the member inflates past the limit
    assert bomb.stat().st_size < saved_model.stat().st_size + (1 << 20)
    start = time.perf_counter()
    with pytest.raises(ModelFileError, match=f"more than the limit of {MAX_MODEL_DATA_BYTES}"):
        load_model(bomb)
    assert time.perf_counter() - start < 2.0


def test_the_weights_member_is_capped(saved_model: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import facing_env.agents.learned as learned

    monkeypatch.setattr(learned, "MAX_MODEL_WEIGHTS_BYTES", 1000)
    with pytest.raises(ModelFileError, match=r"'policy.pth' inflates to .* limit of 1000"):
        load_model(saved_model)


def test_networks_too_large_are_refused_before_they_are_built(
    saved_model: Path, tmp_path: Path
) -> None:
    big = _rewrite(
        saved_model,
        tmp_path / "big.zip",
        lambda d: d["policy_kwargs"].update(net_arch=[4096] * 16),
    )
    tracemalloc.start()
    try:
        with pytest.raises(ModelFileError, match="parameters, more than the limit"):
            load_model(big)
        assert tracemalloc.get_traced_memory()[1] < 64 << 20
    finally:
        tracemalloc.stop()


def test_nan_weights_are_refused(saved_model: Path, tmp_path: Path) -> None:
    import io

    import torch

    with zipfile.ZipFile(saved_model) as archive:
        state = torch.load(io.BytesIO(archive.read("policy.pth")), weights_only=True)
    key = next(k for k, v in state.items() if v.is_floating_point())
    for value in (float("nan"), float("inf")):
        state[key] = torch.full_like(state[key], value)
        buffer = io.BytesIO()
        torch.save(state, buffer)
        bad = _replace_member(saved_model, tmp_path / "nan.zip", "policy.pth", buffer.getvalue())
        with pytest.raises(ModelFileError, match=r"are not finite \(NaN or infinite\)"):
            load_model(bad)
    text = _replace_member(saved_model, tmp_path / "text.zip", "policy.pth", b"not a tensor")
    with pytest.raises(ModelFileError, match=r"policy\.pth is not a PyTorch state dict"):
        load_model(text)


@pytest.mark.parametrize("cut", [0.3, 0.6, 0.9, 0.999])
def test_a_truncated_model_file_names_the_problem(
    saved_model: Path, tmp_path: Path, cut: float
) -> None:
    blob = saved_model.read_bytes()
    bad = tmp_path / "cut.zip"
    bad.write_bytes(blob[: int(len(blob) * cut)])
    with pytest.raises(ModelFileError) as info:
        load_model(bad)
    message = str(info.value)
    assert message.startswith(f"{bad}: ") and "()" not in message and len(message) < 500


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_given_as_a_model_is_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "model.zip"
    os.mkfifo(fifo)
    with pytest.raises(ModelFileError, match="not a regular file"):
        load_model(fifo)


def test_evaluate_refuses_a_model_of_another_layout_before_any_game(
    saved_model: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    import facing_env.evaluation.evaluate as evaluate

    monkeypatch.setattr(evaluate, "play_games", lambda *a, **k: pytest.fail("a game was played"))
    argv = ["--scenario", "skirmish", "--agents", f"model:{saved_model}", "random"]
    with pytest.raises(SystemExit) as info:
        evaluate.main(argv)
    assert info.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "another scenario's layout" in lines[0], lines


def test_an_oversized_extractor_is_refused_before_it_is_built(
    saved_model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """window 235 and 1024-wide layers would be billions of parameters."""
    from facing_env.train import policies

    monkeypatch.setattr(policies.EntityExtractor, "__init__", lambda *a, **k: pytest.fail("built"))
    with zipfile.ZipFile(saved_model) as archive:
        members = {n: archive.read(n) for n in archive.namelist()}
    data = json.loads(members["data"])
    data["policy_kwargs"]["features_extractor_class"] = (
        "<class 'facing_env.train.policies.EntityExtractor'>"
    )
    data["policy_kwargs"]["features_extractor_kwargs"] = {
        "window": 235,
        "n_slots": 2,
        "conv_channels": 1024,
        "window_dim": 1024,
    }
    members["data"] = json.dumps(data).encode()
    bad = tmp_path / "huge.zip"
    with zipfile.ZipFile(bad, "w") as archive:
        for name, blob in members.items():
            archive.writestr(name, blob)
    with pytest.raises(ModelFileError, match="parameters, more than the limit"):
        load_model(bad)
