"""numba's cache is versioned by the sources the kernels depend on
(``facing_env.fast.cache``): an edit of any module a kernel module imports, not only of a
kernel's own file, compiles the kernels afresh; an edit of a module no kernel reaches
keeps them."""

from __future__ import annotations

import shutil
from pathlib import Path

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
    are not: ``from facing_env import engine`` reads the module ``engine``, not the
    package's ``__init__`` (which imports the env)."""
    package = _copy_of_the_package(tmp_path, monkeypatch)
    names = {p.relative_to(package).as_posix() for p in _jit_cache.kernel_sources()}
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
    _edited(package, "agents/kernels/paths.py")  # a shared kernel of the scripted agents
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
