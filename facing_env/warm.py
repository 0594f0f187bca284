"""Compiling the kernels ahead of use, and knowing when they are compiled.

numba compiles the batched engine's kernels the first time they run (about 9 minutes of
one core on a cold cache, once per version of the sources: :mod:`facing_env.fast.cache`).
So that a fresh install's first battle does not wait for that:

- :func:`warm` (``python -m facing_env warm``) compiles every kernel now (the AEC env,
  ``VectorEnv``, the scripted agents and the expert) and then marks this version's cache
  directory complete;
- :func:`kernels_ready` says whether that mark is there;
- :func:`compile_in_background` starts ``python -m facing_env warm --background`` as a
  detached process at low priority (one at a time per cache, found by a lock file), its
  output in ``warm.log`` beside the kernels.

The AEC env's default ``engine="auto"`` plays on the readable engine
(:mod:`facing_env.rules.play`, the same battles) until :func:`kernels_ready`, starting the
background compile when it first finds them missing, and on the kernels from the next
``reset()`` after they are ready. This module imports no kernel, so importing it compiles
nothing.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from pathlib import Path

from facing_env import cli
from facing_env.fast import cache
from facing_env.limits import short_repr

COMPLETE = "complete"
"""The file that marks a cache directory whose kernels are all compiled."""
LOCK = "warming.pid"
"""The file that holds the process id of the compile under way."""
LOG = "warm.log"
"""Where a background compile writes its output."""
BACKGROUND_NICE = 10
"""How much lower a background compile's priority is than the process that started it."""
_started = False

ENGINES = ("auto", "compiled", "readable")
"""What ``raw_env(engine=...)`` plays on: the compiled kernels, the readable engine
(:mod:`facing_env.rules.play`: no compiling, about 20 times slower, the same battles), or
the readable one until the kernels are compiled (this module), then the kernels."""
ENGINE_VARIABLE = "FACING_ENV_ENGINE"
"""The environment variable that gives ``raw_env``'s ``engine`` when it is not passed
(default ``"auto"``)."""


def resolve_engine(engine: str | None) -> str:
    """``engine`` checked against :data:`ENGINES` (None: the :data:`ENGINE_VARIABLE`
    environment variable, else ``"auto"``); a ``ValueError`` names a bad one."""
    source = "engine"
    if engine is None:
        source, engine = ENGINE_VARIABLE, os.environ.get(ENGINE_VARIABLE) or "auto"
    if engine not in ENGINES:
        raise ValueError(f"{source} must be one of {ENGINES}, got {short_repr(engine)}")
    return engine


def plays_readable(engine: str) -> bool:
    """Whether battles start on the readable engine now: ``"readable"``, or ``"auto"``
    while the kernels are not compiled (which starts their compile in the background,
    this module)."""
    if engine != "auto":
        return engine == "readable"
    if kernels_ready():
        return False
    compile_in_background()
    return True


def _usable_cache() -> Path | None:
    """This version's cache directory, when numba keeps the kernels there for later
    processes too (not numba's default beside the sources, not a per-process temporary
    directory)."""
    where = cache.active_dir()
    if where is None or where.parent != cache.cache_root():  # a temporary one
        return None
    return where


def kernels_ready() -> bool:
    """Whether every kernel is compiled in the cache (:func:`warm` finished for this
    version of the sources). True when there is no lasting cache to wait for: the kernels
    then compile in each process, and waiting would not help."""
    where = _usable_cache()
    return where is None or (where / COMPLETE).is_file()


def compiling() -> bool:
    """Whether a compile of this version's kernels is under way in another process."""
    where = _usable_cache()
    if where is None:
        return False
    try:
        pid = int((where / LOCK).read_text().strip() or "0")
    except (OSError, ValueError):
        return False
    return pid > 0 and _alive(pid)


def _alive(pid: int) -> bool:
    """Whether process ``pid`` is running."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def compile_in_background() -> bool:
    """Start compiling the kernels in a detached low-priority process, unless they are
    ready, one is already compiling them, or this process started one; returns whether
    it started one (and then says so in one line on stderr)."""
    global _started
    where = _usable_cache()
    if _started or where is None or kernels_ready() or compiling():
        return False
    _started = True
    log = (where / LOG).open("w")
    subprocess.Popen(
        [sys.executable, "-m", "facing_env", "warm", "--background"],
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        close_fds=True,
    )
    log.close()
    print(
        "facing_env: the kernels are not compiled yet; this env plays on the readable engine "
        "(the same battles, about 20 times slower) while they compile in the background "
        f"(about 10 minutes on 2 cores; log: {where / LOG})",
        file=sys.stderr,
    )
    return True


@contextlib.contextmanager
def _lock(where: Path | None):
    """Hold this cache directory's compile lock (the file names this process)."""
    if where is None:
        yield
        return
    lock = where / LOCK
    lock.write_text(str(os.getpid()))
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            if lock.read_text().strip() == str(os.getpid()):
                lock.unlink()


def warm(argv: list[str] | None = None) -> int:
    """Compile the kernels into the cache: the AEC env, ``VectorEnv``, the scripted agents
    and the expert, playing a few duel games (the kernels' types are the same for every
    scenario); prints the seconds it took. Later processes load them in seconds."""
    parser = cli.parser("python -m facing_env warm", warm.__doc__)
    parser.add_argument(
        "--background",
        action="store_true",
        help="run at a lower priority (how the AEC env starts it on a cold cache)",
    )
    args = parser.parse_args(argv)
    if args.background and hasattr(os, "nice"):
        os.nice(BACKGROUND_NICE)
    where = _usable_cache()
    start = time.perf_counter()
    with _lock(where):
        _compile_all()
        if where is not None:
            (where / COMPLETE).write_text(f"{time.time():.0f}\n")
    print(f"kernels compiled and cached in {time.perf_counter() - start:.0f} s")
    return 0


def _compile_all() -> None:
    """Run every kernel once: an AEC battle on the kernels, and a few games of each
    scripted agent and the expert through ``VectorEnv``."""
    import numpy as np

    from facing_env.agents import make_agent
    from facing_env.env import env as make_env
    from facing_env.evaluation.match import play_games

    aec = make_env(scenario="duel", engine="compiled")
    aec.reset(seed=0)
    rng = np.random.default_rng(0)
    for _agent in aec.agent_iter(max_iter=200):
        obs, _, done, cut, _ = aec.last()
        aec.step(None if done or cut else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    agents = {name: make_agent(name) for name in ("aggressive", "flanker", "defensive", "expert")}
    lineups = [
        {"red": agents["expert"], "blue": agents["flanker"]},
        {"red": agents["aggressive"], "blue": agents["defensive"]},
    ]
    play_games("duel", lineups, seed=0, max_rounds=2)
