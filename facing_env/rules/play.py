"""One battle played by the readable engine, for the AEC env: the twin of a one-battle
:class:`~facing_env.fast.batch.BatchEngine`.

:class:`ReadableBattle` starts a battle as the compiled engine does (the scenario's build,
then the dice, from the env's generator), applies action indices with
:func:`facing_env.rules.engine.apply`, lists the legal actions with
:func:`~facing_env.rules.legality.legal_actions`, observes with
:mod:`facing_env.rules.observation` and pays the rewards of :mod:`facing_env.rules.rewards`.
Nothing here is compiled, so it needs no kernel cache: the AEC env plays on it with
``raw_env(engine="readable")``, and with ``engine="auto"`` (the default) while the kernels
are not compiled yet (:func:`facing_env.warm.kernels_ready`). The battles are the
compiled engine's, action for action: ``tests/test_env_reference.py`` plays both side by
side on every scenario and compares observations, masks, rewards and events.

It steps about 1,000 actions a second on one core (a 2-core machine, the duel), against
the compiled engine's 20,000 or so.
"""

from __future__ import annotations

import numpy as np

from facing_env.errors import EnvStateError
from facing_env.events import Event
from facing_env.observation import BOUND, ObservationLayout
from facing_env.rules import engine, rewards
from facing_env.rules.battle import Battle
from facing_env.rules.battle import agent_names as engine_agent_names
from facing_env.rules.codec import ActionCodec, creature_slots
from facing_env.rules.dice import Dice
from facing_env.rules.observation import build
from facing_env.scenario import Scenario

__all__ = ["ReadableBattle", "ReadableEngine"]


class ReadableBattle:
    """A battle of ``scenario`` stepped by the object engine (module docstring).

    After :meth:`start` and after every :meth:`step`: ``battle`` and ``dice`` are the
    battle's state, ``mask`` the acting creature's legal actions (int8, the codec's
    layout; nothing allowed when nobody acts, as the kernels' mask) and ``earned`` what
    each creature earned in that call, by creature id."""

    def __init__(
        self,
        scenario: Scenario,
        layout: ObservationLayout,
        codec: ActionCodec,
        max_rounds: int,
        flat_footed_start: bool,
    ) -> None:
        self.scenario = scenario
        self.layout = layout
        self.codec = codec
        self.max_rounds = max_rounds
        self.flat_footed_start = flat_footed_start
        self.mask = np.zeros(codec.n, dtype=np.int8)
        self.earned: dict[str, float] = {}
        self.battle: Battle | None = None
        self.dice: Dice | None = None
        self.teams: dict[str, str] = {}
        self.slots: dict[str, list[str]] = {}
        self.gone: set[str] = set()
        """Creatures down before the last step: they earn nothing more (the kernels'
        ``gone``)."""

    def start(self, rng: np.random.Generator, dice_mode: str) -> list[Event]:
        """Build and start a battle with ``rng`` (the compiled engine's order of draws:
        the build, then the dice seed); returns the start's events."""
        battle = self.battle = self.scenario.build(rng)
        self.dice = Dice(rng, dice_mode)
        self.teams = {cid: c.team for cid, c in battle.creatures.items()}
        self.slots = {cid: creature_slots(battle, cid) for cid in battle.creatures}
        events = engine.start(battle, self.dice, flat_footed_start=self.flat_footed_start)
        self.earned = {}
        self.gone = set()
        self.scan()
        return events

    def actor(self) -> str | None:
        """The id of the creature whose turn it is (None when the battle is over)."""
        assert self.battle is not None
        c = engine.actor(self.battle)
        return c.id if c is not None else None

    def scan(self) -> None:
        """List the acting creature's legal actions into :attr:`mask` (again after the
        battle was changed by hand); nothing when nobody acts (the battle is over)."""
        battle = self.battle
        assert battle is not None
        self.mask[:] = 0
        cid = self.actor()
        if cid is None:
            return
        for action in engine.legal_actions(battle):
            self.mask[self.codec.encode(battle, self.slots[cid], action)] = 1

    def step(self, index: int) -> tuple[list[Event], bool, bool]:
        """Apply the acting creature's action ``index`` (one :attr:`mask` allows); returns
        the events, whether the battle is over and whether it was cut at the round limit
        (:attr:`earned` then holds the step's rewards, the outcome's included)."""
        battle, dice = self.battle, self.dice
        cid = self.actor() if battle is not None else None
        if battle is None or dice is None or cid is None or not self.mask[index]:
            raise EnvStateError(
                f"action {index}: no creature can take it (the battle is over, not started,"
                " or the action is not among the legal ones)"
            )
        decoded = self.codec.decode(battle, self.slots[cid], index)
        events = engine.apply(battle, decoded, dice)
        over = engine.is_over(battle)
        truncated = not over and battle.initiative.round > self.max_rounds
        self.earned = self._earned(events, over, truncated)
        self.gone |= {k for k, c in battle.creatures.items() if c.hp <= 0}
        self.scan()
        return events, over, truncated

    def _earned(self, events: list[Event], over: bool, truncated: bool) -> dict[str, float]:
        """The step's rewards by creature (the kernels' ``step_rewards``): the events',
        then the outcome when the battle is over, or the draw at the round limit for those
        still standing; a creature down before this step earns nothing."""
        battle = self.battle
        assert battle is not None
        weights = self.scenario.rewards
        earned = rewards.event_rewards(events, self.teams, weights)
        if over:
            outcome = rewards.outcome_rewards(self.teams, engine.winner(battle), weights)
        elif truncated:
            outcome = {k: weights.draw for k, c in battle.creatures.items() if c.hp > 0}
        else:
            outcome = {}
        for k, value in outcome.items():
            earned[k] = earned.get(k, 0.0) + value
        return {k: v for k, v in earned.items() if k not in self.gone}

    def observe(self, cid: str) -> np.ndarray:
        """Creature ``cid``'s observation vector (clipped to ``observation.BOUND``, as
        the compiled writer's)."""
        assert self.battle is not None
        vector = build(self.battle, self.slots[cid], self.layout, self.max_rounds)
        return np.clip(vector, -BOUND, BOUND)


KEEP = -2
"""A slot for :meth:`ReadableEngine.observe_slots` that leaves the row as it is (the
compiled writer's ``fast.observation.KEEP``; -1 writes zeros)."""


class RowState:
    """The few per-battle arrays :class:`~facing_env.vector.VectorEnv` reads from an
    engine's ``state``, kept up to date by :class:`ReadableEngine`: the acting creature's
    slot (-1: none), the round, the creature count and each creature's team index."""

    def __init__(self, n: int, slots: int) -> None:
        self.actor = np.full(n, -1, dtype=np.int32)
        self.round = np.zeros(n, dtype=np.int32)
        self.n_creatures = np.zeros(n, dtype=np.int32)
        self.team = np.zeros((n, slots), dtype=np.int32)


class ReadableEngine:
    """N battles, each a :class:`ReadableBattle`, behind the interface
    :class:`~facing_env.vector.VectorEnv` uses of the compiled
    :class:`~facing_env.fast.batch.BatchEngine` (``start``, ``step``, ``observe``,
    ``observe_slots``, ``mask``, ``rewards``, ``agent_of``, ``team_names``, ``state``,
    ``battle``, ``events``, dice modes): ``VectorEnv(engine="readable")``, and ``"auto"``
    while the kernels are not compiled. One Python loop over the battles: about 200
    steps a second in all (each writes the acting creature's observation cell by cell),
    against the kernels' hundreds of thousands."""

    threads = 1

    def __init__(
        self,
        scenario: Scenario,
        n: int,
        *,
        agent_names: list[str],
        layout: ObservationLayout,
        codec: ActionCodec,
        dice_mode: str,
        max_rounds: int,
        flat_footed_start: bool,
        record_events: bool = False,
    ) -> None:
        self.num_envs = n
        self.plays = [
            ReadableBattle(scenario, layout, codec, max_rounds, flat_footed_start) for _ in range(n)
        ]
        self._column = {a: c for c, a in enumerate(agent_names)}
        slots = layout.n_slots
        self.state = RowState(n, slots)
        self.mask = np.zeros((n, codec.n), dtype=np.int8)
        self.rewards = np.zeros((n, len(agent_names)), dtype=np.float32)
        self.agent_of = np.zeros((n, slots), dtype=np.int64)
        self.team_names: list[list[str]] = [[] for _ in range(n)]
        self.observations = np.zeros((n, layout.size), dtype=np.float32)
        self.record_events = record_events
        self.events: list[list[Event]] = [[] for _ in range(n)]
        self._modes = [dice_mode] * n
        self._ids: list[list[str]] = [[] for _ in range(n)]

    def start(self, i: int, rng: np.random.Generator) -> list[Event]:
        """Start battle ``i`` as the AEC env's ``reset`` does with this generator."""
        play = self.plays[i]
        events = play.start(rng, self._modes[i])
        battle = play.battle
        assert battle is not None
        creatures = list(battle.creatures.values())
        names = engine_agent_names(creatures)
        self._ids[i] = [c.id for c in creatures]
        self.team_names[i] = list(dict.fromkeys(c.team for c in creatures))
        self.agent_of[i] = 0
        self.agent_of[i, : len(names)] = [self._column[a] for a in names]
        self.state.n_creatures[i] = len(creatures)
        self.state.team[i] = 0
        self.state.team[i, : len(creatures)] = [self.team_names[i].index(c.team) for c in creatures]
        self.events[i] = list(events) if self.record_events else []
        self._sync(i)
        return events

    def _sync(self, i: int) -> None:
        """Row ``i``'s actor, round and mask from its battle."""
        play = self.plays[i]
        assert play.battle is not None
        cid = play.actor()
        self.state.actor[i] = self._ids[i].index(cid) if cid is not None else -1
        self.state.round[i] = play.battle.initiative.round
        self.mask[i] = play.mask

    def step(
        self, actions: np.ndarray, active: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Apply one action per battle (only the ``active`` ones); returns ``(terminated,
        truncated)``, each ``(N,)`` bool, and leaves the step's rewards in
        :attr:`rewards` (by possible agent)."""
        n = self.num_envs
        terminated = np.zeros(n, dtype=bool)
        truncated = np.zeros(n, dtype=bool)
        self.rewards[:] = 0.0
        for i in range(n):
            if active is not None and not active[i]:
                continue
            play = self.plays[i]
            events, over, cut = play.step(int(actions[i]))
            terminated[i], truncated[i] = over, cut
            for k, cid in enumerate(self._ids[i]):
                self.rewards[i, self.agent_of[i, k]] = play.earned.get(cid, 0.0)
            if self.record_events:
                self.events[i].extend(events)
            self._sync(i)
        return terminated, truncated

    def winner(self, i: int) -> int:
        """The index (in :attr:`team_names`) of battle ``i``'s winning team, -1 for none."""
        battle = self.plays[i].battle
        assert battle is not None
        team = engine.winner(battle)
        return self.team_names[i].index(team) if team is not None else -1

    def observe(self, rows: np.ndarray | None = None) -> np.ndarray:
        """Every battle's acting creature's observation (the :attr:`observations` buffer;
        with ``rows``, ``(N,)`` bool, only those rows are written)."""
        slots = self.state.actor if rows is None else np.where(rows, self.state.actor, KEEP)
        return self.observe_slots(slots, self.observations)

    def observe_slots(self, slots: np.ndarray, out: np.ndarray) -> np.ndarray:
        """``out[i]``: creature slot ``slots[i]``'s observation of battle ``i`` (zeros for
        -1, unchanged for :data:`KEEP`); returns ``out``."""
        for i, k in enumerate(slots):
            if k == KEEP:
                continue
            out[i] = 0.0 if k < 0 else self.plays[i].observe(self._ids[i][k])
        return out

    def battle(self, i: int) -> Battle:
        """Battle ``i`` (the object itself: read it, do not change it)."""
        battle = self.plays[i].battle
        assert battle is not None
        return battle

    def set_dice_mode(self, mode: str, rows: np.ndarray) -> None:
        """The dice mode of these battles from their next start on."""
        for i in rows:
            self._modes[int(i)] = mode

    def dice_mode(self, i: int) -> str:
        """Battle ``i``'s dice mode from its next start on."""
        return self._modes[i]

    def close(self) -> None:
        """Nothing to stop (no threads)."""
