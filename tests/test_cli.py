"""Command lines check every argument first: a mistake ends at once, before any game or
training, with one line ``PROG: error: ...`` on stderr and exit status 2 (as argparse)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import facing_env
from facing_env import cli
from facing_env.agents import make_agent
from facing_env.evaluation.evaluate import evaluate
from facing_env.evaluation.evaluate import main as evaluate_main
from facing_env.render.replay import main as replay_main

ROOT = Path(__file__).resolve().parent.parent
SECONDS = 10.0
"""Time budget of a refusal: far below a kernel compile or a game (minutes), far above
importing torch on a loaded 2-core machine (2 s was exceeded under load). ``no_games``
is what shows that no game starts."""


def refused(capsys: pytest.CaptureFixture, run: Callable[[], Any], prog: str, *needles: str):
    """Run a command's entry point; it must exit with status 2 in time, printing one line
    naming the problem."""
    start = time.perf_counter()
    with pytest.raises(SystemExit) as info:
        run()
    assert time.perf_counter() - start < SECONDS
    assert info.value.code == 2
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(prog) and ": error: " in lines[0], err
    for needle in needles:
        assert needle in lines[0], lines[0]


@pytest.fixture
def no_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail if a game starts."""
    import facing_env.evaluation.evaluate as module

    def refuse(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("a game was played")

    monkeypatch.setattr(module, "play_games", refuse)


# -- python -m facing_env.evaluate ----------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--agents", "random", "wizard"], "unknown agent 'wizard'"),
        (["--agents", "random", "random"], "two different agents"),
        (["--agents", "random", "flanker", "--games", "0"], "--games must be an integer"),
        (["--agents", "random", "flanker", "--seed", "-1"], "--seed"),
        (["--agents", "random", "flanker", "--scenario", "nope"], "unknown scenario 'nope'"),
        (["--agents", "random", "model:no/such/model.zip"], "no model file"),
        (["--agents", "random", "flanker", "--json", "out.txt"], "expected a .json file"),
        (["--agents", "random", "flanker", "--markdown", "out.json"], "--markdown"),
        (["--agents", "random", "flanker", "--tensorboard", "no/such/dir"], "is not a folder"),
        (
            ["--agents", "random", "flanker", "--games", "99999999999999999999"],
            "--games must be at most 1000000",
        ),
        (["--agents", "random", "flanker", "--workers", "100000"], "--workers must be at most"),
        (
            ["--agents", "random", "flanker", "--games", "2", "--seed", str(2**63 - 1)],
            f"--seed must be at most {2**63 - 2}",
        ),
        (["--agents", "random", "random", "aggressive"], "--agents: 'random' given twice"),
    ],
)
def test_evaluate_checks_its_arguments_before_any_game(capsys, no_games, argv, needle):
    refused(capsys, lambda: evaluate_main(argv), "python -m facing_env.evaluate", needle)


def test_evaluate_refuses_outputs_it_cannot_write_before_any_game(capsys, no_games, tmp_path):
    blocker = tmp_path / "file.txt"
    blocker.write_text("a file, not a folder")
    for option, target in (
        ("--json", blocker / "r.json"),
        ("--markdown", blocker / "r.md"),
        ("--record", blocker),
        ("--plots", blocker / "sub"),
    ):
        argv = ["--agents", "random", "flanker", option, str(target)]
        refused(capsys, lambda argv=argv: evaluate_main(argv), "python", option)
    folder = tmp_path / "folder.json"
    folder.mkdir()
    argv = ["--agents", "random", "flanker", "--json", str(folder)]
    refused(capsys, lambda: evaluate_main(argv), "python", "is a folder")


def test_a_folder_that_refuses_files_is_found_before_any_game(capsys, no_games, tmp_path):
    """Permission bits do not tell (root passes them): the check writes a scratch file.
    /proc refuses new files; a read-only folder refuses them to anyone but root."""
    targets = [Path("/proc") / "r.json"] if Path("/proc").is_dir() else []
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    if os.geteuid() != 0:
        targets.append(locked / "r.json")
    try:
        for target in targets:
            argv = ["--agents", "random", "flanker", "--json", str(target)]
            refused(capsys, lambda argv=argv: evaluate_main(argv), "python", "cannot write")
    finally:
        locked.chmod(0o700)
    assert targets


def test_evaluate_exits_2_with_one_line_from_the_shell():
    proc = subprocess.run(
        [sys.executable, "-m", "facing_env.evaluation.evaluate", "--agents", "random", "wizrd"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "python -m facing_env.evaluate: error: --agents: unknown agent 'wizrd'; expected one of"
        " random, aggressive, flanker, defensive, expert, model:PATH[@T], rllib:PATH[#MODULE_ID]"
    ]
    assert "Traceback" not in proc.stderr


def test_replays_of_agents_whose_names_share_a_stem_do_not_overwrite(tmp_path):
    names = ["model:a/policy.zip", "model:b/policy.zip", "model:c/policy"]
    evaluate("duel", names, 2, record_dir=tmp_path, make=lambda _n: make_agent("random"))
    files = sorted(p.name for p in tmp_path.glob("*.json"))
    assert len(files) == 3 * 2
    assert "policy_vs_policy-2_0000.json" in files and "policy-2_vs_policy-3_0001.json" in files


# -- python -m facing_env.replay ------------------------------------------------------------


@pytest.fixture(scope="module")
def replay_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("replay")
    evaluate_main(["--agents", "random", "aggressive", "--games", "1", "--record", str(folder)])
    return next(folder.glob("*.json"))


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--fps", "0"], "--fps must be a finite number"),
        (["--fps", "nan"], "--fps"),
        (["--fps", "1e9"], "--fps"),
        (["--gif", "out.png"], "expected a .gif file"),
        (["--html", "out.gif"], "--html"),
        (["--mp4", "out.avi"], "--mp4"),
    ],
)
def test_replay_checks_its_arguments_before_replaying(capsys, replay_file, extra, needle):
    argv = [str(replay_file), *extra]
    refused(capsys, lambda: replay_main(argv), "python -m facing_env.replay", needle)


def test_replay_refuses_bad_files_in_one_line(capsys, tmp_path):
    prog = "python -m facing_env.replay"
    refused(capsys, lambda: replay_main([str(tmp_path / "nope.json")]), prog, "nope.json")
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    refused(capsys, lambda: replay_main([str(deep)]), prog, "nested deeper than")
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "x"}')
    refused(capsys, lambda: replay_main([str(bad)]), prog, "not a replay file")
    twice = tmp_path / "twice.json"
    twice.write_text('{"seed": 1, "seed": 2}')  # read silently as the last one, before
    refused(capsys, lambda: replay_main([str(twice)]), prog, "duplicate key 'seed'")
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "pipe.json"
        os.mkfifo(fifo)
        refused(capsys, lambda: replay_main([str(fifo)]), prog, "not a regular file")
    refused(capsys, lambda: replay_main(["/dev/zero"]), prog, "not a regular file")


def test_a_replay_with_an_even_window_is_refused(capsys, replay_file, tmp_path):
    """The env refuses an even window (it is centred on the acting creature): so does a
    replay, instead of playing it with the next odd one."""
    record = json.loads(replay_file.read_text())
    path = tmp_path / "even.json"
    path.write_text(json.dumps({**record, "env_kwargs": {"window": 4}}))
    refused(
        capsys,
        lambda: replay_main([str(path)]),
        "python -m facing_env.replay",
        "env_kwargs.window",
        "an odd side, got 4",
    )


def test_a_replay_naming_a_hostile_scenario_is_refused(capsys, replay_file, tmp_path):
    record = json.loads(replay_file.read_text())
    for scenario, needle in (("/dev/zero", "not a regular file"), ("x" * 10_000, "scenario")):
        path = tmp_path / "r.json"
        path.write_text(json.dumps({**record, "scenario": scenario}))
        refused(capsys, lambda path=path: replay_main([str(path)]), "python", needle)


# -- helpers ----------------------------------------------------------------------------------


def test_usage_error_is_status_2_with_the_message():
    error = cli.UsageError("bad thing")
    assert error.code == 2 and str(error) == "bad thing"


@pytest.mark.parametrize(
    ("value", "ok"), [(1, True), (0, False), (True, False), (1.0, False), ("1", False)]
)
def test_counts_are_integers(value, ok):
    if ok:
        assert cli.count(value, "--n") == value
    else:
        with pytest.raises(ValueError, match="--n must be an integer"):
            cli.count(value, "--n")


# -- bench, ceiling, help texts, pipes (issue 33) -------------------------------------------


def test_bench_refuses_an_unknown_scenario_in_one_line(capsys):
    from facing_env.evaluation.bench import main as bench_main

    refused(
        capsys,
        lambda: bench_main(["--scenario", "nosuch"]),
        "python -m facing_env.bench",
        "unknown scenario 'nosuch'",
    )


def test_ceiling_refuses_a_round_limit_it_could_not_finish(capsys):
    from facing_env.evaluation.ceiling import main as ceiling_main

    refused(
        capsys,
        lambda: ceiling_main(["--rounds", str(10**9)]),
        "python -m facing_env ceiling",
        "--rounds must be from 1 to 10000",
    )


def test_ceiling_refuses_a_race_too_large_to_sweep(capsys, tmp_path):
    """A scenario that validates can still ask for a race of minutes: it is refused first."""
    from facing_env.evaluation.ceiling import main as ceiling_main

    duel = Path(facing_env.__file__).with_name("configs") / "duel.yaml"
    big = tmp_path / "big.yaml"
    big.write_text(duel.read_text().replace("hp: 52", "hp: 100000"))
    refused(
        capsys,
        lambda: ceiling_main(["--scenario", str(big)]),
        "python -m facing_env ceiling",
        "a race of 100000 against 100000 hit points over 30 rounds",
        "more than 10,000,000",
    )


@pytest.mark.parametrize(
    "command",
    [
        ["facing_env"],
        ["facing_env.evaluate"],
        ["facing_env.bench"],
        ["facing_env.replay"],
        ["facing_env", "ceiling"],
        ["facing_env", "warm"],
    ],
)
def test_help_is_plain_text_with_defaults(command):
    """``--help`` shows no reST markup (double backquotes, ``:func:`` roles, bold marks)."""
    run = subprocess.run(
        [sys.executable, "-m", *command, "--help"], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    assert "usage:" in run.stdout
    for markup in ("``", ":func:", ":mod:", ":class:", "**"):
        assert markup not in run.stdout, (command, markup)


def test_plain_turns_roles_into_names():
    from facing_env.cli import plain

    text = "See :func:`~facing_env.evaluation.match.play_game` and :mod:`facing_env.cli`, ``x``."
    assert plain(text) == "See play_game and facing_env.cli, x."


LONG_OUTPUT = """
from facing_env.cli import run_main

def main():
    for _ in range(100_000):
        print("x" * 1000)  # 100 MB: far more than a pipe holds

run_main(main)
"""


def test_output_cut_short_by_the_reader_ends_quietly():
    """``python -m facing_env | head -1``: a command whose reader goes away ends with
    status 0 and no BrokenPipeError traceback (:func:`facing_env.cli.run_main`)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", LONG_OUTPUT], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == b"x" * 1000 + b"\n"
    proc.stdout.close()  # the reader goes away after one line
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0 and b"Traceback" not in err, err.decode()


# -- progress bars -------------------------------------------------------------------------


def test_progress_bar_draws_on_stderr_only_when_asked_and_tqdm_is_there(capsys, monkeypatch):
    """None (the default) draws only on a terminal (stderr is captured here), False never;
    True draws a tqdm bar on stderr, or nothing when tqdm is missing."""
    assert isinstance(cli.progress_bar(3, "games"), cli.NoBar)
    assert isinstance(cli.progress_bar(3, "games", enabled=False), cli.NoBar)
    with cli.NoBar() as bar:  # what the callers use of tqdm, drawing nothing
        bar.update(2)
        bar.set_postfix_str("x")
    assert capsys.readouterr() == ("", "")
    pytest.importorskip("tqdm")
    with cli.progress_bar(3, "games", enabled=True, unit="game") as bar:
        bar.update(3)
    printed = capsys.readouterr()
    assert printed.out == ""
    assert printed.err.replace("\r", "\n").splitlines()[-1].startswith("games: 100%|")
    assert "| 3/3 [" in printed.err
    monkeypatch.setitem(sys.modules, "tqdm", None)  # import tqdm now fails
    assert isinstance(cli.progress_bar(3, "games", enabled=True), cli.NoBar)


def _without_ray(args: list[str]) -> subprocess.CompletedProcess:
    """``train_rllib.py ARGS`` in a process where ``import ray`` fails."""
    code = (
        "import sys, runpy\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'ray' or name.startswith('ray.'):\n"
        "            raise ModuleNotFoundError(f\"No module named '{name}'\", name=name)\n"
        "sys.meta_path.insert(0, Block())\n"
        f"sys.argv = ['train_rllib.py', *{args!r}]\n"
        "runpy.run_path('train_rllib.py', run_name='__main__')\n"
    )
    root = Path(__file__).resolve().parent.parent
    return subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=120
    )


def test_train_rllib_help_works_without_ray():
    """Issue 33: ``--help`` reads no Ray; a run says what to install, in two lines."""
    done = _without_ray(["--help"])
    assert done.returncode == 0, done.stderr
    assert "--num-env-runners" in done.stdout
    done = _without_ray([])
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "train_rllib.py needs the rllib extra (ray is missing):",
        '    pip install torch==2.13.0 && pip install -e ".[train,rllib]"',
    ]
