"""``python -m facing_env``: show a scenario's board, its creatures' facing areas and the
facing modifier of every attacker against every defender."""

from __future__ import annotations

import argparse
import sys

import numpy as np

from facing_env import rules
from facing_env.errors import FacingEnvError
from facing_env.render import areas_text, board_text
from facing_env.scenario import DEFAULT_SCENARIO, load_scenario, scenario_names


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m facing_env", description=__doc__)
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


if __name__ == "__main__":
    raise SystemExit(main())
