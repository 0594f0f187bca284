"""``python -m facing_env.bench``: its lines and its refusals of bad counts."""

from __future__ import annotations

import pytest


def test_bench_reports_the_engine_and_every_line(capsys):
    from facing_env.evaluation import bench

    bench.main(["--steps", "40", "--scenario", "duel", "--num-envs", "8", "--repeats", "1"])
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "facing_env engine: " + bench.engine_build()
    names = [" ".join(line.split()[:-3]) for line in out[2:]]
    assert names == ["connect_four_v3", "duel", "duel VectorEnv x8 (1 thread)", "duel observe"]
    assert int(out[3].split()[-3]) == 40  # steps of the duel line
    assert int(out[4].split()[-3]) == 40  # agent-steps: 5 calls of 8 battles


def test_bench_refuses_bad_counts(capsys):
    from facing_env.evaluation import bench

    for argv, needle in (
        (["--num-envs", "-1"], "--num-envs must be from 0 to 65536, got -1"),
        (["--steps", "0"], "--steps must be at least 1, got 0"),
        (["--repeats", "0"], "--repeats must be at least 1, got 0"),
    ):
        with pytest.raises(SystemExit) as info:
            bench.main(argv)
        assert info.value.code == 2
        assert needle in capsys.readouterr().err


def test_bench_repeats_report_the_median_and_the_spread(capsys):
    from facing_env.evaluation import bench

    bench.main(["--steps", "40", "--scenario", "duel", "--num-envs", "0", "--repeats", "3"])
    out = capsys.readouterr().out.splitlines()
    assert out[1].split()[-1] == "lowest-highest"
    for line in out[2:]:
        ratio, spread = line.split()[-2:]
        low, high = (float(x) for x in spread.rstrip("x").split("-"))
        assert low <= float(ratio.rstrip("x")) <= high


def test_median_of_picks_the_middle_run():
    from facing_env.evaluation.bench import Result, median_of

    runs = iter([Result("a", 100, 2.0), Result("a", 100, 1.0), Result("a", 100, 4.0)])
    r = median_of(lambda: next(runs), 3)
    assert (r.rate, r.low, r.high) == (50.0, 25.0, 100.0)
