"""The optional Cython build (``setup.py``, :mod:`facing_env._accel`) changes nothing but speed.

The compiled modules are the same sources, compiled. A differential test plays seeded
random masked episodes and games of every scripted agent in every scenario, in two
processes, one on the compiled modules and one with ``FACING_ENV_PURE_PYTHON=1``, and
compares a digest of every observation, mask, reward, flag, ``state()``, chosen action,
game result and the event log. The choice of build is checked too: a module
whose source changed since it was compiled runs from source, never stale.
"""

from __future__ import annotations

import os
import shutil
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
import importlib
from facing_env import _accel
print(len(facing_env.compiled_modules()))
print(" ".join(importlib.import_module(m).__file__ for m in _accel.COMPILED_MODULES))
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
    # scripted agents (compiled too): every scripted agent plays one game per scenario
    from facing_env.agents import make_agent
    from facing_env.match import play_game
    names = ["flanker", "aggressive", "defensive", "random"]
    for i, name in enumerate(names):
        teams = facing_env.raw_env(scenario=scenario).scenario.teams
        agents = {t: make_agent(names[(i + k) % len(names)]) for k, t in enumerate(teams)}
        result = play_game(scenario, agents, seed=5 + i)
        digest.update(repr((result.winner, result.rounds, result.actions)).encode())
        digest.update(repr((result.events, sorted(result.teams.items()))).encode())
    print(scenario, digest.hexdigest())
"""


def _digests(pure: bool) -> tuple[int, list[str], list[str]]:
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
    first, files, *lines = out.stdout.split("\n")
    return int(first), files.split(), [line for line in lines if line]


needs_build = pytest.mark.skipif(
    len(facing_env.compiled_modules()) != len(_accel.COMPILED_MODULES),
    reason="no complete compiled build: a pure-Python install, FACING_ENV_PURE_PYTHON, "
    "or sources edited since the last `pip install -e .` (.ci/run insists on one)",
)


@needs_build
def test_compiled_and_pure_modules_play_the_same_episodes():
    """Every scenario, two seeded episodes each: the same digest from both builds, and
    each build really imported what it says (extensions, or every ``.py`` source)."""
    n_compiled, compiled_files, compiled = _digests(pure=False)
    n_pure, pure_files, pure = _digests(pure=True)
    assert n_compiled == len(_accel.COMPILED_MODULES)
    assert compiled_files == [str(_accel.extension_path(m)) for m in _accel.COMPILED_MODULES]
    assert n_pure == 0
    assert pure_files == [str(_accel.source_path(m)) for m in _accel.COMPILED_MODULES]
    assert len(compiled) == len(facing_env.scenario_names())
    assert compiled == pure


@pytest.mark.parametrize(("value", "pure"), [("1", True), ("yes", True), ("0", False), ("", False)])
def test_the_pure_switch_is_read_from_the_environment(monkeypatch, value, pure):
    monkeypatch.setenv(_accel.PURE_ENV_VAR, value)
    assert _accel.pure_requested() is pure
    if pure:
        assert _accel.plan(pure=True, manifest=_accel.read_manifest()) == ({}, [])


def _current_manifest() -> dict[str, str]:
    return {m: _accel.digest(_accel.source_path(m)) for m in _accel.COMPILED_MODULES}


@needs_build
def test_a_module_whose_source_changed_runs_from_source():
    """A manifest hash that is not the source's marks the module stale."""
    manifest = _current_manifest()
    assert _accel.read_manifest() == manifest  # this install is up to date
    compiled, stale = _accel.plan(pure=False, manifest=manifest)
    assert stale == []
    assert list(compiled) == list(_accel.COMPILED_MODULES)
    manifest["facing_env.engine"] = "0" * 64
    compiled, stale = _accel.plan(pure=False, manifest=manifest)
    assert stale == ["facing_env.engine"]
    assert "facing_env.engine" not in compiled and len(compiled) == len(manifest) - 1


@needs_build
def test_an_edited_copy_runs_the_edited_module_from_source(tmp_path):
    """End to end: a copy of the package with one source edited imports that module from
    its ``.py`` file with a warning, and the others from their extensions."""
    copy = tmp_path / "facing_env"
    shutil.copytree(ROOT / "facing_env", copy, ignore=shutil.ignore_patterns("__pycache__"))
    with (copy / "dice.py").open("a") as f:
        f.write("\nEDITED = True\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    env.pop(_accel.PURE_ENV_VAR, None)
    script = (
        "import facing_env, facing_env.dice as d, facing_env.engine as e; "
        "print(len(facing_env.compiled_modules()), d.EDITED, d.__file__, e.__file__)"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    n, edited, dice_file, engine_file = out.stdout.split()
    assert (n, edited) == (str(len(_accel.COMPILED_MODULES) - 1), "True")
    assert dice_file == str(copy / "dice.py")
    assert engine_file.startswith(str(copy / _accel.COMPILED_DIR))
    assert "older than their sources (dice)" in out.stderr


def test_the_extension_finder_loads_only_what_it_is_given():
    assert _accel._ExtensionFinder({}).find_spec("facing_env.dice") is None
    path = _accel.extension_path("facing_env.dice")
    if path is None:
        pytest.skip("pure-Python install: no extension to load")
    spec = _accel._ExtensionFinder({"facing_env.dice": path}).find_spec("facing_env.dice")
    assert spec is not None and spec.origin == str(path)


def test_every_listed_module_exists_as_source():
    for module in _accel.COMPILED_MODULES:
        assert _accel.source_path(module).is_file(), module


def test_bench_reports_the_build_and_every_line(capsys):
    from facing_env import bench

    bench.main(["--steps", "40", "--scenario", "duel", "--num-envs", "8"])
    out = capsys.readouterr().out.splitlines()
    build = "compiled" if facing_env.compiled_modules() else "pure Python"
    assert out[0].startswith("facing_env build: " + build)
    names = [" ".join(line.split()[:-3]) for line in out[2:]]
    assert names == ["connect_four_v3", "duel", "duel VectorEnv x8", "duel observe"]
    assert int(out[3].split()[-3]) == 40  # steps of the duel line
    assert int(out[4].split()[-3]) == 40  # agent-steps: 5 calls of 8 battles


def test_bench_refuses_bad_counts(capsys):
    from facing_env import bench

    for argv, needle in (
        (["--num-envs", "-1"], "--num-envs must be from 0 to 65536, got -1"),
        (["--steps", "0"], "--steps must be at least 1, got 0"),
    ):
        with pytest.raises(SystemExit) as info:
            bench.main(argv)
        assert info.value.code == 2
        assert needle in capsys.readouterr().err


def test_a_wheel_ships_the_extensions_and_their_manifest(tmp_path):
    """Install time: ``pip wheel`` of the project compiles every listed module into
    ``facing_env/_compiled/`` with a manifest of the sources' hashes (about a minute)."""
    import json
    import zipfile

    if shutil.which("gcc") is None and shutil.which("cc") is None:
        pytest.skip("no C compiler")
    src = tmp_path / "src"
    src.mkdir()
    for name in ("setup.py", "pyproject.toml", "README.md", "LICENSE"):
        if (ROOT / name).exists():
            shutil.copy2(ROOT / name, src / name)
    shutil.copytree(
        ROOT / "facing_env",
        src / "facing_env",
        ignore=shutil.ignore_patterns("__pycache__", _accel.COMPILED_DIR),
    )
    for folder in _accel.SOURCE_DIRS.values():  # agents/: installed as facing_env.agents
        shutil.copytree(ROOT / folder, src / folder, ignore=shutil.ignore_patterns("__pycache__"))
    env = {k: v for k, v in os.environ.items() if k != _accel.PURE_ENV_VAR}
    out = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), str(src)],
        env=env,
        capture_output=True,
        text=True,
    )
    if out.returncode != 0 and "No matching distribution" in out.stderr:
        pytest.skip("the package index is unreachable (build requirements)")
    assert out.returncode == 0, out.stderr[-2000:]
    (wheel,) = tmp_path.glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    folder = f"facing_env/{_accel.COMPILED_DIR}/"
    built = {n[len(folder) :].split(".cpython")[0] for n in names if n.startswith(folder)}
    assert built == {*_accel.COMPILED_MODULES, _accel.MANIFEST}
    manifest = json.loads(zipfile.ZipFile(wheel).read(folder + _accel.MANIFEST))
    assert manifest == _current_manifest()
    assert "facing_env/engine.py" in names  # the sources ship too (the pure fallback)
