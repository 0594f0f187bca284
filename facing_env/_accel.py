"""Which modules run compiled: the optional Cython build of ``setup.py``.

The modules in :data:`COMPILED_MODULES` are plain Python. An install with Cython and a C
compiler also compiles them, unchanged, to C extensions in ``facing_env/_compiled/``
(named by full module name, so a plain import never finds them), with a manifest of the
SHA-256 of each source as compiled. The behaviour is the same, which
``tests/test_compiled.py`` checks by comparing whole trajectories with the pure modules.

:func:`activate` runs first thing on ``import facing_env`` and installs an import hook
that loads a module from its extension only when

- ``FACING_ENV_PURE_PYTHON`` is not set (to anything but ``0``): set it for debuggers,
  coverage and profilers, or to compare the two builds;
- the module's source is still the one it was compiled from (its SHA-256 is the
  manifest's): an edit or a checkout of another commit runs from source, never stale C,
  with a warning to rebuild.

Everything else imports from its ``.py`` file as usual. This module imports nothing from
the package: ``setup.py`` reads it by path.
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
    "facing_env._obs_kernel",
    "facing_env._scan_kernel",
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
    "facing_env.match",
    "facing_env.wrappers",
    "facing_env.agents.aggressive",
    "facing_env.agents.arena",
    "facing_env.agents.base",
    "facing_env.agents.defensive",
    "facing_env.agents.flanker",
    "facing_env.agents.pathing",
    "facing_env.agents.random_agent",
    "facing_env.agents.tactics",
    "facing_env.agents.view",
    "facing_env.rules._common",
    "facing_env.rules.areas",
    "facing_env.rules.attacks",
    "facing_env.rules.flanking",
    "facing_env.rules.movement",
    "facing_env.rules.maneuvers",
    "facing_env.rules.opportunity",
    "facing_env.rules.perception",
    "facing_env.rules.space",
)
"""The modules on the step path (engine, rules, observation, env and what they use) and
on the training path (the scripted agents, the SB3 view, matches)."""
COMPILED_DIR = "_compiled"
"""The folder of the package that holds the extensions and the manifest."""
MANIFEST = "manifest.json"
"""Written by each compiled build: module -> SHA-256 of the source it compiled."""
PURE_ENV_VAR = "FACING_ENV_PURE_PYTHON"

_PACKAGE_DIR = Path(__file__).resolve().parent
_compiled: tuple[str, ...] = ()


def compiled_modules() -> tuple[str, ...]:
    """The modules of :data:`COMPILED_MODULES` this process runs compiled (empty for a
    pure-Python install or under ``FACING_ENV_PURE_PYTHON``)."""
    return _compiled


SOURCE_DIRS: dict[str, str] = {"facing_env.agents": "agents"}
"""Subpackages whose sources live in a top-level folder of the project (``pyproject.toml``'s
``package-dir``): installed from a wheel they sit inside the package, in a checkout (and an
editable install) in that folder."""


def source_path(module: str) -> Path:
    """The ``.py`` file of one of the package's modules."""
    for package, folder in SOURCE_DIRS.items():
        if module.startswith(package + "."):
            inside = _PACKAGE_DIR.joinpath(*package.split(".")[1:])
            root = inside if inside.is_dir() else _PACKAGE_DIR.parent / folder
            return root.joinpath(*module[len(package) + 1 :].split(".")).with_suffix(".py")
    return _PACKAGE_DIR.parent.joinpath(*module.split(".")).with_suffix(".py")


def extension_path(module: str) -> Path | None:
    """The compiled extension of a module, if a build made one for this interpreter."""
    folder = _PACKAGE_DIR / COMPILED_DIR
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        candidate = folder / (module + suffix)
        if candidate.is_file():
            return candidate
    return None


def read_manifest() -> dict[str, str]:
    """The last build's module -> source SHA-256 (empty without a valid manifest)."""
    try:
        data = json.loads((_PACKAGE_DIR / COMPILED_DIR / MANIFEST).read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)}


class _ExtensionFinder(importlib.abc.MetaPathFinder):
    """Imports the listed modules from their compiled extensions."""

    def __init__(self, extensions: dict[str, Path]) -> None:
        self.extensions = extensions

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None = None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        found = self.extensions.get(fullname)
        if found is None:
            return None
        loader = importlib.machinery.ExtensionFileLoader(fullname, str(found))
        return importlib.util.spec_from_file_location(fullname, found, loader=loader)


def digest(path: Path) -> str:
    """SHA-256 of a source file, as the manifest records it."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def pure_requested() -> bool:
    """Whether ``FACING_ENV_PURE_PYTHON`` asks for the pure modules (set, and not ``0``)."""
    return os.environ.get(PURE_ENV_VAR, "") not in ("", "0")


def plan(pure: bool, manifest: dict[str, str]) -> tuple[dict[str, Path], list[str]]:
    """(modules to load compiled with their extensions, modules whose extension is stale):
    ``pure`` is ``FACING_ENV_PURE_PYTHON``, ``manifest`` the build's module -> source
    SHA-256. A module without an extension is in neither."""
    compiled: dict[str, Path] = {}
    stale: list[str] = []
    if pure:
        return compiled, stale
    for module in COMPILED_MODULES:
        extension = extension_path(module)
        if extension is None:
            continue
        source = source_path(module)
        # an install without sources runs its extensions; otherwise the source must be
        # the one compiled
        if not source.is_file() or manifest.get(module) == digest(source):
            compiled[module] = extension
        else:
            stale.append(module)
    return compiled, stale


def activate() -> None:
    """Decide, once per process, which modules load compiled (see the module docstring)."""
    global _compiled
    if any(isinstance(f, _ExtensionFinder) for f in sys.meta_path):
        return
    pure = pure_requested()
    manifest = {} if pure else read_manifest()
    compiled, stale = plan(pure, manifest)
    if stale and not manifest:
        warnings.warn(
            "facing_env: the compiled build has no valid manifest "
            f"({COMPILED_DIR}/{MANIFEST}); running every module from source. "
            "Rebuild with `pip install -e .` (or set FACING_ENV_PURE_PYTHON=1).",
            RuntimeWarning,
            stacklevel=3,
        )
    elif stale:
        warnings.warn(
            f"facing_env: {len(stale)} compiled module(s) are older than their sources "
            f"({', '.join(m.rsplit('.', 1)[1] for m in stale)}); running those from source. "
            "Rebuild with `pip install -e .` (or set FACING_ENV_PURE_PYTHON=1 to silence this).",
            RuntimeWarning,
            stacklevel=3,
        )
    if compiled:
        sys.meta_path.insert(0, _ExtensionFinder(compiled))
    _compiled = tuple(compiled)
