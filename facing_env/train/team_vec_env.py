"""``TeamVecEnv``: a stable-baselines3 ``VecEnv`` over :class:`~facing_env.vector.VectorEnv`.

The batched counterpart of :class:`~facing_env.train.team_env.TeamLearnerEnv`: N battles held
as arrays, one learner controlling every creature of its team in each (shared
parameters), the other team played by an opponent of a pool acting **in batch** (the
scripted agents' kernels, a saved policy's one forward pass; see
:func:`facing_env.agents.base.act_batch`)::

    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor
    from facing_env.train.team_vec_env import TeamVecEnv

    venv = VecMonitor(TeamVecEnv("duel", num_envs=16, opponents=["aggressive"], seed=0))
    model = MaskablePPO("MlpPolicy", venv).learn(100_000)

One ``step`` is one atomic action of the acting learner creature in every battle; then
the battles whose actor is an opponent creature are stepped (only those:
``VectorEnv.step(..., active=rows)``) until every battle waits for a learner creature
again. Rewards, per battle, sum what the learner's team earned in between (damage dealt
and taken, kills, the outcome), as ``TeamLearnerEnv`` sums them; what a new battle earns
before the learner's first action is added to that action's reward.

**Battles and their ends.** Battle ``i`` is ``VectorEnv``'s battle ``i``: the first
seeded ``seed + i``, the next ones from its generator. A battle that ends sets ``done``
and its ``info`` gives ``won``, ``winner``, ``team``, ``opponent``, ``rounds``, ``dice``,
``"TimeLimit.truncated"`` (the round limit) and ``terminal_observation`` (the first
learner creature's observation of the ended battle, as ``TeamLearnerEnv`` and
``DummyVecEnv`` give it); the returned observation is then the next battle's. Each battle
draws the learner's team (unless ``learner_team`` is given) and its opponent (uniformly,
or by :meth:`set_opponent_weights`) from the env's generator. A battle that ends before
the learner ever acts teaches nothing: it is replaced without a ``done``.

``action_masks()`` gives ``(N, A)`` bool masks (sb3-contrib reads them through
``env_method("action_masks")``, which this class answers from one array). Actions the
mask forbids (an unmasked algorithm sends them) end the creature's turn and add
``illegal_penalty``, reported as ``info["illegal_action"]``, or raise with
``illegal_action="raise"``. ``set_dice_mode(mode, indices)`` changes some battles' dice
from their next start on (``train.py`` rolls expected dice in a share of them).

The approach shaping of ``TeamLearnerEnv`` is not offered here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices

from facing_env.actions import END_TURN_INDEX
from facing_env.agents.base import act_batch
from facing_env.errors import IllegalActionError
from facing_env.evaluation.match import Agent
from facing_env.rules.checks import finite_number
from facing_env.train import league
from facing_env.vector import VectorEnv

MAX_RESTARTS = 100
"""Battles in a row a slot may replace because they ended before the learner acted."""

_METHODS = (
    "action_masks",
    "add_opponent",
    "remove_opponent",
    "opponent_names",
    "set_dice_mode",
    "set_opponent_weights",
)
"""What ``env_method`` answers (the ``TeamLearnerEnv`` methods ``train.py`` calls)."""


class TeamVecEnv(VecEnv):
    """One learner (a whole team) against an opponent pool in N batched battles; see the
    module docstring."""

    def __init__(
        self,
        scenario: str = "duel",
        num_envs: int = 8,
        opponents: Sequence[str | Agent] = ("random",),
        *,
        seed: int | None = None,
        learner_team: str | None = None,
        dice_modes: Sequence[str] | None = None,
        illegal_action: str = "end_turn",
        illegal_penalty: float = -0.1,
        **env_kwargs: Any,
    ) -> None:
        if illegal_action not in ("end_turn", "raise"):
            raise ValueError(
                f"illegal_action must be 'end_turn' or 'raise', not {illegal_action!r}"
            )
        options = {"engine": "compiled", **env_kwargs}  # training needs the kernels' speed
        self.venv = VectorEnv(scenario, num_envs, seed=seed, final_observations=True, **options)
        venv = self.venv
        if learner_team is not None and learner_team not in venv.teams:
            raise ValueError(f"learner_team {learner_team!r} is not one of {list(venv.teams)}")
        if dice_modes is not None:
            if len(dice_modes) != num_envs:
                raise ValueError(f"dice_modes needs {num_envs} modes, got {len(dice_modes)}")
            for i, mode in enumerate(dice_modes):
                venv.set_dice_mode(mode, [i])
        self.render_mode = None  # text pictures: venv.render(i)
        super().__init__(
            num_envs,
            venv.single_observation_space["observation"],
            venv.single_action_space,
        )
        self.scenario = scenario
        self.learner_team = learner_team
        self.illegal_action = illegal_action
        self.illegal_penalty = finite_number(illegal_penalty, "illegal_penalty")
        self._rng = np.random.default_rng(seed)
        self._pool: list[tuple[str, Agent]] = []  # removed ones stay while battles use them
        self._live: list[bool] = []  # which entries of the pool new battles may draw
        self._weights: dict[str, float] | None = None
        for spec in opponents:
            self.add_opponent(spec)
        n, k = num_envs, len(venv.possible_agents)
        self._team = np.zeros(n, dtype=np.int64)  # learner's team, an index into venv.teams
        self._opponent = np.zeros(n, dtype=np.int64)  # an index into the pool
        self._mine = np.zeros((n, k), dtype=bool)  # agents of the learner's team, per battle
        self._first = np.zeros(n, dtype=np.int64)  # the learner's first agent (its last view)
        self._dice = [""] * n  # the dice each battle started with
        self._fresh = np.ones(n, dtype=bool)  # the learner has not acted in this battle yet
        self._restarts = np.zeros(n, dtype=np.int64)
        self._pending = np.zeros(n, dtype=np.float32)  # earned before the battle's first action
        self._obs = np.zeros((n, self.observation_space.shape[0]), dtype=np.float32)
        self._masks = np.zeros((n, self.action_space.n), dtype=bool)
        self._actions = np.zeros(n, dtype=np.int64)
        self._opponent_actions = np.zeros(n, dtype=np.int64)

    # -- opponents ------------------------------------------------------------------------

    def add_opponent(self, spec: str | Agent) -> None:
        """Add a scripted agent by name, a saved model as ``model:PATH``, or an agent."""
        if isinstance(spec, str):
            from facing_env.agents import make_agent

            self._pool.append((spec, make_agent(spec)))
        else:
            self._pool.append((type(spec).__name__, spec))
        self._live.append(True)

    def remove_opponent(self, name: str) -> None:
        """Drop an opponent from the pool by name (an old self-play snapshot): no new
        battle draws it; battles under way against it finish against it."""
        names = self.opponent_names()
        if name not in names:
            raise ValueError(f"opponent {name!r} is not in the pool {names}")
        index = [j for j, live in enumerate(self._live) if live][names.index(name)]
        self._live[index] = False
        self._prune()

    def opponent_names(self) -> list[str]:
        """Names in the opponent pool."""
        return [name for (name, _), live in zip(self._pool, self._live, strict=True) if live]

    def set_opponent_weights(self, weights: Mapping[str, float] | None) -> None:
        """Draw each new battle's opponent with these relative chances by name (the
        league's priorities); ``None`` draws uniformly again (as ``TeamLearnerEnv``)."""
        self._weights = league.check_weights(weights)

    def set_dice_mode(self, mode: str, indices: VecEnvIndices = None) -> None:
        """The dice of these battles (all when ``indices`` is None) from their next start."""
        self.venv.set_dice_mode(mode, self._get_indices(indices))

    def action_masks(self) -> np.ndarray:
        """``(N, A)`` bool: the mask of every battle's acting learner creature."""
        return self._masks

    # -- the VecEnv API -------------------------------------------------------------------

    def reset(self) -> np.ndarray:
        """Start every battle (seeded by ``seed()`` if it was called, as SB3 does)."""
        seed = self._seeds[0] if self._seeds else None
        self._reset_seeds()
        self._reset_options()
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        obs, info = self.venv.reset(seed=seed)
        for i in range(self.num_envs):
            self._begin(i)
        self._pending[:] = 0.0
        self._restarts[:] = 0
        reward = np.zeros(self.num_envs, dtype=np.float32)
        dones = np.zeros(self.num_envs, dtype=bool)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        nxt = np.ones(self.num_envs, dtype=bool)  # everything earned goes to the first action
        self._play((obs, info), None, reward, dones, infos, nxt)
        return self._obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        given = np.asarray(actions)
        if given.dtype.kind not in "iu" or given.size != self.num_envs:
            raise ValueError(
                f"actions must be {self.num_envs} integers, got {given.size} of {given.dtype}"
            )
        self._actions[:] = given.reshape(self.num_envs)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        n = self.num_envs
        acts = self._actions
        infos: list[dict[str, Any]] = [{} for _ in range(n)]
        reward = self._pending.copy()
        self._pending[:] = 0.0
        bad = (acts < 0) | (acts >= self.action_space.n)
        bad[~bad] = ~self._masks[np.flatnonzero(~bad), acts[~bad]]
        for i in np.flatnonzero(bad):
            if self.illegal_action == "raise":
                raise IllegalActionError(
                    f"battle {i}: action {int(acts[i])} is not allowed by the mask"
                )
            infos[i]["illegal_action"] = int(acts[i])
            reward[i] += self.illegal_penalty
            acts[i] = END_TURN_INDEX
        if not all(self._live):
            self._prune()
        self._fresh[:] = False
        self._restarts[:] = 0
        dones = np.zeros(n, dtype=bool)
        nxt = np.zeros(n, dtype=bool)
        self._play(None, acts, reward, dones, infos, nxt)
        for i in range(n):
            infos[i].setdefault("team", self.venv.teams[self._team[i]])
            infos[i].setdefault("opponent", self._pool[self._opponent[i]][0])
        return self._obs.copy(), reward, dones, infos

    def close(self) -> None:
        self.venv.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        return [getattr(self, attr_name)] * len(self._get_indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **kwargs: Any
    ) -> list[Any]:
        """The ``TeamLearnerEnv`` methods SB3 and ``train.py`` call on every environment:
        ``action_masks`` gives one row per battle; ``set_dice_mode`` applies to
        ``indices``; the others act on the shared pool once."""
        rows = self._get_indices(indices)
        if method_name == "action_masks":
            return list(self._masks[rows])
        if method_name == "set_dice_mode":
            self.set_dice_mode(*method_args, indices=rows, **kwargs)
            return [None] * len(rows)
        if method_name not in _METHODS:
            raise AttributeError(
                f"TeamVecEnv has no per-battle method {method_name!r} (it answers"
                f" {', '.join(_METHODS)})"
            )
        result = getattr(self, method_name)(*method_args, **kwargs)
        return [result] * len(rows)

    def has_attr(self, attr_name: str) -> bool:
        return hasattr(self, attr_name)

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False] * len(self._get_indices(indices))

    # -- internals ------------------------------------------------------------------------

    def _prune(self) -> None:
        """Forget removed opponents that no battle plays any more (re-indexing the rest)."""
        used = set(self._opponent.tolist())
        keep = [j for j, live in enumerate(self._live) if live or j in used]
        new = {j: k for k, j in enumerate(keep)}
        self._opponent[:] = [new[j] for j in self._opponent.tolist()]
        self._pool = [self._pool[j] for j in keep]
        self._live = [self._live[j] for j in keep]

    def _draw_opponent(self) -> int:
        live = [j for j, ok in enumerate(self._live) if ok]
        if not live:
            raise ValueError("the opponent pool is empty: add_opponent() first")
        names = [self._pool[j][0] for j in live]
        return live[league.draw(names, self._weights, self._rng)]

    def _begin(self, i: int) -> None:
        """Battle ``i`` has (re)started: draw the learner's team and the opponent."""
        venv = self.venv
        of = venv.agent_teams(i)  # each agent's team in this battle
        teams = list(dict.fromkeys(t for t in of if t is not None))
        team = self.learner_team or teams[int(self._rng.integers(len(teams)))]
        self._team[i] = venv.teams.index(team)
        self._opponent[i] = self._draw_opponent()
        self._mine[i] = [t == team for t in of]
        self._first[i] = int(np.argmax(self._mine[i]))
        self._dice[i] = venv.dice_modes[i]
        self._fresh[i] = True

    def _play(
        self,
        start: tuple[dict[str, np.ndarray], dict[str, np.ndarray]] | None,
        acts: np.ndarray | None,
        reward: np.ndarray,
        dones: np.ndarray,
        infos: list[dict[str, Any]],
        nxt: np.ndarray,
    ) -> None:
        """Step the learner's ``acts`` (unless None: ``start`` is then the reset's
        ``(obs, info)``), then the opponents, until every battle waits for a learner
        creature; rewards go into ``reward`` (``_pending`` for battles in their next one,
        ``nxt``)."""
        venv, n = self.venv, self.num_envs
        rows = np.arange(n)
        active: np.ndarray | None = None
        obs, info = start if start is not None else (None, None)
        while True:
            if acts is not None:
                obs, _, term, trunc, info = venv.step(acts, active=active)
                earned = (info["creature_rewards"] * self._mine).sum(axis=1)
                reward += np.where(nxt, 0.0, earned)
                self._pending += np.where(nxt, earned, 0.0)
                for i in np.flatnonzero(term | trunc):
                    self._ended(int(i), bool(term[i]), bool(trunc[i]), info, dones, infos, nxt)
            assert obs is not None and info is not None
            waiting = ~self._mine[rows, info["agent"]]
            if not waiting.any():
                break
            acts = self._opponent_actions
            acts[:] = 0
            which = np.flatnonzero(waiting)
            for j in np.unique(self._opponent[which]):
                sel = which[self._opponent[which] == j]
                agent = self._pool[j][1]
                acts[sel] = act_batch(
                    agent,
                    obs["observation"][sel],
                    obs["action_mask"][sel],
                    self._rng,
                    battles=venv.battle,
                    games=sel,
                )
            active = waiting
        self._obs[:] = obs["observation"]
        self._masks[:] = obs["action_mask"] != 0

    def _ended(
        self,
        i: int,
        terminated: bool,
        truncated: bool,
        info: dict[str, np.ndarray],
        dones: np.ndarray,
        infos: list[dict[str, Any]],
        nxt: np.ndarray,
    ) -> None:
        """Battle ``i`` ended (and has restarted): report it, or replace it silently if
        the learner never acted in it."""
        if self._fresh[i]:
            self._pending[i] = 0.0  # nothing to learn from it
            self._restarts[i] += 1
            if self._restarts[i] > MAX_RESTARTS:
                raise RuntimeError(
                    f"{MAX_RESTARTS} battles in a row ended before the learner could act"
                )
        else:
            team = self.venv.teams[self._team[i]]
            winner = int(info["winner"][i])
            dones[i] = True
            nxt[i] = True
            infos[i].update(
                team=team,
                opponent=self._pool[self._opponent[i]][0],
                winner=self.venv.teams[winner] if winner >= 0 else None,
                won=winner == self._team[i],
                rounds=int(info["episode_rounds"][i]),
                dice=self._dice[i],
                terminal_observation=info["final_observation"][i, self._first[i]].copy(),
            )
            infos[i]["TimeLimit.truncated"] = truncated and not terminated
        self._begin(i)
