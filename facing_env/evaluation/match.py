"""Play one battle between agents, one agent per team, and summarise what happened.

The evaluation (:mod:`facing_env.evaluation.evaluate`), ``train.py`` and the replay recorder
all play games through :func:`play_game`. Agents follow the protocol of :mod:`facing_env.agents`:
``act(observation, action_mask, rng) -> int``, seeing only what a learner sees.
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from facing_env.agents.base import Agent
from facing_env.env import raw_env
from facing_env.events import Event
from facing_env.registry import ENV_VERSION
from facing_env.rules import engine
from facing_env.rules.battle import Battle
from facing_env.types import GridKind, Pos

REPLAY_FORMAT = "facing_env.replay/1"
CHOSEN_ATTACKS = ("attack", "cleave", "charge", "readied")
"""Attack kinds a creature chose (a readied attack was chosen when it was readied); attacks
of opportunity are not among them."""
MANEUVERS = ("charge", "withdraw", "ready", "trigger", "turn", "bump")
"""Event kinds of the tactical actions, counted per team (``trigger``: a readied attack
that went off, counted for the readier; ``turn``: a facing change taken as an action, how
often a side turns to look under facing-limited perception; ``bump``: a step into a foe
it did not perceive, issue 36)."""


def init_worker() -> None:
    """Set up a worker process forked to play games: one torch thread. A parent that
    loaded or ran a policy (a command loads its models to check them before the first
    game) has started torch's OpenMP thread pool, and a forked child hangs at its first
    parallel region, a policy's forward pass; with one thread torch enters none. Torch is
    not imported for this: a parent without it forks a child without it."""
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)


@dataclass
class TeamStats:
    """What one team did in one game."""

    damage_dealt: float = 0  # whole hit points except with mean dice
    attacks: Counter[str] = field(default_factory=Counter)  # chosen attacks by defender area
    hits: int = 0
    bonus_attacks: int = 0
    """Chosen attacks with a net positive positional modifier (flank/rear under ``ua35``,
    the flanked condition under ``side_rear``, classic flanking under ``standard``)."""
    sneak_attacks: int = 0
    attacks_of_opportunity: int = 0
    kills: int = 0
    attack_origins: Counter[Pos] = field(default_factory=Counter)
    """Chosen attacks by the attacker's offset in the defender's frame (:func:`attack_origin`)."""
    maneuvers: Counter[str] = field(default_factory=Counter)
    """Charges, withdrawals, readied attacks and their triggers, turns and bumps
    (:data:`MANEUVERS`)."""


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


def _ring_rotate(offset: Pos, steps: int) -> Pos:
    """Turn a square offset by ``steps`` x 45 degrees clockwise along its Chebyshev ring
    (an exact lattice map: a ring of radius k has 8k cells, k per 45 degrees)."""
    dx, dy = offset
    k = max(abs(dx), abs(dy))
    if k == 0:
        return offset
    ring = [(x, -k) for x in range(-k, k)] + [(k, y) for y in range(-k, k)]
    ring += [(x, k) for x in range(k, -k, -1)] + [(-k, y) for y in range(k, -k, -1)]
    return ring[(ring.index(offset) + steps * k) % (8 * k)]


def attack_origin(battle: Battle, attacker: str, defender: str) -> Pos:
    """Where an attacker stands in the defender's frame: the offset from the defender's
    cell closest to the attacker to the attacker's closest cell, turned so the defender
    faces north (square, 45-degree ring steps) or east (hex: 60-degree steps; triangles,
    which face hex corners, count as facing the neighbour just clockwise of that corner)."""
    a, d = battle.creature(attacker), battle.creature(defender)
    _, ac, dc = min(
        (battle.distance(x, y), x, y) for x in battle.cells_of(a) for y in battle.cells_of(d)
    )
    offset = (ac[0] - dc[0], ac[1] - dc[1])
    if battle.kind is GridKind.SQUARE:
        return _ring_rotate(offset, -d.facing)
    q, r = offset
    for _ in range(d.facing // 2):  # 60 degrees clockwise: NE -> E
        q, r = -r, q + r
    return (q, r)


def team_stats(
    events: list[Event], teams: Mapping[str, str], origins: Mapping[int, Pos] | None = None
) -> dict[str, TeamStats]:
    """Per-team statistics from the engine's events (``teams`` maps creature id -> team).

    ``attacks`` counts the attacks a team chose (attacks and cleaves, not attacks of
    opportunity) by where the attacker stood relative to the defender's facing;
    ``attack_origins`` counts them by square, from ``origins`` (event index ->
    :func:`attack_origin`, taken from the battle when the attack happened).
    """
    origins = origins or {}
    stats = {t: TeamStats() for t in dict.fromkeys(teams.values())}
    last_hit: dict[str, str] = {}
    for k, e in enumerate(events):
        if e.kind in MANEUVERS and e.actor in teams:
            stats[teams[e.actor]].maneuvers[e.kind] += 1
            continue
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
            s.bonus_attacks += int(e.facing_modifier > 0)
            if k in origins:
                s.attack_origins[origins[k]] += 1
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
    from facing_env.agents.base import choose, fork

    team_agents = {t: fork(a) for t, a in team_agents.items()}
    rng = np.random.default_rng([seed, 0xFACE])
    actions: list[tuple[str, int | None]] = []
    origins: dict[int, Pos] = {}
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            action = None
        else:
            team = env.teams[env.agent_to_id[agent]]
            action = choose(
                team_agents[team], obs["observation"], obs["action_mask"], rng, lambda: env.battle
            )
        actions.append((agent, action))
        before = len(env.events)
        env.step(action)
        for k in range(before, len(env.events)):  # chosen attacks move no one: the battle
            e = env.events[k]  # after the step has the places the attack was made from
            if e.kind == "attack" and e.attack_kind in CHOSEN_ATTACKS and e.target is not None:
                origins[k] = attack_origin(env.battle, e.actor, e.target)
    battle = env.battle
    winner = engine.winner(battle) if engine.is_over(battle) else None
    return GameResult(
        scenario=scenario,
        seed=seed,
        winner=winner,
        rounds=battle.initiative.round,
        teams=team_stats(env.events, env.teams, origins),
        actions=actions,
        events=list(env.events),
    )


MAX_BATCH = 1024
"""Games :func:`play_games` plays in one batch of battles at most."""


def play_games(
    scenario: str,
    lineups: Sequence[Mapping[str, Agent]],
    seed: int,
    *,
    progress: Callable[[int], None] | None = None,
    **env_kwargs: Any,
) -> list[GameResult]:
    """Play ``len(lineups)`` games together as battles of one
    :class:`~facing_env.vector.VectorEnv`: game ``g`` is seeded ``seed + g`` and team
    ``t`` is driven by ``lineups[g][t]``.

    Game ``g`` is :func:`play_game` ``(scenario, lineups[g], seed + g)``: the same
    battle, the same generator for the agents (``[seed + g, 0xFACE]``), so the same
    actions and result, except that ``actions`` omits the dead steps of dropped creatures
    (:func:`aec_actions` puts them back, for a replay). Agents that are
    ``deterministic`` and have ``act_batch`` (the scripted agents but ``random``, a
    saved policy at temperature 0) choose for all their games in one call; the others
    act game by game with that game's generator. ``progress(1)`` is called per game."""
    from facing_env.agents.base import act_batch, choose, fork
    from facing_env.vector import VectorEnv

    results: list[GameResult] = []
    for start in range(0, len(lineups), MAX_BATCH):
        block = [
            {t: fork(a) for t, a in lineup.items()} for lineup in lineups[start : start + MAX_BATCH]
        ]
        venv = VectorEnv(  # the kernels unless asked otherwise: evaluations play many games
            scenario,
            len(block),
            seed=seed + start,
            record_events=True,
            **{"engine": "compiled", **env_kwargs},
        )
        obs, info = venv.reset()
        n = len(block)
        rngs = [np.random.default_rng([seed + start + g, 0xFACE]) for g in range(n)]
        unused = np.random.default_rng(0)  # what deterministic batch agents are handed
        sides = [venv.agent_teams(g) for g in range(n)]
        for g, lineup in enumerate(block):
            missing = set(t for t in sides[g] if t is not None) - set(lineup)
            if missing:
                raise ValueError(f"no agent for team(s) {sorted(missing)} of scenario {scenario!r}")
        events = [venv.events(g) for g in range(n)]
        logged = [0] * n
        actions: list[list[tuple[str, int | None]]] = [[] for _ in range(n)]
        origins: list[dict[int, Pos]] = [{} for _ in range(n)]
        done: list[GameResult | None] = [None] * n
        active = np.ones(n, dtype=bool)
        acts = np.zeros(n, dtype=np.int64)
        while active.any():
            rows = np.flatnonzero(active)
            groups: dict[int, list[int]] = {}
            for g in rows:
                agent = block[g][sides[g][info["agent"][g]]]
                if getattr(agent, "deterministic", False) and hasattr(agent, "act_batch"):
                    groups.setdefault(id(agent), []).append(int(g))
                else:
                    o, m = obs["observation"][g], obs["action_mask"][g]
                    acts[g] = choose(agent, o, m, rngs[g], partial(venv.battle, int(g)))
            for members in groups.values():
                sel = np.array(members)
                agent = block[members[0]][sides[members[0]][info["agent"][members[0]]]]
                picked = act_batch(agent, obs["observation"][sel], obs["action_mask"][sel], unused)
                acts[sel] = picked
            for g in rows:
                actions[g].append((venv.possible_agents[info["agent"][g]], int(acts[g])))
            obs, _, term, trunc, info = venv.step(acts, active=active)
            for g in rows:
                ended = bool(term[g] or trunc[g])
                new = events[g][logged[g] :]
                if any(_chosen(e) for e in new):
                    battle = venv.ended_battle(int(g)) if ended else venv.battle(int(g))
                    for k, e in enumerate(new, start=logged[g]):
                        if _chosen(e):
                            origins[g][k] = attack_origin(battle, e.actor, e.target)
                logged[g] = len(events[g])
                if ended:
                    active[g] = False
                    winner = int(info["winner"][g])
                    teams = _creature_teams(venv.ended_battle(int(g)))
                    done[g] = GameResult(
                        scenario=scenario,
                        seed=seed + start + int(g),
                        winner=venv.teams[winner] if winner >= 0 else None,
                        rounds=int(info["episode_rounds"][g]),
                        teams=team_stats(events[g], teams, origins[g]),
                        actions=actions[g],
                        events=list(events[g]),
                    )
                    if progress is not None:
                        progress(1)
        venv.close()
        results.extend(r for r in done if r is not None)
    return results


def _chosen(e: Event) -> bool:
    """A chosen attack (not an attack of opportunity) with a target."""
    return e.kind == "attack" and e.attack_kind in CHOSEN_ATTACKS and e.target is not None


def _creature_teams(battle: Battle) -> dict[str, str]:
    """Creature id -> team, as the AEC env's ``teams`` maps them."""
    return {c.id: c.team for c in battle.creatures.values()}


def aec_actions(
    scenario: str, seed: int, actions: Sequence[tuple[str, int | None]], **env_kwargs: Any
) -> tuple[list[tuple[str, int | None]], raw_env]:
    """The AEC env's action list of a game given its actions without dead steps (as
    :func:`play_games` records them): each dead step ``(agent, None)`` put back where the
    env takes it. Returns the list and the env after the game (its ``events``)."""
    env = raw_env(scenario=scenario, **env_kwargs)
    env.reset(seed=seed)
    out: list[tuple[str, int | None]] = []
    todo = list(actions)
    for agent in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        if term or trunc:
            out.append((agent, None))
            env.step(None)
            continue
        if not todo:
            raise ValueError(f"the game needs more than the {len(actions)} actions given")
        name, action = todo.pop(0)
        if name != agent:
            raise ValueError(f"action {len(out)}: {agent} acts, the record names {name}")
        out.append((agent, action))
        env.step(action)
    if todo:
        raise ValueError(f"the game ended with {len(todo)} of the actions given left over")
    return out, env


def _portable(scenario: str) -> str:
    """A scenario as a replay names it: a built-in one by its name, a file by its absolute
    path (a path relative to the folder the games were played in fails from any other)."""
    path = Path(scenario)
    if (path.suffix or os.sep in scenario) and path.is_file():
        return str(path.resolve())
    return scenario


def replay_record(result: GameResult, agents: Mapping[str, str], **env_kwargs: Any) -> dict:
    """A JSON-ready record of a game: enough to replay it exactly through the engine."""
    return {
        "format": REPLAY_FORMAT,
        "scenario": _portable(result.scenario),
        "seed": result.seed,
        "env_version": ENV_VERSION,
        "env_kwargs": env_kwargs,
        "agents": dict(agents),
        "winner": result.winner,
        "rounds": result.rounds,
        "actions": [list(a) for a in result.actions],
        "events": [e.to_dict() for e in result.events],
    }
