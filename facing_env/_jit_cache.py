"""Where numba keeps the compiled kernels: one directory per version of the sources.

numba's on-disk cache (``cache=True``) checks only the source file of the function it
compiled, but a kernel inlines the kernels it calls from other files and the constants it
reads from other modules (the observation layout, the action layout, the rule tables).
An edit anywhere else would then run stale machine code. :func:`activate` points numba's
cache at a directory named by the SHA-256 of every Python source of the package (and of
``agents/``), so any edit compiles afresh and nothing stale is ever loaded.

It runs first thing on ``import facing_env``, before any kernel is decorated. A user's
``NUMBA_CACHE_DIR`` is respected: the versioned directory goes inside it. Otherwise it is
``$XDG_CACHE_HOME/facing_env/numba`` (``~/.cache/...``); if that cannot be created,
numba's default (``__pycache__`` beside the sources) stays. This module imports nothing
from the package.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def _source_dirs() -> list[Path]:
    """The package, and ``agents/`` beside it in a source checkout (an editable install
    maps ``facing_env.agents`` there; an installed wheel has it inside the package)."""
    agents = _PACKAGE.parent / "agents"
    return [_PACKAGE, agents] if (agents / "batch.py").is_file() else [_PACKAGE]


def source_digest() -> str:
    """The SHA-256 (16 hex digits) of every ``.py`` file of the package, in path order."""
    digest = hashlib.sha256()
    for root in _source_dirs():
        for path in sorted(root.rglob("*.py")):
            digest.update(str(path.relative_to(root.parent)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def cache_root() -> Path:
    """The directory holding one subdirectory per version of the sources."""
    user = os.environ.get("NUMBA_CACHE_DIR")
    if user:
        return Path(user) / "facing_env"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "facing_env" / "numba"


KEEP = 8
"""Versions kept in the cache root (the most recently used); older ones are removed."""

_active: Path | None = None


def active_dir() -> Path | None:
    """This version's cache directory once :func:`activate` made it (else None): the
    batched engine keeps its lookup tables there too (``tables/``), so an edit of the
    sources never loads stale ones either."""
    return _active


def activate() -> Path | None:
    """Point numba's cache at this version's directory (None if it cannot be made), and
    remove all but the :data:`KEEP` most recently used versions."""
    from numba.core import config

    where = cache_root() / source_digest()
    try:
        where.mkdir(parents=True, exist_ok=True)
        os.utime(where)
    except OSError:
        return None
    config.CACHE_DIR = str(where)
    global _active
    _active = where
    _prune(where.parent)
    return where


def _prune(root: Path) -> None:
    import shutil

    try:
        versions = sorted(
            (p for p in root.iterdir() if p.is_dir()), key=lambda p: p.stat().st_mtime
        )
    except OSError:
        return
    for old in versions[:-KEEP]:
        shutil.rmtree(old, ignore_errors=True)
