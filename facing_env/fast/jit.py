"""The two decorators of the batched engine's kernels.

Every kernel takes the :class:`~facing_env.fast.state.State`, a tuple of about a hundred
arrays. Compiled with numba's reference counting, each call of a function that LLVM does
not inline increments and decrements the count of every array of the tuple (1-4 us a
call, measured): so the kernels are compiled without it (``_nrt=False``) and allocate
nothing: their scratch arrays are passed in. The Python wrapper of a function that takes
the State also costs one or two seconds of compilation, so the functions that only other
kernels call have none.

- :data:`kernel`: callable from Python and from kernels;
- :data:`helper`: callable from kernels only (called from Python it crashes the
  interpreter; under ``NUMBA_DISABLE_JIT=1`` both are plain Python functions).

Both are cached on disk (:mod:`facing_env._jit_cache` versions the cache by the sources).
"""

from __future__ import annotations

from numba import njit

kernel = njit(cache=True, _nrt=False)
"""A kernel callable from Python: no reference counting, no allocation."""
helper = njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
"""A kernel called from kernels only (no Python wrapper)."""
