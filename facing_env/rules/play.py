"""One battle played by the readable engine, for the AEC env: the twin of a one-battle
:class:`~facing_env.fast.batch.BatchEngine`.

:class:`ReadableBattle` starts a battle as the compiled engine does (the scenario's build,
then the dice, from the env's generator), applies action indices with
:func:`facing_env.rules.engine.apply`, lists the legal actions with
:func:`~facing_env.rules.legality.legal_actions`, observes with
:mod:`facing_env.rules.observation` and pays the rewards of :mod:`facing_env.rewards`.
Nothing here is compiled, so it needs no kernel cache: the AEC env plays on it with
``raw_env(engine="readable")``, and with ``engine="auto"`` (the default) while the kernels
are not compiled yet (:func:`facing_env.fast.cache.kernels_ready`). The battles are the
compiled engine's, action for action: ``tests/test_env_reference.py`` plays both side by
side on every scenario and compares observations, masks, rewards and events.

It steps about 1,000 actions a second on one core (a 2-core machine, the duel), against
the compiled engine's 20,000 or so.
"""

from __future__ import annotations

import numpy as np

from facing_env import rewards
from facing_env.actions import END_TURN_INDEX
from facing_env.events import Event
from facing_env.observation import BOUND, ObservationLayout
from facing_env.rules import engine
from facing_env.rules.battle import Battle
from facing_env.rules.codec import ActionCodec, creature_slots
from facing_env.rules.dice import Dice
from facing_env.rules.observation import build
from facing_env.scenario import Scenario

__all__ = ["ReadableBattle"]


class ReadableBattle:
    """A battle of ``scenario`` stepped by the object engine (module docstring).

    After :meth:`start` and after every :meth:`step`: ``battle`` and ``dice`` are the
    battle's state, ``mask`` the acting creature's legal actions (int8, the codec's
    layout; END_TURN alone when nobody acts) and ``earned`` what each creature earned in
    that call, by creature id."""

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

    def start(self, rng: np.random.Generator, dice_mode: str) -> list[Event]:
        """Build and start a battle with ``rng`` (the compiled engine's order of draws:
        the build, then the dice seed); returns the start's events."""
        battle = self.battle = self.scenario.build(rng)
        self.dice = Dice(rng, dice_mode)
        self.teams = {cid: c.team for cid, c in battle.creatures.items()}
        self.slots = {cid: creature_slots(battle, cid) for cid in battle.creatures}
        events = engine.start(battle, self.dice, flat_footed_start=self.flat_footed_start)
        self.earned = {}
        self.scan()
        return events

    def actor(self) -> str | None:
        """The id of the creature whose turn it is (None when the battle is over)."""
        assert self.battle is not None
        c = engine.actor(self.battle)
        return c.id if c is not None else None

    def scan(self) -> None:
        """List the acting creature's legal actions into :attr:`mask` (again after the
        battle was changed by hand)."""
        battle = self.battle
        assert battle is not None
        self.mask[:] = 0
        cid = self.actor()
        if cid is None:
            self.mask[END_TURN_INDEX] = 1
            return
        for action in engine.legal_actions(battle):
            self.mask[self.codec.encode(battle, self.slots[cid], action)] = 1

    def step(self, index: int) -> tuple[list[Event], bool, bool]:
        """Apply the acting creature's action ``index`` (one :attr:`mask` allows); returns
        the events, whether the battle is over and whether it was cut at the round limit
        (:attr:`earned` then holds the step's rewards, the outcome's included)."""
        battle, dice = self.battle, self.dice
        assert battle is not None and dice is not None
        cid = self.actor()
        assert cid is not None
        decoded = self.codec.decode(battle, self.slots[cid], index)
        events = engine.apply(battle, decoded, dice)
        weights = self.scenario.rewards
        earned = rewards.event_rewards(events, self.teams, weights)
        over = engine.is_over(battle)
        truncated = not over and battle.initiative.round > self.max_rounds
        if over:
            outcome = rewards.outcome_rewards(self.teams, engine.winner(battle), weights)
        else:
            outcome = dict.fromkeys(self.teams, weights.draw) if truncated else {}
        for k, value in outcome.items():
            earned[k] = earned.get(k, 0.0) + value
        self.earned = earned
        self.scan()
        return events, over, truncated

    def observe(self, cid: str) -> np.ndarray:
        """Creature ``cid``'s observation vector (clipped to ``observation.BOUND``, as
        the compiled writer's)."""
        assert self.battle is not None
        vector = build(self.battle, self.slots[cid], self.layout, self.max_rounds)
        return np.clip(vector, -BOUND, BOUND)
