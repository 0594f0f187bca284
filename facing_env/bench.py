"""``python -m facing_env.bench [--quick]``: steps per second of random masked play.

For every built-in scenario it plays random masked actions through ``facing_env.env()``
(observation and mask included, as a learner would see them) and reports steps per second,
then the same for observation building alone (``observe`` on a fixed state) and for
PettingZoo's ``connect_four_v3.env()`` measured in the same run, the yardstick
(docs/design.md, speed). All randomness is seeded, so two runs play the same games. The first
line says whether the optional Cython build is in use (:mod:`facing_env._accel`).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from pettingzoo import AECEnv

from facing_env._accel import compiled_modules
from facing_env.env import env as make_env
from facing_env.scenario import scenario_names


@dataclass(frozen=True)
class Result:
    """One benchmark line."""

    name: str
    steps: int
    seconds: float

    @property
    def rate(self) -> float:
        """Steps per second."""
        return self.steps / self.seconds if self.seconds > 0 else float("inf")


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
    env = make_env(scenario=scenario)
    env.reset(seed=seed)
    raw = env.unwrapped
    agent = raw.agent_selection
    start = time.perf_counter()
    for _ in range(repeats):
        raw.invalidate_observations()
        raw.observe(agent)
    return Result(f"{scenario} observe", repeats, time.perf_counter() - start)


def _connect_four() -> AECEnv:
    from pettingzoo.classic import connect_four_v3

    return connect_four_v3.env()


def run(scenarios: Sequence[str], steps: int, obs_repeats: int) -> list[Result]:
    """Every benchmark, in the order printed."""
    results = [
        Result("connect_four_v3", *_measure(random_play(_connect_four, steps))),
    ]
    for name in scenarios:
        r = random_play(lambda name=name: make_env(scenario=name), steps)
        results.append(Result(name, r.steps, r.seconds))
    for name in scenarios:
        results.append(observation_only(name, obs_repeats))
    return results


def _measure(r: Result) -> tuple[int, float]:
    return r.steps, r.seconds


def main(argv: Sequence[str] | None = None) -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(prog="python -m facing_env.bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="few steps, default scenario only")
    parser.add_argument("--steps", type=int, default=None, help="steps per scenario")
    parser.add_argument("--scenario", action="append", help="scenario name (repeatable)")
    args = parser.parse_args(argv)
    scenarios = args.scenario or (["duel"] if args.quick else list(scenario_names()))
    steps = args.steps or (2_000 if args.quick else 20_000)
    results = run(scenarios, steps, obs_repeats=max(200, steps // 4))
    yardstick = results[0].rate
    compiled = compiled_modules()
    build = f"compiled ({len(compiled)} modules)" if compiled else "pure Python"
    print(f"facing_env build: {build}")
    print(f"{'benchmark':<28}{'steps':>9}{'steps/s':>12}{'vs connect_four':>17}")
    for r in results:
        print(f"{r.name:<28}{r.steps:>9}{r.rate:>12,.0f}{r.rate / yardstick:>16.2f}x")


if __name__ == "__main__":
    main()
