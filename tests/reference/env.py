"""The reference env: the AEC API over the object engine, the oracle of the fast one.

:class:`ReferenceEnv` plays a battle the readable way: :func:`facing_env.rules.engine.apply` on
a :class:`~facing_env.rules.battle.Battle`, legal actions from ``why_illegal``
(:func:`~facing_env.rules.engine.reference_legal_actions`), observations from
``tests/reference/observation.py`` (clipped to ``observation.BOUND`` like the env's) and
rewards from :mod:`facing_env.rewards`. It keeps the attributes of
:class:`facing_env.env.raw_env` that the differential tests read (``battle``, ``dice``,
``events``, ``damage_ledger``, ``agent_to_id``, ``slots``, ``layout``, ...), so a test
steps both with the same actions and compares what they show.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from facing_env import observation, rewards
from facing_env.actions import END_TURN_INDEX
from facing_env.env import raw_env
from facing_env.rules import engine
from facing_env.rules.battle import agent_names
from facing_env.rules.dice import Dice
from tests.reference import observation as reference_observation


class ReferenceEnv(raw_env):
    """``raw_env`` with the object engine and the reference observation underneath (the
    spaces, names and argument checks are raw_env's)."""

    battle = None  # a plain attribute here (raw_env's is a view of its arrays)
    dice = None
    events = None
    damage_ledger = None

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.battle = self.scenario.build(self._rng)
        self.dice = Dice(self._rng, self.dice_mode)
        self._begin_agents(self.battle, agent_names(self.battle.creatures.values()))
        self.events = engine.start(self.battle, self.dice, flat_footed_start=self.flat_footed_start)
        self.damage_ledger = dict.fromkeys(self.agents, 0)
        self._reference_finish(self.events)

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        index = self._action_index(agent, action)
        self._cumulative_rewards[agent] = 0.0
        cid = self.agent_to_id[agent]
        decoded = self.codec.decode(self.battle, self.slots[cid], index)
        events = engine.apply(self.battle, decoded, self.dice)
        self.events.extend(events)
        self._reference_finish(events)

    def _reference_finish(self, events: list) -> None:
        battle, step_rewards = self.battle, self.rewards
        for a in self.agents:
            step_rewards[a] = 0.0
        earned = rewards.event_rewards(events, self.teams, self.scenario.rewards)
        for e in events:
            if e.kind == "attack" and e.damage and e.target is not None:
                self.damage_ledger[self.id_to_agent[e.actor]] += e.damage
        for cid, value in earned.items():
            if self.id_to_agent[cid] in step_rewards:
                step_rewards[self.id_to_agent[cid]] += value
        over = engine.is_over(battle)
        if over:
            outcome = rewards.outcome_rewards(
                self.teams, engine.winner(battle), self.scenario.rewards
            )
            for cid, value in outcome.items():
                if self.id_to_agent[cid] in step_rewards:
                    step_rewards[self.id_to_agent[cid]] += value
        for a in self.agents:
            if over or battle.creatures[self.agent_to_id[a]].hp <= 0:
                self.terminations[a] = True
        if not over and battle.initiative.round > self.max_rounds:
            for a in self.agents:
                if not self.terminations[a]:
                    self.truncations[a] = True
                    step_rewards[a] += self.scenario.rewards.draw
        if not over and battle.turn is not None:
            self.agent_selection = self.id_to_agent[battle.turn.actor]
        self._accumulate_rewards()
        self._deads_step_first()

    def invalidate_observations(self) -> None:
        """Nothing is cached."""

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        cid = self.agent_to_id[agent]
        slots = self.slots[cid]
        vector = reference_observation.build(self.battle, slots, self.layout, self.max_rounds)
        mask = np.zeros(self.codec.n, dtype=np.int8)
        acting = engine.actor(self.battle)
        if acting is not None and acting.id == cid:
            for action in engine.reference_legal_actions(self.battle):
                mask[self.codec.encode(self.battle, slots, action)] = 1
        else:
            mask[END_TURN_INDEX] = 1
        return {
            "observation": np.clip(vector, -observation.BOUND, observation.BOUND),
            "action_mask": mask,
        }

    def state(self) -> np.ndarray:
        vec = observation.build_state(self.battle, *self._state_dims, self.scenario.teams)
        out = np.zeros(self.state_space.shape, dtype=np.float32)
        out[: min(len(vec), len(out))] = vec[: len(out)]
        return np.clip(out, -observation.BOUND, observation.BOUND)

    def render(self) -> Any:
        raise NotImplementedError("the reference env does not render")
