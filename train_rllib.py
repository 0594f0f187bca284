"""Train PPO policies with Ray RLlib on a facing_env scenario, then evaluate them.

    python train_rllib.py                                # duel, one shared self-play policy
    python train_rllib.py --policies team --num-env-runners 4
    python train_rllib.py --ray-address auto --num-env-runners 32   # on a running Ray cluster
    python train_rllib.py --help                         # every option, with its description

Read top to bottom: arguments, Ray (a local instance, or a cluster with ``--ray-address``),
the PPO config (the PettingZoo adapter of :mod:`facing_env.train.rllib`, policy mapping: one
``shared`` policy for every creature or one per team, action-masking modules, env runners
that sample in parallel on any node, learners), training with checkpoints, and the same
evaluation report as ``train.py`` (round-robin against every scripted agent). Both teams
are learners: with ``shared`` the policy plays itself. The final checkpoint is
``runs/<run_name>/checkpoint``; its path is the last line printed, and
``python -m facing_env.evaluate --agents rllib:PATH#shared random`` evaluates it again (RLlib
unpickles checkpoints: load only ones you trust). Every option is checked before Ray starts
(:func:`check_args`): a mistake ends the run at once with one line and exit status 2.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

try:
    import tyro
except ImportError as exc:  # pragma: no cover - the message is the point
    raise SystemExit(
        f"train_rllib.py needs the train and rllib extras ({exc.name} is missing):\n"
        '    pip install torch==2.13.0 && pip install -e ".[train,rllib]"'
    ) from exc

import facing_env
from facing_env import cli
from facing_env.evaluation.evaluate import evaluate
from facing_env.evaluation.match import Agent
from facing_env.evaluation.report import Report
from facing_env.scenario import DEFAULT_SCENARIO, load_scenario

if TYPE_CHECKING:
    from ray.rllib.algorithms.ppo import PPOConfig

RLLIB_MISSING = (
    "train_rllib.py needs the rllib extra ({name} is missing):\n"
    '    pip install torch==2.13.0 && pip install -e ".[train,rllib]"'
)
"""What the run says, after the arguments are read, when Ray or torch is not installed
(``--help`` works without them)."""


def require_rllib() -> None:
    """Import Ray RLlib and torch, or end the run with :data:`RLLIB_MISSING` (status 1)."""
    try:
        import ray  # noqa: F401
        import torch  # noqa: F401
        from ray.rllib.algorithms.ppo import PPOConfig  # noqa: F401
    except ImportError as exc:
        raise SystemExit(RLLIB_MISSING.format(name=exc.name)) from exc


@dataclass
class Args:
    """Options of an RLlib training run."""

    scenario: str = DEFAULT_SCENARIO
    """scenario name (see configs/) or path to a scenario YAML file"""
    exp_name: str = "rllib_ppo"
    """experiment name, part of the run name"""
    seed: int = 1
    """seed of the modules, the env runners and the evaluation"""
    policies: Literal["shared", "team"] = "shared"
    """'shared': one policy for every creature (self-play); 'team': one policy per team"""
    total_timesteps: int = 200_000
    """creature actions (env steps, both teams) to sample"""
    max_minutes: float = 0.0
    """stop training after this many minutes of wall time as well (0: no limit)"""
    ray_address: str | None = None
    """Ray cluster to join ('auto': the one `ray start` runs here); None starts a new local
    instance"""
    num_cpus: int | None = None
    """CPUs of a local Ray instance (None: all); ignored with --ray-address"""
    ship_package: bool = False
    """upload facing_env to the cluster (runtime_env py_modules), not installed on each node"""
    num_env_runners: int = 2
    """sampling actors (they spread over the cluster's nodes); 0 samples in the driver"""
    num_envs_per_env_runner: int = 1
    """battles stepped together in each env runner (batches the policy forward pass)"""
    num_cpus_per_env_runner: float = 1.0
    """CPUs Ray reserves per env runner"""
    num_learners: int = 0
    """learner actors (0: learn in the driver process; more for data-parallel updates)"""
    num_gpus_per_learner: float = 0.0
    """GPUs per learner (needs a CUDA torch on that node)"""
    learning_rate: float = 3e-4
    """Adam learning rate"""
    train_batch_size: int = 4000
    """env steps per training iteration (per learner)"""
    minibatch_size: int = 256
    """SGD minibatch size"""
    num_epochs: int = 6
    """optimisation epochs per training batch"""
    gamma: float = 0.995
    """discount factor (a battle is a few hundred creature actions)"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    entropy_coeff: float = 0.01
    """entropy bonus"""
    hiddens: tuple[int, ...] = (256, 256)
    """hidden layers of the policy and value networks"""
    checkpoint_every: int = 10
    """training iterations between checkpoints (0: only the final one)"""
    keep_checkpoints: int = 3
    """periodic checkpoints kept, the oldest go first (0: all; each is about 16 MB per policy)"""
    initial_eval_games: int = 0
    """games per pair for a report of the untrained policies first (0: skip it)"""
    final_eval_games: int = 200
    """games per pair in the final evaluation (0: skip it)"""
    final_eval_agents: tuple[str, ...] = ("random", "aggressive", "flanker", "defensive")
    """agents the trained policies are evaluated against (scripted names, model:PATH[@T] or
    rllib:PATH[#ID]: rllib checkpoints are unpickled, trusted ones only)"""
    eval_deterministic: bool = True
    """evaluate the policies' most likely actions (False: sample from them)"""
    runs_dir: str = "runs"
    """where run folders go"""
    torch_threads: int = 1
    """torch CPU threads of the driver (the learner when num_learners is 0)"""
    dice: str | None = None
    """override the scenario's dice mode: 'roll', 'expected' or 'deck'"""
    env_kwargs: dict[str, int] = field(default_factory=dict)
    """extra keyword arguments for the environment (e.g. max_rounds)"""


def ppo_config(args: Args, env_kwargs: dict) -> PPOConfig:
    """PPO on the new API stack: the PettingZoo adapter, the policy mapping, masked modules."""
    from ray.rllib.algorithms.ppo import PPOConfig

    from facing_env.train.rllib import (
        FacingRLlibEnv,
        module_spec,
        policy_ids,
        shared_policy,
        team_policy,
    )

    ids = policy_ids(args.scenario, args.policies)
    return (
        PPOConfig()
        .environment(FacingRLlibEnv, env_config={"scenario": args.scenario, **env_kwargs})
        .multi_agent(
            policies=set(ids),
            policy_mapping_fn=shared_policy if args.policies == "shared" else team_policy,
        )
        .rl_module(rl_module_spec=module_spec(ids, args.hiddens))
        .env_runners(
            num_env_runners=args.num_env_runners,
            num_envs_per_env_runner=args.num_envs_per_env_runner,
            num_cpus_per_env_runner=args.num_cpus_per_env_runner,
        )
        .learners(num_learners=args.num_learners, num_gpus_per_learner=args.num_gpus_per_learner)
        .training(
            lr=args.learning_rate,
            train_batch_size_per_learner=args.train_batch_size,
            minibatch_size=args.minibatch_size,
            num_epochs=args.num_epochs,
            gamma=args.gamma,
            lambda_=args.gae_lambda,
            entropy_coeff=args.entropy_coeff,
        )
        .debugging(seed=args.seed)
    )


def learned_agents(checkpoint: Path, args: Args) -> dict[str, Agent]:
    """The trained modules behind the agent protocol: ``learned`` or ``learned_<team>``."""
    from facing_env.train.rllib import ModuleAgent, load_module, policy_ids

    ids = policy_ids(args.scenario, args.policies)
    names = ["learned"] if args.policies == "shared" else [f"learned_{i}" for i in ids]
    return {
        name: ModuleAgent(load_module(checkpoint, i), deterministic=args.eval_deterministic)
        for name, i in zip(names, ids, strict=True)
    }


def report(args: Args, learned: dict[str, Agent], games: int, env_kwargs: dict) -> Report:
    """Round-robin of the learned policies and the scripted agents (as in train.py)."""
    from facing_env.agents import make_agent

    return evaluate(
        args.scenario,
        [*learned, *args.final_eval_agents],
        games,
        seed=100_000,
        make=lambda name: learned[name] if name in learned else make_agent(name),
        **env_kwargs,
    )


def save_report(rep: Report, run_dir: Path, name: str) -> None:
    """``<name>.json`` and ``<name>.md`` in the run folder."""
    (run_dir / f"{name}.json").write_text(json.dumps(rep.to_dict(), indent=2))
    (run_dir / f"{name}.md").write_text(rep.markdown())


def progress_line(result: dict, start: float) -> tuple[int, str]:
    """Env steps so far and a one-line summary of a training iteration."""
    runners = result.get("env_runners", {})
    steps = int(runners.get("num_env_steps_sampled_lifetime", 0))
    returns = runners.get("module_episode_returns_mean", {})
    parts = " ".join(f"{m}={r:+.2f}" for m, r in sorted(returns.items()))
    length = runners.get("episode_len_mean", float("nan"))
    line = (
        f"iter {result['training_iteration']:4d}  steps {steps:8d}  "
        f"{steps / max(time.time() - start, 1e-9):6.0f}/s  episode length {length:6.1f}  "
        f"return {parts}"
    )
    return steps, line


PROG = "train_rllib.py"


def check_args(args: Args) -> dict:
    """Check every option before Ray starts or anything trains (scenario, agent names,
    counts, the runs folder); the env keyword arguments. A mistake exits with one line on
    stderr and status 2 (:class:`facing_env.cli.UsageError`)."""
    return cli.checked(PROG, _check, args)


def _check(args: Args) -> dict:
    load_scenario(args.scenario)
    cli.run_name_part(args.exp_name, "--exp-name")
    cli.count(args.seed, "--seed", low=0)
    if args.policies not in ("shared", "team"):
        raise ValueError(f"--policies must be 'shared' or 'team', got {args.policies!r}")
    for option in ("total_timesteps", "num_envs_per_env_runner", "train_batch_size"):
        cli.count(getattr(args, option), "--" + option.replace("_", "-"))
    for option in ("minibatch_size", "num_epochs", "torch_threads"):
        cli.count(getattr(args, option), "--" + option.replace("_", "-"))
    for option in ("num_env_runners", "num_learners", "checkpoint_every", "keep_checkpoints"):
        cli.count(getattr(args, option), "--" + option.replace("_", "-"), low=0)
    for option in ("initial_eval_games", "final_eval_games"):
        cli.count(getattr(args, option), "--" + option.replace("_", "-"), low=0)
    if args.num_cpus is not None:
        cli.count(args.num_cpus, "--num-cpus")
    cli.number(args.max_minutes, "--max-minutes", 0.0)
    cli.number(args.num_cpus_per_env_runner, "--num-cpus-per-env-runner", 0.0, open_low=True)
    cli.number(args.num_gpus_per_learner, "--num-gpus-per-learner", 0.0)
    cli.number(args.learning_rate, "--learning-rate", 0.0, 1.0, open_low=True)
    cli.number(args.gamma, "--gamma", 0.0, 1.0)
    cli.number(args.gae_lambda, "--gae-lambda", 0.0, 1.0)
    cli.number(args.entropy_coeff, "--entropy-coeff", 0.0, 1.0)
    cli.widths(args.hiddens, "--hiddens")
    cli.output_folder(args.runs_dir, "--runs-dir")
    env_kwargs = cli.env_options(args.scenario, args.dice, args.env_kwargs)
    if args.final_eval_games > 0 or args.initial_eval_games > 0:
        if not args.final_eval_agents:
            raise ValueError("--final-eval-agents needs at least one agent")
        cli.agents(args.final_eval_agents, "--final-eval-agents", args.scenario, **env_kwargs)
    return env_kwargs


def main(args: Args) -> Path:
    """Check the options, train, checkpoint, evaluate; returns the final checkpoint folder."""
    env_kwargs = check_args(args)
    require_rllib()
    import ray
    import torch

    # -- run folder ------------------------------------------------------------------------
    run_name = f"{Path(args.scenario).stem}__{args.exp_name}__{args.seed}__{int(time.time())}"
    run_dir = (Path(args.runs_dir) / run_name).resolve()
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "args.json").write_text(json.dumps(vars(args), indent=2, default=list))
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)

    # -- Ray: a local instance, or join a cluster -----------------------------------------
    started_here = not ray.is_initialized()
    if started_here:
        runtime_env = {"py_modules": [facing_env]} if args.ship_package else None
        ray.init(
            address=args.ray_address or "local",  # "local": a new instance, even if one runs
            num_cpus=None if args.ray_address else args.num_cpus,
            include_dashboard=False,
            runtime_env=runtime_env,
        )

    # -- algorithm -------------------------------------------------------------------------
    algo = ppo_config(args, env_kwargs).build_algo()
    if args.initial_eval_games > 0:
        initial = algo.save_to_path(str(run_dir / "checkpoints" / "iter_0000"))
        agents = learned_agents(Path(initial), args)
        before = report(args, agents, args.initial_eval_games, env_kwargs)
        save_report(before, run_dir, "report_initial")
        print(before.markdown())

    # -- training --------------------------------------------------------------------------
    start, steps, iteration = time.time(), 0, 0
    with (run_dir / "progress.jsonl").open("w") as log:
        deadline = start + 60 * args.max_minutes if args.max_minutes > 0 else float("inf")
        while steps < args.total_timesteps and time.time() < deadline:
            result = algo.train()
            iteration += 1
            steps, line = progress_line(result, start)
            print(line, flush=True)
            runners = result.get("env_runners", {})
            log.write(json.dumps({"iteration": iteration, "steps": steps, **_scalars(runners)}))
            log.write("\n")
            if args.checkpoint_every and iteration % args.checkpoint_every == 0:
                algo.save_to_path(str(run_dir / "checkpoints" / f"iter_{iteration:04d}"))
                kept = sorted((run_dir / "checkpoints").glob("iter_*"))
                for old in kept[: -args.keep_checkpoints]:
                    shutil.rmtree(old)
    minutes = (time.time() - start) / 60
    checkpoint = Path(algo.save_to_path(str(run_dir / "checkpoint")))
    algo.stop()
    if started_here:
        ray.shutdown()

    # -- evaluation report -----------------------------------------------------------------
    if args.final_eval_games > 0:
        after = report(args, learned_agents(checkpoint, args), args.final_eval_games, env_kwargs)
        save_report(after, run_dir, "report")
        print(after.markdown())
    print(f"trained {steps} steps in {iteration} iterations, {minutes:.1f} min; in {run_dir}")
    print(checkpoint)
    return checkpoint


def _scalars(runners: dict) -> dict[str, float]:
    keys = ("episode_return_mean", "episode_len_mean", "num_episodes_lifetime")
    out = {k: float(runners[k]) for k in keys if k in runners}
    for m, r in runners.get("module_episode_returns_mean", {}).items():
        out[f"return_{m}"] = float(r)
    return out


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    main(tyro.cli(Args))
