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
import contextlib
import hashlib
import io
import os
import pickletools
import re
import stat
import sys
import tempfile
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
    """Point numba's cache at this version's directory and remove all but the :data:`KEEP`
    most recently used versions.

    The directory must be the user's own (created ``0700``; one owned by someone else, or
    writable by others, is not used: numba's cache files are pickles, and loading them
    runs code). Damaged files in it (empty or cut short) are removed, and the kernels they
    held compile again (:func:`repair`). When no such directory can be had (a read-only
    home, a foreign ``NUMBA_CACHE_DIR``), the kernels compile into a private temporary
    directory for this process. Each of these says so in one line on stderr."""
    from numba.core import config

    where = cache_root() / source_digest()
    try:
        _private_dir(where)
        os.utime(where)
        _prune(where.parent)
    except OSError as exc:
        where = Path(tempfile.mkdtemp(prefix="facing_env-numba-"))
        _say(f"cannot use the kernel cache ({exc}); compiling into {where} for this process")
    removed = repair(where)
    if removed:
        _say(f"removed {removed} damaged file(s) from the kernel cache {where}; they compile again")
    config.CACHE_DIR = str(where)
    global _active, _cold
    _active = where
    _cold = not any(where.rglob("*.nbi"))
    return where


def _say(message: str) -> None:
    """One line on stderr (the package's only other output is what its commands print)."""
    print(f"facing_env: {message}", file=sys.stderr)


def _private_dir(path: Path) -> None:
    """Create ``path`` (and its parents) for this user alone, or raise ``OSError`` when
    it exists but is not private (another owner, or writable by group or others)."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    for d in (path, path.parent):
        st = d.stat()
        if hasattr(os, "getuid") and st.st_uid != os.getuid():
            raise OSError(f"{d} belongs to another user")
        if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            raise OSError(f"{d} is writable by other users")
    if not os.access(path, os.W_OK):
        raise OSError(f"{path} is not writable")


def repair(where: Path) -> int:
    """Remove the damaged files of the cache directory ``where``: an index (``.nbi``) that
    does not read whole, and a compiled kernel (``.nbc``) that is empty or does not end
    where a pickle ends. numba compiles the kernels they held again. Returns how many were
    removed."""
    removed = 0
    for path in sorted(where.rglob("*.nb[ic]")):
        if not _whole(path):
            with contextlib.suppress(OSError):
                path.unlink()
                removed += 1
    return removed


def _whole(path: Path) -> bool:
    """Whether a cache file reads whole: a pickle stream ends with the STOP opcode, and an
    index is two of them (numba's version, then the index itself)."""
    try:
        data = path.read_bytes()
    except OSError:
        return False
    if not data.endswith(b"."):
        return False
    if path.suffix != ".nbi":
        return True
    try:
        return _pickle_frames(io.BytesIO(data)) == _INDEX_FRAMES
    except Exception:  # pickletools raises ValueError, EOFError, ... on damage
        return False


_INDEX_FRAMES = 2
"""Pickle streams in numba's index file: its version string, then the index."""


def _pickle_frames(stream: io.BytesIO) -> int:
    """How many pickle streams ``stream`` holds end to end (read with :mod:`pickletools`,
    which parses opcodes without running any of them); raises on a damaged stream."""
    frames = 0
    size = len(stream.getbuffer())
    while stream.tell() < size:
        for _ in pickletools.genops(stream):
            pass
        frames += 1
    return frames


_cold = False


def announce_compile() -> None:
    """Say once, before the first kernel compiles into an empty cache, that it takes a
    while (the batched engine calls this when it is first built). Not when the cache was
    filled since this process started (``train.py``'s compile on every core first), nor
    after :func:`hush`."""
    global _cold
    if _cold and _active is not None and any(_active.rglob("*.nbi")):
        _cold = False
    if _cold:
        _cold = False
        _say(
            "compiling the kernels once, about 13 minutes of one core (later runs load them "
            f"from {_active}; python -m facing_env warm compiles them all now, in 8 on 2 cores)"
        )


def hush() -> None:
    """No :func:`announce_compile` line in this process (the workers of
    ``python -m facing_env warm``, which announces the compile itself)."""
    global _cold
    _cold = False


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
