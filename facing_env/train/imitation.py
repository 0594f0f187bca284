"""Behaviour cloning: a policy that starts where a scripted agent is.

``train.py --clone flanker`` begins its MaskablePPO run from a copy of the scripted
``flanker``: the teacher plays the training battles (``TeamVecEnv``, the same opponent pool
and dice as the run), :func:`demonstrations` records each of its decisions (observation,
mask, action) and the discounted return that followed, and :func:`clone` fits the policy's
action head to the teacher's choices (cross-entropy of the masked distribution) and its
value head to those returns (squared error), so PPO's first advantages are not noise.
A policy cloned so strays where the teacher never went; DAgger's rounds (``player=``
the cloned policy) record the teacher's choice in the states the policy reaches, and the
policy is fitted again on everything gathered. docs/training.md gives the measurements.

Needs the training extra (torch, stable-baselines3, sb3-contrib)::

    from sb3_contrib import MaskablePPO
    from facing_env.train.imitation import clone, demonstrations
    from facing_env.train.team_vec_env import TeamVecEnv

    model = MaskablePPO("MlpPolicy", TeamVecEnv("duel", 8, ["aggressive"], seed=0))
    demos = demonstrations("duel", "flanker", ["aggressive"], samples=50_000, seed=1)
    print(clone(model.policy, demos, epochs=4))   # {'accuracy': 0.97..., ...}
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from facing_env.agents.base import act_batch
from facing_env.cli import progress_bar
from facing_env.evaluation.match import Agent, init_worker
from facing_env.train.team_vec_env import TeamVecEnv


@dataclass(frozen=True)
class Demonstrations:
    """The teacher's decisions in finished battles, in the order they were made."""

    observations: np.ndarray
    """(M, D) float32: the acting learner creature's observation."""
    masks: np.ndarray
    """(M, A) bool: its action mask."""
    actions: np.ndarray
    """(M,) int64: the teacher's action (the one played unless a ``player`` played)."""
    rewards: np.ndarray
    """(M,) float32: what the teacher's team earned from this decision to the next (the
    team's damage dealt and taken, kills, the outcome: ``TeamVecEnv``'s reward)."""
    last: np.ndarray
    """(M,) bool: the decision is its battle's last."""
    returns: np.ndarray
    """(M,) float32: the discounted sum of the team's rewards from this decision to the end
    of its battle (the value the cloned value head learns)."""
    battles: int
    """Battles the samples come from (every one played to its end)."""
    wins: int
    """Of those, the battles the teacher's team won."""

    def __len__(self) -> int:
        return int(self.actions.shape[0])

    def __add__(self, other: Demonstrations) -> Demonstrations:
        """Both sets of decisions, these first (DAgger aggregates its rounds so)."""
        return Demonstrations(
            *(
                np.concatenate([getattr(self, f), getattr(other, f)])
                for f in ("observations", "masks", "actions", "rewards", "last", "returns")
            ),
            battles=self.battles + other.battles,
            wins=self.wins + other.wins,
        )


class _Rows:
    """Rows appended a battle at a time into one preallocated array (grown by doubling
    when a last battle runs over): the decisions are held once, not in a list of rows
    and then again in the stacked array (issue 33: cloning kept its observations three
    times)."""

    def __init__(self, capacity: int, shape: tuple[int, ...], dtype: Any) -> None:
        self.data = np.empty((capacity, *shape), dtype=dtype)
        self.n = 0

    def extend(self, block: np.ndarray) -> None:
        """Append ``block`` (k rows)."""
        k = len(block)
        if self.n + k > len(self.data):
            rows = max(2 * len(self.data), self.n + k)
            grown = np.empty((rows, *self.data.shape[1:]), dtype=self.data.dtype)
            grown[: self.n] = self.data[: self.n]
            self.data = grown
        self.data[self.n : self.n + k] = block
        self.n += k

    def array(self) -> np.ndarray:
        """The rows appended so far (a view)."""
        return self.data[: self.n]


def demonstrations(
    scenario: str,
    teacher: str | Agent,
    opponents: Sequence[str | Agent],
    samples: int,
    *,
    num_envs: int = 64,
    seed: int = 0,
    gamma: float = 0.995,
    dice_modes: Sequence[str] | None = None,
    weights: dict[str, float] | None = None,
    player: Agent | None = None,
    progress: bool | None = False,
    workers: int = 1,
    **env_kwargs: Any,
) -> Demonstrations:
    """At least ``samples`` decisions of ``teacher`` (a scripted agent's name or an agent)
    playing one team of ``scenario`` against ``opponents`` in ``num_envs`` batched battles
    (``TeamVecEnv``: each battle draws the teacher's team and its opponent, with
    ``weights`` if given; ``dice_modes`` per battle as there). Only battles played to their
    end count, so every return is complete; the collection stops once they hold
    ``samples`` decisions.

    With a ``player`` (DAgger: the policy being cloned), the player's actions are played
    and the teacher's are recorded: the decisions are then those of the states the
    player reaches, labelled with what the teacher would do there, and the returns and
    ``wins`` are the player's.

    ``progress``: a bar on stderr counting the decisions gathered up to ``samples``
    (:func:`facing_env.cli.progress_bar`; None: when stderr is a terminal); it draws no
    random numbers, so the decisions are the same with it or without.

    ``workers`` > 1 splits the work over that many processes (forked; a search teacher
    such as the expert costs milliseconds a decision, so cloning it is bound by the
    teacher, not by the fit): worker ``k`` gathers its share of ``samples`` in its share of
    the ``num_envs`` battles, seeded ``seed + k * WORKER_SEED_STRIDE``, and the workers'
    decisions are joined in worker order. The result depends on ``workers`` (each count
    plays other battles), not on timing."""
    if samples < 1:
        raise ValueError(f"samples must be at least 1, got {samples}")
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    teacher_name = teacher if isinstance(teacher, str) else type(teacher).__name__
    if isinstance(teacher, str):
        from facing_env.agents import make_agent

        teacher = make_agent(teacher)
    label = f"clone{' (DAgger)' if player is not None else ''}: {teacher_name} decisions"
    bar = progress_bar(samples, label, enabled=progress, unit="decision")
    args = (scenario, teacher, opponents, num_envs, seed, gamma, dice_modes, weights, player)
    try:
        if workers == 1 or num_envs < 2 * workers:
            return _gather(*args, samples, env_kwargs, bar.update)
        return _gather_forked(args, samples, env_kwargs, workers, bar.update)
    finally:
        bar.close()


WORKER_SEED_STRIDE = 100_003
"""Seed distance between the workers of :func:`demonstrations` (battles apart)."""

_TICKS: Any = None
"""A forked worker's shared counter of decisions gathered (:func:`_gather_forked`)."""
_JOBS: list[tuple] = []
"""A forked worker's view of every worker's arguments (it plays ``_JOBS[k]``)."""


def _gather_forked(
    args: tuple, samples: int, env_kwargs: dict[str, Any], workers: int, tick: Callable[[int], Any]
) -> Demonstrations:
    """:func:`_gather` in ``workers`` forked processes (see :func:`demonstrations`), the
    parent counting their decisions on its progress bar as they come."""
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    scenario, teacher, opponents, num_envs, seed, gamma, dice_modes, weights, player = args
    context = multiprocessing.get_context("fork")
    counter = context.Value("q", 0)
    shares = [hi - lo for lo, hi in _bounds(samples, workers)]
    jobs = [
        (
            (
                scenario,
                teacher,
                opponents,
                hi - lo,
                seed + k * WORKER_SEED_STRIDE,
                gamma,
                None if dice_modes is None else list(dice_modes[lo:hi]),
                weights,
                player,
            ),
            shares[k],
            env_kwargs,
        )
        for k, (lo, hi) in enumerate(_bounds(num_envs, workers))
    ]
    shown = 0
    # the jobs go to the workers by fork, not pickled: a player holds a torch model
    with ProcessPoolExecutor(
        workers, mp_context=context, initializer=_init_worker, initargs=(counter, jobs)
    ) as pool:
        futures = [pool.submit(_gather_worker, k) for k in range(workers) if shares[k] > 0]
        pending = set(futures)
        while pending:
            _, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
            now = min(int(counter.value), samples)
            tick(now - shown)
            shown = now
        parts = [f.result() for f in futures]
    out = parts[0]
    for part in parts[1:]:
        out = out + part
    return out


def _bounds(n: int, workers: int) -> list[tuple[int, int]]:
    """Each worker's ``[lo, hi)`` of ``n`` things split as evenly as they go."""
    return [(n * k // workers, n * (k + 1) // workers) for k in range(workers)]


def _init_worker(counter: Any, jobs: list[tuple]) -> None:
    """A forked worker: one torch thread (:func:`~facing_env.evaluation.match.init_worker`),
    the shared decision counter, the jobs."""
    global _TICKS, _JOBS
    _TICKS, _JOBS = counter, jobs
    init_worker()


def _gather_worker(k: int) -> Demonstrations:
    """Worker ``k``'s share: :func:`_gather`, counting on the shared counter."""
    args, samples, env_kwargs = _JOBS[k]

    def tick(more: int) -> None:
        with _TICKS.get_lock():
            _TICKS.value += more

    return _gather(*args, samples, env_kwargs, tick)


def _gather(
    scenario: str,
    teacher: Agent,
    opponents: Sequence[str | Agent],
    num_envs: int,
    seed: int,
    gamma: float,
    dice_modes: Sequence[str] | None,
    weights: dict[str, float] | None,
    player: Agent | None,
    samples: int,
    env_kwargs: dict[str, Any],
    tick: Callable[[int], Any],
) -> Demonstrations:
    """The body of :func:`demonstrations` in one process; ``tick(k)``: k more decisions."""
    env = TeamVecEnv(scenario, num_envs, opponents, seed=seed, dice_modes=dice_modes, **env_kwargs)
    counted = 0
    try:
        if weights:
            env.set_opponent_weights(weights)
        rng = np.random.default_rng(seed)
        obs = env.reset()
        # each battle slot's decisions of the battle under way: (obs, mask, action, reward)
        open_: list[list[tuple[np.ndarray, np.ndarray, int, float]]] = [[] for _ in range(num_envs)]
        room = samples + 8 * num_envs  # the last battles run over ``samples`` a little
        done_obs = _Rows(room, obs.shape[1:], np.float32)
        done_masks = _Rows(room, (env.action_masks().shape[1],), bool)
        done_actions: list[int] = []
        done_rewards: list[float] = []
        done_returns: list[float] = []
        ends: list[bool] = []
        battles = wins = 0
        while len(done_actions) < samples:
            masks = env.action_masks().copy()
            actions = act_batch(teacher, obs, masks, rng, env.venv.battle, np.arange(num_envs))
            for i in range(num_envs):
                open_[i].append((obs[i].copy(), masks[i], int(actions[i]), 0.0))
            if player is not None:
                actions = act_batch(player, obs, masks, rng, env.venv.battle, np.arange(num_envs))
            obs, rewards, dones, infos = env.step(actions)
            for i in range(num_envs):
                o, m, a, _ = open_[i][-1]
                open_[i][-1] = (o, m, a, float(rewards[i]))
                if not dones[i]:
                    continue
                battles += 1
                wins += bool(infos[i].get("won"))
                running = 0.0
                tail: list[float] = []
                for *_, r in reversed(open_[i]):
                    running = r + gamma * running
                    tail.append(running)
                battle = open_[i]
                done_obs.extend(np.stack([o for o, *_ in battle]))
                done_masks.extend(np.stack([m for _, m, *_ in battle]))
                done_actions.extend(a for _, _, a, _ in battle)
                done_rewards.extend(r for *_, r in battle)
                done_returns.extend(reversed(tail))
                ends.extend([False] * (len(open_[i]) - 1) + [True])
                open_[i] = []
                now = min(len(done_actions), samples)
                tick(now - counted)
                counted = now
    finally:
        env.close()
    return Demonstrations(
        observations=done_obs.array(),
        masks=done_masks.array(),
        actions=np.asarray(done_actions, dtype=np.int64),
        rewards=np.asarray(done_rewards, dtype=np.float32),
        last=np.asarray(ends, dtype=bool),
        returns=np.asarray(done_returns, dtype=np.float32),
        battles=battles,
        wins=wins,
    )


def clone(
    policy: Any,
    demos: Demonstrations,
    *,
    epochs: int = 4,
    batch_size: int = 512,
    learning_rate: float = 1e-3,
    value_coef: float = 0.5,
    holdout: float = 0.05,
    seed: int = 0,
    log: Callable[[str], None] | None = None,
    progress: bool | None = False,
) -> dict[str, float]:
    """Fit a sb3-contrib ``MaskableActorCriticPolicy`` to ``demos``: cross-entropy of the
    masked action distribution against the teacher's actions plus ``value_coef`` times the
    squared error of the value head against the returns, Adam, ``epochs`` passes in
    shuffled minibatches. A ``holdout`` share of the battles' decisions (drawn at random)
    is kept out of the fit to measure it; returns the held-out ``accuracy`` (the policy's
    most likely action is the teacher's), ``cross_entropy`` and ``value_error`` (mean
    squared), and the last epoch's training ``loss``. ``progress``: a bar on stderr counting
    the minibatches of every epoch, the epoch and its loss after it
    (:func:`facing_env.cli.progress_bar`; None: when stderr is a terminal)."""
    import torch

    if not 0.0 <= holdout < 1.0:
        raise ValueError(f"holdout must be in [0, 1), got {holdout}")
    n = len(demos)
    rng = np.random.default_rng(seed)
    order = rng.permutation(n)
    n_held = round(n * holdout)
    held, fit = order[:n_held], order[n_held:]
    device = policy.device
    obs = torch.as_tensor(demos.observations, device=device)
    acts = torch.as_tensor(demos.actions, device=device)
    rets = torch.as_tensor(demos.returns, device=device)
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    policy.set_training_mode(True)
    loss_value = 0.0
    batches = -(-fit.size // batch_size)
    bar = progress_bar(epochs * batches, "clone: fitting", enabled=progress, unit="batch")
    for epoch in range(epochs):
        rng.shuffle(fit)
        total, count = 0.0, 0
        for start in range(0, fit.size, batch_size):
            rows = fit[start : start + batch_size]
            values, log_prob, _ = policy.evaluate_actions(
                obs[rows], acts[rows], action_masks=demos.masks[rows]
            )
            loss = -log_prob.mean() + value_coef * torch.nn.functional.mse_loss(
                values.flatten(), rets[rows]
            )
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            optimizer.step()
            total += float(loss.detach()) * rows.size
            count += rows.size
            bar.update()
        loss_value = total / max(count, 1)
        bar.set_postfix_str(f"epoch {epoch + 1}/{epochs}, loss {loss_value:.4f}")
        if log is not None:
            log(f"clone epoch {epoch + 1}/{epochs}: loss {loss_value:.4f}")
    bar.close()
    policy.set_training_mode(False)
    metrics = {"loss": loss_value}
    if n_held:
        with torch.no_grad():
            values, log_prob, _ = policy.evaluate_actions(
                obs[held], acts[held], action_masks=demos.masks[held]
            )
            dist = policy.get_distribution(obs[held], action_masks=demos.masks[held])
            best = dist.distribution.probs.argmax(dim=1)
        metrics["accuracy"] = float((best == acts[held]).float().mean())
        metrics["cross_entropy"] = float(-log_prob.mean())
        metrics["value_error"] = float(((values.flatten() - rets[held]) ** 2).mean())
    return metrics
