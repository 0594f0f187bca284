"""The two decorators of the batched engine's kernels.

Every kernel takes the :class:`~facing_env.fast.state.State`, a tuple of about a hundred
arrays. Compiled with numba's reference counting, each call of a function that LLVM does
not inline increments and decrements the count of every array of the tuple (1-4 us a
call, measured): so the kernels are compiled without it (``_nrt=False``) and allocate
nothing: their scratch arrays are passed in. The Python wrapper of a function that takes
the State also costs one or two seconds of compilation, so the functions that only other
kernels call have none.

- :data:`kernel`: callable from Python and from kernels, releasing the GIL;
- :data:`helper`: callable from kernels only (called from Python it crashes the
  interpreter; under ``NUMBA_DISABLE_JIT=1`` both are plain Python functions);
- :data:`inline`: a helper inlined into its callers by numba;
- :func:`bind`: a kernel's compiled entry point for given argument types, for callers
  that call it often with the same arrays (it skips the dispatcher's typing).

Both are cached on disk (:mod:`facing_env.fast.cache` versions the cache by the sources).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from numba import njit

kernel = njit(cache=True, _nrt=False, nogil=True)
"""A kernel callable from Python: no reference counting, no allocation; it releases the
GIL, so threads may run kernels over disjoint rows at once (``BatchEngine(threads=)``)."""
helper = njit(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
"""A kernel called from kernels only (no Python wrapper)."""


inline = njit(
    cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True, inline="always"
)
"""A :data:`helper` that numba inlines into its callers before LLVM sees them: for the
small functions the observation and the charge lanes call per cell or per candidate,
where a call that passes the State (a hundred arrays, copied as arguments) cost more
than the work (the duel's observation writer ran 2.7 times faster with them inlined,
measured). It lengthens the compilation of every caller, so it is kept to those."""
inline_kernel = njit(cache=True, _nrt=False, nogil=True, inline="always")
"""A :data:`kernel` (callable from Python too) that numba inlines into its kernel callers."""


def bind(dispatcher: Callable[..., Any], *args: Any) -> Callable[..., Any]:
    """The compiled entry point of ``dispatcher`` for the types of ``args``, to call with
    arguments of those same types.

    Calling a kernel through its dispatcher types every argument first: for the State
    and the tables, named tuples of about a hundred arrays, that costs 12 us a call
    (measured), against about 1 us to call the compiled entry point itself. A caller that
    makes many calls with the same arrays (the AEC env: one battle, one call a step) binds
    once and keeps the entry point; it must bind again when an argument's type changes
    (new arrays of another dtype or rank, another tables tuple). Under
    ``NUMBA_DISABLE_JIT=1`` the dispatcher is the Python function, returned as it is.
    """
    typeof = getattr(dispatcher, "typeof_pyval", None)
    if typeof is None:  # NUMBA_DISABLE_JIT: a plain function
        return dispatcher
    signature = tuple(typeof(a) for a in args)
    return dispatcher.compile(signature)  # type: ignore[attr-defined]
