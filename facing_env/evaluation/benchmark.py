"""The benchmark: a named suite of tasks, the aggregate over runs, and a rating ladder.

``python -m facing_env.benchmark --agent AGENT [--quick] --json PATH [--markdown PATH]``

A task is a scenario and a scripted opponent (:data:`TASKS`); the agent plays each task's
games on both sides (the first team in even games, the second in odd ones) over fixed
evaluation seeds, task ``k`` from ``2,000,000 + 10,000 k`` (:data:`EVAL_SEED`; every seed
the project trains or evaluates on elsewhere is below 1,100,000). Per task the report gives
wins, draws, losses, the win rate (a draw is not a win) and its 95% Wilson interval.

Several runs of one method (``--agent`` repeated, or ``--runs DIR``: the ``train.py`` run
folders under DIR, ``<scenario>__<exp>__<seed>__<time>/model.zip``, one run per seed) give
the aggregate over runs as rliable computes it: the interquartile mean (IQM) of every
run's win rate on every task, with a 95% stratified-bootstrap interval (the runs of each
task resampled; with one run, each task's games: :mod:`facing_env.evaluation.statistics`).
``--baseline`` (or ``--baseline-runs``) names a second method, played the same way, and the
report adds the probability that the first improves on it, with its interval.

The rating ladder places the agent on the Elo scale by games against the anchors
(:data:`ANCHORS`: ``random``, ``aggressive``, ``defensive``, ``flanker`` and ``expert`` at
ratings pinned once from a large round robin and published with the version), on every
scenario of the suite, both sides: the maximum-likelihood rating with the anchors fixed and
its 95% likelihood-ratio interval, so ratings compare across runs and machines.

An agent is a scripted agent's name, ``model:PATH[@T]`` or ``rllib:PATH[#ID]`` as in
``python -m facing_env.evaluate``; a policy is trained for one scenario (its observation
size and actions are the scenario's), so ``{scenario}`` in a path is replaced by each task's
scenario name (``model:runs/seed1/{scenario}/model.zip``; ``benchmark/ruins`` reads
``ruins``). ``--games`` sets the games per task (200; 20 with ``--quick``) and
``--ladder-games`` the games per anchor on each ladder scenario (20; 2 with ``--quick``).
``--headroom`` plays the suite with the expert and every scripted agent instead, over seeds
apart from the evaluation's (``3,000,000`` on), and reports each task's headroom: the
expert's win rate less the best scripted agent's. ``--pin-anchors`` plays the anchors'
round robin on the ladder's scenarios and prints the ratings that :data:`ANCHORS` pins.

The report's markdown goes to stdout; a progress bar counting games and the ``wrote PATH``
lines to stderr. Every argument is checked before the first game; a mistake ends the
command with one line on stderr and exit status 2. The JSON layout is documented in
docs/benchmarks.md ("The JSON report") and versioned by its ``format``.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from facing_env import cli
from facing_env.errors import FacingEnvError

# the suite, its seeds and anchors (the docstring's TASKS, EVAL_SEED, ANCHORS) and its play
from facing_env.evaluation.suite import (
    ANCHORS,
    GAMES,
    LADDER_GAMES,
    QUICK_GAMES,
    QUICK_LADDER_GAMES,
    SCRIPTED,
    SEED_STRIDE,
    TASKS,
    Run,
    Task,
    benchmark,
    headroom,
    keep,
    ladder_scenarios,
    pin_anchors,
    runs_from_folder,
)

# -- markdown ---------------------------------------------------------------------------------


def _ci(entry: Mapping[str, Any], key: str = "win_rate") -> str:
    return f"{entry[key]:.2f} ({entry['ci_low']:.2f}-{entry['ci_high']:.2f})"


def markdown(report: Mapping[str, Any]) -> str:
    """The report as markdown: a table of tasks, the aggregate, the rating, and the
    baseline's with the probability of improvement."""
    suite = report["suite"]
    lines = [
        f"## Benchmark of `{report['method']}` ({len(report['runs'])} run(s), "
        f"{suite['games_per_task']} games per task{', quick' if suite['quick'] else ''})",
        "",
    ]
    lines += _method_lines(report)
    base = report.get("baseline")
    if base:
        lines += ["", f"### Baseline `{base['method']}`", "", *_method_lines(base)]
        pi = report["probability_of_improvement"]
        lines += [
            "",
            f"P(`{pi['x']}` > `{pi['y']}`) = {pi['value']:.2f} "
            f"({pi['ci_low']:.2f}-{pi['ci_high']:.2f})",
        ]
    return "\n".join(lines) + "\n"


def _method_lines(part: Mapping[str, Any]) -> list[str]:
    lines = [
        "| task | scenario | opponent | wins | draws | losses | win rate (95% CI) |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, t in part["tasks"].items():
        lines.append(
            f"| {name} | {t['scenario']} | {t['opponent']} | {t['wins']} | {t['draws']} "
            f"| {t['losses']} | {_ci(t)} |"
        )
    agg = part["aggregate"]
    lines += [
        "",
        f"IQM of the win rate over {agg['runs']} run(s) x {agg['tasks']} tasks: {_ci(agg, 'iqm')}"
        f" (stratified bootstrap over the {agg['bootstrap']}, {agg['reps']} resamples)",
    ]
    r = part.get("rating")
    if r:
        edge = f", at the edge of the search ({r['edge']})" if r["edge"] else ""
        lines.append(
            f"Rating on the ladder: {r['elo']:.0f} ({r['ci_low']:.0f}-{r['ci_high']:.0f}), "
            f"{r['games']} games against the anchors{edge}"
        )
    return lines


def headroom_markdown(report: Mapping[str, Any]) -> str:
    """The headroom table: per task each agent's win rate, the best scripted, the margin."""
    names = ("expert", *SCRIPTED)
    lines = [
        f"## Headroom ({report['games_per_task']} games per task and agent, seeds "
        f"{report['seed']:,} on)",
        "",
        "| task | " + " | ".join(names) + " | best scripted | headroom |",
        "|---|" + "---|" * (len(names) + 2),
    ]
    for name, h in report["headroom"].items():
        rates = " | ".join(_ci(h["agents"][n]) for n in names)
        lines.append(f"| {name} | {rates} | {h['best_scripted']} | {h['headroom']:+.2f} |")
    return "\n".join(lines) + "\n"


def anchors_markdown(report: Mapping[str, Any]) -> str:
    """The round robin's pairs and the fitted ratings."""
    lines = [
        f"## Anchors ({report['games_per_pair_and_scenario']} games per pair on each of "
        f"{len(report['scenarios'])} scenarios)",
        "",
        "| a | b | wins | draws | losses | win rate of a (95% CI) |",
        "|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {p['a']} | {p['b']} | {p['wins']} | {p['draws']} | {p['losses']} | {_ci(p)} |"
        for p in report["pairs"]
    ]
    lines += ["", "| anchor | rating |", "|---|---|"]
    lines += [f"| {n} | {r:.1f} |" for n, r in report["ratings"].items()]
    return "\n".join(lines) + "\n"


# -- command line -------------------------------------------------------------------------------

PROG = "python -m facing_env.benchmark"


def _parser() -> argparse.ArgumentParser:
    parser = cli.parser(PROG, __doc__)
    parser.add_argument(
        "--agent",
        action="append",
        default=[],
        help="the agent (a name, model:PATH[@T] with {scenario} in PATH, rllib:PATH[#ID]); "
        "repeat for several runs of one method",
    )
    parser.add_argument("--runs", help="a folder of train.py run folders: one run per seed")
    parser.add_argument(
        "--baseline",
        action="append",
        default=[],
        help="a second method's agent (repeat for its runs): the report adds P(agent > baseline)",
    )
    parser.add_argument("--baseline-runs", help="a folder of the second method's run folders")
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"{QUICK_GAMES} games per task and {QUICK_LADDER_GAMES} per anchor and ladder "
        f"scenario instead of {GAMES} and {LADDER_GAMES}",
    )
    parser.add_argument(
        "--games",
        type=int,
        default=argparse.SUPPRESS,
        help=f"games per task ({GAMES}; {QUICK_GAMES} with --quick)",
    )
    parser.add_argument(
        "--ladder-games",
        type=int,
        default=argparse.SUPPRESS,
        help=f"games per anchor on each ladder scenario ({LADDER_GAMES}; {QUICK_LADDER_GAMES} "
        "with --quick; 0: no ladder)",
    )
    parser.add_argument(
        "--tasks",
        nargs="+",
        default=argparse.SUPPRESS,
        help="play only these tasks, by name (all of the suite when not given)",
    )
    parser.add_argument("--json", help="write the report as JSON here (.json)")
    parser.add_argument("--markdown", help="write the report as markdown here (.md)")
    parser.add_argument("--plots", help="draw the report's plots (PNG) in this folder")
    parser.add_argument(
        "--headroom",
        action="store_true",
        help="measure each task's headroom (the expert and every scripted agent) instead",
    )
    parser.add_argument(
        "--pin-anchors",
        action="store_true",
        help="play the anchors' round robin and print the ratings to pin instead",
    )
    cli.workers_and_progress(
        parser,
        workers="processes for the games of agents that choose game by game, such as the "
        "expert (default: one per CPU core)",
        progress="a progress bar of the games on stderr: 'auto' when stderr is a terminal",
    )
    return parser


@dataclass
class Plan:
    """The checked arguments."""

    mode: str
    runs: list[Run]
    name: str
    baseline: list[Run]
    baseline_name: str
    tasks: list[Task]
    games: int
    ladder_games: int


def check(args: argparse.Namespace) -> Plan:
    """Check every argument before any game; ``ValueError`` naming the argument."""
    cli.count(args.workers, "--workers")
    modes = [m for m in ("headroom", "pin_anchors") if getattr(args, m)]
    if len(modes) > 1:
        raise ValueError("--headroom and --pin-anchors are separate runs: give one")
    mode = modes[0] if modes else "benchmark"
    games = getattr(args, "games", QUICK_GAMES if args.quick else GAMES)
    cli.count(games, "--games", high=SEED_STRIDE)
    ladder = getattr(args, "ladder_games", QUICK_LADDER_GAMES if args.quick else LADDER_GAMES)
    cli.count(ladder, "--ladder-games", low=0 if mode == "benchmark" else 1, high=SEED_STRIDE)
    tasks = list(TASKS)
    if getattr(args, "tasks", None):
        known = {t.name: t for t in TASKS}
        unknown = [n for n in args.tasks if n not in known]
        if unknown:
            raise ValueError(f"--tasks: unknown task {unknown[0]!r}; known: {', '.join(known)}")
        tasks = [known[n] for n in dict.fromkeys(args.tasks)]
    cli.report_files(args.json, args.markdown)
    cli.output_folder(args.plots, "--plots")
    cli.plots_need_matplotlib(args.plots)
    given = args.agent or args.runs or args.baseline or args.baseline_runs
    if mode != "benchmark":
        if given:
            raise ValueError(f"--{mode.replace('_', '-')} plays the anchors: give no agent")
        return Plan(mode, [], mode, [], "", tasks, games, ladder)
    runs = _method(args.agent, args.runs, "--agent", "--runs", required=True)
    base = _method(args.baseline, args.baseline_runs, "--baseline", "--baseline-runs")
    _check_agents(runs, tasks, ladder > 0)
    _check_agents(base, tasks, ladder > 0, option="--baseline")
    return Plan(
        mode,
        runs,
        method_name(args.agent, args.runs),
        base,
        method_name(args.baseline, args.baseline_runs) if base else "",
        tasks,
        games,
        ladder,
    )


def _method(
    specs: Sequence[str],
    folder: str | None,
    option: str,
    folder_option: str,
    *,
    required: bool = False,
) -> list[Run]:
    if specs and folder:
        raise ValueError(f"{option} and {folder_option} name the same method's runs: give one")
    if folder:
        cli.input_folder(folder, folder_option)
        try:
            return runs_from_folder(folder)
        except ValueError as exc:
            raise ValueError(f"{folder_option}: {exc}") from None
    if not specs and required:
        raise ValueError(f"give the agent to benchmark: {option} AGENT (or {folder_option} DIR)")
    return [Run(s, {"*": s}) for s in specs]


def method_name(specs: Sequence[str], folder: str | None) -> str:
    """A method's name in the report: the runs folder's name, or the agent given."""
    if folder is not None:
        return Path(folder).name or str(folder)
    unique = list(dict.fromkeys(specs))
    return unique[0] if len(unique) == 1 else " + ".join(unique)


def _check_agents(
    runs: Sequence[Run], tasks: Sequence[Task], ladder: bool, option: str = "--agent"
) -> None:
    """Make every run's agent of every scenario it plays, and check each policy against its
    scenario's layout (:func:`facing_env.cli.agents`); an error names ``option``."""
    scenarios = list(ladder_scenarios(tasks))
    from facing_env.scenario import load_scenario

    for s in scenarios:
        load_scenario(s)
    for run in runs:
        for s in scenarios:
            try:
                name = run.agent(s)
            except ValueError as exc:
                raise ValueError(f"{option}: {exc}") from None
            keep(cli.agents([name], option, s))
    del ladder


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Command-line entry point: checks every argument, then plays."""
    args = _parser().parse_args(argv)
    try:
        plan = check(args)
    except (ValueError, FacingEnvError) as exc:
        cli.fail(PROG, str(exc))
    try:
        report, text = _play(plan, args)
        print(text, end="", flush=True)
        _write(args, report, text)
    except (ValueError, FacingEnvError, ImportError, OSError) as exc:
        cli.fail(PROG, str(exc))
    return report


def _total(plan: Plan) -> int:
    """Games the plan plays (the progress bar's length)."""
    scen = len(ladder_scenarios(plan.tasks))
    if plan.mode == "headroom":
        return (1 + len(SCRIPTED)) * len(plan.tasks) * plan.games
    if plan.mode == "pin_anchors":
        return math.comb(len(ANCHORS), 2) * scen * plan.ladder_games
    runs = len(plan.runs) + len(plan.baseline)
    return runs * (len(plan.tasks) * plan.games + len(ANCHORS) * scen * plan.ladder_games)


def _play(plan: Plan, args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    bar = cli.progress_bar(
        _total(plan), "benchmark", enabled=cli.PROGRESS[args.progress], unit="game"
    )
    with bar:
        if plan.mode == "headroom":
            report = headroom(plan.tasks, plan.games, workers=args.workers, progress=bar.update)
            return report, headroom_markdown(report)
        if plan.mode == "pin_anchors":
            report = pin_anchors(
                ladder_scenarios(plan.tasks),
                plan.ladder_games,
                workers=args.workers,
                progress=bar.update,
            )
            return report, anchors_markdown(report)
        report = benchmark(
            plan.runs,
            name=plan.name,
            baseline=plan.baseline,
            baseline_name=plan.baseline_name,
            tasks=plan.tasks,
            games=plan.games,
            ladder_games=plan.ladder_games,
            workers=args.workers,
            progress=bar.update,
            quick=args.quick,
        )
    return report, markdown(report)


def _write(args: argparse.Namespace, report: Mapping[str, Any], text: str) -> None:
    from facing_env.evaluation.evaluate import write_markdown, wrote

    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))
        wrote(args.json)
    images: list[Path] = []
    if args.plots and "suite" in report:
        from facing_env.evaluation.plots import benchmark_plots

        images = benchmark_plots(report, args.plots)
        for image in images:
            wrote(image)
    if args.markdown:
        write_markdown(args.markdown, text, images)


if __name__ == "__main__":
    cli.run_main(main)
