"""Compiling the kernels ahead of use, and knowing when they are compiled.

numba compiles the batched engine's kernels the first time they run (about 13 minutes of
one core on a cold cache, once per version of the sources: :mod:`facing_env.fast.cache`;
:func:`warm` splits the work over the cores: 7 min 34 s on 2 cores, measured on
2026-11-28, where it took 9 min 29 s on the same machine while the step kernel was
compiled twice, for float32 and for float64 rewards).
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
import hashlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

try:
    import fcntl
except ImportError:  # not on POSIX: no background compile (the kernels compile on first use)
    fcntl = None  # type: ignore[assignment]

from facing_env import cli
from facing_env.fast import cache
from facing_env.limits import short_repr

COMPLETE = "complete"
"""The prefix of the file that marks this version's kernels compiled for this copy of the
package (:func:`mark`)."""
FAILED = "failed"
"""The prefix of the file a background compile that failed leaves (:func:`mark`)."""
LOCK = "warming.lock"
"""The file a compile holds an exclusive lock on while it runs (the system lets go of it
when the process ends, however it ends)."""
LOG = "warm.log"
"""Where a background compile writes its output (appended, each run headed by its time)."""
PACKAGE = Path(__file__).resolve().parent
"""This copy of the package (numba keys its cache files by the absolute source paths)."""
BACKGROUND_NICE = 10
"""How much lower a background compile's priority is than the process that started it."""
_started = False
_child: subprocess.Popen | None = None
"""The background compile this process started (kept: it is asked whether it runs)."""

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
    while the kernels are being compiled in the background (started here when they are
    not compiled yet, :func:`compile_in_background`). When no compile can run in the
    background (it failed before, or the system has no file locks), ``"auto"`` plays on
    the kernels, compiling them on first use."""
    if engine != "auto":
        return engine == "readable"
    if kernels_ready():
        return False
    started = compile_in_background()
    running = _child is not None and _child.poll() is None
    return started or running or compiling()


def _usable_cache() -> Path | None:
    """This version's cache directory, when numba keeps the kernels there for later
    processes too (not numba's default beside the sources, not a per-process temporary
    directory)."""
    where = cache.active_dir()
    if where is None or where.parent != cache.cache_root():  # a temporary one
        return None
    return where


def mark(kind: str) -> Path | None:
    """The ``kind`` mark (:data:`COMPLETE` or :data:`FAILED`) of this version's cache for
    this copy of the package: numba files its kernels under the absolute path of their
    sources, so another checkout or environment with the same sources has its own."""
    where = _usable_cache()
    if where is None:
        return None
    copy = hashlib.sha1(str(PACKAGE).encode()).hexdigest()[:12]
    return where / f"{kind}-{copy}"


def kernels_ready() -> bool:
    """Whether every kernel is compiled in the cache (:func:`warm` finished for this
    version of the sources and this copy of the package). True when there is no lasting
    cache to wait for: the kernels then compile in each process, and waiting would not
    help."""
    done = mark(COMPLETE)
    return done is None or done.is_file()


def compiling() -> bool:
    """Whether a compile of this version's kernels holds the lock (in another process)."""
    try:
        with _lock(_usable_cache()) as mine:
            return not mine
    except OSError:
        return False


def compile_in_background() -> bool:
    """Start compiling the kernels in a detached low-priority process, unless they are
    ready, one is already compiling them, an earlier one failed (its log is named), this
    process started one, or the system has no file locks; returns whether it started one
    (and then says so in one line on stderr). Two processes that start one at once start
    two, and the second gives way at once (:func:`warm` takes the lock)."""
    global _started
    where = _usable_cache()
    if _started or where is None or fcntl is None or kernels_ready() or compiling():
        return False
    failed = mark(FAILED)
    if failed is not None and failed.is_file():
        _say(
            f"the background compile failed before (see {where / LOG}); the kernels compile"
            " on first use, or now with python -m facing_env warm"
        )
        _started = True
        return False
    _started = True
    try:
        with (where / LOG).open("a") as log:
            stamp = time.strftime("%Y-%m-%d %H:%M:%S")
            log.write(f"--- {stamp}: compile started by process {os.getpid()}\n")
            log.flush()
            child = spawn(
                [sys.executable, "-m", "facing_env", "warm", "--background"],
                cwd=where,  # this user's private folder: nothing else on the path
                env=_child_env(),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                close_fds=True,
            )
    except OSError as exc:
        _say(f"cannot start the background compile ({exc}); the kernels compile on first use")
        return False
    global _child
    _child = child
    _say(
        "the kernels are not compiled yet; this env plays on the readable engine (the same "
        "battles, more slowly) while they compile in the background (about 8 minutes on 2 "
        f"cores; log: {where / LOG})"
    )
    return True


def spawn(args: list[str], **kwargs: object) -> subprocess.Popen:
    """Start the background compile (``subprocess.Popen``; the tests replace it)."""
    return subprocess.Popen(args, **kwargs)  # type: ignore[call-overload]


def run(args: list[str], **kwargs: object) -> subprocess.CompletedProcess:
    """Run :func:`compile_first`'s compile (``subprocess.run``; the tests replace it)."""
    return subprocess.run(args, check=False, **kwargs)  # type: ignore[call-overload]


def _child_env() -> dict[str, str]:
    """The environment of a compile in a child process: this copy of the package first on
    its path (not the working directory's)."""
    path = os.pathsep.join(p for p in (str(PACKAGE.parent), os.environ.get("PYTHONPATH")) if p)
    return {**os.environ, "PYTHONPATH": path}


def wait_for_compile() -> None:
    """Wait until no process holds this version's compile lock."""
    with _lock(_usable_cache(), wait=True):
        pass


def _say(message: str) -> None:
    """One line on stderr."""
    print(f"facing_env: {message}", file=sys.stderr)


@contextlib.contextmanager
def _lock(where: Path | None, wait: bool = False) -> Iterator[bool]:
    """Hold this cache directory's compile lock; yields False when another process holds
    it (then nothing is compiled here), or with ``wait`` waits until it lets go."""
    if where is None or fcntl is None:
        yield True
        return
    with (where / LOCK).open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


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
    if not kernels_ready() and not compiling():
        cores = os.cpu_count() or 1
        print(
            f"compiling the kernels on {cores} cores (about 8 minutes on 2)"
            if cores > 1
            else "compiling the kernels on one core (about 13 minutes)",
            flush=True,
        )
    seconds = compile_now(background=args.background)
    if seconds is None:
        print("another process is compiling the kernels; nothing to do")
    else:
        print(f"kernels compiled and cached in {seconds:.0f} s")
    return 0


def compile_now(background: bool = False) -> float | None:
    """Compile every kernel (:data:`PHASES`) under this version's compile lock and mark the
    cache complete; returns the seconds it took, or None when another process holds the
    lock (nothing is compiled then). A ``background`` compile that fails leaves the
    :data:`FAILED` mark."""
    start = time.perf_counter()
    with _lock(_usable_cache()) as mine:
        if not mine:
            return None
        try:
            _compile_all()
        except Exception:
            failed = mark(FAILED)
            if background and failed is not None:
                failed.write_text(f"{time.time():.0f}\n")
            raise
        for kind, write in ((COMPLETE, True), (FAILED, False)):
            path = mark(kind)
            if path is not None and write:
                path.write_text(f"{time.time():.0f}\n")
            elif path is not None:
                path.unlink(missing_ok=True)
    return time.perf_counter() - start


def compile_first() -> None:
    """For a job that runs the kernels from its start (``train.py``, the evaluation): on a
    cold cache, compile them now on every core instead of in the job's own process on one
    core as it first meets each (about 13 minutes), saying so in a line or two on stderr
    (stdout is the job's).

    The compile is ``python -m facing_env warm`` in a child process (about 8 minutes on 2
    cores): its workers import only the package, not the job's script, and if it fails
    (out of memory, say) the job says so in one line and goes on, its kernels compiling as
    it meets them. When another process is compiling them (a ``warm``, or the background
    compile an AEC env starts), the job waits for it instead of compiling beside it.
    Nothing happens when the kernels are compiled, when there is no lasting cache to fill
    (:func:`kernels_ready`) or on a single core (where the job compiles no more slowly
    than this would)."""
    if kernels_ready() or (os.cpu_count() or 1) <= 1:
        return
    if compiling():
        _say("waiting for the kernels: another process is compiling them")
        wait_for_compile()
        if kernels_ready():
            return
    _say(
        "compiling the kernels first, on every core (once per version of the sources: about "
        "8 minutes on 2 cores; python -m facing_env warm does the same)"
    )
    start = time.perf_counter()
    try:
        done = run(
            [sys.executable, "-m", "facing_env", "warm"],
            cwd=_usable_cache(),  # this user's private folder: nothing else on the path
            env=_child_env(),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
        )
    except OSError as exc:
        _say(f"cannot start the compile ({exc}); the kernels compile as the job meets them")
        return
    wait_for_compile()  # the child did nothing if another process took the lock first
    if done.returncode == 0 and kernels_ready():
        _say(f"kernels compiled and cached in {time.perf_counter() - start:.0f} s")
        return
    lines = (done.stderr or "").strip().splitlines() or [f"exit status {done.returncode}"]
    _say(f"the compile failed ({short_repr(lines[-1])}); the kernels compile as the job meets them")


PHASES = (("step", "scan"), ("aec", "scripted", "expert"))
"""What :func:`warm` compiles, phase after phase; the parts of a phase run in processes of
their own when the machine has more than one core. The first phase splits the engine's two
largest kernels between two processes (measured on one core, 2026-11-28: the step kernel
about 520 s; the scan, the observation writer and the rest of the part 270 s): ``step``
compiles the step kernel, ``scan`` the scan, the observation writer, the batched mask scan
and the scripted agents' decision kernels. The second phase plays an AEC battle, the
scripted agents and the expert, which load those from the cache and compile the rest. A
kernel two processes reach at once is compiled by both (numba's cache has no lock): the
phases keep that rare."""
PARTS = tuple(part for phase in PHASES for part in phase)
"""Every part, in order."""


def _compile_all() -> None:
    """Run every kernel once (:data:`PHASES`), in worker processes when there are cores to
    spare: the step kernel beside the scans, then an AEC battle on the kernels and a few
    games of the scripted agents and of the expert through ``VectorEnv``."""
    workers = min(max(len(phase) for phase in PHASES), os.cpu_count() or 1)
    if workers == 1:
        for part in PARTS:
            compile_part(part)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context("spawn")  # a fresh interpreter: no forked threads
    with ProcessPoolExecutor(workers, mp_context=context) as pool:
        for phase in PHASES:
            for _ in pool.map(compile_part, phase):
                pass


def compile_part(part: str) -> None:
    """Run the kernels of one of :data:`PARTS` once."""
    cache.hush()  # the compile is announced by whoever started it
    import numpy as np

    from facing_env.agents import make_agent
    from facing_env.env import env as make_env
    from facing_env.evaluation.match import play_games

    if part == "aec":
        aec = make_env(scenario="duel", engine="compiled")
        aec.reset(seed=0)
        rng = np.random.default_rng(0)
        for _agent in aec.agent_iter(max_iter=200):
            obs, _, done, cut, _ = aec.last()
            action = None if done or cut else int(rng.choice(np.flatnonzero(obs["action_mask"])))
            aec.step(action)
    elif part == "step":
        _compile_step()
    elif part == "scan":
        _compile_scans()
    elif part == "scripted":
        lineup = {"red": make_agent("aggressive"), "blue": make_agent("defensive")}
        play_games(
            "duel", [lineup, {"red": make_agent("flanker"), "blue": lineup["red"]}], 0, max_rounds=2
        )
    elif part == "expert":
        lineup = {"red": make_agent("expert"), "blue": make_agent("flanker")}
        play_games("duel", [lineup], seed=0, max_rounds=2)
    else:
        raise ValueError(f"unknown part {part!r}; the parts are {PARTS}")


def _duel() -> tuple:
    """A duel's env on the readable engine (nothing compiled), reset, with its first battle
    and its action count."""
    from facing_env.env import raw_env

    env = raw_env(scenario="duel", engine="readable")
    env.reset(seed=0)
    return env, env.battle, int(env.action_space(env.agents[0]).n)


def _compile_step() -> None:
    """Compile the engine's step kernel (and then its scan) as the expert's search rows
    bind it (``Lookahead``: the argument types ``BatchEngine`` passes)."""
    from facing_env.agents.lookahead import Lookahead

    _, battle, n = _duel()
    Lookahead(8).load(battle, n)


def _compile_scans() -> None:
    """Compile the first scan (``auto_end``), the observation writer (``observe_batch``),
    the batched mask scan (``mask_batch``) and the scripted agents' decision kernels for
    the argument types the engine and the agents pass."""
    import numpy as np

    from facing_env.agents import make_agent
    from facing_env.fast.events import allocate_events
    from facing_env.fast.jit import bind
    from facing_env.fast.legality import mask_batch
    from facing_env.fast.lookup import tables_of
    from facing_env.fast.observation import observe_batch, view_for
    from facing_env.fast.resolve import auto_end
    from facing_env.fast.state import allocate_for, load

    env, battle, n = _duel()
    s = allocate_for([battle])  # the battle in arrays, as BatchEngine loads it
    load(s, 0, battle)
    t = tables_of(s)
    mask = np.zeros((1, n), dtype=np.int8)
    cost = np.zeros((1, n), dtype=np.int32)
    bind(auto_end, t, s, 0, allocate_events(1, 8), mask, cost)
    v = view_for(t, s, env.layout, env.max_rounds)
    out = np.zeros((1, env.layout.size), dtype=np.float32)
    bind(observe_batch, t, s, v, np.zeros(1, dtype=np.int32), out, 0, 1)
    bind(mask_batch, t, s, mask, cost)
    for name in ("aggressive", "flanker", "defensive"):
        make_agent(name).act_batch(out, mask, np.random.default_rng(0))
