"""The optional Cython build (``setup.py``, :mod:`facing_env._accel`) changes nothing but speed.

The compiled modules are the same sources, compiled. A differential test plays seeded
random masked episodes of every scenario in two processes, one on the compiled modules and
one with ``FACING_ENV_PURE_PYTHON=1``, and compares a digest of every observation, mask,
reward, flag, ``state()`` and the event log. The choice of build is checked too: a module
whose source changed since it was compiled runs from source, never stale.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

import facing_env
from facing_env import _accel

ROOT = Path(__file__).resolve().parents[1]

_DIGEST = """
import hashlib, sys
import numpy as np
import facing_env
from tests.env_play import masked_choice
print(len(facing_env.compiled_modules()))
for scenario in facing_env.scenario_names():
    digest = hashlib.sha256()
    for seed in (3, 4):
        env = facing_env.env(scenario=scenario)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        u = env.unwrapped
        for agent in env.agent_iter():
            obs, reward, termination, truncation, _ = env.last()
            for a in u.agents:
                view = u.observe(a)
                digest.update(view["observation"].tobytes() + view["action_mask"].tobytes())
            digest.update(env.state().tobytes())
            digest.update(repr((agent, reward, termination, truncation)).encode())
            digest.update(repr(sorted(u._cumulative_rewards.items())).encode())
            action = None if termination or truncation else masked_choice(rng, obs["action_mask"])
            env.step(action)
        digest.update(repr(u.events).encode())
    print(scenario, digest.hexdigest())
"""


def _digests(pure: bool) -> tuple[int, list[str]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop(_accel.PURE_ENV_VAR, None)
    if pure:
        env[_accel.PURE_ENV_VAR] = "1"
    out = subprocess.run(
        [sys.executable, "-W", "error::RuntimeWarning", "-c", _DIGEST],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    first, *lines = out.stdout.split("\n")
    return int(first), [line for line in lines if line]


@pytest.mark.skipif(
    not facing_env.compiled_modules(),
    reason="pure-Python install (no Cython build, or FACING_ENV_PURE_PYTHON is set)",
)
def test_compiled_and_pure_modules_play_the_same_episodes():
    """Every scenario, two seeded episodes each: the same digest from both builds."""
    n_compiled, compiled = _digests(pure=False)
    n_pure, pure = _digests(pure=True)
    assert n_compiled == len(_accel.COMPILED_MODULES)
    assert n_pure == 0
    assert len(compiled) == len(facing_env.scenario_names())
    assert compiled == pure


def test_the_pure_switch_loads_every_module_from_source():
    compiled, from_source, stale = _accel.plan(pure=True, manifest={})
    assert compiled == [] and stale == []
    for module, path in from_source.items():
        assert path == _accel.source_path(module) and path.suffix == ".py"


def test_a_module_whose_source_changed_runs_from_source():
    """A manifest hash that is not the source's marks the module stale."""
    if not facing_env.compiled_modules():
        pytest.skip("pure-Python install: nothing is compiled")
    manifest = {
        m: hashlib.sha256(_accel.source_path(m).read_bytes()).hexdigest()
        for m in _accel.COMPILED_MODULES
    }
    compiled, from_source, stale = _accel.plan(pure=False, manifest=manifest)
    assert stale == [] and from_source == {}
    assert compiled == list(_accel.COMPILED_MODULES)
    manifest["facing_env.engine"] = "0" * 64
    compiled, from_source, stale = _accel.plan(pure=False, manifest=manifest)
    assert stale == ["facing_env.engine"]
    assert from_source == {"facing_env.engine": _accel.source_path("facing_env.engine")}
    assert "facing_env.engine" not in compiled


def test_the_source_finder_imports_the_py_file():
    path = _accel.source_path("facing_env.dice")
    spec = _accel._SourceFinder({"facing_env.dice": path}).find_spec("facing_env.dice")
    assert spec is not None and spec.origin == str(path)
    assert _accel._SourceFinder({}).find_spec("facing_env.dice") is None


def test_every_listed_module_exists_as_source():
    for module in _accel.COMPILED_MODULES:
        assert _accel.source_path(module).is_file(), module


def test_bench_reports_the_build_and_every_line(capsys):
    from facing_env import bench

    bench.main(["--steps", "40", "--scenario", "duel"])
    out = capsys.readouterr().out.splitlines()
    build = "compiled" if facing_env.compiled_modules() else "pure Python"
    assert out[0].startswith("facing_env build: " + build)
    names = [line.split()[0] for line in out[2:]]
    assert names == ["connect_four_v3", "duel", "duel"]  # play, then observe
    assert out[-1].split()[1] == "observe"
