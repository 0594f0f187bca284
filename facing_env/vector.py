"""``VectorEnv``: N battles of one scenario stepped together, as arrays.

>>> from facing_env.vector import VectorEnv
>>> venv = VectorEnv("duel", num_envs=4, seed=0)
>>> obs, info = venv.reset()
>>> obs["observation"].shape, obs["action_mask"].shape, info["agent"].shape
((4, 2267), (4, 41), (4,))
>>> obs, rewards, terminations, truncations, info = venv.step(np.zeros(4, dtype=np.int64))
>>> rewards.shape  # one column per creature (possible_agents)
(4, 2)

Each row is one battle at the moment its acting creature chooses:

- ``obs["observation"]`` ``(N, D)`` float32 and ``obs["action_mask"]`` ``(N, A)`` int8: the
  acting creature's observation and mask, the AEC env's layout; ``info["agent"]`` ``(N,)``:
  the actor's index into :attr:`possible_agents`.
- ``step(actions)`` takes one action index per battle, ``(N,)`` integers the masks allow
  (one the mask forbids raises :class:`~facing_env.errors.IllegalActionError` naming the
  battle, before any battle is stepped).
- ``rewards`` ``(N, K)`` float32: what each creature earned in this step by the
  scenario's reward weights (damage dealt and taken, kills, positional shaping and,
  when the battle ends, the outcome), K = ``len(possible_agents)``; summed per creature
  over a battle they are the AEC env's returns.
- ``terminations`` / ``truncations`` ``(N,)`` bool: the battle ended with a winner (or
  nobody left) / after ``max_rounds``.

**Identity with the AEC env.** Battle ``i`` of ``VectorEnv(scenario, num_envs=N, seed=s)``
plays exactly like ``raw_env(scenario).reset(seed=s + i)`` given the same actions: the
same actors, observations, masks, rewards and events. The AEC API's dead steps (``None``
for a creature that has dropped) are not actions here: they are taken inside ``step``.

**Auto-reset.** A battle that ends in a step starts its next one in the same step: the
returned observation, mask and ``info["agent"]`` are those of the new battle's first
actor, while ``rewards``, ``terminations``, ``truncations`` and ``info["winner"]`` (the
winning team's index into :attr:`teams`, -1 for a draw) describe the battle that ended.
The next battle is the AEC env's ``reset()`` without a seed: slot ``i``'s generator goes
on, so its battles are those of ``raw_env(scenario)`` reset once with ``seed=s + i`` and
then without one. ``info["episode_length"]`` gives the ended battle's action count and
``info["episode_rounds"]`` the round it ended in (``max_rounds + 1`` for a truncated one,
as :class:`facing_env.evaluation.match.GameResult` counts; 0 for battles that go on).

**Seeds.** ``reset(seed=s)`` starts battle ``i`` with ``s + i``; the first ``reset()``
without one uses the constructor's ``seed`` (fresh entropy if that is None too); a later
``reset()`` without one starts every slot's next battle from its own generator, as the
AEC env's ``reset()`` does.

**Buffers.** The arrays returned by ``reset`` and ``step`` are preallocated and reused:
each call overwrites them. Copy what you keep.

**Engine.** The battles are arrays stepped by the batched engine
(:mod:`facing_env.fast`): one compiled call per ``step`` decodes every action, applies it,
ends the turns with nothing left and adds the rewards; battles that ended start again (a
fixed scenario's in the arrays, :func:`facing_env.fast.turns.restart`; a procedural one
built and started by the object engine), and a second call writes every actor's
observation. ``tests/test_vector.py`` checks the identity above on
every scenario.

**Threads.** The battles are independent, so ``VectorEnv(..., threads=T)`` steps and
observes them with T threads at once, each over a contiguous range of rows (the
compiled kernels release the GIL); the results are the same for every T. The default
(``threads=None``, :func:`default_threads`) is one thread per CPU, at most one per 64
battles: 1024 battles on a 2-core machine use both cores, the 8 of a training run one.
Pass ``threads=1`` when other processes already use every core.

**Final observations.** With ``VectorEnv(..., final_observations=True)``,
``info["final_observation"]`` ``(N, K, D)`` holds, in the rows of the battles that ended
in the step, every creature's observation of the ended battle (the AEC env's
``observe(agent)`` after its last action: what a learner bootstraps from at a
truncation); other rows hold what an earlier step wrote.

**Partial steps and dice.** ``step(actions, active=rows)`` steps only some battles (see
:meth:`VectorEnv.step`); ``set_dice_mode(mode, indices)`` changes the dice of some
battles from their next start on.

**Events and battles.** ``battle(i)`` returns battle ``i``'s state as a
:class:`~facing_env.rules.battle.Battle` (a view written on demand). ``events(i)`` needs
``VectorEnv(..., record_events=True)``, which converts every step's events to
:class:`~facing_env.events.Event` records in Python (slow: for debugging and replays).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from facing_env.env import EnvSpec
from facing_env.errors import EnvStateError, IllegalActionError
from facing_env.fast.batch import BatchEngine
from facing_env.fast.geometry import winner as engine_winner
from facing_env.fast.observation import KEEP
from facing_env.limits import short_repr
from facing_env.render.text import board_text
from facing_env.rules.dice import check_mode
from facing_env.rules.engine import actor as engine_actor
from facing_env.scenario import DEFAULT_SCENARIO, Scenario, load_scenario

MAX_ENVS = 1 << 16
"""The most battles one VectorEnv holds."""
ROWS_PER_THREAD = 64
"""The fewest battles a thread gets by default (below it handing work over costs more
than it saves)."""


class VectorEnv:
    """N battles of one scenario stepped together (see the module docstring)."""

    def __init__(
        self,
        scenario: str | Scenario = DEFAULT_SCENARIO,
        num_envs: int = 1,
        seed: int | None = None,
        *,
        record_events: bool = False,
        final_observations: bool = False,
        threads: int | None = None,
        **env_kwargs: Any,
    ) -> None:
        if threads is not None and (
            not isinstance(threads, (int, np.integer)) or isinstance(threads, bool) or threads < 1
        ):
            raise ValueError(
                f"threads must be a positive integer or None, got {short_repr(threads)}"
            )
        if (
            not isinstance(num_envs, (int, np.integer))
            or isinstance(num_envs, bool)
            or not 1 <= num_envs <= MAX_ENVS
        ):
            raise ValueError(
                f"num_envs must be an integer from 1 to {MAX_ENVS}, got {short_repr(num_envs)}"
            )
        _check_seed(seed)
        source = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
        self.num_envs = int(num_envs)
        self.seed = seed
        self.record_events = bool(record_events)
        spec = EnvSpec.build(source, **env_kwargs)  # the AEC env's: options, spaces, names
        self.env_spec = spec
        """What a battle looks like, the same object ``raw_env`` builds for these options."""
        self.scenario: Scenario = spec.scenario  # with any ``rewards=`` override
        self.possible_agents: list[str] = list(spec.possible_agents)
        self.teams: tuple[str, ...] = tuple(self.scenario.teams)
        self.single_observation_space: spaces.Dict = spec.observation_space
        self.single_action_space: spaces.Discrete = spec.action_space
        self.observation_size = int(self.single_observation_space["observation"].shape[0])
        self.n_actions = int(self.single_action_space.n)
        self._render_dims = spec.state_dims
        self._engine = BatchEngine(
            self.scenario,
            self.num_envs,
            agent_names=self.possible_agents,
            layout=spec.layout,
            n_actions=self.n_actions,
            dice_mode=spec.dice_mode,
            max_rounds=spec.max_rounds,
            flat_footed_start=spec.flat_footed_start,
            record_events=self.record_events,
            threads=default_threads(self.num_envs) if threads is None else int(threads),
        )
        self.threads: int = self._engine.threads
        """Threads stepping the battles (see "Threads" in the module docstring)."""
        self._rngs = [np.random.default_rng() for _ in range(self.num_envs)]
        n = self.num_envs
        self._team_index = {t: i for i, t in enumerate(self.teams)}
        self._terminations = np.zeros(n, dtype=bool)
        self._truncations = np.zeros(n, dtype=bool)
        self._agent = np.zeros(n, dtype=np.int64)
        self._mask_out = np.zeros((n, self.n_actions), dtype=np.int8)
        """The masks handed out: a copy, so that what a caller writes into them never
        reaches the engine, whose own masks check every action (issue 33)."""
        self._winner = np.full(n, -1, dtype=np.int64)
        self._length = np.zeros(n, dtype=np.int64)
        self._rounds = np.zeros(n, dtype=np.int64)
        self._steps = np.zeros(n, dtype=np.int64)
        self._info: dict[str, np.ndarray] = {
            "agent": self._agent,
            "winner": self._winner,
            "episode_length": self._length,
            "episode_rounds": self._rounds,
        }
        self._ended: dict[int, Any] = {}  # record_events: the last battle that ended, per slot
        self._final: np.ndarray | None = None
        if final_observations:  # (K, N, D): one C-contiguous block per creature for the kernel
            self._final = np.zeros(
                (len(self.possible_agents), n, self.observation_size), np.float32
            )
            self._info["final_observation"] = self._final.transpose(1, 0, 2)
        self._started = False

    # -- the batch ------------------------------------------------------------------------

    def reset(
        self, seed: int | None = None, options: dict | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        """Start every battle (see "Seeds" in the module docstring); returns
        ``(obs, info)``."""
        _check_seed(seed)
        if seed is None and not self._started:
            seed = self.seed  # the first reset: the constructor's seed
        elif seed is not None:
            self.seed = seed
        for i in range(self.num_envs):
            if seed is not None:
                self._rngs[i] = np.random.default_rng(seed + i)
            self._engine.start(i, self._rngs[i])
        self._steps[:] = 0
        self._winner[:] = -1
        self._length[:] = 0
        self._rounds[:] = 0
        self._started = True
        return self._outputs(), self._info

    def step(
        self, actions: Sequence[int] | np.ndarray, *, active: np.ndarray | None = None
    ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        """One action per battle; returns ``(obs, rewards, terminations, truncations, info)``
        (the arrays are reused by the next call).

        ``active`` (``(N,)`` bool) steps only those battles: the others' actions are not
        read, their observation, mask and actor stay, their rewards are 0 and they do not
        end (a learner that waits for some battles while opponents act in others,
        :class:`facing_env.train.team_vec_env.TeamVecEnv`)."""
        if not self._started:
            raise EnvStateError("step() before reset(): call reset() first")
        n = self.num_envs
        acts = np.asarray(actions)
        if acts.shape != (n,) or acts.dtype.kind not in "iu":
            raise IllegalActionError(
                f"actions must be {n} integers (shape ({n},)), got shape {acts.shape} of"
                f" {acts.dtype}"
            )
        if active is not None:
            active = np.asarray(active)
            if active.shape != (n,) or active.dtype != np.bool_:
                raise ValueError(
                    f"active must be {n} booleans (shape ({n},)), got shape {active.shape}"
                    f" of {active.dtype}"
                )
            acts = np.where(active, acts, 0)  # an inactive row's action is not read
        mask = self._engine.mask
        bad = np.flatnonzero((acts < 0) | (acts >= self.n_actions))
        if not bad.size:
            allowed = mask[np.arange(n), acts] != 0
            bad = np.flatnonzero(~allowed if active is None else ~allowed & active)
        if bad.size:
            i = int(bad[0])
            agent = self.possible_agents[self._agent[i]]
            raise IllegalActionError(
                f"battle {i}: {agent}: action {short_repr(acts[i].item())} is not allowed by"
                " its action mask (no battle was stepped)"
            )
        terminated, truncated = self._engine.step(acts.astype(np.int64, copy=False), active)
        self._steps += 1 if active is None else active
        self._terminations[:] = terminated
        self._truncations[:] = truncated
        self._winner[:] = -1
        self._length[:] = 0
        self._rounds[:] = 0
        state = self._engine.state
        assert state is not None
        ended = np.flatnonzero(terminated | truncated)
        if ended.size and self._final is not None:
            self._write_final(ended)
        for i in ended:
            if terminated[i]:
                team = int(engine_winner(state, i))
                if team >= 0:
                    teams = self._engine.team_names[i]
                    self._winner[i] = self._team_index[teams[team]]
            self._length[i] = self._steps[i]
            self._rounds[i] = state.round[i]
            self._steps[i] = 0
            if self.record_events:  # the battle as it ended, before its slot restarts
                self._ended[int(i)] = self._engine.battle(int(i))
            self._engine.start(int(i), self._rngs[i])
        rewards = self._engine.rewards
        return self._outputs(active), rewards, self._terminations, self._truncations, self._info

    def set_dice_mode(self, mode: str, indices: Sequence[int] | None = None) -> None:
        """Roll the dice of these battles (every battle when ``indices`` is None) in
        ``mode`` (:data:`facing_env.rules.dice.DICE_MODES`) from their next battle on (a
        training curriculum, or expected dice in some of the battles)."""
        mode = check_mode(mode)
        rows = np.arange(self.num_envs) if indices is None else np.asarray(indices, dtype=int)
        if rows.ndim != 1 or ((rows < 0) | (rows >= self.num_envs)).any():
            raise IndexError(f"battle indices must lie in 0..{self.num_envs - 1}")
        self._engine.set_dice_mode(mode, rows)

    @property
    def dice_modes(self) -> list[str]:
        """Each battle's dice mode from its next start on."""
        return [self._engine.dice_mode(i) for i in range(self.num_envs)]

    def _outputs(self, rows: np.ndarray | None = None) -> dict[str, np.ndarray]:
        """The observations, masks and actors of every battle (or of ``rows``), written in
        place."""
        engine = self._engine
        state = engine.state
        assert state is not None
        self._agent[:] = engine.agent_of[np.arange(self.num_envs), state.actor]
        np.copyto(self._mask_out, engine.mask)  # step checks the engine's own masks
        return {"observation": engine.observe(rows), "action_mask": self._mask_out}

    def _write_final(self, ended: np.ndarray) -> None:
        """Every creature's observation of the battles that ended, before they restart."""
        assert self._final is not None
        engine, state = self._engine, self._engine.state
        assert state is not None
        slots = np.full((len(self.possible_agents), self.num_envs), KEEP, dtype=np.int32)
        for i in ended:
            for k in range(int(state.n_creatures[i])):
                slots[engine.agent_of[i, k], i] = k
        for a in range(len(self.possible_agents)):
            engine.observe_slots(slots[a], self._final[a])

    # -- views ----------------------------------------------------------------------------

    def agent_teams(self, i: int) -> list[str | None]:
        """The team of each of :attr:`possible_agents` in battle ``i`` (None for an agent
        without a creature in it)."""
        self._check_index(i)
        engine, state = self._engine, self._engine.state
        assert state is not None
        names = engine.team_names[i]
        out: list[str | None] = [None] * len(self.possible_agents)
        for k in range(int(state.n_creatures[i])):
            out[int(engine.agent_of[i, k])] = names[int(state.team[i, k])]
        return out

    def battle(self, i: int) -> Any:
        """Battle ``i``'s state (a :class:`~facing_env.rules.battle.Battle` written from the
        arrays on each call; read it, do not change it)."""
        self._check_index(i)
        return self._engine.battle(int(i))

    def ended_battle(self, i: int) -> Any:
        """The last battle of slot ``i`` that ended, as it ended (a
        :class:`~facing_env.rules.battle.Battle`); only with ``record_events=True``."""
        self._check_index(i)
        if not self.record_events:
            raise EnvStateError(
                "ended battles are kept only with VectorEnv(..., record_events=True)"
            )
        if int(i) not in self._ended:
            raise EnvStateError(f"no battle of slot {i} has ended yet")
        return self._ended[int(i)]

    def events(self, i: int) -> list:
        """The events of battle ``i`` so far (its current battle, after an auto-reset);
        only with ``record_events=True``. Each battle has its own list: a list taken
        before the battle ended holds all of its events once it has."""
        self._check_index(i)
        if not self.record_events:
            raise EnvStateError("events are recorded only with VectorEnv(..., record_events=True)")
        return self._engine.events[int(i)]

    def render(self, i: int = 0) -> str:
        """Battle ``i`` as text."""
        self._check_index(i)
        battle = self._engine.battle(int(i))
        actor = engine_actor(battle)
        return board_text(battle, active=actor.id if actor is not None else None)

    def close(self) -> None:
        """Stop the worker threads (the arrays go with the object; a later ``step`` starts
        the threads again)."""
        self._engine.close()

    # -- helpers --------------------------------------------------------------------------

    def _check_index(self, i: int) -> None:
        """An ``IndexError`` naming the range unless ``i`` is a battle's index."""
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)):
            raise TypeError(f"battle index must be an integer, got {short_repr(i)}")
        if not 0 <= i < self.num_envs:
            raise IndexError(f"battle index {i} is outside 0..{self.num_envs - 1}")
        if not self._started:
            raise EnvStateError("no battle before reset(): call reset() first")


def default_threads(num_envs: int) -> int:
    """Threads for ``num_envs`` battles when ``VectorEnv(threads=None)``: one per CPU this
    process may run on, at most one per :data:`ROWS_PER_THREAD` battles, at least one."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, num_envs // ROWS_PER_THREAD))


def _check_seed(seed: object) -> None:
    """A ``ValueError`` naming ``seed`` unless it is None or a non-negative integer."""
    if seed is not None and (
        not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0
    ):
        raise ValueError(f"seed must be a non-negative integer or None, got {short_repr(seed)}")
