"""numba's cache is versioned by the package's sources (``facing_env._jit_cache``): an
edit of any module, not only of a kernel's own file, compiles the kernels afresh."""

from __future__ import annotations

import shutil
from pathlib import Path

from numba.core import config

from facing_env import _jit_cache


def test_the_cache_directory_follows_every_source(tmp_path, monkeypatch):
    package = tmp_path / "facing_env"
    shutil.copytree(
        Path(_jit_cache.__file__).parent,
        package,
        ignore=shutil.ignore_patterns("__pycache__", "_compiled"),
    )
    monkeypatch.setattr(_jit_cache, "_PACKAGE", package)
    before = _jit_cache.source_digest()
    assert _jit_cache.source_digest() == before  # stable
    tables = package / "tables.py"  # not a kernel's file: its constants are inlined
    tables.write_text(tables.read_text() + "\n# an edit\n")
    assert _jit_cache.source_digest() != before


def test_activate_points_numba_inside_the_users_cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    old = config.CACHE_DIR
    try:
        where = _jit_cache.activate()
        assert where == tmp_path / "facing_env" / _jit_cache.source_digest()
        assert where.is_dir() and str(where) == config.CACHE_DIR
    finally:
        config.CACHE_DIR = old
