"""Build script: compiles the hot pure-Python modules with Cython (optional).

The package is pure Python. At install time the modules on the step path (engine, rules,
observation, env, ...) are also compiled, unchanged, into C extensions with Cython, as
pydantic 1.x did with its own modules: the same code, about a fifth less time per step
(``python -m facing_env.bench`` prints which build it measured). Nothing else differs.

- ``FACING_ENV_PURE_PYTHON=1`` at install time skips the compilation; at run time it makes
  ``import facing_env`` load the ``.py`` sources even where compiled modules exist (for
  debuggers, coverage and profilers).
- Without Cython or a C compiler the install falls back to pure Python with a warning.
- Each build writes ``facing_env/_compiled.json`` (module -> SHA-256 of the source it
  was compiled from). A module whose source has changed since (an edit, a ``git pull``) is
  loaded from its source, with a warning to rebuild, so stale C never runs
  (:mod:`facing_env._accel`).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import sys
from pathlib import Path
from types import ModuleType

from setuptools import setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


def _accel() -> ModuleType:
    """facing_env/_accel.py, loaded by path (the package itself is not importable yet)."""
    path = ROOT / "facing_env" / "_accel.py"
    spec = importlib.util.spec_from_file_location("_facing_env_accel", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_ACCEL = _accel()
COMPILED_MODULES: tuple[str, ...] = _ACCEL.COMPILED_MODULES
MANIFEST: str = _ACCEL.MANIFEST


def _source(module: str) -> Path:
    return ROOT.joinpath(*module.split(".")).with_suffix(".py")


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class OptionalBuildExt(build_ext):
    """build_ext that writes the manifest, and falls back to pure Python on failure."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if not self.parallel:  # pip's editable builds pass no options: use every core
            self.parallel = os.cpu_count() or 1

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # no compiler, no headers: the pure modules still work
            self._skip(exc)
            return
        built = {m: _digest(_source(m)) for m in COMPILED_MODULES}
        target = Path(self.get_ext_fullpath(COMPILED_MODULES[0])).parent / MANIFEST
        target.write_text(json.dumps(built, indent=1, sort_keys=True) + "\n")

    def build_extension(self, ext) -> None:  # type: ignore[no-untyped-def]
        try:
            super().build_extension(ext)
        except Exception as exc:
            self._skip(exc)
            raise

    @staticmethod
    def _skip(exc: Exception) -> None:
        print(
            f"facing_env: compiling the accelerated modules failed ({exc}); "
            "installing the pure-Python package (same behaviour, slower)",
            file=sys.stderr,
        )


def _extensions() -> list:
    if os.environ.get("FACING_ENV_PURE_PYTHON", "") not in ("", "0"):
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:
        print("facing_env: Cython not found; installing pure Python", file=sys.stderr)
        return []
    return cythonize(
        [str(_source(m).relative_to(ROOT)) for m in COMPILED_MODULES],
        build_dir="build/cython",
        compiler_directives={
            "language_level": 3,
            "binding": True,  # functions keep their signatures and docstrings
            "annotation_typing": False,  # annotations are documentation, as in CPython
            "embedsignature": True,
        },
        nthreads=os.cpu_count() or 1,
        quiet=True,
    )


setup(
    ext_modules=_extensions(),
    cmdclass={"build_ext": OptionalBuildExt},
)
