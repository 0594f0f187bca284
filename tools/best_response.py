"""An oracle best response: Monte Carlo rollout search against a scripted opponent.

This is a **measurement tool**, not an agent. It answers "how well can *anything* do against
this script with these dice?" by cheating twice over, which no policy can do:

- it reads the environment's full state (``raw_env.battle``, the engine's turn state), not an
  observation, and copies it to search ahead;
- it simulates the opponent with the opponent's own script, i.e. it knows exactly what the
  opponent will do in every state it imagines.

The searching side plays by rollouts (policy improvement over a base policy, Tesauro and
Galperin 1996): at each of its decisions with more than one legal action it groups the legal
actions by their immediate outcome (same battle state and events on the same dice), then for
one action per group copies the battle ``K`` times, applies the action and plays on with the
base policy for itself and the real opponent script for the other side, either to the end of
the game (``--horizon 0``) or until the start of its own ``H``-th turn counting the current
one. A finished game scores 1 for a win and 0 otherwise (draws count as not won, as in
:mod:`facing_env.evaluate`); an unfinished one scores the hit-point balance
``0.5 + (mine - theirs) / 2`` in shares of each side's maximum (``--leaf hp``), optionally
with the damage of the rollout's attacks replaced by its expectation from attack bonus and
AC (``--leaf expected``: far less noise, the rolls still steer the rollout), optionally
mapped to a win probability by a table over hit points from base-vs-opponent games
(``--win-table GAMES``). Every action of a decision is scored on the same ``K`` dice streams
(common random numbers); the base policy's own action is kept unless another scores at least
``--margin`` more. The copies roll their own dice, seeded from the searcher's generator, so
the real game's dice are never consumed by the search: the real game of seed ``S`` is
dealt the same rolls whatever the search does, as in ``python -m facing_env.evaluate``.

Short horizons are myopic: with ``--leaf expected`` and ``--horizon 2`` the search prefers
moves that postpone contact by a fraction of a hit point of expected damage, and loses to
``flanker`` far more often than ``flanker`` itself does; a margin and a longer horizon
guard against that.

``python tools/best_response.py --opponent flanker --games 40 --seed 0 --rollouts 4
--horizon 4 --leaf expected --margin 0.01 --base flanker``

Games use seeds ``S .. S+N-1``; the searcher takes the scenario's first team in even games and
the second in odd ones. The report gives wins, draws and losses of the searcher with a 95%
Wilson interval on its win rate, games per second, and where the searcher's chosen attacks
came from (defender areas and squares in the defender's frame, as the evaluation reports).
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from facing_env import engine
from facing_env.agents import make_agent
from facing_env.agents.base import Agent
from facing_env.battle import Battle
from facing_env.dice import Dice, parse_dice
from facing_env.env import raw_env
from facing_env.evaluate import wilson_interval
from facing_env.events import Event
from facing_env.match import CHOSEN_ATTACKS, attack_origin, team_stats
from facing_env.types import Pos

LEAVES = ("hp", "expected")
HP_BINS = 8  # hit-point share bins per side of the win-probability table


def _team_hp(battle: Any, team: str, correction: float = 0.0) -> float:
    """A team's remaining share of its maximum hit points (plus ``correction`` points)."""
    hp = sum(max(c.hp, 0) for c in battle.creatures.values() if c.team == team)
    top = sum(c.max_hp for c in battle.creatures.values() if c.team == team)
    return min(1.0, max(0.0, (hp + correction) / top)) if top else 0.0


def expected_damage(battle: Any, event: Event) -> float:
    """The expected damage of an attack event given its attack bonus and the defender's AC
    (natural 1 misses, natural 20 hits, threats confirmed at the same odds; sneak attack
    and miss chances are left out)."""
    attack = battle.creatures[event.actor].attack(event.attack)
    need = event.ac - (event.total - event.roll)
    p_hit = min(0.95, max(0.05, (21 - need) / 20))
    p_crit = min(p_hit, (21 - attack.threat_range) / 20) * p_hit
    n, sides, bonus = parse_dice(attack.damage)
    mean = max(1.0, n * (sides + 1) / 2 + bonus)
    return p_hit * mean + p_crit * mean * (attack.crit_multiplier - 1)


def _bin(share: float) -> int:
    return min(HP_BINS - 1, max(0, int(share * HP_BINS)))


@dataclass
class WinTable:
    """P(win | own hp share bin, foe hp share bin) at the start of the searcher's turn,
    counted from games of the base policy against the opponent (Laplace-smoothed)."""

    wins: np.ndarray = field(default_factory=lambda: np.ones((HP_BINS, HP_BINS)))
    seen: np.ndarray = field(default_factory=lambda: np.full((HP_BINS, HP_BINS), 2.0))

    def value(self, mine: float, theirs: float) -> float:
        """The estimated win probability."""
        i, j = _bin(mine), _bin(theirs)
        return float(self.wins[i, j] / self.seen[i, j])


@dataclass(frozen=True)
class Settings:
    """How the searcher searches."""

    rollouts: int
    horizon: int  # own turns to play before scoring (0: to the end of the game)
    leaf: str = "hp"
    table: WinTable | None = None
    margin: float = 0.0  # how much better than the base action an action must score


STATIC_FIELDS = ("terrain", "_terrain_map", "_rules", "_step_static", "_tables")
"""Battle fields that depend only on the terrain and creature specs (caches that are never
stale): shared with the copies, as ``Battle.clone`` and ``Battle.__deepcopy__`` share theirs."""


def _copy_battle(battle: Battle) -> Battle:
    """An independent copy of the battle's state that shares its static caches."""
    memo: dict[int, Any] = {}
    for name in STATIC_FIELDS:
        value = getattr(battle, name)
        memo[id(value)] = value
    return copy.deepcopy(battle, memo)


class Simulator:
    """A private ``raw_env`` to play rollouts on, loaded with a copy of another env's state."""

    def __init__(self, scenario: str, env_kwargs: dict[str, Any]) -> None:
        self.env = raw_env(scenario=scenario, **env_kwargs)
        self.env.reset(seed=0)
        self._fixed_map = self.env.scenario.generator is None

    def load(self, real: raw_env, dice_seed: int) -> raw_env:
        """Copy ``real``'s whole episode state into the simulator, with fresh dice seeded by
        ``dice_seed`` (``real.dice`` and its generator are left untouched)."""
        sim = self.env
        sim.battle = _copy_battle(real.battle)
        sim.dice = Dice(np.random.default_rng(dice_seed), real.dice.mode)  # a fresh deck
        sim.agent_to_id, sim.id_to_agent = real.agent_to_id, real.id_to_agent  # read-only
        sim.teams, sim.slots = real.teams, real.slots  # read-only
        sim.agents = list(real.agents)
        sim.rewards = dict(real.rewards)
        sim._cumulative_rewards = dict(real._cumulative_rewards)
        sim.terminations = dict(real.terminations)
        sim.truncations = dict(real.truncations)
        sim.infos = {a: {} for a in real.agents}
        sim.agent_selection = real.agent_selection
        if "_skip_agent_selection" in real.__dict__:
            sim._skip_agent_selection = real._skip_agent_selection
        sim.events = []
        sim.damage_ledger = dict(real.damage_ledger)
        sim._obs_cache = {}
        if not self._fixed_map:  # a procedural battle needs its own terrain planes
            from facing_env.observation import Board

            sim._board = Board(sim.battle, sim.layout.window, sim._memo)
        sim._scanned = None  # recomputed from the copied battle on the next observe
        return sim


class RolloutSearcher:
    """Chooses each action of ``team`` by rollouts of ``base`` (itself) and ``opponent``."""

    def __init__(
        self,
        sim: Simulator,
        team: str,
        base: Agent,
        opponent: Agent,
        settings: Settings,
        rng: np.random.Generator,
    ) -> None:
        self.sim = sim
        self.team = team
        self.base = base
        self.opponent = opponent
        self.settings = settings
        self.rng = rng
        self.decisions = 0
        self.searched = 0
        self.changed = 0  # decisions where the search overruled the base policy

    def act(self, real: raw_env, agent: str) -> int:
        """The action for ``agent`` (of the searcher's team) in ``real``'s current state."""
        obs = real.observe(agent)
        mask = obs["action_mask"]
        legal = [int(i) for i in np.flatnonzero(mask)]
        base_action = int(self.base.act(obs["observation"], mask, self.rng))
        self.decisions += 1
        if len(legal) == 1:
            return legal[0]
        self.searched += 1
        seeds = self.rng.integers(0, 2**63 - 1, size=self.settings.rollouts)
        now = (real.battle.initiative.round, real.battle.initiative.index)
        values = {}
        for action in self.distinct(real, legal, base_action, int(seeds[0])):
            total = 0.0
            for s in seeds:
                sim = self.sim.load(real, int(s))
                sim.step(action)
                total += self.rollout(sim, now)
            values[action] = total / len(seeds)
        best = max(values, key=values.__getitem__)
        if values[best] < values[base_action] + self.settings.margin:
            best = base_action
        self.changed += int(best != base_action)
        return best

    def distinct(self, real: raw_env, legal: list[int], base_action: int, seed: int) -> list[int]:
        """One action per distinct outcome: actions whose step leads (on the same dice) to
        the same battle state and the same events are one choice (e.g. several facings
        the base policy turns away from anyway are not, but two TURNs to one facing or a
        MOVE and a STEP_KEEP_FACING along the facing are). The base action represents its
        group, so the search keeps it on ties."""
        seen: dict[tuple, int] = {}
        for action in [base_action, *[a for a in legal if a != base_action]]:
            sim = self.sim.load(real, seed)
            sim.step(action)
            battle = sim.battle
            key = (
                engine.state_key(battle),
                battle.initiative.round,
                battle.initiative.index,
                tuple(sorted(battle.initiative.aoo_used.items())),
                None if battle.turn is None else frozenset(battle.turn.provoked),
                None if battle.turn is None else battle.turn.actions_taken,
                tuple(sim.events),
            )
            seen.setdefault(key, action)
        return list(seen.values())

    def rollout(self, sim: raw_env, now: tuple[int, int]) -> float:
        """Play ``sim`` on with the base policy and the opponent; the searcher's score.
        ``now`` is the (round, initiative index) of the turn the search started in: it
        counts as the first of the ``horizon`` turns whatever the first action was (an
        END_TURN as much as a step)."""
        battle = sim.battle
        horizon = self.settings.horizon
        turns = 1
        current: tuple[int, int] | None = now
        while True:
            if engine.is_over(battle):
                return 1.0 if engine.winner(battle) == self.team else 0.0
            if battle.initiative.round > sim.max_rounds:
                return 0.0  # truncated: a draw is not a win
            agent = sim.agent_selection
            if sim.terminations[agent] or sim.truncations[agent]:
                sim.step(None)
                continue
            team = sim.teams[sim.agent_to_id[agent]]
            turn = (battle.initiative.round, battle.initiative.index)
            if team == self.team and turn != current:
                current = turn
                if horizon and turns >= horizon:
                    return self.leaf(battle)
                turns += 1
            elif team != self.team:
                current = None
            obs = sim.observe(agent)
            player = self.base if team == self.team else self.opponent
            sim.step(int(player.act(obs["observation"], obs["action_mask"], self.rng)))

    def leaf(self, battle: Any) -> float:
        """The score of an unfinished rollout at the horizon: the hit-point balance, with
        the damage dealt in the rollout replaced by its expectation under ``--leaf
        expected`` (the rolls still decide where the rollout goes)."""
        teams = set(self.sim.env.teams.values())
        correction = dict.fromkeys(teams, 0.0)
        if self.settings.leaf == "expected":
            for e in self.sim.env.events:
                if e.kind == "attack" and e.target is not None and e.roll is not None:
                    team = self.sim.env.teams[e.target]
                    correction[team] += e.damage - expected_damage(battle, e)
        shares = {t: _team_hp(battle, t, correction[t]) for t in teams}
        mine = shares[self.team]
        theirs = max(shares[t] for t in teams - {self.team})
        if self.settings.table is not None:
            return self.settings.table.value(mine, theirs)
        return 0.5 + 0.5 * (mine - theirs)


@dataclass
class Tally:
    """The searcher's results and what it did."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    rounds: int = 0
    attacks: Counter[str] = field(default_factory=Counter)
    origins: Counter[Pos] = field(default_factory=Counter)
    opponent_attacks: Counter[str] = field(default_factory=Counter)
    sneak_attacks: int = 0
    aoo_taken: int = 0
    maneuvers: Counter[str] = field(default_factory=Counter)
    decisions: int = 0
    searched: int = 0
    changed: int = 0

    @property
    def games(self) -> int:
        """Games played."""
        return self.wins + self.draws + self.losses


def play(
    scenario: str,
    seed: int,
    searcher_team: str,
    opponent: Agent,
    base: Agent,
    settings: Settings,
    env: raw_env,
    sim: Simulator,
    tally: Tally,
) -> str | None:
    """One game of the searcher (``searcher_team``) against ``opponent``; the winner."""
    env.reset(seed=seed)
    agent_rng = np.random.default_rng([seed, 0xFACE])  # the opponent's, as in evaluate
    searcher = RolloutSearcher(
        sim, searcher_team, base, opponent, settings, np.random.default_rng([seed, 0xBE57])
    )
    origins: dict[int, Pos] = {}
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            action = None
        elif env.teams[env.agent_to_id[agent]] == searcher_team:
            action = searcher.act(env, agent)
        else:
            action = int(opponent.act(obs["observation"], obs["action_mask"], agent_rng))
        before = len(env.events)
        env.step(action)
        for k in range(before, len(env.events)):
            e = env.events[k]
            if e.kind == "attack" and e.attack_kind in CHOSEN_ATTACKS and e.target is not None:
                origins[k] = attack_origin(env.battle, e.actor, e.target)
    battle = env.battle
    winner = engine.winner(battle) if engine.is_over(battle) else None
    stats = team_stats(env.events, env.teams, origins)
    mine = stats[searcher_team]
    tally.wins += int(winner == searcher_team)
    tally.draws += int(winner is None)
    tally.losses += int(winner is not None and winner != searcher_team)
    tally.rounds += battle.initiative.round
    tally.attacks.update(mine.attacks)
    tally.origins.update(mine.attack_origins)
    tally.sneak_attacks += mine.sneak_attacks
    tally.maneuvers.update(mine.maneuvers)
    for team, s in stats.items():
        if team != searcher_team:
            tally.opponent_attacks.update(s.attacks)
            tally.aoo_taken += s.attacks_of_opportunity
    tally.decisions += searcher.decisions
    tally.searched += searcher.searched
    tally.changed += searcher.changed
    return winner


def win_table(
    scenario: str, base: Agent, opponent: Agent, games: int, env_kwargs: dict[str, Any]
) -> WinTable:
    """Estimate :class:`WinTable` from ``games`` games of ``base`` against ``opponent`` on
    seeds far from the evaluation's (10**6 on), both sides, at every turn start of the
    base's team."""
    env = raw_env(scenario=scenario, **env_kwargs)
    teams = env.scenario.teams[:2]
    table = WinTable()
    for g in range(games):
        seed = 10**6 + g
        mine = teams[g % 2]
        env.reset(seed=seed)
        rng = np.random.default_rng([seed, 0xFACE])
        seen: list[tuple[int, int]] = []
        current: tuple[int, int] | None = None
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            team = env.teams[env.agent_to_id[agent]]
            turn = (env.battle.initiative.round, env.battle.initiative.index)
            if team == mine and turn != current:
                current = turn
                theirs = max(_team_hp(env.battle, t) for t in teams if t != mine)
                seen.append((_bin(_team_hp(env.battle, mine)), _bin(theirs)))
            player = base if team == mine else opponent
            env.step(int(player.act(obs["observation"], obs["action_mask"], rng)))
        won = float(engine.is_over(env.battle) and engine.winner(env.battle) == mine)
        for i, j in seen:
            table.wins[i, j] += won
            table.seen[i, j] += 1
    return table


def report(tally: Tally, elapsed: float, settings: Settings, args: argparse.Namespace) -> dict:
    """The results as a JSON-ready dict."""
    low, high = wilson_interval(tally.wins, tally.games)
    n_attacks = sum(tally.attacks.values())
    return {
        "scenario": args.scenario,
        "opponent": args.opponent,
        "base": args.base,
        "rollouts": settings.rollouts,
        "horizon": settings.horizon,
        "leaf": settings.leaf,
        "win_table_games": args.win_table,
        "margin": settings.margin,
        "seed": args.seed,
        "games": tally.games,
        "wins": tally.wins,
        "draws": tally.draws,
        "losses": tally.losses,
        "win_rate": tally.wins / tally.games if tally.games else 0.0,
        "win_rate_ci95": [low, high],
        "seconds_per_game": elapsed / tally.games if tally.games else 0.0,
        "games_per_second": tally.games / elapsed if elapsed else 0.0,
        "rounds_per_game": tally.rounds / tally.games if tally.games else 0.0,
        "decisions": tally.decisions,
        "searched_decisions": tally.searched,
        "overruled_base": tally.changed,
        "attacks": dict(tally.attacks),
        "attack_shares": {a: n / n_attacks for a, n in tally.attacks.items()} if n_attacks else {},
        "attacks_per_game": n_attacks / tally.games if tally.games else 0.0,
        "opponent_attacks": dict(tally.opponent_attacks),
        "sneak_attacks": tally.sneak_attacks,
        "attacks_of_opportunity_by_opponent": tally.aoo_taken,
        "maneuvers": dict(tally.maneuvers),
        "attack_origins": {f"{dx},{dy}": n for (dx, dy), n in sorted(tally.origins.items())},
    }


def main(argv: Sequence[str] | None = None) -> dict:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--scenario", default="duel")
    parser.add_argument("--opponent", default="flanker", help="scripted agent to exploit")
    parser.add_argument("--base", default="flanker", help="the searcher's rollout policy")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0, help="first evaluation seed")
    parser.add_argument("--rollouts", type=int, default=4, help="K rollouts per action")
    parser.add_argument(
        "--horizon", type=int, default=2, help="own turns per rollout (0: to the end)"
    )
    parser.add_argument("--leaf", choices=LEAVES, default="hp", help="score at the horizon")
    parser.add_argument(
        "--win-table",
        type=int,
        default=0,
        metavar="GAMES",
        help="score the leaf hit points by a win-probability table from this many "
        "base-vs-opponent games (0: the linear hit-point balance)",
    )
    parser.add_argument(
        "--margin",
        type=float,
        default=0.0,
        help="overrule the base policy only for an action scoring this much more",
    )
    parser.add_argument("--json", help="write the report here too")
    parser.add_argument("--dice", help="override the dice mode (roll, expected, deck)")
    args = parser.parse_args(argv)
    if args.games < 1 or args.rollouts < 1 or args.horizon < 0 or args.seed < 0:
        parser.error("--games and --rollouts must be at least 1, --horizon and --seed >= 0")
    env_kwargs: dict[str, Any] = {"dice": args.dice} if args.dice else {}
    opponent, base = make_agent(args.opponent), make_agent(args.base)
    table = None
    if args.win_table > 0:
        table = win_table(args.scenario, base, opponent, args.win_table, env_kwargs)
    settings = Settings(args.rollouts, args.horizon, args.leaf, table, args.margin)
    env = raw_env(scenario=args.scenario, **env_kwargs)
    sim = Simulator(args.scenario, env_kwargs)
    teams = env.scenario.teams[:2]
    tally = Tally()
    start = time.perf_counter()
    for g in range(args.games):
        team = teams[g % 2]
        t0 = time.perf_counter()
        winner = play(args.scenario, args.seed + g, team, opponent, base, settings, env, sim, tally)
        low, high = wilson_interval(tally.wins, tally.games)
        print(
            f"game {g + 1}/{args.games} seed {args.seed + g} as {team}: "
            f"{'win' if winner == team else 'draw' if winner is None else 'loss'} "
            f"({time.perf_counter() - t0:.1f}s) | {tally.wins}W {tally.draws}D "
            f"{tally.losses}L = {tally.wins / tally.games:.3f} [{low:.2f}, {high:.2f}]",
            flush=True,
        )
    out = report(tally, time.perf_counter() - start, settings, args)
    print(json.dumps(out, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2))
    return out


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
