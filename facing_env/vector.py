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
as :class:`facing_env.match.GameResult` counts; 0 for battles that go on).

**Seeds.** ``reset(seed=s)`` starts battle ``i`` with ``s + i``; the first ``reset()``
without one uses the constructor's ``seed`` (fresh entropy if that is None too); a later
``reset()`` without one starts every slot's next battle from its own generator, as the
AEC env's ``reset()`` does.

**Buffers.** The arrays returned by ``reset`` and ``step`` are preallocated and reused:
each call overwrites them. Copy what you keep.

**Engine.** Today each slot steps the AEC env's engine, so identity holds by
construction and ``step`` costs N AEC steps; the slots share one memo of creature-table
rows (:meth:`~facing_env.env.raw_env.share_observation_memo`). The batched array engine
that steps all slots in one compiled call is to replace that loop behind the same
interface (docs/design.md, performance).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from facing_env import engine
from facing_env.env import raw_env
from facing_env.errors import EnvStateError, IllegalActionError
from facing_env.limits import short_repr
from facing_env.scenario import DEFAULT_SCENARIO, Scenario, load_scenario

MAX_ENVS = 1 << 16
"""The most battles one VectorEnv holds."""


class VectorEnv:
    """N battles of one scenario stepped together (see the module docstring)."""

    def __init__(
        self,
        scenario: str | Scenario = DEFAULT_SCENARIO,
        num_envs: int = 1,
        seed: int | None = None,
        **env_kwargs: Any,
    ) -> None:
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
        self._envs = [raw_env(source, **env_kwargs) for _ in range(self.num_envs)]
        first = self._envs[0]
        for env in self._envs[1:]:
            env.share_observation_memo(first)  # one warm memo: 1.6x on skirmish, N = 1024
        self.scenario: Scenario = first.scenario  # with any ``rewards=`` override
        self.possible_agents: list[str] = list(first.possible_agents)
        self.teams: tuple[str, ...] = tuple(self.scenario.teams)
        self.single_observation_space: spaces.Dict = first.observation_space(
            self.possible_agents[0]
        )
        self.single_action_space: spaces.Discrete = first.action_space(self.possible_agents[0])
        self.observation_size = int(self.single_observation_space["observation"].shape[0])
        self.n_actions = int(self.single_action_space.n)
        n, k = self.num_envs, len(self.possible_agents)
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        self._team_index = {t: i for i, t in enumerate(self.teams)}
        self._obs = np.zeros((n, self.observation_size), dtype=np.float32)
        self._mask = np.zeros((n, self.n_actions), dtype=np.int8)
        self._rewards = np.zeros((n, k), dtype=np.float32)
        self._terminations = np.zeros(n, dtype=bool)
        self._truncations = np.zeros(n, dtype=bool)
        self._agent = np.zeros(n, dtype=np.int64)
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
        for i, env in enumerate(self._envs):
            env.reset(seed=None if seed is None else seed + i)
            self._write(i)
        self._steps[:] = 0
        self._winner[:] = -1
        self._length[:] = 0
        self._rounds[:] = 0
        self._started = True
        return {"observation": self._obs, "action_mask": self._mask}, self._info

    def step(
        self, actions: Sequence[int] | np.ndarray
    ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        """One action per battle; returns ``(obs, rewards, terminations, truncations, info)``
        (the arrays are reused by the next call)."""
        if not self._started:
            raise EnvStateError("step() before reset(): call reset() first")
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,) or acts.dtype.kind not in "iu":
            raise IllegalActionError(
                f"actions must be {self.num_envs} integers (shape ({self.num_envs},)), got"
                f" shape {acts.shape} of {acts.dtype}"
            )
        bad = np.flatnonzero((acts < 0) | (acts >= self.n_actions))
        if not bad.size:
            bad = np.flatnonzero(self._mask[np.arange(self.num_envs), acts] == 0)
        if bad.size:
            i = int(bad[0])
            agent = self.possible_agents[self._agent[i]]
            raise IllegalActionError(
                f"battle {i}: {agent}: action {short_repr(acts[i].item())} is not allowed by"
                " its action mask (no battle was stepped)"
            )
        self._rewards[:] = 0.0
        self._terminations[:] = False
        self._truncations[:] = False
        self._winner[:] = -1
        self._length[:] = 0
        self._rounds[:] = 0
        for i, env in enumerate(self._envs):
            env.step(int(acts[i]))
            self._steps[i] += 1
            self._collect(i, env)
            while env.agents and (
                env.terminations[env.agent_selection] or env.truncations[env.agent_selection]
            ):
                env.step(None)  # a dropped creature's dead step
                self._collect(i, env)
            if not env.agents:
                self._end(i, env)
                env.reset()
            self._write(i)
        obs = {"observation": self._obs, "action_mask": self._mask}
        return obs, self._rewards, self._terminations, self._truncations, self._info

    # -- views ----------------------------------------------------------------------------

    def battle(self, i: int) -> Any:
        """Battle ``i``'s state (a :class:`~facing_env.battle.Battle`; read it, do not
        change it)."""
        return self._env(i).battle

    def events(self, i: int) -> list:
        """The events of battle ``i`` so far (its current battle, after an auto-reset)."""
        return self._env(i).events

    def render(self, i: int = 0) -> str:
        """Battle ``i`` as text."""
        env = self._env(i)
        mode, env.render_mode = env.render_mode, "ansi"
        try:
            return str(env.render())
        finally:
            env.render_mode = mode

    def close(self) -> None:
        """Release the battles."""
        for env in self._envs:
            env.close()

    # -- helpers --------------------------------------------------------------------------

    def _env(self, i: int) -> raw_env:
        """Slot ``i``'s env; an ``IndexError`` naming the range otherwise."""
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)):
            raise TypeError(f"battle index must be an integer, got {short_repr(i)}")
        if not 0 <= i < self.num_envs:
            raise IndexError(f"battle index {i} is outside 0..{self.num_envs - 1}")
        if not self._started:
            raise EnvStateError("no battle before reset(): call reset() first")
        return self._envs[i]

    def _collect(self, i: int, env: raw_env) -> None:
        """Add the AEC env's step rewards to row ``i``."""
        row, index = self._rewards[i], self._index
        for agent, value in env.rewards.items():
            if value:
                row[index[agent]] += value

    def _end(self, i: int, env: raw_env) -> None:
        """Record how battle ``i`` ended (its last agents already took their dead steps)."""
        battle = env.battle
        if engine.is_over(battle):
            self._terminations[i] = True
            winner = engine.winner(battle)
            self._winner[i] = -1 if winner is None else self._team_index[winner]
        else:
            self._truncations[i] = True
        self._length[i] = self._steps[i]
        self._rounds[i] = battle.initiative.round
        self._steps[i] = 0

    def _write(self, i: int) -> None:
        """Row ``i`` of the outputs: the acting creature's observation, mask and index."""
        env = self._envs[i]
        agent = env.agent_selection
        obs = env.observe(agent)
        self._obs[i] = obs["observation"]
        self._mask[i] = obs["action_mask"]
        self._agent[i] = self._index[agent]


def _check_seed(seed: object) -> None:
    """A ``ValueError`` naming ``seed`` unless it is None or a non-negative integer."""
    if seed is not None and (
        not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0
    ):
        raise ValueError(f"seed must be a non-negative integer or None, got {short_repr(seed)}")
