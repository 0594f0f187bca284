"""``python -m facing_env.bench [--quick]``: steps per second of random masked play.

For every built-in scenario it plays random masked actions through
``facing_env.env(engine="compiled")`` (observation and mask included, as a learner would
see them) and reports steps per second,
then :class:`facing_env.vector.VectorEnv` agent-steps per second (``--num-envs``
battles, 1024 by default; random masked actions, time inside ``step`` only), then
observation building alone (``observe`` on a fixed state), and PettingZoo's
``connect_four_v3.env()`` measured in the same run, the yardstick (docs/design.md,
speed). All randomness is seeded, so two runs play the same games. The first line says
how the kernels run (numba's JIT, or plain Python under ``NUMBA_DISABLE_JIT=1``).

Every line is measured ``--repeats`` times (the same seeded games each time; 5 by
default, 1 with ``--quick``) and reports the median rate, with the lowest and highest
beside it: a shared 2-core machine stalls a thread now and then, and one 50-millisecond
``VectorEnv`` measurement caught by a stall reads a third slower. connect_four, the
yardstick, is measured the same way.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np
from pettingzoo import AECEnv

from facing_env import cli
from facing_env.env import env as make_env
from facing_env.errors import FacingEnvError
from facing_env.scenario import load_scenario, scenario_names


@dataclass(frozen=True)
class Result:
    """One benchmark line."""

    name: str
    steps: int
    seconds: float
    low: float | None = None
    """The lowest rate of the repeats (None: measured once)."""
    high: float | None = None
    """The highest rate of the repeats (None: measured once)."""

    @property
    def rate(self) -> float:
        """Steps per second."""
        return self.steps / self.seconds if self.seconds > 0 else float("inf")


def median_of(measure: Callable[[], Result], repeats: int) -> Result:
    """``measure()`` run ``repeats`` times: the median run, with the lowest and highest
    rates of all of them."""
    runs = sorted((measure() for _ in range(repeats)), key=lambda r: r.rate)
    mid = runs[(len(runs) - 1) // 2]
    return Result(mid.name, mid.steps, mid.seconds, runs[0].rate, runs[-1].rate)


def random_play(factory: Callable[[], AECEnv], steps: int, seed: int = 0) -> Result:
    """Steps per second of random masked play (env.last + sample from the mask + step)."""
    env = factory()
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    done = 0
    episode = 0
    start = time.perf_counter()
    while done < steps:
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(len(legal))])
            env.step(action)
            done += 1
            if done >= steps:
                break
        else:
            episode += 1
            env.reset(seed=seed + episode)
    seconds = time.perf_counter() - start
    return Result(getattr(env, "metadata", {}).get("name", "env"), done, seconds)


def observation_only(scenario: str, repeats: int, seed: int = 0) -> Result:
    """Observations (with mask) per second on the opening state, cache bypassed."""
    env = make_env(scenario=scenario, engine="compiled")
    env.reset(seed=seed)
    raw = env.unwrapped
    agent = raw.agent_selection
    cache = raw._obs_cache  # the env's observations of this state, cleared each time
    start = time.perf_counter()
    for _ in range(repeats):
        cache.clear()
        raw.observe(agent)
    return Result(f"{scenario} observe", repeats, time.perf_counter() - start)


WARMUP_STEPS = 1000
"""At most this many untimed ``VectorEnv.step`` calls before the timed ones."""


def vector_play(
    scenario: str, num_envs: int, steps: int, seed: int = 0, threads: int | None = None
) -> Result:
    """Agent-steps per second of :class:`~facing_env.vector.VectorEnv` under random masked
    play: ``num_envs`` battles on ``threads`` threads (None: VectorEnv's default, one per
    core), ``step`` calls until ``steps`` agent-steps; only the time
    inside ``step`` counts (the actions are drawn outside it). Untimed warm-up steps come
    first, until a battle has ended and restarted: the first call of each kernel in a
    process loads it from numba's cache (tens of milliseconds), which is not throughput."""
    from facing_env.vector import VectorEnv

    venv = VectorEnv(scenario, num_envs=num_envs, seed=seed, threads=threads, engine="compiled")
    obs, _ = venv.reset()
    rng = np.random.default_rng(seed)
    for warm in range(WARMUP_STEPS):
        actions = np.argmax(obs["action_mask"] * rng.random(obs["action_mask"].shape), axis=1)
        obs, _, terminated, truncated, _ = venv.step(actions)
        if warm >= 1 and (terminated.any() or truncated.any()):
            break
    done, seconds = 0, 0.0
    while done < steps:
        # one allowed index per row: the largest uniform key among the allowed ones
        actions = np.argmax(obs["action_mask"] * rng.random(obs["action_mask"].shape), axis=1)
        start = time.perf_counter()
        obs, *_ = venv.step(actions)
        seconds += time.perf_counter() - start
        done += num_envs
    venv.close()
    plural = "s" if venv.threads > 1 else ""
    return Result(
        f"{scenario} VectorEnv x{num_envs} ({venv.threads} thread{plural})", done, seconds
    )


def engine_build() -> str:
    """How the batched engine's kernels run: numba's JIT (with its version) or, under
    ``NUMBA_DISABLE_JIT=1``, plain Python."""
    import numba
    from numba.core import config

    if config.DISABLE_JIT:
        return "pure Python (NUMBA_DISABLE_JIT=1)"
    return f"numba {numba.__version__} (compiled kernels)"


def _connect_four() -> AECEnv:
    from pettingzoo.classic import connect_four_v3

    return connect_four_v3.env()


def run(
    scenarios: Sequence[str],
    steps: int,
    obs_repeats: int,
    num_envs: int = 1024,
    threads: int | None = None,
    repeats: int = 1,
) -> list[Result]:
    """Every benchmark, in the order printed (``num_envs`` 0: no VectorEnv lines), each
    the median of ``repeats`` measurements (:func:`median_of`)."""
    c4 = median_of(lambda: random_play(_connect_four, steps), repeats)
    results = [Result("connect_four_v3", c4.steps, c4.seconds, c4.low, c4.high)]
    for name in scenarios:
        factory = partial(make_env, scenario=name, engine="compiled")
        r = median_of(lambda factory=factory: random_play(factory, steps), repeats)
        results.append(Result(name, r.steps, r.seconds, r.low, r.high))
    if num_envs:
        for name in scenarios:
            results.append(
                median_of(
                    lambda name=name: vector_play(
                        name, num_envs, max(steps, num_envs), threads=threads
                    ),
                    repeats,
                )
            )
    for name in scenarios:
        results.append(median_of(lambda name=name: observation_only(name, obs_repeats), repeats))
    return results


MAX_NUM_ENVS = 65536
"""The largest ``--num-envs`` accepted."""


PROG = "python -m facing_env.bench"
"""The command's name in its messages."""


def main(argv: Sequence[str] | None = None) -> None:
    """Command-line entry point."""
    parser = cli.parser(PROG, __doc__)
    parser.add_argument("--quick", action="store_true", help="few steps, default scenario only")
    parser.add_argument("--steps", type=int, default=None, help="steps per scenario")
    parser.add_argument("--scenario", action="append", help="scenario name (repeatable)")
    parser.add_argument(
        "--num-envs",
        type=int,
        default=None,
        help="battles of the VectorEnv lines (default 1024, --quick 64; 0: none)",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=None,
        help="threads of the VectorEnv lines (default: one per core, at most one per 64 battles)",
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=None,
        help="measurements per line, the median reported (default 5, --quick 1)",
    )
    args = parser.parse_args(argv)
    if args.repeats is not None and args.repeats < 1:
        cli.fail(PROG, f"--repeats must be at least 1, got {args.repeats}")
    if args.threads is not None and args.threads < 1:
        cli.fail(PROG, f"--threads must be at least 1, got {args.threads}")
    if args.steps is not None and args.steps < 1:
        cli.fail(PROG, f"--steps must be at least 1, got {args.steps}")
    if args.num_envs is not None and not 0 <= args.num_envs <= MAX_NUM_ENVS:
        cli.fail(PROG, f"--num-envs must be from 0 to 65536, got {args.num_envs}")
    num_envs = args.num_envs if args.num_envs is not None else (64 if args.quick else 1024)
    scenarios = args.scenario or (["duel"] if args.quick else list(scenario_names()))
    for name in scenarios:
        try:
            load_scenario(name)
        except FacingEnvError as exc:
            cli.fail(PROG, str(exc))
    steps = args.steps or (2_000 if args.quick else 20_000)
    repeats = args.repeats or (1 if args.quick else 5)
    results = run(
        scenarios,
        steps,
        obs_repeats=max(200, steps // 4),
        num_envs=num_envs,
        threads=args.threads,
        repeats=repeats,
    )
    yardstick = results[0].rate
    print(f"facing_env engine: {engine_build()}")
    spread = repeats > 1
    head = f"{'benchmark':<48}{'steps':>9}{'steps/s':>12}{'vs connect_four':>17}"
    print(head + (f"{'lowest-highest':>17}" if spread else ""))
    for r in results:
        line = f"{r.name:<48}{r.steps:>9}{r.rate:>12,.0f}{r.rate / yardstick:>16.2f}x"
        if spread and r.low is not None and r.high is not None:
            line += f"{r.low / yardstick:>10.2f}-{r.high / yardstick:.2f}x"
        print(line)


if __name__ == "__main__":
    cli.run_main(main)
