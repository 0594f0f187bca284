"""``VectorEnv``: N battles of one scenario stepped together, as a gymnasium vector env.

>>> from facing_env.vector import VectorEnv
>>> venv = VectorEnv("duel", num_envs=4, seed=0)
>>> venv
VectorEnv('duel', num_envs=4, seed=0)
>>> obs, info = venv.reset()
>>> obs["observation"].shape, obs["action_mask"].shape, info["agent"].shape
((4, 2267), (4, 41), (4,))
>>> obs, rewards, terminations, truncations, info = venv.step(np.zeros(4, dtype=np.int64))
>>> rewards.shape, info["creature_rewards"].shape  # the red team's seat; one column per creature
((4,), (4, 2))
>>> venv.observation_space.contains(obs)
True

It is a :class:`gymnasium.vector.VectorEnv`: ``single_observation_space`` is the AEC env's
``Dict`` of the ``observation`` and ``action_mask`` boxes, ``single_action_space``
``Discrete(A)``, ``observation_space`` / ``action_space`` their batches
(``gymnasium.vector.utils.batch_space``), ``metadata["autoreset_mode"]`` is
``AutoresetMode.SAME_STEP``, and gymnasium's vector wrappers
(``gymnasium.wrappers.vector.RecordEpisodeStatistics``, ...) work on it. It is a context
manager; after :meth:`~VectorEnv.close` (``closed``), ``step`` and ``reset`` raise
:class:`~facing_env.errors.EnvStateError`.

Each row is one battle at the moment its acting creature chooses:

- ``obs["observation"]`` ``(N, D)`` float32 and ``obs["action_mask"]`` ``(N, A)`` int8: the
  acting creature's observation and mask, the AEC env's layout; ``info["agent"]`` ``(N,)``:
  the actor's index into :attr:`possible_agents`.
- ``step(actions)`` takes one action index per battle, ``(N,)`` integers the masks allow
  (one the mask forbids raises :class:`~facing_env.errors.IllegalActionError` naming the
  battle, before any battle is stepped).
- ``rewards`` ``(N,)`` float32: the battle from one team's seat, ``VectorEnv(...,
  reward_team=name)`` (the scenario's first team by default): what that team's creatures
  earned in this step, summed. ``info["creature_rewards"]`` ``(N, K)`` float32 holds what
  each creature earned (K = ``len(possible_agents)``), by the scenario's reward weights
  (damage dealt and taken, kills, positional shaping and, when the battle ends, the
  outcome); summed per creature over a battle they are the AEC env's returns.
- ``terminations`` / ``truncations`` ``(N,)`` bool: the battle ended with a winner (or
  nobody left) / after ``max_rounds``.

**Identity with the AEC env.** Battle ``i`` of ``VectorEnv(scenario, num_envs=N, seed=s)``
plays exactly like ``raw_env(scenario).reset(seed=s + i)`` given the same actions: the
same actors, observations, masks, rewards and events. The AEC API's dead steps (``None``
for a creature that has dropped) are not actions here: they are taken inside ``step``.

**Auto-reset (SAME_STEP).** A battle that ends in a step starts its next one in the same
step: the returned observation, mask and ``info["agent"]`` are those of the new battle's
first actor, while ``rewards``, ``terminations``, ``truncations`` and ``info["winner"]``
(the winning team's index into :attr:`teams`, -1 for a draw) describe the battle that
ended. The next battle is the AEC env's ``reset()`` without a seed: slot ``i``'s generator
goes on, so its battles are those of ``raw_env(scenario)`` reset once with ``seed=s + i``
and then without one. ``info["episode_length"]`` gives the ended battle's action count and
``info["episode_rounds"]`` the round it ended in (``max_rounds + 1`` for a truncated one,
as :class:`facing_env.evaluation.match.GameResult` counts; 0 for battles that go on).

**Final observations.** ``info["final_obs"]`` (an object array of N) holds, in the rows of
the battles that ended in the step (``info["_final_obs"]``), the reward team's seat's last
view of the ended battle: the ``{"observation", "action_mask"}`` the AEC env's
``observe(agent)`` gives after the last action, for the team's first creature in
:attr:`possible_agents` (whose rewards a learner bootstraps from at a truncation); None in
the other rows. ``info["final_info"]`` holds the ended battle's ``winner``,
``episode_length`` and ``episode_rounds`` there. With ``VectorEnv(...,
final_observations=True)``, ``info["final_observation"]`` ``(N, K, D)`` also holds every
creature's observation of the ended battles, in their rows (other rows hold what an earlier
step wrote).

**Info masks.** Every per-battle info array ``info[key]`` comes with gymnasium's boolean
``info["_" + key]`` ``(N,)``: all true for ``agent`` and ``creature_rewards``, the battles
that ended in the step for ``winner``, ``episode_length``, ``episode_rounds``,
``final_obs``, ``final_info`` and ``final_observation`` (none after ``reset``).

**Seeds.** ``reset(seed=s)`` starts battle ``i`` with ``s + i``; ``reset(seed=[s0, s1,
...])`` (one per battle) with ``seeds[i]``, a None entry going on from the slot's own
generator. The first ``reset()`` without one uses the constructor's ``seed`` (fresh
entropy if that is None too); a later ``reset()`` without one starts every slot's next
battle from its own generator, as the AEC env's ``reset()`` does.
``reset(options={"reset_mask": m})`` (``m`` a ``(N,)`` bool array with a true value)
restarts only the battles where ``m`` is true (seeds of the others are not used); the
others keep their state, and their rows of the returned arrays are unchanged. Any other
option is refused.

**Buffers.** The arrays returned by ``reset`` and ``step`` (the info arrays and masks
included) are preallocated and reused: each call overwrites them. Copy what you keep. The
``info`` dict, ``final_obs`` and ``final_info`` are new on each call.

**Engine.** The battles are arrays stepped by the batched engine
(:mod:`facing_env.fast`): one compiled call per ``step`` decodes every action, applies it,
ends the turns with nothing left and adds the rewards; battles that ended start again (a
fixed scenario's in the arrays, :func:`facing_env.fast.turns.restart`; a procedural one
built and started by the object engine), and a second call writes every actor's
observation. ``tests/test_vector.py`` checks the identity above on every scenario.
``VectorEnv(..., engine="readable")`` plays the same battles on the readable engine
instead (:class:`facing_env.rules.play.ReadableEngine`: a Python loop, about 200 steps a
second, nothing to compile; ``tests/test_vector_readable.py`` compares the two), and the
default ``engine="auto"`` does so when the kernels are not compiled yet (starting their
compile in the background, as the AEC env does), choosing once, when it is made.

**Threads.** The battles are independent, so ``VectorEnv(..., threads=T)`` steps and
observes them with T threads at once, each over a contiguous range of rows (the
compiled kernels release the GIL); the results are the same for every T. The default
(``threads=None``, :func:`default_threads`) is one thread per CPU, at most one per 64
battles: 1024 battles on a 2-core machine use both cores, the 8 of a training run one.
Pass ``threads=1`` when other processes already use every core.

**Partial steps and dice.** ``step(actions, active=rows)`` steps only some battles (see
:meth:`VectorEnv.step`); ``set_dice_mode(mode, indices)`` changes the dice of some
battles from their next start on.

**Events and battles.** ``battle(i)`` returns battle ``i``'s state as a
:class:`~facing_env.rules.battle.Battle` (a view written on demand). ``events(i)`` needs
``VectorEnv(..., record_events=True)``, which converts every step's events to
:class:`~facing_env.events.Event` records in Python (slow: for debugging and replays).
``render(i)`` draws battle ``i`` as text (``render_mode`` ``"ansi"``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium import vector as gym_vector
from gymnasium.vector.utils import batch_space

from facing_env.actions import END_TURN_INDEX
from facing_env.env import ENV_OPTIONS, EnvSpec
from facing_env.errors import EnvStateError, IllegalActionError
from facing_env.fast.batch import BatchEngine
from facing_env.fast.geometry import winner as engine_winner
from facing_env.fast.observation import KEEP
from facing_env.limits import short_repr
from facing_env.render.text import board_text
from facing_env.rules.checks import check_seed
from facing_env.rules.dice import check_mode
from facing_env.rules.engine import actor as engine_actor
from facing_env.rules.play import ReadableEngine
from facing_env.scenario import DEFAULT_SCENARIO, Scenario, load_scenario
from facing_env.warm import plays_readable, resolve_engine

MAX_ENVS = 1 << 16
"""The most battles one VectorEnv holds."""
ROWS_PER_THREAD = 64
"""The fewest battles a thread gets by default (below it handing work over costs more
than it saves)."""
ALWAYS_KEYS = ("agent", "creature_rewards")
"""Info keys every battle has (their ``_key`` mask is all true)."""
ENDED_KEYS = (
    "winner",
    "episode_length",
    "episode_rounds",
    "final_observation",
    "final_obs",
    "final_info",
)
"""Info keys of the battles that ended in the step (their ``_key`` mask)."""

Obs = dict[str, np.ndarray]
Info = dict[str, Any]


class VectorEnv(gym_vector.VectorEnv):
    """N battles of one scenario stepped together (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {
        "autoreset_mode": gym_vector.AutoresetMode.SAME_STEP,
        "render_modes": ["ansi"],
    }
    render_mode = "ansi"

    def __init__(
        self,
        scenario: str | Scenario = DEFAULT_SCENARIO,
        num_envs: int = 1,
        seed: int | None = None,
        *,
        reward_team: str | None = None,
        record_events: bool = False,
        final_observations: bool = False,
        threads: int | None = None,
        engine: str | None = None,
        **env_kwargs: Any,
    ) -> None:
        _check_threads(threads)
        self.engine = resolve_engine(engine)
        """What the battles play on (``raw_env``'s ``engine``: ``"auto"`` decides here, once,
        for this VectorEnv's life)."""
        if not _is_int(num_envs) or not 1 <= num_envs <= MAX_ENVS:
            raise ValueError(
                f"num_envs must be an integer from 1 to {MAX_ENVS}, got {short_repr(num_envs)}"
            )
        check_seed(seed)
        unknown = sorted(set(env_kwargs) - set(ENV_OPTIONS))
        if unknown:
            raise TypeError(
                f"VectorEnv: unknown option(s) {unknown}; the battle options are "
                f"{', '.join(ENV_OPTIONS)} (raw_env's), besides VectorEnv's own"
            )
        source = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
        self.num_envs = int(num_envs)
        self.seed = seed
        """The constructor's seed, then that of the last ``reset(seed=s)`` (None after a
        list of seeds)."""
        self._init_args = (scenario if isinstance(scenario, str) else source.name, seed)
        self.record_events = bool(record_events)
        spec = EnvSpec.build(source, **env_kwargs)  # the AEC env's: options, spaces, names
        self.env_spec = spec
        """What a battle looks like, the same object ``raw_env`` builds for these options."""
        self.scenario: Scenario = spec.scenario  # with any ``rewards=`` override
        self.possible_agents: list[str] = list(spec.possible_agents)
        self.teams: tuple[str, ...] = tuple(self.scenario.teams)
        self.reward_team: str = self._check_team(reward_team)
        """The team whose seat ``rewards`` and ``info["final_obs"]`` are seen from."""
        self.single_observation_space: spaces.Dict = spec.observation_space
        self.single_action_space: spaces.Discrete = spec.action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.observation_size = int(self.single_observation_space["observation"].shape[0])
        self.n_actions = int(self.single_action_space.n)
        self._render_dims = spec.state_dims
        self._readable = plays_readable(self.engine)
        common = {
            "agent_names": self.possible_agents,
            "layout": spec.layout,
            "dice_mode": spec.dice_mode,
            "max_rounds": spec.max_rounds,
            "flat_footed_start": spec.flat_footed_start,
            "record_events": self.record_events,
        }
        if self._readable:
            self._engine: Any = ReadableEngine(
                self.scenario, self.num_envs, codec=spec.codec, **common
            )
        else:
            self._engine = BatchEngine(
                self.scenario,
                self.num_envs,
                n_actions=self.n_actions,
                threads=default_threads(self.num_envs) if threads is None else int(threads),
                **common,
            )
        self.threads: int = self._engine.threads
        """Threads stepping the battles (see "Threads" in the module docstring)."""
        self._rngs = [
            np.random.default_rng(None if seed is None else seed + i) for i in range(num_envs)
        ]
        self._team_index = {t: i for i, t in enumerate(self.teams)}
        self._allocate(final_observations)
        self._started = False

    def _check_team(self, team: str | None) -> str:
        """``team`` (the first team when None); a ``ValueError`` naming the teams unless it
        is one of them."""
        if team is None:
            return self.teams[0]
        if not isinstance(team, str) or team not in self.teams:
            raise ValueError(
                f"reward_team must be one of the scenario's teams {list(self.teams)},"
                f" got {short_repr(team)}"
            )
        return team

    def _allocate(self, final_observations: bool) -> None:
        """The output buffers (see "Buffers" in the module docstring)."""
        n, k = self.num_envs, len(self.possible_agents)
        # agents are named <team>_<n>: a column's team is the same in every battle
        seat = [a.rsplit("_", 1)[0] == self.reward_team for a in self.possible_agents]
        self._seat = np.array(seat, dtype=np.float32)
        self._seat_agent = int(np.argmax(seat))  # the seat's first creature: final_obs
        self._rewards = np.zeros(n, dtype=np.float32)
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
        self._flags = {key: np.zeros(n, dtype=bool) for key in ALWAYS_KEYS + ENDED_KEYS}
        self._end_turn_only = np.zeros(self.n_actions, dtype=np.int8)
        self._end_turn_only[END_TURN_INDEX] = 1
        self._ended: dict[int, Any] = {}  # record_events: the last battle that ended, per slot
        self._final: np.ndarray | None = None
        self._final_view: np.ndarray | None = None
        self._seat_final: np.ndarray | None = None  # the seat's final views, without _final
        if final_observations:  # (K, N, D): one C-contiguous block per creature for the kernel
            self._final = np.zeros((k, n, self.observation_size), np.float32)
            self._final_view = self._final.transpose(1, 0, 2)

    def __repr__(self) -> str:
        """``VectorEnv('duel', num_envs=4, seed=0)``: the constructor's arguments."""
        scenario, seed = self._init_args
        team = "" if self.reward_team == self.teams[0] else f", reward_team={self.reward_team!r}"
        return f"VectorEnv({scenario!r}, num_envs={self.num_envs}, seed={seed}{team})"

    def __enter__(self) -> VectorEnv:
        return self

    def __exit__(self, *args: object) -> bool:
        """Close the env; exceptions go on."""
        self.close()
        return False

    # -- the batch ------------------------------------------------------------------------

    def reset(
        self,
        seed: int | Sequence[int | None] | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> tuple[Obs, Info]:
        """Start every battle, or those of ``options["reset_mask"]`` (see "Seeds" in the
        module docstring); returns ``(obs, info)``."""
        self._check_open("reset")
        mask = self._reset_mask(options)
        seeds = self._seed_list(seed)
        if mask is not None and not self._started and not mask.all():
            raise EnvStateError(
                "reset(options={'reset_mask': ...}) before the first reset(): the first"
                " reset starts every battle"
            )
        rows = np.arange(self.num_envs) if mask is None else np.flatnonzero(mask)
        for i in rows:
            if seeds[i] is not None:
                self._rngs[i] = np.random.default_rng(seeds[i])
            self._engine.start(int(i), self._rngs[i])
        if seed is not None:
            self.seed = int(seed) if _is_int(seed) else None
        self._steps[rows] = 0
        self._winner[:] = -1
        self._length[:] = 0
        self._rounds[:] = 0
        self._started = True
        return self._outputs(mask), self._info(None)

    def step(
        self, actions: Sequence[int] | np.ndarray, *, active: np.ndarray | None = None
    ) -> tuple[Obs, np.ndarray, np.ndarray, np.ndarray, Info]:
        """One action per battle; returns ``(obs, rewards, terminations, truncations, info)``
        (the arrays are reused by the next call).

        ``active`` (``(N,)`` bool) steps only those battles: the others' actions are not
        read, their observation, mask and actor stay, their rewards are 0 and they do not
        end (a learner that waits for some battles while opponents act in others,
        :class:`facing_env.train.team_vec_env.TeamVecEnv`)."""
        self._check_open("step")
        if not self._started:
            raise EnvStateError("step() before reset(): call reset() first")
        acts, active = self._checked_actions(actions, active)
        terminated, truncated = self._engine.step(acts, active)
        self._steps += 1 if active is None else active
        self._terminations[:] = terminated
        self._truncations[:] = truncated
        np.dot(self._engine.rewards, self._seat, out=self._rewards)  # before any restart
        ended = self._terminations | self._truncations
        finals = self._end_battles(np.flatnonzero(ended))
        info = self._info(ended, *finals)
        return self._outputs(active), self._rewards, self._terminations, self._truncations, info

    def _checked_actions(
        self, actions: Sequence[int] | np.ndarray, active: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """``(actions, active)`` as int64 and bool arrays; an error names the first bad
        one (nothing is stepped then)."""
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
        bad = np.flatnonzero((acts < 0) | (acts >= self.n_actions))
        if not bad.size:
            allowed = self._engine.mask[np.arange(n), acts] != 0
            bad = np.flatnonzero(~allowed if active is None else ~allowed & active)
        if bad.size:
            i = int(bad[0])
            agent = self.possible_agents[self._agent[i]]
            raise IllegalActionError(
                f"battle {i}: {agent}: action {short_repr(acts[i].item())} is not allowed by"
                " its action mask (no battle was stepped)"
            )
        return acts.astype(np.int64, copy=False), active

    def _end_battles(self, ended: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Report the battles that ended (winner, length, rounds, final views) and start
        their next ones; returns ``(final_obs, final_info)``."""
        self._winner[:] = -1
        self._length[:] = 0
        self._rounds[:] = 0
        final_obs = np.full(self.num_envs, None, dtype=object)
        final_info = np.full(self.num_envs, None, dtype=object)
        if not ended.size:
            return final_obs, final_info
        if self._final is not None:
            self._write_final(ended)
        self._seat_views(ended, final_obs)
        state = self._engine.state
        assert state is not None
        for i in ended:
            if self._terminations[i]:
                team = (
                    self._engine.winner(int(i)) if self._readable else int(engine_winner(state, i))
                )
                if team >= 0:
                    self._winner[i] = self._team_index[self._engine.team_names[i][team]]
            self._length[i] = self._steps[i]
            self._rounds[i] = state.round[i]
            self._steps[i] = 0
            final_info[i] = {
                "winner": int(self._winner[i]),
                "episode_length": int(self._length[i]),
                "episode_rounds": int(self._rounds[i]),
            }
            if self.record_events:  # the battle as it ended, before its slot restarts
                self._ended[int(i)] = self._engine.battle(int(i))
            self._engine.start(int(i), self._rngs[i])
        return final_obs, final_info

    def _info(self, ended: np.ndarray | None, *finals: np.ndarray) -> Info:
        """The info dict with its ``_key`` masks: ``ended`` is the step's ``(N,)`` ended
        battles (None for ``reset``: no ``creature_rewards``, nothing ended); ``finals``
        are ``final_obs`` and ``final_info``."""
        info: Info = {"agent": self._agent}
        if ended is not None:
            info["creature_rewards"] = self._engine.rewards
        info["winner"] = self._winner
        info["episode_length"] = self._length
        info["episode_rounds"] = self._rounds
        if self._final_view is not None:
            info["final_observation"] = self._final_view
        if finals:
            info["final_obs"], info["final_info"] = finals
        for key in list(info):
            flag = self._flags[key]
            if key in ALWAYS_KEYS:
                flag.fill(True)
            elif ended is None:
                flag.fill(False)
            else:
                np.copyto(flag, ended)
            info[f"_{key}"] = flag
        return info

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

    def _outputs(self, rows: np.ndarray | None = None) -> Obs:
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

    def _seat_views(self, ended: np.ndarray, out: np.ndarray) -> None:
        """``out[i]``: the seat's first creature's ``{"observation", "action_mask"}`` of
        ended battle ``i``, as the AEC env's ``observe`` gives it (zeros and END_TURN
        alone for a creature not in the battle), before the battles restart."""
        engine, state = self._engine, self._engine.state
        assert state is not None
        n_slots = engine.agent_of.shape[1]
        mine = engine.agent_of[ended] == self._seat_agent
        mine &= np.arange(n_slots) < state.n_creatures[ended, None]
        slot = np.where(mine.any(axis=1), mine.argmax(axis=1), -1).astype(np.int32)
        if self._final is not None:
            views = self._final[self._seat_agent]  # written by _write_final
        else:
            if self._seat_final is None:
                self._seat_final = np.zeros((self.num_envs, self.observation_size), np.float32)
            slots = np.full(self.num_envs, KEEP, dtype=np.int32)
            slots[ended] = slot  # -1: zeros
            views = engine.observe_slots(slots, self._seat_final)
        for i, k in zip(ended, slot, strict=True):
            acting = k >= 0 and int(state.actor[i]) == k
            mask = engine.mask[i].copy() if acting else self._end_turn_only.copy()
            out[i] = {"observation": views[i].copy(), "action_mask": mask}

    # -- options --------------------------------------------------------------------------

    def _seed_list(self, seed: object) -> list[int | None]:
        """One seed or None per battle from ``reset``'s ``seed``; a ``ValueError`` names a
        bad one."""
        n = self.num_envs
        if seed is None:
            return [None] * n
        if _is_int(seed):
            check_seed(seed)
            return [int(seed) + i for i in range(n)]
        listed = isinstance(seed, Sequence) or (isinstance(seed, np.ndarray) and seed.ndim == 1)
        if isinstance(seed, (str, bytes)) or not listed:
            raise ValueError(
                "seed must be a non-negative integer, None or a list of one such or None per"
                f" battle, got {short_repr(seed)}"
            )
        if len(seed) != n:
            raise ValueError(f"seed: a list of seeds needs {n} (one per battle), got {len(seed)}")
        for i, s in enumerate(seed):
            if s is not None and (not _is_int(s) or s < 0):
                raise ValueError(
                    f"seed[{i}] must be a non-negative integer or None, got {short_repr(s)}"
                )
        return [None if s is None else int(s) for s in seed]

    def _reset_mask(self, options: object) -> np.ndarray | None:
        """``options["reset_mask"]`` checked (None when absent); an error names any other
        option or a bad mask."""
        if options is None:
            return None
        if not isinstance(options, Mapping):
            raise TypeError(f"options must be a dict or None, got {short_repr(options)}")
        unknown = sorted(map(str, set(options) - {"reset_mask"}))
        if unknown:
            raise ValueError(
                f"unknown reset option(s) {unknown}: VectorEnv.reset understands only 'reset_mask'"
            )
        if "reset_mask" not in options:
            return None
        mask = options["reset_mask"]
        n = self.num_envs
        if not isinstance(mask, np.ndarray) or mask.dtype != np.bool_:
            raise TypeError(
                f"options['reset_mask'] must be a numpy bool array of shape ({n},), got"
                f" {short_repr(mask)}"
            )
        if mask.shape != (n,) or not mask.any():
            raise ValueError(
                f"options['reset_mask'] must have shape ({n},) and a true value, got shape"
                f" {mask.shape} with {int(mask.sum())} true"
            )
        return mask

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

    def render(self, i: int = 0) -> str:  # type: ignore[override]
        """Battle ``i`` as text."""
        self._check_index(i)
        battle = self._engine.battle(int(i))
        actor = engine_actor(battle)
        return board_text(battle, active=actor.id if actor is not None else None)

    def close(self, **kwargs: Any) -> None:
        """Stop the worker threads and set :attr:`closed`: ``step`` and ``reset`` raise
        :class:`~facing_env.errors.EnvStateError` from then on (the views still read the
        last battles). Closing twice does nothing."""
        super().close(**kwargs)

    def close_extras(self, **kwargs: Any) -> None:
        """Stop the worker threads (gymnasium's ``close`` calls it once; a constructor that
        raised left no engine to stop)."""
        engine = getattr(self, "_engine", None)
        if engine is not None:
            engine.close()

    # -- helpers --------------------------------------------------------------------------

    def _check_open(self, call: str) -> None:
        """An ``EnvStateError`` once :meth:`close` was called."""
        if self.closed:
            raise EnvStateError(f"{call}() after close(): this VectorEnv is closed; make a new one")

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


def _is_int(value: object) -> bool:
    """An integer (Python's or numpy's), not a bool."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _check_threads(threads: object) -> None:
    """A ``ValueError`` naming ``threads`` unless it is None or a positive integer."""
    if threads is not None and (not _is_int(threads) or threads < 1):
        raise ValueError(f"threads must be a positive integer or None, got {short_repr(threads)}")
