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
    From the engine's events (:mod:`facing_env.rules.rewards`): damage dealt to enemies, with
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
Engine
    The battle is a row of arrays stepped by the batched engine (:mod:`facing_env.fast`,
    the same kernels as :class:`facing_env.vector.VectorEnv`, for one battle): ``step``
    is one compiled call (decode, apply, end empty turns, rewards), ``observe`` another.
    ``reset`` builds and starts the first battle with the object engine (the readable
    reference, :mod:`facing_env.rules.engine`) and loads it into the arrays; later battles of a
    fixed scenario restart in the arrays (:mod:`facing_env.fast.turns`). ``battle`` is a snapshot of
    that :class:`~facing_env.rules.battle.Battle`, written from the arrays when read;
    ``set_battle`` puts a battle edited by hand in play. ``events`` turns
    the steps' events into records when read. ``tests/test_env_reference.py`` plays every
    scenario in this env and in the object engine with the reference observation and
    finds them identical.
Version history
    v0: first release.
    v1: charge, withdraw and readied attacks (``READY`` at 34, the ``CHARGE`` and
    ``WITHDRAW`` slot blocks after ``ATTACK``, which moves to 35); player characters trade
    attacks for 5-foot steps; reach flanking by corners (EP-FLANK-06); the observation
    gains the tactics part (readied, charging, player character, charge lanes, withdrawal,
    tradeable steps). Trajectories of v0 seeds change.
    v2: the dice are a counter-based stream keyed by a per-battle dice seed
    (:mod:`facing_env.rules.dice`), so the batched engine rolls the same numbers; layouts are
    unchanged, trajectories of v1 seeds change.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import conversions, wrappers

from facing_env import observation
from facing_env.actions import END_TURN_INDEX
from facing_env.errors import EnvStateError, IllegalActionError
from facing_env.events import Event
from facing_env.fast.batch import BatchEngine
from facing_env.fast.events import allocate_events
from facing_env.fast.state import load, store_dice
from facing_env.limits import MAX_ROUNDS, short_repr
from facing_env.observation import ObservationLayout
from facing_env.render.text import board_text
from facing_env.rules import engine
from facing_env.rules.battle import Battle, agent_names
from facing_env.rules.checks import check_edit, check_seed, finite_number, is_int
from facing_env.rules.codec import ActionCodec, creature_slots
from facing_env.rules.dice import Dice, check_mode
from facing_env.rules.play import ReadableBattle
from facing_env.scenario import DEFAULT_SCENARIO, Scenario, load_scenario, reward_weights
from facing_env.types import Perception
from facing_env.warm import plays_readable, resolve_engine

ILLEGAL_ACTIONS = ("raise", "end_turn")
"""What ``raw_env(illegal_action=...)`` does with an action the mask forbids."""


PERCEPTIONS: tuple[str, ...] = tuple(p.value for p in Perception)
"""The ``perception`` options (:class:`~facing_env.types.Perception`, issue 36): ``full``
(the default: every creature sees the whole board) or ``facing`` (a foe wholly in a
creature's rear area is hidden from it unless heard; docs/api.md)."""

LOG_CAPACITY = 4096
"""Events the env gathers as arrays before turning them into records."""


@dataclasses.dataclass(frozen=True)
class EnvSpec:
    """What a battle of a scenario looks like from outside, for the given options: the
    scenario (with any reward override), the round limit, dice and start, the observation
    layout and the action codec, the agents' names, the spaces and the global state's size.
    Built once by :meth:`build` (which checks every option) and shared by :class:`raw_env`
    and :class:`~facing_env.vector.VectorEnv`, so both read one description."""

    scenario: Scenario
    max_rounds: int
    dice_mode: str
    flat_footed_start: bool
    layout: ObservationLayout
    codec: ActionCodec
    possible_agents: tuple[str, ...]
    observation_space: spaces.Dict
    action_space: spaces.Discrete
    state_dims: tuple[int, int]
    """The board the global ``state()`` covers: a procedural scenario's largest."""
    state_space: spaces.Box

    @classmethod
    def build(
        cls,
        scenario: str | Scenario = DEFAULT_SCENARIO,
        *,
        max_rounds: int | None = None,
        dice: str | None = None,
        window: int | None = None,
        flat_footed_start: bool = True,
        rewards: Mapping[str, float] | None = None,
        max_cycles: int | None = None,
        perception: str | None = None,
    ) -> EnvSpec:
        """The spec of ``scenario`` (a name, a path or a :class:`Scenario`) with these
        options (``raw_env``'s keywords); a ``ValueError`` names a bad one."""
        if max_cycles is not None:  # PettingZoo's name for the episode limit: rounds here
            if max_rounds is not None and max_rounds != max_cycles:
                raise ValueError(
                    f"max_cycles ({short_repr(max_cycles)}) and max_rounds "
                    f"({short_repr(max_rounds)}) are the same limit: give one"
                )
            max_rounds = max_cycles
        if not isinstance(scenario, (str, Scenario)):
            raise TypeError(
                "scenario must be a scenario's name, a path to its file or a Scenario, got "
                f"{type(scenario).__name__} {short_repr(scenario)}"
            )
        source = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
        if rewards is not None:
            source = dataclasses.replace(source, rewards=reward_weights(source.rewards, rewards))
        if perception is not None:
            if perception not in PERCEPTIONS:
                raise ValueError(
                    f"perception must be one of {PERCEPTIONS}, got {short_repr(perception)}"
                )
            source = dataclasses.replace(source, perception=str(perception))
        if max_rounds is not None and not is_int(max_rounds, 1, MAX_ROUNDS):
            got = short_repr(max_rounds)
            raise ValueError(f"max_rounds must be an integer from 1 to {MAX_ROUNDS}, got {got}")
        if dice is not None:
            check_mode(dice, "dice")
        if window is not None and not (is_int(window, 3, 63) and window % 2):
            raise ValueError(
                "window must be an odd integer from 3 to 63 (the window is centred on the "
                f"acting creature), got {short_repr(window)}"
            )
        layout = ObservationLayout(window or source.observation.window, source.max_creatures())
        codec = ActionCodec(layout.n_slots)
        probe = source.build(np.random.default_rng(0))
        gen = source.generator
        if gen is not None:
            names = [f"{t}_{i}" for t in gen.teams for i in range(gen.team_size[1])]
            dims = (gen.width[1], gen.height[1])
        else:
            names, dims = agent_names(probe.creatures.values()), (probe.width, probe.height)
        bound = observation.BOUND
        return cls(
            scenario=source,
            max_rounds=max_rounds or source.max_rounds,
            dice_mode=dice or source.dice,
            flat_footed_start=flat_footed_start,
            layout=layout,
            codec=codec,
            possible_agents=tuple(names),
            observation_space=spaces.Dict(
                {
                    "observation": spaces.Box(-bound, bound, (layout.size,), np.float32),
                    "action_mask": spaces.Box(0, 1, (codec.n,), np.int8),
                }
            ),
            action_space=spaces.Discrete(codec.n),
            state_dims=dims,
            state_space=spaces.Box(
                -bound, bound, (observation.state_size(*dims, layout.n_slots),), np.float32
            ),
        )


ENV_OPTIONS: tuple[str, ...] = tuple(
    name for name in inspect.signature(EnvSpec.build).parameters if name != "scenario"
)
"""The battle options of :meth:`EnvSpec.build` (``raw_env``'s keywords that ``VectorEnv``
passes on), read from its signature."""


class raw_env(AECEnv):
    """Facing-aware d20 combat, one agent per creature (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "rgb_array", "human"],
        "name": "facing_env_v2",
        "is_parallelizable": False,  # turns are taken one creature at a time
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
        max_cycles: int | None = None,
        perception: str | None = None,
        illegal_action: str = "raise",
        illegal_penalty: float = -0.1,
        engine: str | None = None,
        flat_observation: bool = False,
    ) -> None:
        super().__init__()
        self.engine = resolve_engine(engine)
        """What the battles play on (:data:`facing_env.warm.ENGINES`); ``"auto"`` decides at each
        ``reset`` (the kernels once they are compiled, the readable engine before)."""
        self._play: ReadableBattle | None = None
        if not isinstance(flat_observation, (bool, np.bool_)):
            raise ValueError(
                f"flat_observation must be True or False, got {short_repr(flat_observation)}"
            )
        self.flat_observation = bool(flat_observation)
        """Whether an observation is the vector alone (a ``Box``) with every agent's mask
        in ``infos[agent]["action_mask"]``, for wrappers that take Box observations only
        (SuperSuit's ``frame_stack``, ``pad_observations``, ``black_death``); otherwise
        the ``{"observation", "action_mask"}`` dict."""
        if illegal_action not in ILLEGAL_ACTIONS:
            raise ValueError(
                f"illegal_action must be one of {ILLEGAL_ACTIONS}, got {short_repr(illegal_action)}"
            )
        self.illegal_action = illegal_action
        """``"raise"``: an action the mask forbids raises :class:`IllegalActionError`;
        ``"end_turn"``: it ends the creature's turn instead, adds ``illegal_penalty`` to its
        reward and reports the index as ``info["illegal_action"]`` (for learners without
        masking; ``env()`` then leaves out PettingZoo's ``TerminateIllegalWrapper``)."""
        self.illegal_penalty = finite_number(illegal_penalty, "illegal_penalty")
        spec = EnvSpec.build(
            scenario,
            max_rounds=max_rounds,
            dice=dice,
            window=window,
            flat_footed_start=flat_footed_start,
            rewards=rewards,
            max_cycles=max_cycles,
            perception=perception,
        )
        self.env_spec = spec
        """What a battle of this env looks like (shared with
        :class:`~facing_env.vector.VectorEnv`)."""
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        self.render_mode = render_mode
        self.scenario = spec.scenario
        self.max_rounds = spec.max_rounds
        self.defer_dead_steps = False
        """Whether creatures dropped mid-battle keep their dead step until the battle is
        over (:func:`facing_env.skip_dead_steps` sets it): the selected agent is then
        alive until the end."""
        self.dice_mode = spec.dice_mode
        self.flat_footed_start = spec.flat_footed_start
        self.layout = spec.layout
        self.codec = spec.codec
        self._rng = np.random.default_rng()
        self._log = allocate_events(1, LOG_CAPACITY)  # the steps' events, not yet read
        self.possible_agents = list(spec.possible_agents)
        self._obs_space = (
            spec.observation_space["observation"] if flat_observation else spec.observation_space
        )
        self._act_space = spec.action_space
        self._state_dims = spec.state_dims
        self.state_space = spec.state_space

    def observation_space(self, agent: str) -> spaces.Space:
        """The same space for every agent: the Dict of the observation vector and the
        mask (the vector's Box alone with ``flat_observation``)."""
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Space:
        """The same Discrete space for every agent."""
        return self._act_space

    # -- the engine ---------------------------------------------------------------------

    def _fresh_engine(self) -> BatchEngine:
        """The batched engine for one battle, for the current settings (a wrapper may
        change ``dice_mode``, a caller ``scenario``, from the next battle on)."""
        eng = self.__dict__.get("_engine")
        key = (self.scenario, self.max_rounds, self.flat_footed_start)
        if eng is None or self.__dict__.get("_engine_key") != key:
            eng = BatchEngine(
                self.scenario,
                1,
                agent_names=self.possible_agents,
                layout=self.layout,
                n_actions=self.codec.n,
                dice_mode=self.dice_mode,
                max_rounds=self.max_rounds,
                flat_footed_start=self.flat_footed_start,
                reward_dtype=np.float64,
            )
            self._engine, self._engine_key = eng, key
        eng.set_dice_mode(self.dice_mode)
        return eng

    @property
    def battle(self) -> Battle:
        """A snapshot of the battle as a :class:`~facing_env.rules.battle.Battle` (the object
        engine's form, written from the arrays when read): a copy, so changing it changes
        nothing in play; :meth:`set_battle` puts an edited battle in play."""
        if "_stale" not in self.__dict__:
            raise AttributeError("battle: call reset() first")
        return self._battle.snapshot()

    def set_battle(self, battle: Battle) -> None:
        """Put ``battle`` (a copy of it) in play: this episode's battle edited by hand, as
        :attr:`battle` gave it (the same creatures in the same order, the same board). The
        legal actions are listed again and observations recomputed; the dice go on as they
        were. Raises :class:`EnvStateError` before ``reset``, ``ValueError`` naming what is
        wrong for a battle of other creatures or board, a creature where the rules do not
        allow it, or a battle that is over (:func:`facing_env.rules.checks.check_edit`)."""
        if "_stale" not in self.__dict__:
            raise EnvStateError("set_battle() before reset(): call reset() first")
        check_edit(self._battle, battle)
        if self._play is not None:
            self._play.battle = battle.copy()
            self._play.scan()
        else:
            self._sync_battle()  # the dice up to date before they are written back
            load(self._engine.state, 0, battle, self._dice)
            self._engine.rescan()
            self._stale = True  # the row's battle object is behind the arrays now
        self._obs_cache = {}

    @property
    def dice(self) -> Dice:
        """The battle's dice stream (its seed, mode, draws made so far)."""
        self._sync_battle()
        return self._dice

    @property
    def _battle(self) -> Battle:
        """The battle object, brought up to date with the arrays (not marked as handed
        out: for the env's own reads)."""
        if self._play is not None:
            assert self._play.battle is not None
            return self._play.battle
        self._sync_battle()
        battle = self._engine.templates[0]
        assert battle is not None
        return battle

    def _sync_battle(self) -> None:
        """Write the arrays into the battle object and the dice, if they are behind."""
        if self._stale:
            eng = self._engine
            eng.battle(0)  # written into the row's battle object (made on first use)
            store_dice(eng.state, 0, self._dice)
            self._stale = False

    # -- episode --------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new battle; ``seed`` (None or a non-negative integer) fixes the whole
        trajectory."""
        check_seed(seed)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        if self._readable():
            self._reset_readable()
            return
        self._play = None
        eng = self._fresh_engine()
        battle, self._dice, start_events = eng.start(0, self._rng)
        restarted = eng.templates[0] is None  # restarted in the arrays: no object yet
        self._stale = restarted
        names = agent_names(battle.creatures.values())
        self._begin_agents(battle, names)
        self._names = names  # by creature slot of the arrays
        self._slot = {a: k for k, a in enumerate(names)}
        column = {a: k for k, a in enumerate(self.possible_agents)}
        self._column = [column[a] for a in names]
        self._events = list(start_events)
        self._log.count[0] = 0
        if restarted:  # the start's events are the engine's
            eng.append_log(0, self._log)
        self._obs_cache: dict[str, dict[str, np.ndarray]] = {}
        eng.rewards[0] = 0.0
        self._finish_step(bool(eng.state.actor[0] < 0), False)

    def _readable(self) -> bool:
        """Whether this battle plays on the readable engine (``engine``; for ``"auto"``:
        while the kernels are not compiled, which starts their compile in the
        background, :mod:`facing_env.warm`)."""
        return plays_readable(self.engine)

    def _reset_readable(self) -> None:
        """``reset`` on the readable engine (:class:`~facing_env.rules.play.ReadableBattle`)."""
        play = self._play
        if play is None or (play.scenario, play.max_rounds) != (self.scenario, self.max_rounds):
            play = self._play = ReadableBattle(
                self.scenario, self.layout, self.codec, self.max_rounds, self.flat_footed_start
            )
        play.flat_footed_start = self.flat_footed_start
        start_events = play.start(self._rng, self.dice_mode)
        battle = play.battle
        assert battle is not None
        self._dice, self._stale = play.dice, False
        names = agent_names(battle.creatures.values())
        self._begin_agents(battle, names)
        self._names = names
        self._slot = {a: k for k, a in enumerate(names)}
        self._events = list(start_events)
        self._log.count[0] = 0
        self._obs_cache = {}
        self._finish_step(engine.is_over(battle), False)

    def _begin_agents(self, battle: Battle, names: list[str]) -> None:
        """A new episode's agents (``names``, by creature in spec order) and their
        PettingZoo bookkeeping: ids, teams, table slots, rewards and flags."""
        self.agent_to_id = dict(zip(names, battle.creatures, strict=True))
        self.id_to_agent = {cid: a for a, cid in self.agent_to_id.items()}
        self.teams = {cid: c.team for cid, c in battle.creatures.items()}
        self.slots = {cid: creature_slots(battle, cid) for cid in battle.creatures}
        self.agents = list(names)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._masked: str | None = None  # the agent whose info holds the action mask

    def step(self, action: int | None) -> None:
        """Apply the selected agent's action (``None`` for a dead agent's last step);
        raise :class:`IllegalActionError` for anything but an index of the action space
        for a live agent, :class:`EnvStateError` before ``reset`` or after the end."""
        if "_stale" not in self.__dict__:
            raise EnvStateError("step() before reset(): call reset() first")
        if not self.agents:
            raise EnvStateError("step() after the episode ended: call reset() to start another")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if type(action) is int and 0 <= action < self.codec.n:
            index = action  # the common case, checked without the general path's calls
        else:
            index = self._action_index(agent, action)
        play = self._play
        mask = play.mask if play is not None else self._engine.mask[0]
        illegal = None
        if not mask[index]:
            if self.illegal_action == "raise":
                raise IllegalActionError(self._why_illegal(agent, index))
            illegal, index = index, END_TURN_INDEX
        self._cumulative_rewards[agent] = 0.0
        if play is not None:
            events, over, truncated = play.step(index)
            self._events.extend(events)
            self._finish_step(over, truncated)
        else:
            self._step_arrays(index)
        if illegal is not None:
            self._penalise(agent, illegal)

    def _step_arrays(self, index: int) -> None:
        """``step`` on the kernels: one compiled call, its events gathered as arrays."""
        eng = self._engine
        log = self._log
        if log.count[0] > log.kind.shape[1] - eng.ev.kind.shape[1]:
            self._read_log()  # room for one more step's events
        ends = eng.step_one(index)
        self._stale = True
        eng.append_log(0, log)
        self._finish_step(bool(ends[0]), bool(ends[1]))

    def _penalise(self, agent: str, index: int) -> None:
        """``illegal_action="end_turn"``: the penalty and the refused index of ``agent``'s
        step (its turn was ended instead)."""
        self.rewards[agent] += self.illegal_penalty
        self._cumulative_rewards[agent] += self.illegal_penalty
        if agent in self.infos:
            self.infos[agent]["illegal_action"] = index

    @property
    def events(self) -> list[Event]:
        """Everything that happened in the battle so far, in order (the start's events,
        then every step's). The engine gathers the steps' events as arrays; reading this
        turns those not yet read into :class:`~facing_env.events.Event` records."""
        self._read_log()
        return self._events

    @property
    def damage_ledger(self) -> dict[str, int | float]:
        """The damage each agent's attacks dealt in this battle (from the events)."""
        ledger: dict[str, int | float] = dict.fromkeys(self._names, 0)
        for e in self.events:
            if e.kind == "attack" and e.damage and e.target is not None:
                ledger[self.id_to_agent[e.actor]] += e.damage
        return ledger

    def _read_log(self) -> None:
        """Turn the gathered events into records (appended to ``_events``)."""
        log = self._log
        if log.count[0]:
            self._events.extend(self._engine.log_events(0, log))
            log.count[0] = 0

    def _why_illegal(self, agent: str, index: int) -> str:
        """The object engine's reason that action ``index`` is illegal now."""
        battle = self._battle
        decoded = self.codec.decode(battle, self.slots[self.agent_to_id[agent]], index)
        reason = engine.why_illegal(battle, decoded) or "not among the legal actions"
        return f"illegal action {decoded.kind}({decoded.arg!r}): {reason}"

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

    def _finish_step(self, over: bool, truncated: bool) -> None:
        """The step's rewards (the engine's row: events, outcome, draw), terminations,
        truncations and the next agent, as PettingZoo's AEC API wants them."""
        self._obs_cache = {}
        if self._play is not None:
            actor, mask = self._take_readable(over)
        else:
            actor, mask = self._take_arrays(over)
        if truncated:
            for a in self.agents:
                if not self.terminations[a]:
                    self.truncations[a] = True
        masked = self._masked
        if masked is not None and masked in self.infos:
            self.infos[masked].pop("action_mask", None)
        self._masked = None
        if not over and actor >= 0:
            self.agent_selection = self._masked = self._names[actor]
            # the acting agent's mask in its info too (AgileRL reads it there); a copy
            self.infos[self._masked]["action_mask"] = mask.copy()
        if self.flat_observation:  # every agent's mask in its info (Box-only wrappers)
            for a in self.agents:
                if a != self._masked:
                    self.infos[a]["action_mask"] = self._end_turn_only()
        # AECEnv._accumulate_rewards and _deads_step_first, inlined (same order and result)
        cumulative = self._cumulative_rewards
        for a, value in self.rewards.items():
            cumulative[a] += value
        if self.defer_dead_steps and not over and not truncated:
            return  # dropped creatures take their dead steps once the battle is over
        for a in self.agents:
            if self.terminations[a] or self.truncations[a]:
                self._skip_agent_selection = self.agent_selection
                self.agent_selection = a
                break

    def _take_arrays(self, over: bool) -> tuple[int, np.ndarray]:
        """The step's rewards and terminations from the kernels' arrays; the acting
        creature's slot (-1: none) and its mask."""
        state, row = self._engine.state, self._engine.rewards[0]
        step_rewards, slot, column = self.rewards, self._slot, self._column
        hp = state.hp[0]
        for a in self.agents:
            k = slot[a]
            step_rewards[a] = float(row[column[k]])
            if over or hp[k] <= 0:
                self.terminations[a] = True
        return int(state.actor[0]), self._engine.mask[0]

    def _take_readable(self, over: bool) -> tuple[int, np.ndarray]:
        """:meth:`_take_arrays` from the readable engine's battle."""
        play = self._play
        assert play is not None and play.battle is not None
        creatures, earned = play.battle.creatures, play.earned
        for a in self.agents:
            cid = self.agent_to_id[a]
            self.rewards[a] = float(earned.get(cid, 0.0))
            if over or creatures[cid].hp <= 0:
                self.terminations[a] = True
        actor = play.actor()
        return (self._slot[self.id_to_agent[actor]] if actor is not None else -1), play.mask

    # -- views ----------------------------------------------------------------------------

    def observe(self, agent: str) -> dict[str, np.ndarray] | np.ndarray:
        """The agent's observation and action mask (END_TURN alone for anyone but the
        actor); with ``flat_observation`` the vector alone (the mask is in its info)."""
        obs = self._observation(agent)
        return obs["observation"] if self.flat_observation else obs

    def _observation(self, agent: str) -> dict[str, np.ndarray]:
        """:meth:`observe`'s dict (cached until the next step)."""
        cached = self._obs_cache.get(agent)
        if cached is not None:
            return cached
        k = self._slot.get(agent)
        if k is None:
            return self._absent(agent)
        play = self._play
        if play is not None:
            cid = self.agent_to_id[agent]
            acting, vector = play.actor() == cid, play.observe(cid)
            mask = play.mask
        else:
            eng = self._engine
            acting, vector = int(eng.state.actor[0]) == k, eng.observe_one(k).copy()
            mask = eng.mask[0]
        # not this agent's turn (or it is dead, or the battle is over): END_TURN alone
        obs = {
            "observation": vector,
            "action_mask": mask.copy() if acting else self._end_turn_only(),
        }
        self._obs_cache[agent] = obs
        return obs

    def _absent(self, agent: str) -> dict[str, np.ndarray]:
        """A placeholder for a possible agent that is not in this battle (a procedural
        scenario draws fewer creatures than it may): zeros and the END_TURN-only mask, as
        wrappers that observe every possible agent expect (TorchRL, SuperSuit)."""
        if agent not in self.possible_agents:
            raise KeyError(f"observe({agent!r}): not one of possible_agents")
        shape = self.env_spec.observation_space["observation"].shape
        return {
            "observation": np.zeros(shape, dtype=np.float32),
            "action_mask": self._end_turn_only(),
        }

    def _end_turn_only(self) -> np.ndarray:
        """The mask of an agent that is not acting: END_TURN alone (never applied; masked
        samplers never see an all-zero mask)."""
        mask = np.zeros(self.codec.n, dtype=np.int8)
        mask[END_TURN_INDEX] = 1
        return mask

    def state(self) -> np.ndarray:
        """A global view of the battle (see :func:`facing_env.observation.build_state`)."""
        if "_stale" not in self.__dict__:
            raise EnvStateError("state() before reset(): call reset() first")
        vec = observation.build_state(self._battle, *self._state_dims, self.scenario.teams)
        out = np.zeros(self.state_space.shape, dtype=np.float32)
        out[: min(len(vec), len(out))] = vec[: len(out)]
        np.clip(out, -observation.BOUND, observation.BOUND, out=out)
        return out

    def render(self) -> str | np.ndarray | None:
        """``ansi``: the board as text; ``rgb_array``: an ``H x W x 3`` uint8 frame, one
        shape for the whole env (:mod:`facing_env.render.frames`); ``human``: that frame in a
        pygame window (returns None)."""
        if self.render_mode is None:
            return None
        battle = self._battle
        actor = engine.actor(battle)
        active = actor.id if actor else None
        if self.render_mode == "ansi":
            return board_text(battle, active=active)
        from facing_env.render import canvas, window
        from facing_env.render import frames as pictures

        layout = canvas.Layout.of(battle, self._state_dims, len(self.possible_agents))
        frame = pictures.frame(
            battle, layout, active=active, attack=canvas.last_attack(self.events)
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


def env(**kwargs: Any) -> AECEnv:
    """The environment with PettingZoo's safety wrappers (an illegal action: -1 and the game
    over, unless ``illegal_action="end_turn"`` asks the env to end the turn instead)."""
    e: AECEnv = raw_env(**kwargs)
    if e.illegal_action == "raise":
        e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


def parallel_env(**kwargs: Any) -> TurnBasedParallel:
    """The parallel API through PettingZoo's turn-based conversion
    (:class:`TurnBasedParallel`)."""
    return TurnBasedParallel(env(**kwargs))


class TurnBasedParallel(conversions.turn_based_aec_to_parallel_wrapper):
    """PettingZoo's ``turn_based_aec_to_parallel``, with what wrappers that index every
    possible agent expect (TorchRL's ``PettingZooWrapper``, issue 34): a possible agent
    that is not in this battle (a procedural scenario draws fewer creatures than it may)
    gets the placeholder observation (zeros, the END_TURN-only mask) and an empty info
    from ``reset`` (PettingZoo's parallel API allows keys beyond ``agents``), so a
    wrapper can size every agent's entries; ``step`` leaves it out, as it does a dead
    creature. ``step`` after the battle is over returns five empty dicts (the
    conversion returns four)."""

    def reset(
        self, seed: int | None = None, options: dict | None = None
    ) -> tuple[dict[str, Any], dict[str, dict]]:
        """PettingZoo's reset, with placeholders for the absent agents."""
        observations, infos = super().reset(seed=seed, options=options)
        return self._placeholders(observations, infos)

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """PettingZoo's step (five empty dicts once nobody is left)."""
        out = super().step(actions)
        if len(out) < 5:  # noqa: PLR2004 (the conversion's four empty dicts: nobody is left)
            return {}, {}, {}, {}, {}
        return out

    def _placeholders(
        self, observations: dict[str, Any], infos: dict[str, dict]
    ) -> tuple[dict[str, Any], dict[str, dict]]:
        raw = self.aec_env.unwrapped
        for agent in self.possible_agents:
            if agent not in raw.agent_to_id:
                observations[agent] = raw.observe(agent)
                infos[agent] = {}
        return observations, infos


class SkipDeadSteps(wrappers.BaseWrapper):
    """An AEC env whose selected agent is alive until the battle is over (issue 34).

    PettingZoo selects a creature dropped mid-battle at once for its dead step
    (``step(None)``); trainers that end an episode when the selected agent reports
    ``termination`` (Tianshou's PettingZoo env, TorchRL's AEC path) then cut the battle
    at the first death. Under this wrapper the dropped creatures stay in ``agents``
    (terminated, their rewards 0 from then on) and take their dead steps once the battle
    is over, with everyone else's, so ``agent_iter`` and PettingZoo's API test run as
    usual. It sets the unwrapped env's ``defer_dead_steps``."""

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        if not hasattr(env.unwrapped, "defer_dead_steps"):
            raise TypeError("skip_dead_steps wraps a facing_env environment")
        env.unwrapped.defer_dead_steps = True


def skip_dead_steps(env: AECEnv) -> SkipDeadSteps:
    """``env`` wrapped in :class:`SkipDeadSteps` (the selected agent is alive until the
    battle is over): ``facing_env.skip_dead_steps(facing_env.env(scenario="skirmish"))``."""
    return SkipDeadSteps(env)
