"""``python -m facing_env.bench``: its lines and its refusals of bad counts."""

from __future__ import annotations

import pytest


def test_bench_reports_the_engine_and_every_line(capsys):
    from facing_env import bench

    bench.main(["--steps", "40", "--scenario", "duel", "--num-envs", "8"])
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "facing_env engine: " + bench.engine_build()
    names = [" ".join(line.split()[:-3]) for line in out[2:]]
    assert names == ["connect_four_v3", "duel", "duel VectorEnv x8 (1 thread)", "duel observe"]
    assert int(out[3].split()[-3]) == 40  # steps of the duel line
    assert int(out[4].split()[-3]) == 40  # agent-steps: 5 calls of 8 battles


def test_bench_refuses_bad_counts(capsys):
    from facing_env import bench

    for argv, needle in (
        (["--num-envs", "-1"], "--num-envs must be from 0 to 65536, got -1"),
        (["--steps", "0"], "--steps must be at least 1, got 0"),
    ):
        with pytest.raises(SystemExit) as info:
            bench.main(argv)
        assert info.value.code == 2
        assert needle in capsys.readouterr().err
