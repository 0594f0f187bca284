"""Train a MaskablePPO team policy on a facing_env scenario, then evaluate it.

    python train.py                                  # the default job: duel, ~13 min on 2 CPUs
    python train.py --scenario skirmish              # about 12 min on 2 CPUs
    python train.py --help                           # every option, with its description

Options left unset take the scenario's recipe (:data:`RECIPES`): on the duel the policy is
a clone of the ``expert`` search agent (its decisions, then two DAgger rounds; the policy
sees the round as a thermometer code, ``--policy clock``) and no PPO step follows; on
the skirmish a clone of the ``expert`` too (which plays a learned prior there), on rolled
dice, with no PPO; elsewhere a clone of ``flanker`` and 800k steps with half the
environments on expected dice.

Read top to bottom (cleanrl style): arguments, seeding and run name, environments (one
learner plays a whole team against an opponent pool of scripted agents and, with
self-play, frozen snapshots of itself), the model, callbacks (progress bar, TensorBoard
scalars, checkpoints, snapshots, periodic evaluation), training, and the final
evaluation report (round-robin against every scripted agent: win rates with 95% intervals,
ratings, and where attacks came from). The first two lines printed name the run folder
(``runs/<run_name>/``) and the command that shows its TensorBoard logs, before the kernels
compile or the cloning starts; progress bars go to stderr (``--no-progress-bar``: none).
The final model is ``runs/<run_name>/model.zip``; its path is the last line printed.
Every option is checked before anything is built (:func:`check_args`): a mistake ends the
run at once with one line and exit status 2.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

try:
    import torch
    import tyro
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback, CallbackList, CheckpointCallback
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.utils import set_random_seed
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv, VecMonitor
except ImportError as exc:  # pragma: no cover - the message is the point
    raise SystemExit(
        f"train.py needs the training extra ({exc.name} is missing):\n"
        '    pip install torch==2.13.0 && pip install -e ".[train]"'
    ) from exc

from facing_env import cli
from facing_env.agents.learned import PolicyAgent
from facing_env.env import PERCEPTIONS, raw_env
from facing_env.evaluation.evaluate import PairBars, evaluate, image_links, plots
from facing_env.evaluation.match import Agent
from facing_env.evaluation.report import Report
from facing_env.scenario import DEFAULT_SCENARIO, load_scenario, reward_weights
from facing_env.train.league import WEIGHTINGS, League
from facing_env.train.policies import clock_policy_kwargs, entity_policy_kwargs
from facing_env.train.team_env import TeamLearnerEnv
from facing_env.warm import compile_first


@dataclass
class Args:
    """Options of a training run."""

    scenario: str = DEFAULT_SCENARIO
    """scenario name (see configs/) or path to a scenario YAML file"""
    exp_name: str = "maskable_ppo"
    """experiment name, part of the run name"""
    seed: int = 1
    """seed of the model, the environments and the evaluation"""
    total_timesteps: int | None = None
    """PPO's learner actions after the cloning (0: none, the cloned policy is the model);
    default: the scenario's recipe (RECIPES: 0 on the duel and the skirmish, 800k
    elsewhere)"""
    n_envs: int = 8
    """environments stepped together (more amortise each policy forward pass)"""
    vec_env: str = "dummy"
    """'dummy' (TeamLearnerEnv copies in this process), 'subproc' (one process each) or
    'vector' (facing_env.train.team_vec_env.TeamVecEnv: the battles as arrays in one batched
    engine, the opponents acting in batch; no --approach-shaping)"""
    opponents: tuple[str, ...] = ("random", "aggressive", "flanker", "defensive")
    """opponents in the pool (scripted names, model:PATH[@T] or rllib:PATH[#ID]:
    rllib checkpoints are unpickled, trusted ones only); with --league each battle
    draws one with priority to those the learner does worst against, without it uniformly
    (a name given twice is then drawn twice as often)"""
    league: bool = True
    """prioritised fictitious self-play: draw opponents in proportion to
    max(floor, priority(win rate)), win rates estimated from the training battles
    (facing_env.train.league)"""
    league_power: float = 2.0
    """sharpness of the league's priority (0: uniform)"""
    league_weighting: str = "variance"
    """the league's priority: 'variance' ((4 p (1 - p)) ** (power / 2): the opponents the
    learner beats about half the time) or 'hard' ((1 - p) ** power: those it does worst
    against); variance with a floor of 0.3 was the steadiest over four seeds
    (docs/training.md)"""
    league_floor: float = 0.3
    """weight of an opponent at the ends (always or never beaten), before normalising"""
    clone: str | None = "auto"
    """an agent whose play the policy copies before PPO starts (behaviour cloning: its
    decisions in battles against the opponent pool, facing_env.train.imitation; the value
    head learns the returns that followed them); None: PPO from a random policy; 'auto':
    the scenario's recipe (RECIPES: the expert on the duel and the skirmish, flanker
    elsewhere).
    The clone of flanker took the skirmish from 0.46-0.61 / 0.10-0.38 / 0.16-0.75 to about
    0.67 / 0.66 / 0.94 against aggressive / flanker / defensive; DAgger of the expert
    plays the duel at the expert's level (docs/training.md)"""
    clone_samples: int | None = None
    """decisions of the --clone agent to learn from (over all rounds); default: the
    scenario's recipe"""
    clone_epochs: int | None = None
    """passes over the decisions gathered, after each round; default: the scenario's
    recipe"""
    clone_rounds: int | None = None
    """rounds of cloning: the first in the --clone agent's own battles, each later one
    (DAgger) in battles the cloned policy plays, the agent's choices recorded; the policy
    is fitted again on everything gathered after each round; default: the scenario's
    recipe"""
    clone_dagger_share: float | None = None
    """share of --clone-samples gathered in the DAgger rounds (split evenly among them; the
    first round gathers the rest); default: the scenario's recipe (None there: every round
    an even share)"""
    clone_workers: int = 2
    """processes that gather the --clone agent's decisions (forked; a search agent such as
    the expert costs milliseconds a decision, so its cloning is bound by the teacher: 2
    halve it on 2 cores)"""
    policy: str | None = None
    """'mlp' (one MLP over the flat observation), 'clock' (the same MLP over the
    observation and the round as a thermometer code, facing_env.train.policies.ClockExtractor:
    a clone then follows a teacher whose choice changes with the round, as the expert's
    does when it stops waiting) or 'entity' (a convolution over the window and one shared
    network per creature row, facing_env.train.policies.EntityExtractor; on the duel no
    better than the MLP at 800k steps, docs/training.md); default: the scenario's recipe
    (RECIPES: 'clock' on the duel, 'mlp' elsewhere)"""
    self_play: bool = False
    """add frozen snapshots of the learner to the opponent pool (off by default: on the
    duel, 800k steps with three snapshots in the pool drew 33 of 200 games against random
    and won 0.39 against defensive, without them 2 draws and 0.60)"""
    snapshot_every: int = 100_000
    """learner actions between self-play snapshots"""
    max_snapshots: int = 3
    """snapshots kept in the pool (the oldest leave first)"""
    learning_rate: float = 3e-4
    """Adam learning rate"""
    anneal_lr: bool = True
    """decay the learning rate linearly to zero over the run (a steadier final policy)"""
    n_steps: int = 256
    """rollout length per environment (n_steps * n_envs samples per update)"""
    batch_size: int = 256
    """minibatch size"""
    n_epochs: int = 6
    """optimisation epochs per rollout"""
    gamma: float = 0.995
    """discount factor (a battle is a few hundred learner actions)"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    ent_coef: float = 0.003
    """entropy bonus (low: the evaluated policy samples its actions, so a sharp policy
    makes fewer careless moves)"""
    net_arch: tuple[int, ...] = (256, 256)
    """hidden layers of the policy and value networks"""
    eval_every: int = 200_000
    """learner actions between quick evaluations (0: never)"""
    eval_games: int = 40
    """games per opponent in a quick evaluation"""
    final_eval_games: int = 200
    """games per pair in the final evaluation (0: skip it)"""
    final_eval_agents: tuple[str, ...] = ("random", "aggressive", "flanker", "defensive")
    """scripted agents the final model is evaluated against"""
    eval_temperature: float = 0.0
    """temperature of the learner in evaluations (0: its most likely action, as
    stable-baselines3's evaluate_policy plays; 1: sample the trained distribution)"""
    checkpoint_every: int = 250_000
    """learner actions between checkpoints (0: none)"""
    runs_dir: str = "runs"
    """where run folders go"""
    progress_bar: bool = True
    """show progress bars on stderr: behaviour cloning (decisions gathered, minibatches
    fitted), training, the final evaluation (a bar per pair)"""
    torch_threads: int = 2
    """torch CPU threads (with 'dummy' the environments and the updates take turns, so
    both cores serve the updates: 19 min instead of 26 for the default run; use 1 with
    'subproc')"""
    dice: str | None = None
    """override the scenario's dice mode: 'roll', 'expected', 'deck' or 'mean'"""
    perception: str | None = None
    """override the scenario's perception: 'full' (every creature sees the whole board) or
    'facing' (foes wholly in a creature's rear area are hidden from it unless heard;
    docs/api.md); the training environments and the evaluations use it"""
    expected_dice_share: float | None = None
    """share of the training environments that use --low-variance-dice (by default
    expected values: a +2 from the flank turns a miss into a hit instead of +10% on a
    noisy roll); the others use the scenario's (or --dice) mode, as evaluations do;
    default: the scenario's recipe (RECIPES: 0 on the skirmish, rolled dice everywhere;
    0.5 elsewhere)"""
    low_variance_dice: str = "expected"
    """the dice of the --expected-dice-share environments: 'expected' (every roll its
    mean: +2 and +4 are then worth the same), 'deck' (d20s dealt from a shuffled deck
    of the twenty faces: each point of bonus one hit in twenty, with little luck) or
    'mean' (every attack deals its mean damage over the rolls: each point of attack
    bonus adds 5 points of hit chance to every attack, with no luck)"""
    expected_dice_final: float | None = None
    """share of expected-dice environments at the end of the run: the share moves
    linearly from --expected-dice-share to it, one environment at a time (a curriculum
    from expected values to rolls); default: it stays --expected-dice-share"""
    rewards: dict[str, float] = field(default_factory=dict)
    """reward weights of the training environments that replace the scenario's (e.g.
    --rewards draw -1.0 rear_attack 0.02); evaluations count a draw as not won whatever
    the weights"""
    approach_shaping: float = 0.0
    """weight of the potential-based approach shaping (TeamLearnerEnv's ``approach``: per
    square the learner's team closes on the enemy, discounted with --gamma; it adds up to
    a constant over a battle, so it guides exploration without changing which policies
    are best); 0: off"""
    env_kwargs: dict[str, int] = field(default_factory=dict)
    """extra keyword arguments for the environment (e.g. max_rounds)"""


@dataclass(frozen=True)
class Recipe:
    """The defaults of a scenario's training run (the options left unset take them)."""

    clone: str | None
    clone_samples: int
    clone_rounds: int
    clone_epochs: int
    total_timesteps: int
    clone_dagger_share: float | None = None
    policy: str = "mlp"
    expected_dice_share: float = 0.5


RECIPES: dict[str, Recipe] = {
    # a clone of the expert with two DAgger rounds and the round as a thermometer code, no
    # PPO: on 1,000 games per pair against aggressive and defensive (seeds 300,000 on) the
    # policies of training seeds 1 and 2 win exactly the expert's games, and 1.00 / 0.698 /
    # 0.614 / 0.664 on seeds 400,000 on, the expert's figures there; a plain MLP left the
    # expert's game against defensive in 88 of 1,000 on seed 2 (docs/training.md,
    # "Learning the expert"); a clone of flanker with 800k PPO steps stayed at 0.59 /
    # 0.38-0.49 / 0.60-0.65; about 13 minutes on 2 cores
    "duel": Recipe("expert", 100_000, 3, 20, 0, clone_dagger_share=0.4, policy="clock"),
    # a clone of the expert (which plays its learned prior there) with two DAgger rounds,
    # on rolled dice, no PPO: over 1,000 games (seeds 400,000 on) training seeds 1 and 2
    # win 0.799 / 0.788 against aggressive, 0.859 / 0.859 against flanker and 0.944 /
    # 0.950 against defensive, where a clone of flanker and 2.4M PPO steps won 0.688-0.798
    # / 0.764-0.848 / 0.940-0.956 over four seeds in 35-38 minutes; 12 minutes alone on 2
    # cores (docs/training.md, "Current numbers")
    "skirmish": Recipe(
        "expert", 100_000, 3, 20, 0, clone_dagger_share=0.4, expected_dice_share=0.0
    ),
}
"""Recipes by scenario name; every other scenario takes :data:`DEFAULT_RECIPE`."""
DEFAULT_RECIPE = Recipe("flanker", 200_000, 1, 4, 800_000)
"""A clone of ``flanker`` and 800k PPO steps against the league (the expert's search labels
the decisions of scenarios with more than two creatures too slowly for their 60 minutes;
on the skirmish it plays its learned prior, which is fast)."""


_RECIPE_OPTIONS = tuple(f.name for f in fields(Recipe) if f.name != "clone")
"""The options a recipe fills in when they are left unset (``None``); ``--clone`` is
filled in when it is ``auto``."""


def _recipe(args: Args) -> Recipe:
    """The scenario's recipe (by its name or file stem)."""
    return RECIPES.get(Path(str(args.scenario)).stem, DEFAULT_RECIPE)


def with_recipe(args: Args) -> Args:
    """``args`` with every option left to the scenario's recipe filled in from it
    (:data:`RECIPES`, by the scenario's name or file stem)."""
    recipe = _recipe(args)
    changes = {
        name: getattr(recipe, name) for name in _RECIPE_OPTIONS if getattr(args, name) is None
    }
    if args.clone == "auto":
        changes["clone"] = recipe.clone
    return replace(args, **changes)


class SelfPlayAndEvalCallback(BaseCallback):
    """Keeps the opponent league (outcomes in, priorities out to the environments), adds
    snapshots of the learner to it, and runs quick evaluations (the learning curves)."""

    def __init__(self, args: Args, run_dir: Path, env_kwargs: dict) -> None:
        super().__init__()
        self.args, self.run_dir, self.env_kwargs = args, run_dir, env_kwargs
        self.snapshots: list[str] = []
        self.next_snapshot = args.snapshot_every
        self.next_eval = args.eval_every
        self.league = League(
            power=args.league_power, floor=args.league_floor, weighting=args.league_weighting
        )
        # the dice of the environments outside the low-variance share (--dice, else the
        # scenario's)
        self.base_dice = env_kwargs.get("dice") or load_scenario(args.scenario).dice
        for name in args.opponents:
            self.league.add(name)

    def _on_step(self) -> bool:
        for done, info in zip(self.locals["dones"], self.locals["infos"], strict=True):
            if done and "won" in info:  # every battle, expected dice too (docs/training.md)
                self.league.record(info["opponent"], bool(info["won"]))
        if self.args.self_play and self.num_timesteps >= self.next_snapshot:
            self.next_snapshot += self.args.snapshot_every
            self._snapshot()
        if self.args.eval_every and self.num_timesteps >= self.next_eval:
            self.next_eval += self.args.eval_every
            self._quick_eval()
        return True

    def _on_rollout_end(self) -> None:
        for name, (_games, rate, weight) in self.league.summary().items():
            label = Path(name.split(":", 1)[-1]).stem if name.startswith("model:") else name
            self.logger.record(f"league/win_rate_{label}", rate)
            self.logger.record(f"league/draw_chance_{label}", weight)
        if self.args.league:
            self.training_env.env_method("set_opponent_weights", self.league.weights())
        if self.args.expected_dice_final is not None:
            share = _dice_share(self.args, self.num_timesteps)
            self.logger.record("train/expected_dice_share", share)
            for rank in range(self.args.n_envs):
                mode = (
                    self.args.low_variance_dice
                    if _calm(rank, share, self.args.n_envs)
                    else self.base_dice
                )
                self.training_env.env_method("set_dice_mode", mode, indices=[rank])

    def _snapshot(self) -> None:
        path = self.run_dir / "snapshots" / f"step_{self.num_timesteps}.zip"
        self.model.save(path)
        spec = f"model:{path}@1"  # snapshots sample, whatever the evaluations do
        self.training_env.env_method("add_opponent", spec)
        self.league.add(spec)
        self.snapshots.append(spec)
        if len(self.snapshots) > self.args.max_snapshots:
            old = self.snapshots.pop(0)
            self.training_env.env_method("remove_opponent", old)
            self.league.remove(old)

    def _quick_eval(self) -> None:
        learner = PolicyAgent(self.model, temperature=self.args.eval_temperature)
        for opponent in self.args.final_eval_agents:
            report = evaluate(
                self.args.scenario,
                ["learner", opponent],
                self.args.eval_games,
                seed=10_000,
                make=lambda name, learner=learner: learner if name == "learner" else _agent(name),
                **self.env_kwargs,
            )
            pair = report.pair("learner", opponent)
            self.logger.record(f"eval/win_rate_vs_{opponent}", pair.win_rate)
            stats = report.agents["learner"]
            self.logger.record(f"eval/flank_or_rear_share_vs_{opponent}", stats.flank_or_rear_share)


def _agent(name: str) -> Agent:
    from facing_env.agents import make_agent

    return make_agent(name)


def _start_share(args: Args) -> float:
    """``--expected-dice-share``, or the scenario's recipe's when it is unset (the
    factories below take ``Args`` as given, recipe applied or not)."""
    share = args.expected_dice_share
    return _recipe(args).expected_dice_share if share is None else share


def _dice_share(args: Args, timesteps: int) -> float:
    """The share of expected-dice environments after ``timesteps`` learner actions."""
    start, end = _start_share(args), args.expected_dice_final
    if end is None:
        return start
    return start + (end - start) * min(timesteps / args.total_timesteps, 1.0)


def _calm(rank: int, share: float, n: int) -> bool:
    """Whether environment ``rank`` of ``n`` uses --low-variance-dice: the first
    ``round(share * n)`` ranks do."""
    return rank < round(share * n)


def make_env(args: Args, rank: int, env_kwargs: dict) -> Callable[[], Monitor]:
    """A factory for one monitored learner environment (picklable for SubprocVecEnv); the
    first ``expected_dice_share`` of the ranks use expected dice (a curriculum moves
    the boundary during the run: ``set_dice_mode``)."""
    kwargs = dict(env_kwargs)
    if args.rewards:
        kwargs["rewards"] = dict(args.rewards)
    if _calm(rank, _start_share(args), args.n_envs):
        kwargs["dice"] = args.low_variance_dice

    def _init() -> Monitor:
        env = TeamLearnerEnv(
            args.scenario,
            opponents=args.opponents,
            approach=args.approach_shaping,
            gamma=args.gamma,
            **kwargs,
        )
        env.reset(seed=args.seed + rank)
        return Monitor(env)

    return _init


def make_vec_env(args: Args, env_kwargs: dict) -> VecEnv:
    """The training environments of ``--vec-env``: ``n_envs`` monitored learner
    environments, the first ``expected_dice_share`` of them on ``--low-variance-dice``."""
    if args.vec_env != "vector":
        factories = [make_env(args, i, env_kwargs) for i in range(args.n_envs)]
        return SubprocVecEnv(factories) if args.vec_env == "subproc" else DummyVecEnv(factories)
    from facing_env.train.team_vec_env import TeamVecEnv

    kwargs = _batched(args, env_kwargs, args.n_envs)
    venv = TeamVecEnv(
        args.scenario, args.n_envs, opponents=args.opponents, seed=args.seed, **kwargs
    )
    return VecMonitor(venv)


def _batched(args: Args, env_kwargs: dict, n: int) -> dict:
    """Keyword arguments of a ``TeamVecEnv`` of ``n`` battles like the training ones
    (rewards, ``dice_modes``: the first ``expected_dice_share`` on --low-variance-dice)."""
    kwargs = dict(env_kwargs)
    if args.rewards:
        kwargs["rewards"] = dict(args.rewards)
    base = kwargs.pop("dice", None) or load_scenario(args.scenario).dice
    share = _start_share(args)
    kwargs["dice_modes"] = [
        args.low_variance_dice if _calm(i, share, n) else base for i in range(n)
    ]
    return kwargs


def pretrain(args: Args, model: MaskablePPO, run_dir: Path, env_kwargs: dict) -> list[dict]:
    """Behaviour cloning of ``--clone`` (facing_env.train.imitation): its decisions in 64
    batched battles (fewer for under 1,024 decisions a round: a search agent such as the
    expert costs per battle) against the opponent pool (dice as in training), then the policy fitted
    to them; each later round (DAgger) the policy plays and the agent's choices are
    recorded. Each round's measures go to ``clone.json`` and are returned."""
    from facing_env.train.imitation import Demonstrations, clone, demonstrations

    shares = clone_shares(args.clone_samples, args.clone_rounds, args.clone_dagger_share)
    n = min(64, max(2, min(shares) // 16))  # 64 battles, fewer for a small sample
    kwargs = _batched(args, env_kwargs, n)
    gathered: Demonstrations | None = None
    rounds: list[dict] = []
    for r, per_round in enumerate(shares):
        start = time.time()
        player = None if r == 0 else PolicyAgent(model, temperature=args.eval_temperature)
        new = demonstrations(
            args.scenario,
            args.clone,
            args.opponents,
            per_round,
            num_envs=n,
            seed=args.seed + 1_000_000 + 10_000 * r,  # battles apart from the training ones
            gamma=args.gamma,
            player=player,
            progress=args.progress_bar,
            workers=args.clone_workers,
            **kwargs,
        )
        gathered = new if gathered is None else gathered + new
        metrics = clone(
            model.policy,
            gathered,
            epochs=args.clone_epochs,
            seed=args.seed + r,
            progress=args.progress_bar,
        )
        metrics.update(
            round=r + 1,
            samples=len(gathered),
            battles=new.battles,
            player_win_rate=new.wins / max(new.battles, 1),
            minutes=(time.time() - start) / 60,
        )
        rounds.append(metrics)
        (run_dir / "clone.json").write_text(json.dumps(rounds, indent=2))
        who = args.clone if player is None else "the cloned policy"
        print(
            f"clone round {r + 1}/{args.clone_rounds}: {who} won"
            f" {metrics['player_win_rate']:.2f} of {new.battles} battles; fitted on"
            f" {len(gathered)} decisions, held-out accuracy"
            f" {metrics.get('accuracy', float('nan')):.3f}; {metrics['minutes']:.1f} min",
            flush=True,
        )
    return rounds


def clone_shares(samples: int, rounds: int, dagger_share: float | None) -> list[int]:
    """The decisions each round of cloning gathers: ``samples`` in all, the DAgger rounds
    (all but the first) ``dagger_share`` of them split evenly (None: every round an even
    share)."""
    if rounds == 1:
        return [samples]
    if dagger_share is None:
        return [samples // rounds] * rounds
    later = round(samples * dagger_share) // (rounds - 1)
    return [samples - later * (rounds - 1)] + [later] * (rounds - 1)


def _schedule(start: float) -> Callable[[float], float]:
    """A linear decay from ``start`` to zero (SB3 passes the remaining progress, 1 -> 0; it
    dips below 0 in the last rollout, which overshoots the budget, so it is clamped)."""
    return lambda progress_remaining: max(progress_remaining, 0.0) * start


def final_report(args: Args, model_path: Path, run_dir: Path, env_kwargs: dict) -> Report:
    """Round-robin of the saved model against the scripted agents; saved as JSON and md."""
    learned = _agent(f"model:{model_path}@{args.eval_temperature!r}")
    with PairBars(args.progress_bar) as bars:  # a bar per pair on stderr
        report = evaluate(
            args.scenario,
            ["learned", *args.final_eval_agents],
            args.final_eval_games,
            seed=100_000,
            make=lambda name: learned if name == "learned" else _agent(name),
            pair_progress=bars.pair,
            **env_kwargs,
        )
    (run_dir / "report.json").write_text(json.dumps(report.to_dict(), indent=2))
    try:  # win rates, learning curves and attack origins, linked from report.md
        images = plots(report, run_dir, tensorboard=run_dir / "tb")
    except ImportError as exc:
        print(f"plots skipped ({exc.name} is missing): pip install -e '.[render]'")
        images = []
    (run_dir / "report.md").write_text(report.markdown() + image_links(images, run_dir))
    return report


PROG = "train.py"
MAX_SEED = 2**32 - 1
"""numpy and torch take seeds below 2**32."""
VEC_ENVS = ("dummy", "subproc", "vector")
"""The choices of --vec-env."""
LOW_VARIANCE_DICE = ("expected", "deck", "mean")
"""The dice modes --low-variance-dice accepts (facing_env.rules.dice.DICE_MODES but 'roll')."""


def check_args(args: Args) -> dict:
    """Check every option before anything is built or trained (scenario, agent names and
    model files, counts, the runs folder); the env keyword arguments. A mistake exits with
    one line on stderr and status 2 (:class:`facing_env.cli.UsageError`). Options left
    to the scenario's recipe are checked as the recipe fills them in (:func:`with_recipe`)."""
    return cli.checked(PROG, _check, with_recipe(args))


def _check(args: Args) -> dict:
    load_scenario(args.scenario)
    cli.run_name_part(args.exp_name, "--exp-name")
    _check_counts(args)
    _check_choices(args)
    _check_numbers(args)
    if args.rewards:
        try:
            reward_weights(load_scenario(args.scenario).rewards, args.rewards)
        except ValueError as exc:  # "rewards.draw: ..." names the weight
            raise ValueError(f"--{exc}") from None
    cli.widths(args.net_arch, "--net-arch")
    cli.output_folder(args.runs_dir, "--runs-dir")
    if args.perception is not None and args.perception not in PERCEPTIONS:
        raise ValueError(
            f"--perception must be one of {', '.join(PERCEPTIONS)}, got {args.perception!r}"
        )
    extra = {"perception": args.perception} if args.perception is not None else {}
    env_kwargs = cli.env_options(args.scenario, args.dice, {**args.env_kwargs, **extra})
    _check_agents(args, env_kwargs)
    return env_kwargs


def _check_counts(args: Args) -> None:
    """The integer options (the seed seeds numpy, so it is below 2**32)."""
    cli.count(args.seed, "--seed", low=0, high=MAX_SEED)
    for option in ("n_envs", "n_steps", "batch_size", "n_epochs"):
        cli.count(getattr(args, option), "--" + option.replace("_", "-"))
    for option in ("total_timesteps", "eval_every", "final_eval_games", "checkpoint_every"):
        cli.count(getattr(args, option), "--" + option.replace("_", "-"), low=0)
    if args.self_play:
        cli.count(args.snapshot_every, "--snapshot-every")
        cli.count(args.max_snapshots, "--max-snapshots")
    if args.eval_every:
        cli.count(args.eval_games, "--eval-games")
    cli.count(args.torch_threads, "--torch-threads")


def _one_of(value: object, allowed: Sequence[str], option: str) -> None:
    if value not in allowed:
        names = ", ".join(repr(v) for v in allowed)
        raise ValueError(f"{option} must be one of {names}, got {cli.short_repr(value)}")


def _check_choices(args: Args) -> None:
    """The options that name one of a few choices."""
    _one_of(args.policy, ("entity", "mlp", "clock"), "--policy")
    _one_of(args.league_weighting, WEIGHTINGS, "--league-weighting")
    _one_of(args.vec_env, VEC_ENVS, "--vec-env")
    _one_of(args.low_variance_dice, LOW_VARIANCE_DICE, "--low-variance-dice")
    if args.vec_env == "vector" and args.approach_shaping:
        raise ValueError("--approach-shaping needs --vec-env dummy or subproc")


def _check_numbers(args: Args) -> None:
    """The real-valued options: finite (no NaN) and in range."""
    cli.number(args.league_power, "--league-power", 0.0, 16.0)
    cli.number(args.league_floor, "--league-floor", 0.0, 1.0, open_low=True)
    cli.number(args.learning_rate, "--learning-rate", 0.0, 1.0, open_low=True)
    cli.number(args.gamma, "--gamma", 0.0, 1.0)
    cli.number(args.approach_shaping, "--approach-shaping", 0.0)
    cli.number(args.gae_lambda, "--gae-lambda", 0.0, 1.0)
    cli.number(args.ent_coef, "--ent-coef", 0.0, 1.0)
    cli.number(args.eval_temperature, "--eval-temperature", 0.0)
    cli.number(args.expected_dice_share, "--expected-dice-share", 0.0, 1.0)
    if args.expected_dice_final is not None:
        cli.number(args.expected_dice_final, "--expected-dice-final", 0.0, 1.0)


def _check_agents(args: Args, env_kwargs: dict) -> None:
    """The opponents, the final evaluation's agents and the cloned agent."""
    if not args.opponents:
        raise ValueError("--opponents needs at least one agent")
    cli.agents(args.opponents, "--opponents", args.scenario, **env_kwargs)
    if args.final_eval_games > 0:
        if not args.final_eval_agents:
            raise ValueError(
                "--final-eval-agents needs at least one agent (or --final-eval-games 0)"
            )
        cli.agents(args.final_eval_agents, "--final-eval-agents", args.scenario, **env_kwargs)
    if args.clone is None and args.total_timesteps == 0:
        raise ValueError("--total-timesteps 0 trains nothing without --clone")
    if args.clone is not None:
        cli.agents([args.clone], "--clone", args.scenario, **env_kwargs)
        cli.count(args.clone_samples, "--clone-samples")
        cli.count(args.clone_epochs, "--clone-epochs")
        cli.count(args.clone_rounds, "--clone-rounds")
        cli.count(args.clone_workers, "--clone-workers")
        if args.clone_dagger_share is not None:
            cli.number(args.clone_dagger_share, "--clone-dagger-share", 0.0, 1.0, open_low=True)
            if args.clone_dagger_share == 1.0:
                raise ValueError("--clone-dagger-share must be below 1 (the first round clones)")
        if min(clone_shares(args.clone_samples, args.clone_rounds, args.clone_dagger_share)) < 1:
            raise ValueError("--clone-samples must be at least --clone-rounds")


def announce(run_dir: Path) -> None:
    """Print the run folder and the command that shows its TensorBoard logs (SB3 writes
    them under ``tb/``), before any long work starts."""
    print(f"run folder: {run_dir}{os.sep}", flush=True)
    print(f"TensorBoard: tensorboard --logdir {run_dir / 'tb'}", flush=True)


def main(args: Args) -> Path:
    """Check the options, train, save, evaluate; returns the model path."""
    args = with_recipe(args)
    env_kwargs = check_args(args)
    # -- seeding and run folder ------------------------------------------------------------
    run_name = f"{Path(args.scenario).stem}__{args.exp_name}__{args.seed}__{int(time.time())}"
    run_dir = Path(args.runs_dir) / run_name
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "args.json").write_text(json.dumps(vars(args), indent=2, default=list))
    announce(run_dir)  # before the compile, the cloning and the training
    compile_first()  # a cold cache: every core compiles the kernels, not this process alone
    set_random_seed(args.seed)
    torch.set_num_threads(args.torch_threads)

    # -- environments ----------------------------------------------------------------------
    vec = make_vec_env(args, env_kwargs)

    # -- model -----------------------------------------------------------------------------
    policy_kwargs: dict = {"net_arch": list(args.net_arch)}
    if args.policy in ("entity", "clock"):
        probe = raw_env(scenario=args.scenario, **env_kwargs)
        if args.policy == "entity":
            policy_kwargs = entity_policy_kwargs(probe.layout, list(args.net_arch))
        else:
            rounds = probe.max_rounds
            policy_kwargs = clock_policy_kwargs(probe.layout, list(args.net_arch), rounds)
    model = MaskablePPO(
        "MlpPolicy",
        vec,
        learning_rate=_schedule(args.learning_rate) if args.anneal_lr else args.learning_rate,
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        n_epochs=args.n_epochs,
        gamma=args.gamma,
        gae_lambda=args.gae_lambda,
        ent_coef=args.ent_coef,
        policy_kwargs=policy_kwargs,
        tensorboard_log=str(run_dir / "tb"),
        seed=args.seed,
        device="cpu",
        verbose=0,
    )

    if args.clone:
        pretrain(args, model, run_dir, env_kwargs)

    # -- callbacks and training ------------------------------------------------------------
    callbacks: list[BaseCallback] = [SelfPlayAndEvalCallback(args, run_dir, env_kwargs)]
    if args.checkpoint_every:
        every = max(1, args.checkpoint_every // args.n_envs)
        callbacks.append(CheckpointCallback(every, str(run_dir / "checkpoints"), "model"))
    start = time.time()
    if args.total_timesteps > 0:  # 0: the cloned policy is the model
        model.learn(
            args.total_timesteps,
            callback=CallbackList(callbacks),
            tb_log_name="ppo",
            progress_bar=args.progress_bar,
        )
    minutes = (time.time() - start) / 60
    model_path = run_dir / "model.zip"
    model.save(model_path)
    vec.close()

    # -- evaluation report -----------------------------------------------------------------
    if args.final_eval_games > 0:
        print(final_report(args, model_path, run_dir, env_kwargs).markdown())
    print(f"trained {args.total_timesteps} steps in {minutes:.1f} min; report in {run_dir}")
    print(model_path)
    return model_path


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    main(tyro.cli(Args))
