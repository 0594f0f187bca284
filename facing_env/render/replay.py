"""Replays: load a recorded game, re-run it through the engine, export a GIF, MP4 or HTML.

``python -m facing_env.replay FILE --gif OUT.gif --html OUT.html [--mp4 OUT.mp4]``

A record (format ``facing_env.replay/1``, written by ``python -m facing_env.evaluate
--record DIR`` through :func:`facing_env.evaluation.match.replay_record`) holds the
scenario, the seed, the env's keyword arguments, the actions ``[agent, action]`` and the events.
Files are validated with pydantic and read as plain JSON: nothing in them is executed. A replay
re-applies the actions to a fresh env with the recorded seed and checks that the engine
produces exactly the recorded events (:class:`ReplayDivergence` otherwise). Files larger
than :data:`~facing_env.limits.MAX_REPLAY_BYTES`, nested deeper than
:data:`~facing_env.limits.MAX_NESTING` or not regular files are refused before parsing; the
command checks its arguments first and reports a mistake in one line with exit status 2.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from facing_env import cli
from facing_env.env import raw_env
from facing_env.errors import FacingEnvError, IllegalActionError, ScenarioError
from facing_env.events import Event
from facing_env.registry import ENV_VERSION
from facing_env.render.canvas import last_attack
from facing_env.render.record import (
    CreatureState,
    ReplayDivergence,
    ReplayError,
    ReplayRecord,
    ReplayStep,
    load_replay,
    parse_record,
)
from facing_env.rules import engine


def _snapshot(
    env: raw_env, index: int, agent: str | None, action: int | None, new: list[Event]
) -> ReplayStep:
    b = env.battle
    actor = engine.actor(b)
    return ReplayStep(
        index,
        agent,
        action,
        tuple(new),
        {cid: CreatureState(c.pos, c.facing, c.hp) for cid, c in b.creatures.items()},
        actor.id if actor is not None else None,
        b.initiative.round,
        last_attack(env.events),
    )


def replay(
    record: ReplayRecord | Mapping[str, Any] | str | Path,
) -> tuple[raw_env, list[ReplayStep]]:
    """Re-run a record through the engine; the env at the end and the state after each
    action. Raise :class:`ReplayDivergence` when the engine's events differ."""
    rec = record if isinstance(record, ReplayRecord) else _coerce(record)
    if rec.env_version != ENV_VERSION:
        raise ReplayError(
            f"{rec.source}: field 'env_version': recorded with env v{rec.env_version}, this is"
            f" env v{ENV_VERSION}, whose trajectories differ (CHANGELOG.md): record the game again"
        )
    try:
        env = raw_env(scenario=rec.scenario, **rec.env_kwargs)
    except ScenarioError as exc:
        raise ReplayError(f"{rec.source}: field 'scenario': {exc}") from None
    env.reset(seed=rec.seed)
    steps = [_snapshot(env, 0, None, None, list(env.events))]
    _check(rec, env, 0, None)
    for i, (agent, action) in enumerate(rec.actions, start=1):
        if not env.agents:
            raise ReplayDivergence(
                f"{rec.source}: the battle is over after {i - 1} actions, the record has "
                f"{len(rec.actions)}"
            )
        if env.agent_selection != agent:
            raise ReplayDivergence(
                f"{rec.source}: action {i}: the record has {agent!r} act, the engine selects "
                f"{env.agent_selection!r}"
            )
        if env.truncations.get(agent) and action is not None:
            raise ReplayDivergence(
                f"{rec.source}: action {i}: the battle reached its round limit "
                f"({env.max_rounds} rounds) after {i - 1} actions, the record has "
                f"{len(rec.actions)}"
            )
        before = len(env.events)
        try:
            env.step(action)
        except (IllegalActionError, ValueError, TypeError) as exc:  # TypeError: None if alive
            raise ReplayDivergence(f"{rec.source}: action {i} ({agent}: {action}): {exc}") from None
        _check(rec, env, i, before)
        steps.append(_snapshot(env, i, agent, action, env.events[before:]))
    if len(env.events) != len(rec.events):
        raise ReplayDivergence(
            f"{rec.source}: the replay gives {len(env.events)} events, the record {len(rec.events)}"
        )
    winner = engine.winner(env.battle) if engine.is_over(env.battle) else None
    got = {"winner": winner, "rounds": env.battle.initiative.round}
    for key, want in rec.outcome.items():
        if got[key] != want:
            raise ReplayDivergence(
                f"{rec.source}: field {key!r}: the replay ends with {got[key]!r}, the record "
                f"says {want!r}"
            )
    return env, steps


def _coerce(record: Mapping[str, Any] | str | Path) -> ReplayRecord:
    if isinstance(record, Mapping):
        return parse_record(record)
    return load_replay(record)


def _check(rec: ReplayRecord, env: raw_env, index: int, before: int | None) -> None:
    start = before or 0
    for k in range(start, len(env.events)):
        got = json.loads(json.dumps(env.events[k].to_dict()))
        want = rec.events[k] if k < len(rec.events) else None
        if got != want:
            when = "at the reset" if index == 0 else f"after action {index}"
            raise ReplayDivergence(
                f"{rec.source}: event {k} {when} differs: the engine gives {got}, the record "
                f"has {want}"
            )


PROG = "python -m facing_env.replay"


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point: checks every argument, then replays and exports; a
    mistake (or a file that does not replay) exits with status 2 and one line."""
    parser = cli.parser(PROG, __doc__)
    parser.add_argument("file", help="a replay JSON file (evaluate --record)")
    parser.add_argument("--gif", help="write an animated GIF here (.gif)")
    parser.add_argument("--html", help="write a self-contained HTML viewer here (.html)")
    parser.add_argument("--mp4", help="write an MP4 video here (.mp4, needs imageio-ffmpeg)")
    parser.add_argument("--fps", type=float, default=4.0, help="frames per second (0 to 60)")
    args = parser.parse_args(argv)
    try:
        cli.number(args.fps, "--fps", 0.0, 60.0, open_low=True)
        cli.output_file(args.gif, "--gif", (".gif",))
        cli.output_file(args.html, "--html", (".html", ".htm"))
        cli.output_file(args.mp4, "--mp4", (".mp4",))
        record = load_replay(args.file)
    except (ValueError, FacingEnvError) as exc:
        cli.fail(PROG, str(exc))
    try:
        env, steps = replay(record)
        print(
            f"{args.file}: {len(steps) - 1} actions, {len(env.events)} events, identical to "
            f"the record; winner: {_winner(env)}"
        )
        from facing_env.render import export

        title = Path(args.file).name
        if args.gif:
            export.gif(env, steps, args.gif, fps=args.fps)
        if args.mp4:
            export.mp4(env, steps, args.mp4, fps=args.fps)
        if args.html:
            export.html_file(env, steps, args.html, fps=args.fps, title=title)
        for out in (args.gif, args.mp4, args.html):
            if out:
                print(f"wrote {out}")
    except (ReplayError, ImportError, OSError) as exc:
        cli.fail(PROG, str(exc))
    return 0


def _winner(env: raw_env) -> str:
    if not engine.is_over(env.battle):
        return "none (unfinished or a draw)"
    return str(engine.winner(env.battle))


__all__ = [
    "CreatureState",
    "ReplayDivergence",
    "ReplayError",
    "ReplayRecord",
    "ReplayStep",
    "load_replay",
    "parse_record",
    "replay",
]

if __name__ == "__main__":
    cli.run_main(main)
