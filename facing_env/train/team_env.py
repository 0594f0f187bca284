"""A single-agent Gymnasium view of a battle, for stable-baselines3 and sb3-contrib.

:class:`TeamLearnerEnv` lets one learner control every creature of its team with shared
parameters: each Gymnasium step is one atomic action of whichever learner creature is
acting. Everything else happens inside ``step``: the other team is played by an opponent
drawn from a pool (scripted agents by name, or frozen snapshots of the learner as
``model:PATH``), dead creatures take PettingZoo's dead step, and every reward the learner's
creatures earn in between (damage dealt, damage taken, kills, the outcome) is summed into
the reward of the learner's next step. ``action_masks()`` gives the mask for
``MaskablePPO``. The learner's team is drawn per episode (``learner_team=None``) so one
policy learns both sides; observations are egocentric, so the sides look alike.

Illegal actions (only an unmasked algorithm or Gymnasium's ``check_env`` sends them):
``illegal_action="end_turn"`` (default) ends the creature's turn instead, adds
``illegal_penalty`` to the reward and reports the index as ``info["illegal_action"]``;
``illegal_action="raise"`` raises :class:`~facing_env.errors.IllegalActionError`.

``approach=w`` adds potential-based shaping (Ng, Harada and Russell, 1999) that leads the
team toward the enemy without changing which policies are best: with the potential
``phi(s) = -w * (mean over living learner creatures of the squares to the nearest living
enemy, at most APPROACH_CAP)``, each step earns ``gamma * phi(s') - phi(s)`` between the
learner's decisions (``phi`` of a decided battle is 0; a battle stopped at the round
limit keeps its ``phi``, as the learner bootstraps from that state's value), so over a
battle the terms add up, discounted, to ``-phi`` of its first decision (``gamma ** T *
phi`` of the last state more at the round limit) and the outcome still decides
everything else.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from facing_env.actions import END_TURN_INDEX
from facing_env.agents.base import choose
from facing_env.env import raw_env
from facing_env.errors import IllegalActionError
from facing_env.evaluation.match import Agent
from facing_env.rules.battle import Battle
from facing_env.rules.checks import finite_number
from facing_env.rules.dice import check_mode
from facing_env.train import league

MAX_RESETS = 100
"""Battles drawn per ``reset`` at most while looking for one in which the learner acts."""

APPROACH_CAP = 12
"""Squares to the nearest enemy beyond which the approach potential stops growing."""


class TeamLearnerEnv(gym.Env):
    """One learner (a whole team) against an opponent pool; see the module docstring."""

    metadata = {"render_modes": ["ansi"], "render_fps": 4}  # noqa: RUF012

    def __init__(
        self,
        scenario: str = "duel",
        opponents: Sequence[str | Agent] = ("random",),
        learner_team: str | None = None,
        render_mode: str | None = None,
        illegal_action: str = "end_turn",
        illegal_penalty: float = -0.1,
        approach: float = 0.0,
        gamma: float = 0.995,
        **env_kwargs: Any,
    ) -> None:
        if illegal_action not in ("end_turn", "raise"):
            raise ValueError(
                f"illegal_action must be 'end_turn' or 'raise', not {illegal_action!r}"
            )
        if not (approach >= 0.0 and approach < float("inf")):
            raise ValueError(f"approach must be a finite number >= 0, got {approach!r}")
        if not 0.0 <= gamma <= 1.0:
            raise ValueError(f"gamma must be in [0, 1], got {gamma!r}")
        self.approach = float(approach)
        self.gamma = float(gamma)
        self._phi = 0.0
        self.illegal_action = illegal_action
        self.illegal_penalty = finite_number(illegal_penalty, "illegal_penalty")
        options = {"engine": "compiled", **env_kwargs}  # training needs the kernels' speed
        self.env = raw_env(scenario=scenario, render_mode=render_mode, **options)
        self.scenario = scenario
        self.render_mode = render_mode
        teams = self.env.scenario.teams
        if learner_team is not None and learner_team not in teams:
            raise ValueError(f"learner_team {learner_team!r} is not one of {list(teams)}")
        self.learner_team = learner_team
        space = self.env.observation_space(self.env.possible_agents[0])
        self.observation_space = space["observation"]
        self.action_space = self.env.action_space(self.env.possible_agents[0])
        self._pool: list[tuple[str, Agent]] = []
        self._weights: dict[str, float] | None = None
        for spec in opponents:
            self.add_opponent(spec)
        self.team = learner_team or teams[0]
        self.opponent_name = ""
        self._opponent: Agent | None = None
        self._mask = np.zeros(self.action_space.n, dtype=np.int8)
        self._obs = np.zeros(self.observation_space.shape, dtype=np.float32)
        self._pending = 0.0

    # -- opponents ------------------------------------------------------------------------

    def add_opponent(self, spec: str | Agent) -> None:
        """Add a scripted agent by name, a saved model as ``model:PATH``, or an agent."""
        if isinstance(spec, str):
            from facing_env.agents import make_agent

            self._pool.append((spec, make_agent(spec)))
        else:
            self._pool.append((type(spec).__name__, spec))

    def remove_opponent(self, name: str) -> None:
        """Drop an opponent from the pool by name (e.g. an old self-play snapshot)."""
        names = self.opponent_names()
        if name not in names:
            raise ValueError(f"opponent {name!r} is not in the pool {names}")
        del self._pool[names.index(name)]

    def opponent_names(self) -> list[str]:
        """Names in the opponent pool."""
        return [name for name, _ in self._pool]

    def set_dice_mode(self, mode: str) -> None:
        """The dice mode (:data:`facing_env.rules.dice.DICE_MODES`) from the next battle on (a
        training curriculum)."""
        self.env.dice_mode = check_mode(mode)

    def set_opponent_weights(self, weights: Mapping[str, float] | None) -> None:
        """Draw the opponent of each new battle with these relative chances by name (an
        opponent league's priorities, :mod:`facing_env.train.league`); a name of the pool that
        is missing gets none, unknown names are ignored; ``None`` draws uniformly again."""
        self._weights = league.check_weights(weights)

    def _draw_opponent(self, names: list[str]) -> int:
        return league.draw(names, self._weights, self.np_random)

    # -- gymnasium API --------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """A new battle seeded from this env's generator; ``options["opponent"]`` picks one
        opponent of the pool by name."""
        super().reset(seed=seed)
        if not self._pool:
            raise ValueError("the opponent pool is empty: add_opponent() first")
        wanted = (options or {}).get("opponent")
        names = self.opponent_names()
        if wanted is not None and wanted not in names:
            raise ValueError(f"opponent {wanted!r} is not in the pool {names}")
        for _ in range(MAX_RESETS):
            self.env.reset(seed=int(self.np_random.integers(2**31 - 1)))
            teams = self.env.scenario.teams
            self.team = self.learner_team or teams[int(self.np_random.integers(len(teams)))]
            index = names.index(wanted) if wanted else self._draw_opponent(names)
            self.opponent_name, self._opponent = self._pool[index]
            self._pending, done = self._advance()
            if not done:  # a battle decided before the learner ever acts teaches nothing
                self._phi = self.potential()
                return self._obs.copy(), self._info(False)
        raise RuntimeError(f"{MAX_RESETS} battles in a row ended before the learner could act")

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """One action of the acting learner creature, then everyone else until the learner
        must act again or the battle ends."""
        action = int(action)
        extra: dict[str, Any] = {}
        penalty = 0.0
        if not (0 <= action < len(self._mask) and self._mask[action]):
            if self.illegal_action == "raise":
                raise IllegalActionError(f"action {action} is not allowed by the mask")
            extra["illegal_action"], penalty, action = action, self.illegal_penalty, END_TURN_INDEX
        self.env.step(action)
        reward = penalty + self._pending + self._team_reward()  # + what reset's turns earned
        self._pending = 0.0
        more, done = self._advance()
        reward += more
        decided = done and self._decided()
        if self.approach:
            # a decided battle's potential is 0; at the round limit (truncation) the
            # learner bootstraps from the value of the state it stopped in, so phi stays
            phi = 0.0 if decided else self.potential()
            reward += self.gamma * phi - self._phi
            self._phi = phi
        info = {**self._info(done), **extra}
        return self._obs.copy(), float(reward), decided, done and not decided, info

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the current learner action (for sb3-contrib's MaskablePPO)."""
        return self._mask.astype(bool)

    def render(self) -> str | None:
        """The board as text (``render_mode="ansi"``)."""
        return self.env.render()

    def potential(self, battle: Battle | None = None) -> float:
        """The approach potential of ``battle`` (default: the battle now; see the module
        docstring): 0 when ``approach`` is 0 or a side has no living creature."""
        if not self.approach:
            return 0.0
        battle = self.env.battle if battle is None else battle
        living = [c for c in battle.creatures.values() if c.hp > 0]
        mine = [c for c in living if c.team == self.team]
        foes = [battle.cells_of(c) for c in living if c.team != self.team]
        if not mine or not foes:
            return 0.0
        total = 0
        for c in mine:
            cells = battle.cells_of(c)
            total += min(APPROACH_CAP, *(battle.cells_distance(cells, f) for f in foes))
        return -self.approach * total / len(mine)

    # -- internals ------------------------------------------------------------------------

    def _team_reward(self) -> float:
        env = self.env
        return sum(r for a, r in env.rewards.items() if env.teams[env.agent_to_id[a]] == self.team)

    def _mine(self, agent: str) -> bool:
        return self.env.teams[self.env.agent_to_id[agent]] == self.team

    def _decided(self) -> bool:
        from facing_env.rules import engine

        return engine.is_over(self.env.battle)

    def _advance(self) -> tuple[float, bool]:
        """Play opponents and dead steps until a living learner creature must act."""
        env, reward = self.env, 0.0
        while env.agents:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
            elif self._mine(agent):
                obs = env.observe(agent)
                self._obs, self._mask = obs["observation"], obs["action_mask"]
                return reward, False
            else:
                obs = env.observe(agent)
                assert self._opponent is not None
                act = choose(
                    self._opponent,
                    obs["observation"],
                    obs["action_mask"],
                    self.np_random,
                    lambda: env.battle,
                )
                env.step(int(act))
            reward += self._team_reward()
        mine = [a for a in env.possible_agents if self._mine(a)]
        last = env.observe(mine[0])
        self._obs, self._mask = last["observation"], last["action_mask"]
        return reward, True

    def _info(self, done: bool) -> dict[str, Any]:
        info: dict[str, Any] = {"team": self.team, "opponent": self.opponent_name}
        if done:
            from facing_env.rules import engine

            winner = engine.winner(self.env.battle) if self._decided() else None
            info["winner"] = winner
            info["won"] = winner == self.team
            info["rounds"] = self.env.battle.initiative.round
            info["dice"] = self.env.dice_mode
        return info
