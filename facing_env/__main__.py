"""``python -m facing_env`` (or ``facing-env``): one command over the project's tools.

``python -m facing_env [--scenario NAME]`` shows a scenario's board, its creatures' facing
areas and the facing modifier of every attacker against every defender;
``python -m facing_env TOOL ...`` runs a tool: ``evaluate``, ``benchmark``, ``bench``,
``replay`` or ``ceiling`` (each with its own ``--help``); ``python -m facing_env warm``
compiles the kernels into the cache now (after an install, or before a test run: two
processes that start cold would each compile them)."""

from __future__ import annotations

import sys

import numpy as np

from facing_env import cli, rules
from facing_env.errors import FacingEnvError
from facing_env.render.text import areas_text, board_text
from facing_env.scenario import DEFAULT_SCENARIO, load_scenario, scenario_names

TOOLS = ("evaluate", "benchmark", "bench", "replay", "ceiling", "warm")
"""The tools ``python -m facing_env TOOL`` runs."""


def _run_tool(name: str, argv: list[str]) -> int:
    """Run tool ``name``'s ``main(argv)``; its exit status (0 when it returns a report)."""
    if name == "evaluate":
        from facing_env.evaluation.evaluate import main as tool
    elif name == "benchmark":
        from facing_env.evaluation.benchmark import main as tool
    elif name == "bench":
        from facing_env.evaluation.bench import main as tool
    elif name == "replay":
        from facing_env.render.replay import main as tool
    elif name == "warm":
        from facing_env.warm import warm as tool
    else:
        from facing_env.evaluation.ceiling import main as tool
    status = tool(argv)
    return status if isinstance(status, int) else 0


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in TOOLS:
        return _run_tool(argv[0], argv[1:])
    return _show(argv)


def _show(argv: list[str]) -> int:
    """Show a scenario's board, its areas and the facing modifiers."""
    parser = cli.parser("python -m facing_env", __doc__)
    parser.add_argument(
        "--scenario",
        default=DEFAULT_SCENARIO,
        help=f"built-in name ({', '.join(scenario_names())}) or a YAML path",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed for procedural scenarios")
    args = parser.parse_args(argv)
    if args.seed < 0:
        print(
            f"python -m facing_env: error: --seed must be 0 or more, got {args.seed}",
            file=sys.stderr,
        )
        return 2
    try:
        scenario = load_scenario(args.scenario)
    except FacingEnvError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    battle = scenario.build(np.random.default_rng(args.seed))
    print(f"{scenario.name} ({battle.ruleset.value}, {battle.kind.value} grid)")
    print(scenario.description)
    print()
    print(board_text(battle))
    for cid in battle.creatures:
        print(f"\nareas of {cid} (F front, K flank, S side, R rear):")
        print(areas_text(battle, cid))
    print("\nfacing modifier, attacker (rows) against defender (columns):")
    ids = list(battle.creatures)
    print(" " * 16 + "".join(f"{d[:12]:>13}" for d in ids))
    for a in ids:
        row = "".join(
            f"{'':>13}" if a == d else f"{rules.facing_modifier(battle, a, d):>+13d}" for d in ids
        )
        print(f"{a[:16]:<16}{row}")
    return 0


def run() -> None:
    """The ``facing-env`` console script: :func:`main` with its exit status."""
    cli.run_main(main)


if __name__ == "__main__":
    run()
