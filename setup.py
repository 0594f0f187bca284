"""Build script: compiles the hot pure-Python modules with Cython (optional).

The package is pure Python. At install time the modules on the step path (engine, rules,
observation, env, ...) are also compiled, unchanged, into C extensions with Cython, as
pydantic 1.x did with its own modules: the same code, less time per step
(``python -m facing_env.bench`` prints which build it measured). Nothing else differs.

- The extensions go to ``facing_env/_compiled/`` (named by full module name), never next to
  the sources, so a plain import never finds them: :mod:`facing_env._accel` loads each one
  only while its source is the one it was compiled from (SHA-256 in
  ``facing_env/_compiled/manifest.json``, taken before compiling). An edited source, or a
  checkout of another commit, runs from source, so stale C never runs.
- ``FACING_ENV_PURE_PYTHON=1`` at install time builds nothing and removes an earlier
  build's manifest (a pure install); at run time it loads every ``.py`` source.
- Without Cython or a C compiler the install falls back to pure Python with a warning.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import sys
import sysconfig
from pathlib import Path
from types import ModuleType

from setuptools import Extension, setup
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
COMPILED_DIR: str = _ACCEL.COMPILED_DIR
MANIFEST: str = _ACCEL.MANIFEST
IN_TREE = ROOT / "facing_env" / COMPILED_DIR


def _relative(module: str) -> Path:
    """Where a module's extension goes, relative to the project (and to a build's lib)."""
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    return Path("facing_env", COMPILED_DIR, module + suffix)


def _warn(message: str) -> None:
    print(f"facing_env: {message}; installing the pure-Python package", file=sys.stderr)


class OptionalBuildExt(build_ext):
    """Cythonizes at build time, writes the extensions to ``facing_env/_compiled/`` with
    their manifest, and falls back to pure Python when anything fails."""

    def finalize_options(self) -> None:
        self._digests: dict[str, str] = {}
        dist = self.distribution
        if _ACCEL.pure_requested():  # and an earlier in-tree build no longer counts
            dist.ext_modules = []
            shutil.rmtree(IN_TREE, ignore_errors=True)
        elif dist.ext_modules:
            # the sources as compiled: hashed before Cython reads them
            self._digests = {m: _ACCEL.digest(_ACCEL.source_path(m)) for m in COMPILED_MODULES}
            try:
                from Cython.Build import cythonize

                dist.ext_modules = cythonize(
                    dist.ext_modules,
                    build_dir=str(ROOT / "build" / "cython"),
                    compiler_directives={
                        "language_level": 3,
                        "binding": True,  # functions keep their signatures and docstrings
                        "annotation_typing": False,  # annotations stay documentation
                        "embedsignature": True,
                    },
                    nthreads=os.cpu_count() or 1,
                    quiet=True,
                    force=True,  # regenerate by content: an mtime can lie (cp -p, tar)
                )
                for ext in dist.ext_modules:  # cythonize drops the flag: one failure
                    ext.optional = True  # leaves that module pure, not the whole build
            except Exception as exc:  # no Cython, or it cannot translate a module
                _warn(f"Cython is unavailable ({exc})")
                dist.ext_modules = []
        super().finalize_options()
        if not dist.ext_modules:  # build_ext may not run: void an earlier build's output
            shutil.rmtree(Path(self.build_lib) / "facing_env" / COMPILED_DIR, ignore_errors=True)
        if not self.parallel:  # pip's editable builds pass no options: use every core
            self.parallel = os.cpu_count() or 1

    def get_ext_fullpath(self, ext_name: str) -> str:
        """``facing_env/_compiled/<module><suffix>`` instead of next to the source."""
        base = ROOT if self.inplace else Path(self.build_lib)
        return str(base / _relative(self.get_ext_fullname(ext_name)))

    def run(self) -> None:
        in_build = Path(self.build_lib) / "facing_env" / COMPILED_DIR
        # an earlier build is void now, in the tree and in the build folder a wheel copies
        folders = [in_build, IN_TREE] if self.inplace or self.editable_mode else [in_build]
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)
        if not self.extensions:
            return
        try:
            super().run()
        except Exception as exc:  # no compiler, no headers: the pure modules still work
            _warn(f"compiling the accelerated modules failed ({exc})")
            for folder in folders:
                shutil.rmtree(folder, ignore_errors=True)
            return
        for folder in folders:
            self._write_manifest(folder)

    def copy_extensions_to_source(self) -> None:
        """In-place builds copy to ``facing_env/_compiled/`` (see get_ext_fullpath)."""
        for ext in self.extensions:
            relative = _relative(self.get_ext_fullname(ext.name))
            built = Path(self.build_lib) / relative
            if built.exists():  # an optional extension that failed is left out
                (ROOT / relative).parent.mkdir(parents=True, exist_ok=True)
                self.copy_file(str(built), str(ROOT / relative))

    def _write_manifest(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        partial = folder / (MANIFEST + ".tmp")
        partial.write_text(json.dumps(self._digests, indent=1, sort_keys=True) + "\n")
        os.replace(partial, folder / MANIFEST)


setup(
    ext_modules=[
        Extension(m, [str(_ACCEL.source_path(m).relative_to(ROOT))], optional=True)
        for m in COMPILED_MODULES
    ],
    cmdclass={"build_ext": OptionalBuildExt},
)
