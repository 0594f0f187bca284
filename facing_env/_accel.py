"""Which modules run compiled: the optional Cython build of ``setup.py``.

The modules in :data:`COMPILED_MODULES` are plain Python. An install with Cython and a C
compiler also compiles them, unchanged, to C extensions that Python imports in place of
the sources (about a fifth less time per environment step; the behaviour is the same, which
``tests/test_compiled.py`` checks by comparing whole trajectories with the pure modules).

:func:`activate` runs first thing on ``import facing_env``. It loads a module from its
``.py`` source instead of its extension when

- ``FACING_ENV_PURE_PYTHON`` is set (to anything but ``0``): for debuggers, coverage and
  profilers, or to compare the two builds;
- the source has changed since it was compiled (its SHA-256 differs from the one in
  :data:`MANIFEST`, written by the build): stale C never runs; a warning says to rebuild.

This module imports nothing from the package: ``setup.py`` reads it by path.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

COMPILED_MODULES: tuple[str, ...] = (
    "facing_env.actions",
    "facing_env.battle",
    "facing_env.dice",
    "facing_env.engine",
    "facing_env.env",
    "facing_env.events",
    "facing_env.geometry",
    "facing_env.observation",
    "facing_env.rewards",
    "facing_env.tables",
    "facing_env.turn",
    "facing_env.rules._common",
    "facing_env.rules.areas",
    "facing_env.rules.attacks",
    "facing_env.rules.flanking",
    "facing_env.rules.movement",
    "facing_env.rules.opportunity",
    "facing_env.rules.perception",
    "facing_env.rules.space",
)
"""The modules on the step path: engine, rules, observation, env and what they use."""
MANIFEST = "_compiled.json"
"""Written next to the package's modules by each compiled build: module -> source SHA-256."""
PURE_ENV_VAR = "FACING_ENV_PURE_PYTHON"

_PACKAGE_DIR = Path(__file__).resolve().parent
_compiled: tuple[str, ...] = ()


def compiled_modules() -> tuple[str, ...]:
    """The modules of :data:`COMPILED_MODULES` this process runs compiled (empty for a
    pure-Python install or under ``FACING_ENV_PURE_PYTHON``)."""
    return _compiled


def source_path(module: str) -> Path:
    """The ``.py`` file of one of the package's modules."""
    return _PACKAGE_DIR.parent.joinpath(*module.split(".")).with_suffix(".py")


def _extension_path(module: str) -> Path | None:
    base = source_path(module).with_suffix("")
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        candidate = base.with_name(base.name + suffix)
        if candidate.is_file():
            return candidate
    return None


def _manifest() -> dict[str, str]:
    try:
        data = json.loads((_PACKAGE_DIR / MANIFEST).read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)}


class _SourceFinder(importlib.abc.MetaPathFinder):
    """Imports the listed modules from their ``.py`` files (ahead of the extensions)."""

    def __init__(self, sources: dict[str, Path]) -> None:
        self.sources = sources

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None = None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        source = self.sources.get(fullname)
        return None if source is None else importlib.util.spec_from_file_location(fullname, source)


def plan(pure: bool, manifest: dict[str, str]) -> tuple[list[str], dict[str, Path], list[str]]:
    """(modules to load compiled, modules to load from source with their ``.py`` paths,
    the stale ones among those): ``pure`` is ``FACING_ENV_PURE_PYTHON``, ``manifest`` the
    build's module -> source SHA-256. A module without an extension is not listed."""
    compiled: list[str] = []
    from_source: dict[str, Path] = {}
    stale: list[str] = []
    for module in COMPILED_MODULES:
        if _extension_path(module) is None:
            continue
        source = source_path(module)
        if not source.is_file():  # an install without sources: the extension it is
            compiled.append(module)
        elif pure:
            from_source[module] = source
        elif manifest.get(module) != hashlib.sha256(source.read_bytes()).hexdigest():
            from_source[module] = source
            stale.append(module)
        else:
            compiled.append(module)
    return compiled, from_source, stale


def activate() -> None:
    """Decide, once per process, which modules load compiled (see the module docstring)."""
    global _compiled
    if any(isinstance(f, _SourceFinder) for f in sys.meta_path):
        return
    pure = os.environ.get(PURE_ENV_VAR, "") not in ("", "0")
    compiled, from_source, stale = plan(pure, {} if pure else _manifest())
    if stale:
        warnings.warn(
            f"facing_env: {len(stale)} compiled module(s) are older than their sources "
            f"({', '.join(m.rsplit('.', 1)[1] for m in stale)}); running those from source. "
            "Rebuild with `pip install -e .` (or set FACING_ENV_PURE_PYTHON=1 to silence this).",
            RuntimeWarning,
            stacklevel=3,
        )
    if from_source:
        sys.meta_path.insert(0, _SourceFinder(from_source))
    _compiled = tuple(compiled)
