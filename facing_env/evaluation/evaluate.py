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

The report's markdown goes to stdout; everything else to stderr: a progress bar per pair
counting its games (``--progress``: by default when stderr is a terminal; needs tqdm, in the
``train`` extra), and at the end one line per file written, ``wrote PATH`` (``--json``,
each plot, ``--markdown``, then the ``--record`` folder with its number of replays).

Every argument is checked before the first game (scenario, agents and model files, output
files and folders, counts); a mistake ends the command with one line on stderr and exit
status 2 (:mod:`facing_env.cli`). ``rllib:`` checkpoints are unpickled by RLlib: give only
checkpoints you trust.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from facing_env import cli
from facing_env.env import PERCEPTIONS, raw_env
from facing_env.errors import FacingEnvError
from facing_env.evaluation.match import (
    Agent,
    GameResult,
    aec_actions,
    init_worker,
    play_games,
    replay_record,
)
from facing_env.evaluation.report import AgentResult, PairResult, Report
from facing_env.rules.dice import DICE_MODES
from facing_env.warm import compile_first

MIN_AGENTS = 2
"""A round robin needs two different agents."""
MAX_GAMES = 1_000_000
"""Games per pair, at most (each game's seed and result are kept in memory)."""
MAX_WORKERS = 256
"""Processes, at most."""
MAX_SEED = 2**63 - 1
"""The largest battle seed a replay file may carry (:mod:`facing_env.render.record`)."""


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
    pair_progress: Callable[[str, str, int], Callable[[int], None]] | None = None,
    workers: int = 1,
    **env_kwargs: Any,
) -> Report:
    """Round-robin among ``agents`` (names or ``model:PATH``), ``games`` games per pair.

    ``progress(n)`` is called as games end (``n`` of them); ``pair_progress(a, b, games)``
    as each pair starts, and the callable it returns as that pair's games end (a bar per
    pair: :class:`PairBars`).
    ``workers`` > 1 plays a pair that has an agent choosing game by game (the ``expert``,
    ``random``, a sampled policy) in that many processes, each a share of the games; the
    results are the same games as with one (each game is seeded on its own)."""
    if len(set(agents)) < MIN_AGENTS:
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
        step = pair_progress(a, b, games) if pair_progress is not None else None
        played = _play_pair(
            scenario,
            lineups,
            players,
            seed,
            workers=workers,
            progress=_both(progress, step),
            **env_kwargs,
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


def _both(
    first: Callable[[int], None] | None, second: Callable[[int], None] | None
) -> Callable[[int], None] | None:
    """A progress callback calling both (either may be None)."""
    if first is None or second is None:
        return first or second

    def call(n: int) -> None:
        first(n)
        second(n)

    return call


class PairBars:
    """A progress bar per pair of a round robin, on stderr, counting its games
    (:func:`facing_env.cli.progress_bar`: nothing when ``enabled`` is false, or None and
    stderr is not a terminal, or tqdm is missing). Pass ``pair_progress=bars.pair`` to
    :func:`evaluate` inside ``with PairBars() as bars:``; each pair's bar stays on screen."""

    def __init__(self, enabled: bool | None = None) -> None:
        self.enabled = enabled
        self.bar: Any = None

    def pair(self, a: str, b: str, games: int) -> Callable[[int], None]:
        """Close the previous pair's bar and open one for ``a`` against ``b``."""
        self.close()
        self.bar = cli.progress_bar(games, f"{a} vs {b}", enabled=self.enabled, unit="game")
        return self.bar.update

    def close(self) -> None:
        """Close the bar under way, if any."""
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def __enter__(self) -> PairBars:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


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
    with ProcessPoolExecutor(workers, mp_context=context, initializer=init_worker) as pool:
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
    parser = cli.parser(PROG, __doc__)
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
    parser.add_argument(
        "--perception",
        choices=PERCEPTIONS,
        help="override the scenario's perception ('facing': foes in a creature's rear area "
        "are hidden from it; docs/api.md)",
    )
    parser.add_argument("--plots", help="draw the report's plots (PNG) in this folder")
    parser.add_argument("--tensorboard", help="a run's TensorBoard folder for learning curves")
    cli.workers_and_progress(
        parser,
        workers="processes for the pairs whose agents choose game by game, such as the expert "
        "(default: one per CPU core)",
        progress="a progress bar per pair on stderr: 'auto' when stderr is a terminal (needs tqdm)",
    )
    args = parser.parse_args(argv)
    kwargs = {"dice": args.dice} if args.dice else {}
    if args.perception:
        kwargs["perception"] = args.perception
    try:
        players = _check_args(args, kwargs)
    except (ValueError, FacingEnvError) as exc:
        cli.fail(PROG, str(exc))
    compile_first()  # a cold cache: every core compiles the kernels, not this process alone
    try:
        with PairBars(cli.PROGRESS[args.progress]) as bars:
            report = evaluate(
                args.scenario,
                args.agents,
                args.games,
                seed=args.seed,
                record_dir=args.record,
                make=players.__getitem__,
                pair_progress=bars.pair,
                workers=args.workers,
                **kwargs,
            )
        text = report.markdown()
        print(text, flush=True)
        _write_outputs(args, report, text)
    except (ValueError, FacingEnvError, ImportError, OSError) as exc:
        cli.fail(PROG, str(exc))
    return report


def _write_outputs(args: argparse.Namespace, report: Report, text: str) -> None:
    """Write the report's files (``--json``, ``--plots``, ``--markdown``), each followed by
    a ``wrote PATH`` line on stderr, and name the ``--record`` folder the same way."""
    if args.json:
        Path(args.json).write_text(json.dumps(report.to_dict(), indent=2))
        wrote(args.json)
    images = plots(report, args.plots, tensorboard=args.tensorboard) if args.plots else []
    for image in images:
        wrote(image)
    if args.markdown:
        write_markdown(args.markdown, text, images)
    if args.record:
        replays = len(report.pairs) * report.games_per_pair
        wrote(f"{Path(args.record)}{os.sep}", f" ({replays} replays)")


def write_markdown(path: str | Path, text: str, images: Sequence[Path]) -> None:
    """Write a report's markdown, with links to its plots (:func:`image_links`), and say
    so (:func:`wrote`)."""
    md = Path(path)
    md.write_text(text + image_links(images, md.parent))
    wrote(md)


def wrote(path: str | Path, note: str = "") -> None:
    """The line that names a file (or folder) written: ``wrote PATH``, on stderr."""
    print(f"wrote {path}{note}", file=sys.stderr, flush=True)


def _check_args(args: argparse.Namespace, env_kwargs: dict[str, Any]) -> dict[str, Agent]:
    """Check every argument before the first game; the agents by name. Raises
    ``ValueError`` (or a ``ScenarioError``) naming the argument."""
    from facing_env.scenario import load_scenario

    cli.count(args.games, "--games", high=MAX_GAMES)
    cli.count(args.workers, "--workers", high=MAX_WORKERS)
    cli.count(args.seed, "--seed", low=0, high=MAX_SEED + 1 - args.games)
    load_scenario(args.scenario)
    if len(set(args.agents)) < MIN_AGENTS:
        raise ValueError("--agents: evaluation needs at least two different agents")
    twice = sorted({a for a in args.agents if args.agents.count(a) > 1})
    if twice:
        raise ValueError(f"--agents: {', '.join(map(repr, twice))} given twice")
    cli.report_files(args.json, args.markdown)
    cli.output_folder(args.record, "--record")
    cli.output_folder(args.plots, "--plots")
    cli.input_folder(args.tensorboard, "--tensorboard")
    if args.tensorboard and not args.plots:
        raise ValueError("--tensorboard draws learning curves: give --plots DIR as well")
    cli.plots_need_matplotlib(args.plots)
    return cli.agents(args.agents, "--agents", args.scenario, **env_kwargs)


if __name__ == "__main__":
    cli.run_main(main)
