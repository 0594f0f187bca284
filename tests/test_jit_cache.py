"""numba's cache is versioned by the sources the kernels depend on
(``facing_env.fast.cache``): an edit of any module a kernel module imports, not only of a
kernel's own file, compiles the kernels afresh; an edit of a module no kernel reaches
keeps them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from numba.core import config

from facing_env.fast import cache as _jit_cache


def _copy_of_the_package(tmp_path: Path, monkeypatch) -> Path:
    """A copy of the package's sources that ``_jit_cache`` reads instead of its own."""
    package = tmp_path / "facing_env"
    shutil.copytree(
        Path(_jit_cache.__file__).parent.parent,
        package,
        ignore=shutil.ignore_patterns("__pycache__", "_compiled"),
    )
    agents = Path(_jit_cache._agents_dir())
    shutil.copytree(  # beside the package, as in a checkout (an editable install maps it)
        agents, tmp_path / "agents", ignore=shutil.ignore_patterns("__pycache__")
    )
    monkeypatch.setattr(_jit_cache, "_PACKAGE", package)
    return package


def test_the_cache_directory_follows_every_source(tmp_path, monkeypatch):
    package = _copy_of_the_package(tmp_path, monkeypatch)
    before = _jit_cache.source_digest()
    assert _jit_cache.source_digest() == before  # stable
    tables = package / "tables.py"  # not a kernel's file: its constants are inlined
    tables.write_text(tables.read_text() + "\n# an edit\n")
    assert _jit_cache.source_digest() != before


def _edited(package: Path, module: str) -> None:
    path = package / module
    path.write_text(path.read_text() + "\n# an edit\n")


def test_the_digest_covers_the_kernels_import_closure_only(tmp_path, monkeypatch):
    """The kernels' modules and what they import (the reference engine the tables come
    from included) are in, the scripted agents' kernel modules (``agents/<name>.py``,
    ``agents/kernels/``) too; the PettingZoo layer, the evaluation and the training helpers
    are not: ``from facing_env.rules import engine`` reads the module ``engine``, not the
    package's ``__init__`` (which imports the env)."""
    package = _copy_of_the_package(tmp_path, monkeypatch)
    names = {  # package modules by their path in the package, agents/ beside it as is
        p.relative_to(package if p.is_relative_to(package) else tmp_path).as_posix()
        for p in _jit_cache.kernel_sources()
    }
    inside = {"fast/legality.py", "tables.py", "rules/battle.py", "rules/engine.py"}
    assert inside | {"observation.py", "fast/cache.py", "rules/movement.py"} <= names
    outside = {
        "env.py",
        "train/team_env.py",
        "evaluation/evaluate.py",
        "train/imitation.py",
        "train/league.py",
        "vector.py",
    }
    assert not names & outside, names & outside
    agents = {f"agents/{n}.py" for n in ("aggressive", "flanker", "defensive", "lookahead")}
    kernels = {f"agents/kernels/{n}.py" for n in ("spec", "view", "geometry", "tactics", "paths")}
    assert agents | kernels | {"agents/kernels/runner.py", "agents/view.py"} <= names
    assert not any(n.startswith("tests/") or "/reference/" in n for n in names)
    before = _jit_cache.source_digest()
    for module in sorted(outside):
        _edited(package, module)
    assert _jit_cache.source_digest() == before
    _edited(package, "rules/battle.py")
    assert _jit_cache.source_digest() != before
    edited = _jit_cache.source_digest()
    _edited(tmp_path, "agents/kernels/paths.py")  # a shared kernel of the scripted agents
    assert _jit_cache.source_digest() != edited


def test_activate_points_numba_inside_the_users_cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    old = config.CACHE_DIR
    try:
        where = _jit_cache.activate()
        assert where == tmp_path / "facing_env" / _jit_cache.source_digest()
        assert where.is_dir() and str(where) == config.CACHE_DIR
    finally:
        config.CACHE_DIR = old


def test_lookup_tables_are_kept_beside_the_kernels_and_rebuilt_when_unreadable(
    tmp_path, monkeypatch
):
    """``fast.tables.on_disk``: the first call builds and stores the arrays in this
    version's directory, the next reads them back equal (a ``Tables`` with its scalars),
    and a damaged file is built again rather than trusted."""
    import numpy as np

    from facing_env.fast import lookup as tables
    from facing_env.types import GridKind, Ruleset

    monkeypatch.setattr(_jit_cache, "_active", tmp_path)
    built = tables.tables_for.__wrapped__.__wrapped__  # below @cache and @on_disk
    calls = []

    def counting(*args):
        calls.append(args)
        return built(*args)

    counting.__name__ = "tables_for"  # stored as tables_for's (a Tables)
    stored = tables.on_disk(counting)
    first = stored(GridKind.SQUARE, Ruleset.UA35, 6, (0,))
    files = list((tmp_path / "tables").glob("tables_for-*.npz"))
    assert len(files) == 1 and len(calls) == 1
    again = stored(GridKind.SQUARE, Ruleset.UA35, 6, (0,))
    assert len(calls) == 1 and isinstance(again, tables.Tables)
    assert again.square is True and again.radius == first.radius == 6
    for name in tables.Tables._fields[2:]:
        np.testing.assert_array_equal(getattr(again, name), getattr(first, name), err_msg=name)
        assert getattr(again, name).dtype == getattr(first, name).dtype, name
    files[0].write_bytes(b"not a zip")
    stored(GridKind.SQUARE, Ruleset.UA35, 6, (0,))
    assert len(calls) == 2
    assert len(list((tmp_path / "tables").glob("*.npz"))) == 1  # rewritten, no leftovers
    monkeypatch.setattr(_jit_cache, "_active", None)  # no cache directory: nothing stored
    stored(GridKind.SQUARE, Ruleset.UA35, 7, (0,))
    assert len(calls) == 3 and len(list((tmp_path / "tables").glob("*.npz"))) == 1


# -- a damaged, foreign or unwritable cache (issue 33) -------------------------------------


def test_repair_removes_empty_and_cut_files_and_keeps_whole_ones(tmp_path):
    """numba's index (``.nbi``: two pickles, its version then the index) and compiled
    kernels (``.nbc``: one pickle) are checked with ``pickletools`` (nothing is run): an
    empty file and one cut short are removed, whole ones stay."""
    import pickle

    index = pickle.dumps("0.61.0") + pickle.dumps((1.0, {"sig": "f-1.py311.1.nbc"}))
    kernel = pickle.dumps(("machine code", b"\x00" * 100))
    files = {
        "whole.py311.nbi": index,
        "whole.py311.1.nbc": kernel,
        "empty.py311.nbi": b"",
        "empty.py311.1.nbc": b"",
        "cut.py311.nbi": index[:-7],
        "cut.py311.1.nbc": kernel[:-3],
        "one_pickle.py311.nbi": pickle.dumps("0.61.0"),
    }
    (tmp_path / "sub").mkdir()
    for name, data in files.items():
        (tmp_path / "sub" / name).write_bytes(data)
    assert _jit_cache.repair(tmp_path) == 5
    assert sorted(p.name for p in (tmp_path / "sub").iterdir()) == [
        "whole.py311.1.nbc",
        "whole.py311.nbi",
    ]


KERNEL_MODULE = """
from numba import njit

@njit(cache=True)
def triple(x):
    return 3 * x
"""


def _run_kernel(tmp_path: Path, cache: Path) -> subprocess.CompletedProcess:
    code = "import facing_env, kernel_module; print(kernel_module.triple(14))"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": _pythonpath(tmp_path)}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300
    )


def _pythonpath(tmp_path: Path) -> str:
    return os.pathsep.join([str(tmp_path), *sys.path])


def test_a_damaged_cache_is_rebuilt_with_one_line(tmp_path):
    """A kernel compiled into the cache, its files then emptied and cut short: the next
    run removes them with one line on stderr and compiles again (no pickle error)."""
    (tmp_path / "kernel_module.py").write_text(KERNEL_MODULE)
    cache = tmp_path / "cache"
    first = _run_kernel(tmp_path, cache)
    assert first.returncode == 0 and first.stdout.strip() == "42", first.stderr
    damaged = sorted(cache.rglob("*kernel_module*.nb[ic]"))
    assert {p.suffix for p in damaged} == {".nbi", ".nbc"}
    for n, path in enumerate(damaged):
        path.write_bytes(b"" if n % 2 else path.read_bytes()[:-5])
    second = _run_kernel(tmp_path, cache)
    assert second.returncode == 0 and second.stdout.strip() == "42", second.stderr
    lines = [x for x in second.stderr.splitlines() if x.startswith("facing_env:")]
    assert len(lines) == 1 and "damaged" in lines[0], second.stderr
    third = _run_kernel(tmp_path, cache)  # rebuilt: silent again
    assert third.returncode == 0 and "facing_env:" not in third.stderr, third.stderr


@pytest.mark.parametrize("how", ["a file", "writable by others"])
def test_an_unusable_cache_folder_is_bypassed_with_one_line(tmp_path, how):
    """``NUMBA_CACHE_DIR`` naming a file, or a folder others may write into (numba's
    cache files are pickles: loading them runs code): ``import facing_env`` and the
    kernels still work, compiled into a private temporary folder, with one line."""
    (tmp_path / "kernel_module.py").write_text(KERNEL_MODULE)
    cache = tmp_path / "cache"
    if how == "a file":
        cache.write_text("not a folder")
    else:
        (cache / "facing_env").mkdir(parents=True)
        (cache / "facing_env").chmod(0o777)
    run = _run_kernel(tmp_path, cache)
    assert run.returncode == 0 and run.stdout.strip() == "42", run.stderr
    lines = [x for x in run.stderr.splitlines() if x.startswith("facing_env:")]
    assert len(lines) == 1 and "cannot use the kernel cache" in lines[0], run.stderr
    assert not list((cache / "facing_env").rglob("*.nbi")) if cache.is_dir() else True


def test_an_empty_cache_announces_the_compile_once(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    old = config.CACHE_DIR
    try:
        _jit_cache.activate()
        _jit_cache.announce_compile()
        _jit_cache.announce_compile()
    finally:
        config.CACHE_DIR = old
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("facing_env: compiling the kernels once"), err


def test_no_compile_is_announced_once_the_cache_filled_or_hushed(tmp_path, monkeypatch, capsys):
    """A process that found the cache empty says nothing when another filled it since
    (``train.py``'s compile on every core first), nor after ``hush`` (warm's workers)."""
    monkeypatch.setattr(_jit_cache, "_active", tmp_path)
    monkeypatch.setattr(_jit_cache, "_cold", True)
    (tmp_path / "kernel.nbi").write_bytes(b"")
    _jit_cache.announce_compile()
    (tmp_path / "kernel.nbi").unlink()
    monkeypatch.setattr(_jit_cache, "_cold", True)
    _jit_cache.hush()
    _jit_cache.announce_compile()
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(_jit_cache, "_cold", True)  # empty, not hushed: said once
    _jit_cache.announce_compile()
    assert capsys.readouterr().err.startswith("facing_env: compiling the kernels once")


def test_every_engine_calls_one_compiled_step_kernel():
    """The AEC env (float64 rewards), ``VectorEnv`` (float32) and the expert's lookahead
    step the battles through one signature of the step kernel, the largest to compile
    (about 520 s of one core): a second one would double that on a cold cache. The
    float32 rewards are the kernel's float64 ones rounded."""
    import numpy as np

    from facing_env.agents import make_agent
    from facing_env.env import raw_env
    from facing_env.evaluation.match import play_games
    from facing_env.fast.batch import step_all
    from facing_env.vector import VectorEnv

    aec = raw_env(scenario="duel", engine="compiled")
    aec.reset(seed=3)
    aec.step(int(np.flatnonzero(aec.observe(aec.agent_selection)["action_mask"])[0]))
    vec = VectorEnv("duel", num_envs=4, engine="compiled")
    obs, _ = vec.reset(seed=3)
    engine, earned = vec._engine, 0
    for _ in range(60):  # the last legal action: an attack when one is legal
        last = obs["action_mask"].shape[1] - 1 - obs["action_mask"][:, ::-1].argmax(axis=1)
        obs = vec.step(last)[0]
        assert engine.rewards.dtype == np.float32
        assert np.array_equal(engine.rewards, engine._rewards.astype(np.float32))
        earned += np.count_nonzero(engine.rewards)
    assert earned > 0
    lineup = {"red": make_agent("expert"), "blue": make_agent("aggressive")}
    play_games("duel", [lineup], seed=0, max_rounds=2)
    assert len(step_all.signatures) == 1
