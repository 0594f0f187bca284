"""``raw_env(engine=...)``: the readable engine, the compiled one, and ``"auto"``, which
plays on the readable engine while the kernels are not compiled and starts their compile
in the background (issue 33: the first step in seconds on a cold cache).

The two engines play the same battles action for action (``tests/test_env_reference.py``
on every scenario); here: the choice, the switch, the marker and the lock of
:mod:`facing_env.warm`, and a cold start in a fresh process."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

from facing_env import warm
from facing_env.env import raw_env
from facing_env.fast import cache
from facing_env.warm import ENGINE_VARIABLE


def _trajectory(env, seed: int, steps: int = 60) -> list:
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out = []
    for agent in env.agent_iter(max_iter=steps):
        obs, reward, done, cut, _ = env.last()
        action = None if done or cut else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        out.append((agent, action, reward, float(obs["observation"].sum())))
        env.step(action)
    return out


def test_an_unknown_engine_is_refused_by_name():
    with pytest.raises(ValueError, match=r"engine must be one of .*'auto'.*got 'numba'"):
        raw_env(engine="numba")


def test_the_engine_variable_gives_the_default(monkeypatch):
    monkeypatch.setenv(ENGINE_VARIABLE, "readable")
    assert raw_env().engine == "readable"
    monkeypatch.setenv(ENGINE_VARIABLE, "nonsense")
    with pytest.raises(ValueError, match=f"{ENGINE_VARIABLE} must be one of .* got 'nonsense'"):
        raw_env()
    monkeypatch.setenv(ENGINE_VARIABLE, "")  # set but empty: as if unset
    assert raw_env().engine == "auto"


def test_auto_plays_readable_until_the_kernels_are_ready_then_compiled(monkeypatch):
    started = []
    monkeypatch.setattr(warm, "kernels_ready", lambda: False)
    monkeypatch.setattr(warm, "compile_in_background", lambda: started.append(1) or True)
    env = raw_env(scenario="skirmish", engine="auto")
    before = _trajectory(env, seed=7)
    assert env._play is not None and started == [1]  # readable, the compile asked for
    monkeypatch.setattr(warm, "kernels_ready", lambda: True)
    after = _trajectory(env, seed=7)
    assert env._play is None  # the next reset plays on the kernels
    assert after == before  # the same battle, action for action
    assert len(before) == 60 and started == [1]


def test_readable_and_compiled_give_the_same_battle_and_events():
    a, b = raw_env(scenario="duel", engine="readable"), raw_env(scenario="duel", engine="compiled")
    assert _trajectory(a, 3, 400) == _trajectory(b, 3, 400)
    assert [e.to_dict() for e in a.events] == [e.to_dict() for e in b.events]
    assert a.damage_ledger == b.damage_ledger


def test_a_hand_edit_of_the_battle_is_seen_alike_by_both_engines():
    seen = []
    for engine in ("readable", "compiled"):
        env = raw_env(scenario="duel", engine=engine)
        env.reset(seed=0)
        agent = env.agent_selection
        before = env.observe(agent)["observation"].copy()
        battle = env.battle
        battle.creatures[env.agent_to_id[agent]].hp = 3
        env.set_battle(battle)
        after = env.observe(agent)
        assert not np.array_equal(before, after["observation"])
        seen.append((after["observation"], after["action_mask"]))
    np.testing.assert_array_equal(seen[0][0], seen[1][0])
    np.testing.assert_array_equal(seen[0][1], seen[1][1])


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    """A cache directory of this version of the sources, empty, as the active one."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    where = cache.cache_root() / "0123456789abcdef"
    where.mkdir(parents=True)
    monkeypatch.setattr(cache, "_active", where)
    monkeypatch.setattr(warm, "_started", False)
    return where


def test_the_mark_says_when_the_kernels_are_ready_for_this_copy(cache_dir):
    assert not warm.kernels_ready()
    done = warm.mark(warm.COMPLETE)
    assert done.parent == cache_dir and done.name.startswith("complete-")
    (cache_dir / "complete-0123456789ab").write_text("1\n")  # another copy's: not ours
    assert not warm.kernels_ready()
    done.write_text("1\n")
    assert warm.kernels_ready()


def test_a_temporary_cache_never_waits(monkeypatch, tmp_path):
    monkeypatch.setattr(cache, "_active", tmp_path / "facing_env-numba-x")
    assert warm.kernels_ready()  # each process compiles: nothing to wait for
    assert not warm.compile_in_background()


class FakePopen:
    """Records the background compile instead of starting it (it runs while polled)."""

    calls: ClassVar[list] = []

    def __init__(self, args, **kwargs):
        FakePopen.calls.append((args, kwargs))

    def poll(self):
        return None


def _hold_lock(where: Path) -> subprocess.Popen:
    """Another process holding the compile lock (until killed)."""
    code = (
        "import fcntl, sys, time\n"
        f"h = open({str(where / warm.LOCK)!r}, 'a')\n"
        "fcntl.flock(h, fcntl.LOCK_EX)\n"
        "print('held', flush=True)\n"
        "time.sleep(60)\n"
    )
    holder = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    return holder


def test_one_background_compile_at_a_time(cache_dir, monkeypatch, capsys):
    FakePopen.calls = []
    monkeypatch.setattr(warm, "spawn", FakePopen)
    monkeypatch.setattr(warm, "_child", None)
    assert warm.compile_in_background()
    ((args, kwargs),) = FakePopen.calls
    assert args == [sys.executable, "-m", "facing_env", "warm", "--background"]
    assert kwargs["start_new_session"] is True and kwargs["cwd"] == cache_dir
    assert kwargs["env"]["PYTHONPATH"].split(os.pathsep)[0] == str(warm.PACKAGE.parent)
    assert "compile in the background" in capsys.readouterr().err
    assert "compile started by process" in (cache_dir / warm.LOG).read_text()
    assert not warm.compile_in_background()  # this process started one already
    assert warm.plays_readable("auto")  # ... and it is still running
    monkeypatch.setattr(warm, "_started", False)
    monkeypatch.setattr(warm, "_child", None)
    holder = _hold_lock(cache_dir)
    try:
        assert warm.compiling()  # another process holds the lock
        assert not warm.compile_in_background()
        assert warm.plays_readable("auto")
    finally:
        holder.kill()
        holder.wait()
    assert not warm.compiling()  # the system let go of the lock with the process
    assert len(FakePopen.calls) == 1


def test_after_a_failed_background_compile_auto_plays_on_the_kernels(
    cache_dir, monkeypatch, capsys
):
    FakePopen.calls = []
    monkeypatch.setattr(warm, "spawn", FakePopen)
    monkeypatch.setattr(warm, "_child", None)
    warm.mark(warm.FAILED).write_text("1\n")
    assert not warm.compile_in_background() and FakePopen.calls == []
    assert "failed before" in capsys.readouterr().err
    assert not warm.plays_readable("auto")  # no compile under way: compile on first use


def test_warm_marks_the_cache_complete_and_lets_go_of_the_lock(cache_dir, monkeypatch):
    seen = []
    monkeypatch.setattr(warm, "_compile_all", lambda: seen.append(warm.compiling()))
    warm.mark(warm.FAILED).write_text("1\n")
    assert warm.warm([]) == 0
    assert seen == [True]  # the lock was held while it compiled
    assert warm.mark(warm.COMPLETE).is_file() and not warm.mark(warm.FAILED).exists()
    assert not warm.compiling()


def test_warm_compiles_every_part_once_and_names_an_unknown_one(monkeypatch):
    """One core: the parts run in this process, in order (more cores: worker processes,
    as ``.ci/run``'s ``python -m facing_env warm`` runs them on a cold cache)."""
    seen = []
    compile_part = warm.compile_part
    monkeypatch.setattr(warm, "compile_part", seen.append)
    monkeypatch.setattr(warm.os, "cpu_count", lambda: 1)
    warm._compile_all()
    assert seen == ["step", "scan", "aec", "scripted", "expert"] == list(warm.PARTS)
    with pytest.raises(ValueError, match="unknown part 'gpu'; the parts are"):
        compile_part("gpu")


def test_a_second_warm_gives_way_to_the_one_holding_the_lock(cache_dir, monkeypatch, capsys):
    monkeypatch.setattr(warm, "_compile_all", lambda: pytest.fail("compiled twice"))
    holder = _hold_lock(cache_dir)
    try:
        assert warm.warm([]) == 0
    finally:
        holder.kill()
        holder.wait()
    assert "another process is compiling" in capsys.readouterr().out
    assert not warm.mark(warm.COMPLETE).exists()


def test_a_failed_background_compile_leaves_its_mark(cache_dir, monkeypatch):
    def broken():
        raise RuntimeError("boom")

    monkeypatch.setattr(warm, "_compile_all", broken)
    monkeypatch.setattr(warm.os, "nice", lambda n: None)
    with pytest.raises(RuntimeError, match="boom"):
        warm.warm(["--background"])
    assert warm.mark(warm.FAILED).is_file()


def test_a_cold_cache_steps_at_once_on_the_readable_engine(tmp_path):
    """A fresh process with an empty kernel cache: the quick start's first step comes in
    seconds (the issue asks for 60), a VectorEnv of another scenario steps within 60 more,
    and nothing is compiled in that process."""
    code = textwrap.dedent(
        """
        import time
        start = time.perf_counter()
        import numpy as np
        import facing_env
        from facing_env import warm
        warm.compile_in_background = lambda: True  # as if started: the test starts none
        env = facing_env.env(scenario="duel")
        env.reset(seed=42)
        obs, *_ = env.last()
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        aec = time.perf_counter() - start
        from facing_env.vector import VectorEnv
        venv = VectorEnv("skirmish", num_envs=4, seed=0)  # another scenario, batched
        obs, _ = venv.reset()
        venv.step(np.array([np.flatnonzero(m)[0] for m in obs["action_mask"]]))
        more = time.perf_counter() - start - aec
        print(round(aec, 1), round(more, 1), env.unwrapped._play is not None, venv._readable)
        """
    )
    environ = {k: v for k, v in os.environ.items() if k != ENGINE_VARIABLE}
    environ["NUMBA_CACHE_DIR"] = str(tmp_path)
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", code], env=environ, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    aec, more, readable, batch_readable = done.stdout.split()
    assert readable == batch_readable == "True"
    assert float(aec) < 60 and float(more) < 60 and time.perf_counter() - began < 120
    assert not list(Path(tmp_path).rglob("*.nbi"))  # no kernel compiled


def test_a_vector_env_chooses_its_engine_once(monkeypatch):
    from facing_env.vector import VectorEnv

    started = []
    monkeypatch.setattr(warm, "kernels_ready", lambda: False)
    monkeypatch.setattr(warm, "compile_in_background", lambda: started.append(1) or True)
    venv = VectorEnv("duel", num_envs=2, seed=0, engine="auto")
    assert venv._readable and venv.threads == 1 and started == [1]
    monkeypatch.setattr(warm, "kernels_ready", lambda: True)
    assert not VectorEnv("duel", num_envs=2, seed=0, engine="auto")._readable
    with pytest.raises(ValueError, match="engine must be one of"):
        VectorEnv("duel", engine="fast")


class _Compile:
    """``warm``'s hooks for :func:`warm.compile_first`, replaced: whether the kernels are
    ready, whether another process compiles them (until waited for), the child's result."""

    def __init__(self, monkeypatch, ready: bool, busy: bool, cores: int, child: int | None):
        self.ready, self.busy, self.child = ready, busy, child
        self.runs: list[list[str]] = []
        self.waits = 0
        monkeypatch.setattr(warm, "kernels_ready", lambda: self.ready)
        monkeypatch.setattr(warm, "compiling", lambda: self.busy)
        monkeypatch.setattr(warm, "wait_for_compile", self.wait)
        monkeypatch.setattr(warm, "run", self.run)
        monkeypatch.setattr(warm.os, "cpu_count", lambda: cores)

    def wait(self) -> None:
        self.waits += 1
        if self.busy:  # the other process finished: its kernels are ready unless it failed
            self.busy = False
            self.ready = self.child is None

    def run(self, args: list[str], **kwargs) -> subprocess.CompletedProcess:
        self.runs.append(args)
        assert kwargs["capture_output"] and kwargs["env"]["PYTHONPATH"].split(os.pathsep)[0] == str(
            warm.PACKAGE.parent
        )
        if self.child == 0:
            self.ready = True
        err = "" if self.child == 0 else "Traceback ...\nMemoryError: out of memory\n"
        return subprocess.CompletedProcess(args, self.child, "", err)


@pytest.mark.parametrize(
    ("ready", "busy", "cores", "child", "runs", "last"),
    [
        (False, False, 2, 0, 1, "kernels compiled and cached in 0 s"),
        (True, False, 2, 0, 0, None),
        (False, False, 1, 0, 0, None),
        (False, True, 2, None, 0, "waiting for the kernels: another process is compiling them"),
        (False, True, 2, 0, 1, "kernels compiled and cached in 0 s"),
        (False, False, 2, 1, 1, "the compile failed ('MemoryError: out of memory')"),
    ],
)
def test_jobs_compile_a_cold_cache_on_every_core_first(
    monkeypatch, capsys, ready, busy, cores, child, runs, last
):
    """``train.py`` and the evaluation call ``compile_first``: on a cold cache it runs
    ``python -m facing_env warm`` in a child process (every core), saying so on stderr and
    nothing on stdout; it waits for another process's compile instead (and compiles only if
    that one failed); a failed compile is one line, and the job goes on; when the kernels
    are compiled, or on one core, it does nothing."""
    fake = _Compile(monkeypatch, ready, busy, cores, child)
    warm.compile_first()
    captured = capsys.readouterr()
    assert captured.out == ""
    assert fake.runs == [[sys.executable, "-m", "facing_env", "warm"]] * runs
    assert fake.waits == (busy + runs)
    if last is None:
        assert captured.err == ""
    else:
        assert captured.err.splitlines()[-1].startswith(f"facing_env: {last}")


class _CompileFirst(Exception):
    """Raised by the stand-in for ``compile_first``: the job stops there."""


def test_train_py_and_the_evaluation_compile_first(monkeypatch, tmp_path):
    """Both jobs call ``compile_first`` after checking their arguments and before their
    first battle (the stand-in stops them there; a battle before it would fail first)."""
    from facing_env.evaluation import evaluate

    def stop() -> None:
        raise _CompileFirst

    def no_battle(*args, **kwargs):
        raise AssertionError("a battle before compile_first")

    monkeypatch.setattr(evaluate, "compile_first", stop)
    monkeypatch.setattr(evaluate, "evaluate", no_battle)
    with pytest.raises(_CompileFirst):
        evaluate.main(["--agents", "random", "aggressive", "--games", "2"])

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parent.parent))
    sys.modules.pop("train", None)
    import train

    monkeypatch.setattr(train, "compile_first", stop)
    monkeypatch.setattr(train, "make_vec_env", no_battle)
    with pytest.raises(_CompileFirst):
        train.main(train.Args(runs_dir=str(tmp_path)))
    sys.modules.pop("train", None)
