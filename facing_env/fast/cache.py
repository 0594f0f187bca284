"""Where numba keeps the compiled kernels: one directory per version of the sources.

numba's on-disk cache (``cache=True``) checks only the source file of the function it
compiled, but a kernel inlines the kernels it calls from other files and the constants it
reads from other modules (the observation layout, the action layout, the rule tables).
An edit anywhere else would then run stale machine code. :func:`activate` points numba's
cache at a directory named by the SHA-256 of the sources the kernels can depend on: the
kernel modules (``fast/`` and the agents' modules that import numba) and every package
module they import, directly or through one another, at module level or inside a function (their
constants, the tables they build, the reference code the tables come from). An edit of any of those
compiles afresh and nothing stale is ever loaded; an edit of a module no kernel reaches
(the PettingZoo layer's wrappers, the evaluation, the training helpers) keeps the cache.
The closure is read from the sources' ``import`` statements (:func:`kernel_sources`); the
package imports nothing dynamically.

It runs first thing on ``import facing_env``, before any kernel is decorated. A user's
``NUMBA_CACHE_DIR`` is respected: the versioned directory goes inside it. Otherwise it is
``$XDG_CACHE_HOME/facing_env/numba`` (``~/.cache/...``); if that cannot be created,
numba's default (``__pycache__`` beside the sources) stays. This module imports nothing
from the package.
"""

from __future__ import annotations

import ast
import hashlib
import os
import re
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent


def _agents_dir() -> Path:
    """``agents/`` beside the package in a source checkout (an editable install maps
    ``facing_env.agents`` there); inside the package in an installed wheel."""
    beside = _PACKAGE.parent / "agents"
    return beside if (beside / "__init__.py").is_file() else _PACKAGE / "agents"


def _module_file(name: str) -> Path | None:
    """The source file of package module ``name`` (``facing_env.x.y``), or None when it
    names no module of the package (an attribute: ``from facing_env.x import CONST``)."""
    parts = name.split(".")[1:]
    base = _PACKAGE
    if parts[:1] == ["agents"]:
        base, parts = _agents_dir(), parts[1:]
    path = base.joinpath(*parts)
    if path.with_suffix(".py").is_file():
        return path.with_suffix(".py")
    if (path / "__init__.py").is_file():
        return path / "__init__.py"
    return None


def _imported(path: Path) -> set[Path]:
    """The package modules an ``import`` statement anywhere in ``path`` reads:
    ``import facing_env.x`` reads ``x``; ``from facing_env.x import y`` reads module
    ``x.y`` if there is one, else ``x`` (whose name ``y`` is)."""
    found: set[Path | None] = set()
    for node in ast.walk(ast.parse(path.read_bytes(), str(path))):
        if isinstance(node, ast.Import):
            found.update(
                _module_file(a.name) for a in node.names if a.name.split(".")[0] == "facing_env"
            )
        elif (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.level == 0
            and node.module.split(".")[0] == "facing_env"
        ):
            for a in node.names:
                found.add(_module_file(f"{node.module}.{a.name}") or _module_file(node.module))
    found.discard(None)
    return found  # type: ignore[return-value]


_JIT_IMPORT = re.compile(r"^(from numba |import numba|from facing_env\.fast\.jit )", re.M)
"""How a kernel module outside ``fast/`` is recognised (the agents' kernels)."""


def kernel_sources() -> list[Path]:
    """The kernel modules and the package modules they import, transitively, sorted."""
    todo = sorted((_PACKAGE / "fast").glob("*.py"))
    todo += [p for p in sorted(_agents_dir().rglob("*.py")) if _JIT_IMPORT.search(p.read_text())]
    seen: set[Path] = set()
    while todo:
        path = todo.pop()
        if path in seen or not path.is_file():
            continue
        seen.add(path)
        todo.extend(found for found in _imported(path) if found not in seen)
    return sorted(seen)


def source_digest() -> str:
    """The SHA-256 (16 hex digits) of :func:`kernel_sources`, names and contents."""
    digest = hashlib.sha256()
    for path in kernel_sources():
        digest.update(path.relative_to(_PACKAGE.parent).as_posix().encode() + b"\0")
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
