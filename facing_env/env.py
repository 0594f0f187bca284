"""The PettingZoo AEC environment: a thin view over the engine.

Agents
    One per creature, named ``<team>_<n>`` (n counts the team's creatures in spec order).
    Creatures act in initiative order; the acting agent is ``agent_selection``.
Actions
    ``Discrete(35 + 3K)``, K creature slots: END_TURN, MOVE, STEP_KEEP_FACING,
    FIVE_FOOT_STEP, TURN, RUN, READY, then ATTACK, CHARGE and WITHDRAW per slot; see
    :mod:`facing_env.actions` for the table.
    The ``action_mask`` allows exactly what the engine accepts; END_TURN is always allowed.
Observations
    ``{"observation": Box(float32, (W*W*18 + K*33 + 13 + K*4 + 2,)),
    "action_mask": Box(int8, (n,))}``; layout in :mod:`facing_env.observation` (window
    channels, creature table, scalars, tactics).
    Agents other than the actor (waiting or dead) see their own view with a placeholder
    mask in which only END_TURN is set; they are never asked to act on it.
    ``state()`` gives a global view for centralised critics.
Rewards
    From the engine's events (:mod:`facing_env.rewards`): damage dealt to enemies, with
    scenario weights for damage taken, kills, victory, defeat and draws (``rewards=``, a
    mapping of :class:`~facing_env.scenario.RewardWeights` fields, overrides some of them,
    e.g. ``{"draw": -1.0}``). Rewards earned between an agent's turns reach it at its
    next ``last()``.
Termination and truncation
    A creature at 0 hp or below terminates and must take the dead step (``None``). The
    battle ends when one team is left (everyone terminates) or is truncated after
    ``max_rounds`` rounds.
Illegal actions
    ``raw_env`` raises :class:`~facing_env.errors.IllegalActionError` for an action the
    mask forbids and for anything but an integer index of the action space given for a
    live agent (``None``, floats, booleans, strings, out-of-range numbers); ``env()`` wraps
    it in PettingZoo's ``TerminateIllegalWrapper``: the offender gets -1 and the game ends.
    A ``step`` before ``reset`` or after the episode ended raises
    :class:`~facing_env.errors.EnvStateError`.
Version history
    v0: first release.
    v1: charge, withdraw and readied attacks (``READY`` at 34, the ``CHARGE`` and
    ``WITHDRAW`` slot blocks after ``ATTACK``, which moves to 35); player characters trade
    attacks for 5-foot steps; reach flanking by corners (EP-FLANK-06); the observation
    gains the tactics part (readied, charging, player character, charge lanes, withdrawal,
    tradeable steps). Trajectories of v0 seeds change.
    v2: the dice are a counter-based stream keyed by a per-battle dice seed
    (:mod:`facing_env.dice`), so the batched engine rolls the same numbers; layouts are
    unchanged, trajectories of v1 seeds change.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from facing_env import engine, observation, rewards
from facing_env.actions import END_TURN_INDEX, ActionCodec, creature_slots
from facing_env.dice import Dice, check_mode
from facing_env.errors import EnvStateError, IllegalActionError
from facing_env.limits import MAX_ROUNDS, short_repr
from facing_env.observation import ObservationLayout
from facing_env.render import board_text
from facing_env.scenario import DEFAULT_SCENARIO, Scenario, load_scenario, reward_weights


def _creature_names(battle: Any) -> list[str]:
    """``<team>_<n>`` for every creature in spec order (n counts within its team)."""
    counts: dict[str, int] = {}
    names = []
    for c in battle.creatures.values():
        names.append(f"{c.team}_{counts.get(c.team, 0)}")
        counts[c.team] = counts.get(c.team, 0) + 1
    return names


class raw_env(AECEnv):
    """Facing-aware d20 combat, one agent per creature (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "rgb_array", "human"],
        "name": "facing_env_v2",
        "is_parallelizable": True,
        "render_fps": 4,
    }

    def __init__(
        self,
        scenario: str | Scenario = DEFAULT_SCENARIO,
        render_mode: str | None = None,
        max_rounds: int | None = None,
        dice: str | None = None,
        window: int | None = None,
        flat_footed_start: bool = True,
        rewards: Mapping[str, float] | None = None,
    ) -> None:
        super().__init__()
        self.scenario = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
        if rewards is not None:
            weights = reward_weights(self.scenario.rewards, rewards)
            self.scenario = dataclasses.replace(self.scenario, rewards=weights)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        self.render_mode = render_mode
        if max_rounds is not None and not _is_int(max_rounds, 1, MAX_ROUNDS):
            got = short_repr(max_rounds)
            raise ValueError(f"max_rounds must be an integer from 1 to {MAX_ROUNDS}, got {got}")
        if dice is not None:
            check_mode(dice, "dice")
        if window is not None and not _is_int(window, 3, 63):
            raise ValueError(f"window must be an integer from 3 to 63, got {short_repr(window)}")
        self.max_rounds = max_rounds or self.scenario.max_rounds
        self.dice_mode = dice or self.scenario.dice
        self.flat_footed_start = flat_footed_start
        size = window or self.scenario.observation.window
        self.layout = ObservationLayout(size + (1 - size % 2), self.scenario.max_creatures())
        self.codec = ActionCodec(self.layout.n_slots)
        self._rng = np.random.default_rng()
        self._memo = observation.PairMemo()  # the creature table's memo, for every episode
        probe = self.scenario.build(np.random.default_rng(0))
        self.possible_agents = self._agent_names(probe)
        self._obs_space = spaces.Dict(
            {
                "observation": spaces.Box(
                    -observation.BOUND, observation.BOUND, (self.layout.size,), np.float32
                ),
                "action_mask": spaces.Box(0, 1, (self.codec.n,), np.int8),
            }
        )
        self._act_space = spaces.Discrete(self.codec.n)
        gen = self.scenario.generator
        self._state_dims = (gen.width[1], gen.height[1]) if gen else (probe.width, probe.height)
        self.state_space = spaces.Box(
            -observation.BOUND,
            observation.BOUND,
            (observation.state_size(*self._state_dims, self.layout.n_slots),),
            np.float32,
        )

    def _agent_names(self, battle: Any) -> list[str]:
        """Every possible agent: for a procedural scenario, the largest team sizes."""
        if self.scenario.generator is not None:
            gen = self.scenario.generator
            return [f"{t}_{i}" for t in gen.teams for i in range(gen.team_size[1])]
        return _creature_names(battle)

    def observation_space(self, agent: str) -> spaces.Space:
        """The same Dict space for every agent."""
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Space:
        """The same Discrete space for every agent."""
        return self._act_space

    def share_observation_memo(self, other: raw_env) -> None:
        """Use ``other``'s memo of creature-table rows from the next ``reset`` on (envs of
        one observation layout). A row is keyed by everything it depends on
        (:class:`~facing_env.observation.PairMemo`), so sharing changes no observation; it
        only warms the memo faster (``facing_env.vector.VectorEnv`` shares one among its
        battles)."""
        if other.layout != self.layout:
            raise ValueError(f"layouts differ: {self.layout} and {other.layout}")
        self._memo = other._memo

    # -- episode --------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new battle; ``seed`` fixes the whole trajectory."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.battle = self.scenario.build(self._rng)
        self.dice = Dice(self._rng, self.dice_mode)  # the dice seed: the next draw
        names = _creature_names(self.battle)
        self.agent_to_id = dict(zip(names, self.battle.creatures, strict=True))
        self.id_to_agent = {cid: a for a, cid in self.agent_to_id.items()}
        self.teams = {cid: c.team for cid, c in self.battle.creatures.items()}
        self.slots = {cid: creature_slots(self.battle, cid) for cid in self.battle.creatures}
        self.agents = list(names)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.events = engine.start(self.battle, self.dice, flat_footed_start=self.flat_footed_start)
        self.damage_ledger: dict[str, int] = dict.fromkeys(self.agents, 0)
        self._obs_cache: dict[str, dict[str, np.ndarray]] = {}
        self._board = observation.Board(self.battle, self.layout.window, self._memo)
        self._finish_step(self.events)
        self._scanned = engine.scanned(self.battle)

    def step(self, action: int | None) -> None:
        """Apply the selected agent's action (``None`` for a dead agent's last step);
        raise :class:`IllegalActionError` for anything but an index of the action space
        for a live agent, :class:`EnvStateError` before ``reset`` or after the end."""
        if "battle" not in self.__dict__:
            raise EnvStateError("step() before reset(): call reset() first")
        if not self.agents:
            raise EnvStateError("step() after the episode ended: call reset() to start another")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        index = self._action_index(agent, action)
        self._cumulative_rewards[agent] = 0.0
        cid = self.agent_to_id[agent]
        decoded = self.codec.decode(self.battle, self.slots[cid], index)
        scanned = self._scanned  # the state's key, unless the battle was changed by hand
        events = engine.apply(
            self.battle, decoded, self.dice, scanned[0] if scanned is not None else None
        )
        self.events.extend(events)
        self._finish_step(events)
        self._scanned = engine.scanned(self.battle)

    def _action_index(self, agent: str, action: Any) -> int:
        """``action`` as an index of the action space: an integer (a numpy integer or a
        0-d integer array too), not a boolean, within ``Discrete(n)``."""
        if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
            action = action.item()
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise IllegalActionError(
                f"{agent}: action {short_repr(action)} is not an integer index of"
                f" Discrete({self.codec.n})"
                + (" (None is only for an agent that is done)" if action is None else "")
            )
        index = int(action)
        if not 0 <= index < self.codec.n:
            raise IllegalActionError(
                f"{agent}: action {short_repr(index)} is outside Discrete({self.codec.n})"
            )
        return index

    def _finish_step(self, events: list) -> None:
        self._obs_cache = {}
        battle, step_rewards = self.battle, self.rewards
        for a in self.agents:
            step_rewards[a] = 0.0
        paid = False
        for e in events:
            if e.kind == "attack":
                paid = True
                break
        if paid:  # only attacks and deaths pay
            earned = rewards.event_rewards(events, self.teams, self.scenario.rewards)
            for e in events:
                if e.kind == "attack" and e.damage and e.target is not None:
                    self.damage_ledger[self.id_to_agent[e.actor]] += e.damage
            for cid, value in earned.items():
                agent = self.id_to_agent[cid]
                if agent in step_rewards:
                    step_rewards[agent] += value
        over = engine.is_over(battle)
        if over:
            outcome = rewards.outcome_rewards(
                self.teams, engine.winner(battle), self.scenario.rewards
            )
            for cid, value in outcome.items():
                if self.id_to_agent[cid] in step_rewards:
                    step_rewards[self.id_to_agent[cid]] += value
        creatures = battle.creatures
        for a in self.agents:
            if over or creatures[self.agent_to_id[a]].hp <= 0:
                self.terminations[a] = True
        truncated = not over and battle.initiative.round > self.max_rounds
        if truncated:
            draw = self.scenario.rewards.draw
            for a in self.agents:
                if not self.terminations[a]:
                    self.truncations[a] = True
                    step_rewards[a] += draw
        if not over and battle.turn is not None:  # engine.actor(battle), is_over known
            self.agent_selection = self.id_to_agent[battle.turn.actor]
        # AECEnv._accumulate_rewards and _deads_step_first, inlined (same order and result)
        cumulative = self._cumulative_rewards
        for a, value in step_rewards.items():
            cumulative[a] += value
        for a in self.agents:
            if self.terminations[a] or self.truncations[a]:
                self._skip_agent_selection = self.agent_selection
                self.agent_selection = a
                break

    # -- views ----------------------------------------------------------------------------

    def invalidate_observations(self) -> None:
        """Forget cached observations (they are rebuilt lazily on the next ``observe``).
        Call it after changing ``battle`` by hand: until the next ``step``, observations,
        masks and the legal actions they are built from are reused."""
        self._obs_cache = {}
        self._scanned = None

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The agent's observation and action mask (zeros for anyone but the actor)."""
        cached = self._obs_cache.get(agent)
        if cached is not None:
            return cached
        cid = self.agent_to_id[agent]
        slots = self.slots[cid]
        battle = self.battle
        scanned = self._scanned  # (state key, legal actions) of this state, from the engine
        if scanned is None:
            scanned = self._scanned = (engine.state_key(battle), None)
        key, legal = scanned
        if legal is None:
            legal = engine.legal_tuple(battle, key) if engine.actor(battle) is not None else ()
            self._scanned = (key, legal)
        turn = battle.turn
        if not legal or turn is None or turn.actor != cid:
            legal = None  # not the actor (or the battle is over)
        obs = {
            "observation": observation.build(
                battle, slots, self.layout, self.max_rounds, self._board, key, legal
            ),
            "action_mask": self.codec.mask(battle, slots, legal)
            if legal is not None
            else np.zeros(self.codec.n, dtype=np.int8),
        }
        if not legal:  # the actor's legal actions always include END_TURN
            # Not this agent's turn (or it is dead): only the END_TURN placeholder is set,
            # so masked samplers never see an all-zero mask. It is never applied.
            obs["action_mask"][END_TURN_INDEX] = 1
        self._obs_cache[agent] = obs
        return obs

    def state(self) -> np.ndarray:
        """A global view of the battle (see :func:`facing_env.observation.build_state`)."""
        vec = observation.build_state(self.battle, *self._state_dims, self.scenario.teams)
        out = np.zeros(self.state_space.shape, dtype=np.float32)
        out[: min(len(vec), len(out))] = vec[: len(out)]
        np.clip(out, -observation.BOUND, observation.BOUND, out=out)
        return out

    def render(self) -> str | np.ndarray | None:
        """``ansi``: the board as text; ``rgb_array``: an ``H x W x 3`` uint8 frame, one
        shape for the whole env (:mod:`facing_env.pictures`); ``human``: that frame in a
        pygame window (returns None)."""
        if self.render_mode is None:
            return None
        actor = engine.actor(self.battle)
        active = actor.id if actor else None
        if self.render_mode == "ansi":
            return board_text(self.battle, active=active)
        from facing_env import canvas, pictures, window

        layout = canvas.Layout.of(self.battle, self._state_dims, len(self.possible_agents))
        frame = pictures.frame(
            self.battle, layout, active=active, attack=canvas.last_attack(self.events)
        )
        if self.render_mode == "rgb_array":
            return frame
        if "_window" not in self.__dict__:
            self._window = window.Window(self.metadata["name"], self.metadata["render_fps"])
        self._window.show(frame)
        return None

    def close(self) -> None:
        """Close the ``human`` window, if one was opened."""
        shown = self.__dict__.pop("_window", None)
        if shown is not None:
            shown.close()


def _is_int(value: Any, low: int, high: int) -> bool:
    """Whether ``value`` is an integer (not a boolean) from ``low`` to ``high``."""
    return (
        isinstance(value, (int, np.integer))
        and not isinstance(value, bool)
        and low <= value <= high
    )


def env(**kwargs: Any) -> AECEnv:
    """The environment with PettingZoo's safety wrappers (illegal action: -1, game over)."""
    e: AECEnv = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


def parallel_env(**kwargs: Any) -> Any:
    """The parallel API through PettingZoo's turn-based conversion."""
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel

    return turn_based_aec_to_parallel(env(**kwargs))
