"""Round-robin evaluation: win rates, ratings, damage and where attacks came from.

``python -m facing_env.evaluate --scenario skirmish --agents flanker aggressive random
--games 100 --json report.json [--markdown report.md] [--record DIR] [--plots DIR]``

An agent is a scripted agent's name (``random``, ``aggressive``, ``flanker``,
``defensive``), ``model:PATH[@T]`` for a saved MaskablePPO model (its most likely action;
with ``@T`` sampled at temperature ``T``, ``@1`` as trained) or ``rllib:PATH[#MODULE_ID]`` for
a module of an RLlib checkpoint (``train_rllib.py``). Every pair plays ``games`` games
over seeds ``seed, seed+1, ...``, each agent taking each team in half of them; a pair's
games are played together as the battles of one ``VectorEnv``
(:func:`facing_env.evaluation.match.play_games`: the games
:func:`~facing_env.evaluation.match.play_game` plays, the scripted agents and greedy policies
choosing for all of them at once). The
report gives, per pair, wins / draws / losses with a 95% Wilson interval on the win rate;
per agent, an openskill (Plackett-Luce) rating over all games, damage dealt per round, and
the **attack-origin breakdown**: how many of its chosen attacks came from the defender's
front, flank and rear (``side`` under ``side_rear``; ``none`` for defenders without facing
or under ``standard``), with its sneak attacks and attacks of opportunity, and per square
around the defender (``attack_origins``, offsets in the defender's frame). ``--plots DIR``
draws win rates, learning curves (``--tensorboard DIR``) and the attack origins
(:mod:`facing_env.evaluation.plots`, needs matplotlib) and links them from the markdown.

Every argument is checked before the first game (scenario, agents and model files, output
files and folders, counts); a mistake ends the command with one line on stderr and exit
status 2 (:mod:`facing_env.cli`). ``rllib:`` checkpoints are unpickled by RLlib: give only
checkpoints you trust.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from facing_env import cli
from facing_env.env import raw_env
from facing_env.errors import FacingEnvError
from facing_env.evaluation.match import (
    MANEUVERS,
    Agent,
    GameResult,
    aec_actions,
    play_games,
    replay_record,
)
from facing_env.rules.dice import DICE_MODES

AREAS = ("front", "flank", "side", "rear", "none")


def wilson_interval(successes: float, n: int, z: float = 1.959964) -> tuple[float, float]:
    """95% Wilson score interval of a proportion (draws may count as half successes)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class PairResult:
    """Games between two agents, counted from ``a``'s side."""

    a: str
    b: str
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        """Games played."""
        return self.wins + self.draws + self.losses

    @property
    def win_rate(self) -> float:
        """Share of games ``a`` won."""
        return self.wins / self.games if self.games else 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON form, with the interval."""
        low, high = wilson_interval(self.wins, self.games)
        return {
            "a": self.a,
            "b": self.b,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "games": self.games,
            "win_rate": self.win_rate,
            "win_rate_ci95": [low, high],
        }


@dataclass
class AgentResult:
    """Everything one agent did over all its games."""

    name: str
    games: int = 0
    wins: int = 0
    rounds: int = 0
    damage_dealt: float = 0  # whole hit points except with mean dice
    attacks: Counter[str] = field(default_factory=Counter)
    bonus_attacks: int = 0
    sneak_attacks: int = 0
    attacks_of_opportunity: int = 0
    attack_origins: Counter[tuple[int, int]] = field(default_factory=Counter)
    maneuvers: Counter[str] = field(default_factory=Counter)
    rating_mu: float = 25.0
    rating_sigma: float = 25.0 / 3

    def shares(self) -> dict[str, float]:
        """Share of its chosen attacks by defender area."""
        total = sum(self.attacks.values())
        return {a: (self.attacks[a] / total if total else 0.0) for a in AREAS if a in self.attacks}

    @property
    def flank_or_rear_share(self) -> float:
        """Share of chosen attacks made from the defender's flank, side or rear."""
        total = sum(self.attacks.values())
        behind = self.attacks["flank"] + self.attacks["side"] + self.attacks["rear"]
        return behind / total if total else 0.0

    @property
    def positional_bonus_share(self) -> float:
        """Share of chosen attacks made with a net positive positional modifier: from the
        flank or rear (``ua35``), against a flanked defender (``side_rear``), or flanking
        with an ally opposite (``standard``). Comparable across rule sets."""
        total = sum(self.attacks.values())
        return self.bonus_attacks / total if total else 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "name": self.name,
            "games": self.games,
            "wins": self.wins,
            "rating": {
                "mu": self.rating_mu,
                "sigma": self.rating_sigma,
                "ordinal": self.rating_mu - 3 * self.rating_sigma,
            },
            "damage_per_round": self.damage_dealt / self.rounds if self.rounds else 0.0,
            "attacks": {a: self.attacks[a] for a in AREAS if self.attacks[a]},
            "attack_shares": self.shares(),
            "flank_or_rear_share": self.flank_or_rear_share,
            "positional_bonus_share": self.positional_bonus_share,
            "sneak_attacks": self.sneak_attacks,
            "attacks_of_opportunity": self.attacks_of_opportunity,
            "maneuvers": {k: self.maneuvers[k] for k in MANEUVERS},
            "attack_origins": {
                f"{dx},{dy}": n for (dx, dy), n in sorted(self.attack_origins.items())
            },
        }


@dataclass
class Report:
    """A whole evaluation."""

    scenario: str
    games_per_pair: int
    pairs: list[PairResult]
    agents: dict[str, AgentResult]

    def pair(self, a: str, b: str) -> PairResult:
        """The result of ``a`` against ``b`` (from ``a``'s side)."""
        for p in self.pairs:
            if (p.a, p.b) == (a, b):
                return p
            if (p.b, p.a) == (a, b):
                return PairResult(a, b, p.losses, p.draws, p.wins)
        raise KeyError(f"no games between {a!r} and {b!r}")

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "scenario": self.scenario,
            "games_per_pair": self.games_per_pair,
            "pairs": [p.to_dict() for p in self.pairs],
            "agents": {n: a.to_dict() for n, a in self.agents.items()},
        }

    def markdown(self) -> str:
        """The report as markdown tables."""
        lines = [
            f"## Evaluation on `{self.scenario}` ({self.games_per_pair} games per pair)",
            "",
            "| agent | vs | wins | draws | losses | win rate (95% CI) |",
            "|---|---|---|---|---|---|",
        ]
        for p in self.pairs:
            low, high = wilson_interval(p.wins, p.games)
            lines.append(
                f"| {p.a} | {p.b} | {p.wins} | {p.draws} | {p.losses} | "
                f"{p.win_rate:.2f} ({low:.2f}-{high:.2f}) |"
            )
        lines += [
            "",
            "| agent | rating | damage/round | attacks front / flank / side / rear / none "
            "| flank+rear share | positional bonus share | sneak | AoO "
            "| charge / withdraw / ready / readied hit |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for a in sorted(self.agents.values(), key=lambda r: -(r.rating_mu - 3 * r.rating_sigma)):
            counts = " / ".join(str(a.attacks[x]) for x in AREAS)
            dpr = a.damage_dealt / a.rounds if a.rounds else 0.0
            lines.append(
                f"| {a.name} | {a.rating_mu - 3 * a.rating_sigma:.1f} | {dpr:.2f} | {counts} "
                f"| {a.flank_or_rear_share:.2f} | {a.positional_bonus_share:.2f} "
                f"| {a.sneak_attacks} | {a.attacks_of_opportunity} "
                f"| {' / '.join(str(a.maneuvers[k]) for k in MANEUVERS)} |"
            )
        return "\n".join(lines) + "\n"


def _rate(
    model: Any, ratings: dict[str, Any], a: str, b: str, result: GameResult, teams: dict
) -> None:
    if model is None:
        return
    ranks = [0, 0]  # a draw
    if result.winner is not None:
        ranks = [0, 1] if teams[result.winner] == a else [1, 0]
    [[ra], [rb]] = model.rate([[ratings[a]], [ratings[b]]], ranks=ranks)
    ratings[a], ratings[b] = ra, rb


def _rating_model() -> Any:
    try:
        from openskill.models import PlackettLuce
    except ImportError:  # ratings need the ``train`` extra; the rest works without
        return None
    return PlackettLuce()


def evaluate(
    scenario: str,
    agents: Sequence[str],
    games: int,
    *,
    seed: int = 0,
    record_dir: str | Path | None = None,
    make: Callable[[str], Agent] | None = None,
    progress: Callable[[int], None] | None = None,
    workers: int = 1,
    **env_kwargs: Any,
) -> Report:
    """Round-robin among ``agents`` (names or ``model:PATH``), ``games`` games per pair.

    ``workers`` > 1 plays a pair that has an agent choosing game by game (the ``expert``,
    ``random``, a sampled policy) in that many processes, each a share of the games; the
    results are the same games as with one (each game is seeded on its own)."""
    if len(set(agents)) < 2:
        raise ValueError("evaluation needs at least two different agents")
    if games < 1:
        raise ValueError("games must be at least 1")
    if make is None:
        from facing_env.agents import make_agent as make
    players = {name: make(name) for name in agents}
    team_a, team_b = raw_env(scenario=scenario, **env_kwargs).scenario.teams[:2]
    model = _rating_model()
    ratings = {n: model.rating(name=n) for n in agents} if model else {}
    results = {n: AgentResult(n) for n in agents}
    pairs = []
    record = Path(record_dir) if record_dir is not None else None
    if record is not None:
        record.mkdir(parents=True, exist_ok=True)
    slugs = _slugs(agents)
    for a, b in itertools.combinations(agents, 2):
        pair = PairResult(a, b)
        lineups = [
            {team_a: a, team_b: b} if g % 2 == 0 else {team_a: b, team_b: a} for g in range(games)
        ]
        played = _play_pair(
            scenario, lineups, players, seed, workers=workers, progress=progress, **env_kwargs
        )
        for g, (teams, result) in enumerate(zip(lineups, played, strict=True)):
            _tally(pair, results, result, teams, a)
            _rate(model, ratings, a, b, result, teams)
            if record is not None:
                actions, env = aec_actions(scenario, result.seed, result.actions, **env_kwargs)
                if env.events != result.events:  # the two engines disagree: never expected
                    raise RuntimeError(f"game {g}: the AEC env's replay differs from the batch")
                data = replay_record(replace(result, actions=actions), teams, **env_kwargs)
                path = record / f"{slugs[a]}_vs_{slugs[b]}_{g:04d}.json"
                path.write_text(json.dumps(data))
        pairs.append(pair)
    for n, r in ratings.items():
        results[n].rating_mu, results[n].rating_sigma = r.mu, r.sigma
    return Report(scenario, games, pairs, results)


def _play_pair(
    scenario: str,
    lineups: list[dict[str, str]],
    players: dict[str, Agent],
    seed: int,
    *,
    workers: int,
    progress: Callable[[int], None] | None,
    **env_kwargs: Any,
) -> list[GameResult]:
    """The games of one pair: in this process, or in ``workers`` processes when an agent
    of the pair chooses game by game (scripted agents choose for every game at once)."""
    slow = any(
        getattr(players[n], "plans", False) or not hasattr(players[n], "act_batch")
        for n in lineups[0].values()
    )
    if workers <= 1 or not slow or len(lineups) < 2 * workers:
        teams = [{t: players[n] for t, n in lineup.items()} for lineup in lineups]
        return play_games(scenario, teams, seed, progress=progress, **env_kwargs)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    bounds = [len(lineups) * k // workers for k in range(workers + 1)]
    context = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    out: dict[int, list[GameResult]] = {}
    with ProcessPoolExecutor(workers, mp_context=context) as pool:
        futures = {
            pool.submit(_play_share, scenario, lineups[lo:hi], seed + lo, env_kwargs): lo
            for lo, hi in itertools.pairwise(bounds)
            if hi > lo
        }
        for future in as_completed(futures):
            out[futures[future]] = future.result()
            if progress is not None:
                progress(len(out[futures[future]]))
    return [r for lo in sorted(out) for r in out[lo]]


def _play_share(
    scenario: str, lineups: list[dict[str, str]], seed: int, env_kwargs: dict[str, Any]
) -> list[GameResult]:
    """A worker's share of a pair's games, its agents made by name in the worker."""
    from facing_env.agents import make_agent

    made = {n: make_agent(n) for lineup in lineups for n in set(lineup.values())}
    teams = [{t: made[n] for t, n in lineup.items()} for lineup in lineups]
    return play_games(scenario, teams, seed, **env_kwargs)


def _slug(name: str) -> str:
    base = Path(name.split(":", 1)[1]).stem if name.startswith("model:") else name
    return "".join(ch if ch.isalnum() else "-" for ch in base)[:40]


def _slugs(names: Sequence[str]) -> dict[str, str]:
    """A file-name part per agent, distinct even when two names share a stem
    (``model:a/policy.zip`` and ``model:b/policy.zip``: ``policy`` and ``policy-2``)."""
    out: dict[str, str] = {}
    used: set[str] = set()
    for name in names:
        base = slug = _slug(name)
        n = 2
        while slug in used:
            slug, n = f"{base}-{n}", n + 1
        used.add(slug)
        out[name] = slug
    return out


def _tally(
    pair: PairResult,
    results: dict[str, AgentResult],
    result: GameResult,
    teams: dict[str, str],
    a: str,
) -> None:
    if result.winner is None:
        pair.draws += 1
    elif teams[result.winner] == a:
        pair.wins += 1
    else:
        pair.losses += 1
    for team, name in teams.items():
        r, s = results[name], result.teams[team]
        r.games += 1
        r.wins += int(result.winner == team)
        r.rounds += result.rounds
        r.damage_dealt += s.damage_dealt
        r.attacks.update(s.attacks)
        r.sneak_attacks += s.sneak_attacks
        r.bonus_attacks += s.bonus_attacks
        r.attacks_of_opportunity += s.attacks_of_opportunity
        r.attack_origins.update(s.attack_origins)
        r.maneuvers.update(s.maneuvers)


def plots(
    report: Report, out_dir: str | Path, *, tensorboard: str | Path | None = None
) -> list[Path]:
    """Draw the report's pictures into ``out_dir``
    (see :func:`facing_env.evaluation.plots.plots`)."""
    from facing_env.evaluation.plots import plots as draw

    return draw(report, out_dir, tensorboard=tensorboard)


def image_links(paths: Sequence[Path], base: str | Path) -> str:
    """Markdown image links to ``paths``, relative to the folder ``base``."""
    if not paths:
        return ""
    lines = ["", "### Plots", ""]
    for p in paths:
        try:
            rel = Path(p).resolve().relative_to(Path(base).resolve())
        except ValueError:
            rel = Path(p)
        lines.append(f"![{Path(p).stem.replace('_', ' ')}]({rel.as_posix()})")
    return "\n".join(lines) + "\n"


PROG = "python -m facing_env.evaluate"


def main(argv: Sequence[str] | None = None) -> Report:
    """Command-line entry point: checks every argument, then plays."""
    parser = argparse.ArgumentParser(
        prog=PROG, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--scenario", default="duel", help="scenario name or YAML path")
    parser.add_argument(
        "--agents",
        nargs="+",
        required=True,
        help="names, model:PATH[@TEMPERATURE] or rllib:PATH[#ID] (rllib checkpoints are "
        "unpickled: trusted checkpoints only)",
    )
    parser.add_argument("--games", type=int, default=100, help="games per pair (at least 1)")
    parser.add_argument("--seed", type=int, default=0, help="first battle seed (0 or more)")
    parser.add_argument("--json", help="write the report as JSON here (.json)")
    parser.add_argument("--markdown", help="write the report as markdown here (.md)")
    parser.add_argument("--record", help="save every game's replay JSON in this folder")
    parser.add_argument("--dice", choices=DICE_MODES, help="override the dice mode")
    parser.add_argument("--plots", help="draw the report's plots (PNG) in this folder")
    parser.add_argument("--tensorboard", help="a run's TensorBoard folder for learning curves")
    parser.add_argument(
        "--workers",
        type=int,
        default=os.cpu_count() or 1,
        help="processes for the pairs whose agents choose game by game, such as the expert "
        "(default: one per CPU core)",
    )
    args = parser.parse_args(argv)
    kwargs = {"dice": args.dice} if args.dice else {}
    try:
        players = _check_args(args, kwargs)
    except (ValueError, FacingEnvError) as exc:
        cli.fail(PROG, str(exc))
    try:
        report = evaluate(
            args.scenario,
            args.agents,
            args.games,
            seed=args.seed,
            record_dir=args.record,
            make=players.__getitem__,
            workers=args.workers,
            **kwargs,
        )
        text = report.markdown()
        print(text)
        if args.json:
            Path(args.json).write_text(json.dumps(report.to_dict(), indent=2))
        images = plots(report, args.plots, tensorboard=args.tensorboard) if args.plots else []
        if args.markdown:
            md = Path(args.markdown)
            md.write_text(text + image_links(images, md.parent))
    except (ValueError, FacingEnvError, ImportError, OSError) as exc:
        cli.fail(PROG, str(exc))
    return report


def _check_args(args: argparse.Namespace, env_kwargs: dict[str, Any]) -> dict[str, Agent]:
    """Check every argument before the first game; the agents by name. Raises
    ``ValueError`` (or a ``ScenarioError``) naming the argument."""
    from facing_env.scenario import load_scenario

    cli.count(args.games, "--games")
    cli.count(args.workers, "--workers")
    cli.count(args.seed, "--seed", low=0)
    load_scenario(args.scenario)
    if len(set(args.agents)) < 2:
        raise ValueError("--agents: evaluation needs at least two different agents")
    cli.output_file(args.json, "--json", (".json",))
    cli.output_file(args.markdown, "--markdown", (".md", ".markdown"))
    cli.output_folder(args.record, "--record")
    cli.output_folder(args.plots, "--plots")
    cli.input_folder(args.tensorboard, "--tensorboard")
    if args.tensorboard and not args.plots:
        raise ValueError("--tensorboard draws learning curves: give --plots DIR as well")
    if args.plots:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise ValueError("--plots needs matplotlib: pip install -e '.[render]'") from None
    return cli.agents(args.agents, "--agents", args.scenario, **env_kwargs)


if __name__ == "__main__":
    main()
