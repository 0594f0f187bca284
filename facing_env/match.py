"""Play one battle between agents, one agent per team, and summarise what happened.

The evaluation (:mod:`facing_env.evaluate`), ``train.py`` and the replay recorder all play
games through :func:`play_game`. Agents follow the protocol of :mod:`facing_env.agents`:
``act(observation, action_mask, rng) -> int``, seeing only what a learner sees.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Mapping, Protocol

import numpy as np

from facing_env import engine
from facing_env.env import raw_env
from facing_env.events import Event

REPLAY_FORMAT = "facing_env.replay/1"
CHOSEN_ATTACKS = ("attack", "cleave")


class Agent(Protocol):
    """Anything that picks a legal action from an observation and its mask."""

    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        """The index of a masked action."""
        ...


@dataclass
class TeamStats:
    """What one team did in one game."""

    damage_dealt: int = 0
    attacks: Counter[str] = field(default_factory=Counter)  # chosen attacks by defender area
    hits: int = 0
    sneak_attacks: int = 0
    attacks_of_opportunity: int = 0
    kills: int = 0


@dataclass
class GameResult:
    """The outcome of one game: the winning team (None for a draw), rounds, per-team stats,
    and everything needed to replay it."""

    scenario: str
    seed: int
    winner: str | None
    rounds: int
    teams: dict[str, TeamStats]
    actions: list[tuple[str, int | None]]
    events: list[Event]


def team_stats(events: list[Event], teams: Mapping[str, str]) -> dict[str, TeamStats]:
    """Per-team statistics from the engine's events (``teams`` maps creature id -> team).

    ``attacks`` counts the attacks a team chose (attacks and cleaves, not attacks of
    opportunity) by where the attacker stood relative to the defender's facing.
    """
    stats = {t: TeamStats() for t in dict.fromkeys(teams.values())}
    last_hit: dict[str, str] = {}
    for e in events:
        if e.kind == "death":
            killer = last_hit.get(e.actor)
            if killer is not None and teams[killer] != teams[e.actor]:
                stats[teams[killer]].kills += 1
            continue
        if e.kind != "attack" or e.target is None:
            continue
        s = stats[teams[e.actor]]
        if e.attack_kind == "aoo":
            s.attacks_of_opportunity += 1
        elif e.attack_kind in CHOSEN_ATTACKS:
            s.attacks[e.defender_area or "none"] += 1
        s.hits += int(e.hit)
        s.sneak_attacks += int(e.sneak_attack)
        if e.damage:
            last_hit[e.target] = e.actor
            if teams[e.target] != teams[e.actor]:
                s.damage_dealt += e.damage
    return stats


def play_game(
    scenario: str,
    team_agents: Mapping[str, Agent],
    seed: int,
    *,
    env: raw_env | None = None,
    **env_kwargs: Any,
) -> GameResult:
    """Play one battle: every creature of team ``t`` is driven by ``team_agents[t]``.

    The battle is seeded with ``seed``; the agents draw from their own generator seeded
    from it, so a game is reproducible from (scenario, agents, seed).
    """
    env = env if env is not None else raw_env(scenario=scenario, **env_kwargs)
    env.reset(seed=seed)
    missing = set(env.scenario.teams) - set(team_agents)
    if missing:
        raise ValueError(f"no agent for team(s) {sorted(missing)} of scenario {scenario!r}")
    rng = np.random.default_rng([seed, 0xFACE])
    actions: list[tuple[str, int | None]] = []
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            action = None
        else:
            team = env.teams[env.agent_to_id[agent]]
            action = int(team_agents[team].act(obs["observation"], obs["action_mask"], rng))
        actions.append((agent, action))
        env.step(action)
    battle = env.battle
    winner = engine.winner(battle) if engine.is_over(battle) else None
    return GameResult(
        scenario=scenario,
        seed=seed,
        winner=winner,
        rounds=battle.initiative.round,
        teams=team_stats(env.events, env.teams),
        actions=actions,
        events=list(env.events),
    )


def replay_record(result: GameResult, agents: Mapping[str, str], **env_kwargs: Any) -> dict:
    """A JSON-ready record of a game: enough to replay it exactly through the engine."""
    return {
        "format": REPLAY_FORMAT,
        "scenario": result.scenario,
        "seed": result.seed,
        "env_kwargs": env_kwargs,
        "agents": dict(agents),
        "winner": result.winner,
        "rounds": result.rounds,
        "actions": [list(a) for a in result.actions],
        "events": [e.to_dict() for e in result.events],
    }
