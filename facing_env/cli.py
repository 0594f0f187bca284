"""Checks of command-line arguments, made before any long work starts.

``train.py``, ``train_rllib.py``, ``python -m facing_env.evaluate`` and
``python -m facing_env.replay`` check every argument first (the scenario, agent names and
model files, output folders and files, counts) and report a mistake as argparse does: one
line ``PROG: error: MESSAGE`` on stderr and exit status 2 (:class:`UsageError`), with no
traceback and before any training or game.

Long work shows its progress on stderr (:func:`progress_bar`: a tqdm bar, or nothing when
tqdm is missing or the bar is turned off), so stdout keeps only the results.
"""

from __future__ import annotations

import argparse
import inspect
import math
import os
import re
import sys
import tempfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, NoReturn, TypeVar

from facing_env.errors import FacingEnvError
from facing_env.limits import short_repr
from facing_env.rules.dice import check_mode

T = TypeVar("T")
R = TypeVar("R")

USAGE_STATUS = 2
"""Exit status of a command-line mistake (as argparse)."""


class UsageError(SystemExit):
    """A mistake on the command line: exits with status 2; ``str()`` is the message."""

    def __init__(self, message: str) -> None:
        super().__init__(USAGE_STATUS)
        self.message = message

    def __str__(self) -> str:
        return self.message


_ROLE = re.compile(r":(?:func|mod|class|meth|data|attr|exc):`~?([^`]+)`")
_LITERAL = re.compile(r"``([^`]+)``")
_STRONG = re.compile(r"\*\*([^*]+)\*\*")


def plain(text: str | None) -> str:
    """A docstring as plain text for ``--help``: reST roles become their target's last
    name (``:func:`~a.b.c``` -> ``c``; the full path without ``~``), double backquotes and
    bold marks are dropped."""
    if not text:
        return ""
    text = inspect.cleandoc(text)  # a function's docstring is indented after its first line

    def role(m: re.Match[str]) -> str:
        target = m.group(1)
        return target.rsplit(".", 1)[-1] if m.group(0).count("~") else target

    return _STRONG.sub(r"\1", _LITERAL.sub(r"\1", _ROLE.sub(role, text)))


class HelpFormatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """``--help`` as written (paragraphs kept) with every option's default shown."""


def parser(prog: str, doc: str | None) -> argparse.ArgumentParser:
    """An argument parser whose help is ``doc`` in plain text, defaults shown."""
    return argparse.ArgumentParser(prog=prog, description=plain(doc), formatter_class=HelpFormatter)


PROGRESS: dict[str, bool | None] = {"auto": None, "on": True, "off": False}
"""The choices of ``--progress``: show the bars when stderr is a terminal, always, never."""


def workers_and_progress(parser: argparse.ArgumentParser, workers: str, progress: str) -> None:
    """Add ``--workers`` (processes for the games, one per CPU core by default) and
    ``--progress`` (:data:`PROGRESS`, ``auto`` by default) to a command's parser, with
    these help texts."""
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help=workers)
    parser.add_argument("--progress", choices=PROGRESS, default="auto", help=progress)


def run_main(main: Callable[[], Any]) -> NoReturn:
    """Run a command's ``main()`` and exit with its status (0 when it returns no int);
    output cut short by the reader (``... | head``) ends quietly, as Unix tools do."""
    try:
        status = main()
        sys.stdout.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # Python's own flush at exit must not fail
        raise SystemExit(0) from None
    raise SystemExit(status if isinstance(status, int) else 0)


def fail(prog: str, message: str) -> NoReturn:
    """Print ``PROG: error: MESSAGE`` (one line) to stderr and exit with status 2."""
    line = " ".join(message.split())
    print(f"{prog}: error: {line}", file=sys.stderr)
    raise UsageError(line)


def checked(prog: str, check: Callable[[T], R], args: T) -> R:
    """``check(args)``, with a ``ValueError`` or a package error turned into :func:`fail`'s
    one line and exit status 2 (the command lines' option checks)."""
    try:
        return check(args)
    except (ValueError, FacingEnvError) as exc:
        fail(prog, str(exc))


def output_file(path: str | None, option: str, suffixes: Sequence[str]) -> str | None:
    """Check a file to write: one of ``suffixes``, not a folder, in a writable folder (made
    later if missing, so the nearest existing one must be writable); raise ``ValueError``."""
    if path is None:
        return None
    target = Path(path)
    if target.suffix.lower() not in suffixes:
        raise ValueError(f"{option} {short_repr(path)}: expected a {' or '.join(suffixes)} file")
    if target.is_dir():
        raise ValueError(f"{option} {short_repr(path)} is a folder, not a file")
    if target.exists() and not os.access(target, os.W_OK):
        raise ValueError(f"{option} {short_repr(path)} is not writable")
    _writable_folder(target.parent, option, path)
    return path


def report_files(json: str | None, markdown: str | None) -> None:
    """Check the files a report is written to: ``--json`` (``.json``) and ``--markdown``
    (``.md`` or ``.markdown``), each when given (:func:`output_file`); raise ``ValueError``."""
    output_file(json, "--json", (".json",))
    output_file(markdown, "--markdown", (".md", ".markdown"))


def plots_need_matplotlib(plots: str | None) -> None:
    """When ``--plots`` is given, check that matplotlib imports (the ``render`` extra);
    raise ``ValueError``."""
    if plots:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise ValueError("--plots needs matplotlib: pip install -e '.[render]'") from None


def output_folder(path: str | None, option: str) -> str | None:
    """Check a folder to write into (made if missing); raise ``ValueError``."""
    if path is None:
        return None
    target = Path(path)
    if target.exists() and not target.is_dir():
        raise ValueError(f"{option} {short_repr(path)} is a file, not a folder")
    _writable_folder(target, option, path)
    return path


def _writable_folder(folder: Path, option: str, given: str) -> None:
    """Make the folder (and its parents) and write a scratch file in it: permission bits
    alone do not tell (root passes every check, /proc and read-only mounts refuse)."""
    existing = folder.absolute()
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise ValueError(f"{option} {short_repr(given)}: {existing} is not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise ValueError(
            f"{option} {short_repr(given)}: cannot write in {folder} ({reason})"
        ) from None


def input_folder(path: str | None, option: str) -> str | None:
    """Check a folder to read; raise ``ValueError``."""
    if path is not None and not Path(path).is_dir():
        raise ValueError(f"{option} {short_repr(path)} is not a folder")
    return path


def count(value: Any, option: str, low: int = 1, high: int | None = None) -> int:
    """Check an integer count of at least ``low`` (and at most ``high``); raise
    ``ValueError``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ValueError(f"{option} must be an integer of at least {low}, got {short_repr(value)}")
    if high is not None and value > high:
        raise ValueError(f"{option} must be at most {high}, got {short_repr(value)}")
    return value


def number(
    value: Any, option: str, low: float, high: float = math.inf, *, open_low: bool = False
) -> float:
    """Check a finite number in ``[low, high]`` (``(low, high]`` with ``open_low``)."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    ok = ok and (value > low if open_low else value >= low) and value <= high
    if not ok:
        bounds = f"{'(' if open_low else '['}{low}, {high}]"
        raise ValueError(f"{option} must be a finite number in {bounds}, got {short_repr(value)}")
    return float(value)


def agents(names: Iterable[str], option: str, scenario: str, **env_kwargs: Any) -> dict[str, Any]:
    """Make every agent of ``names`` and check each saved model against the scenario's
    layout (observation size and action count); raise ``ValueError`` naming the agent."""
    from facing_env.agents import make_agent
    from facing_env.env import raw_env

    made: dict[str, Any] = {}
    layout: tuple[int, int] | None = None
    for name in names:
        if name in made:
            continue
        try:
            agent = make_agent(name)
            check = getattr(agent, "check_layout", None)
            if check is not None:
                if layout is None:
                    env = raw_env(scenario=scenario, **env_kwargs)
                    layout = (env.layout.size, env.codec.n)
                check(*layout)
        except (FacingEnvError, ValueError, ImportError, OSError) as exc:
            raise ValueError(f"{option}: {exc}") from None
        made[name] = agent
    return made


def widths(values: Sequence[Any], option: str) -> tuple[int, ...]:
    """Check hidden-layer widths: 1 to ``MAX_MODEL_LAYERS`` layers of 1 to
    ``MAX_MODEL_WIDTH`` units (what a saved model may declare to be loaded again)."""
    from facing_env.limits import MAX_MODEL_LAYERS, MAX_MODEL_WIDTH

    if not 1 <= len(values) <= MAX_MODEL_LAYERS:
        raise ValueError(f"{option} needs 1 to {MAX_MODEL_LAYERS} layers, got {len(values)}")
    for value in values:
        count(value, option)
        if value > MAX_MODEL_WIDTH:
            raise ValueError(f"{option}: a layer has at most {MAX_MODEL_WIDTH} units, got {value}")
    return tuple(values)


def run_name_part(value: str, option: str) -> str:
    """Check a part of a run folder's name: not empty, no path separator."""
    if not value or "/" in value or "\\" in value or value in (".", "..") or "\0" in value:
        raise ValueError(f"{option} {short_repr(value)} cannot be part of a folder name")
    return value


def env_options(scenario: str, dice: str | None, env_kwargs: dict[str, Any]) -> dict[str, Any]:
    """Check the scenario, ``--dice`` and ``--env-kwargs`` by making the env once; the
    keyword arguments of the env (``dice`` included when given)."""
    from facing_env.env import raw_env

    if dice is not None:
        check_mode(dice, "--dice")
    kwargs = {**env_kwargs, **({"dice": dice} if dice else {})}
    known = ("max_rounds", "window", "dice", "flat_footed_start", "perception")
    unknown = sorted(set(kwargs) - set(known))
    if unknown:
        raise ValueError(f"--env-kwargs: unknown keys {unknown} (known: {', '.join(known)})")
    try:
        raw_env(scenario=scenario, **kwargs)
    except FacingEnvError:
        raise
    except ValueError as exc:
        raise ValueError(f"--env-kwargs: {exc}") from None
    return kwargs


class NoBar:
    """A progress bar that draws nothing (tqdm's methods the project calls)."""

    n = 0

    def update(self, n: int = 1) -> None:
        """Count ``n`` more steps (nothing is drawn)."""

    def set_postfix_str(self, text: str = "", refresh: bool = True) -> None:
        """Show ``text`` after the bar (nothing is drawn)."""

    def close(self) -> None:
        """End the bar (nothing to end)."""

    def __enter__(self) -> NoBar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def progress_bar(total: int, desc: str, *, enabled: bool | None = None, unit: str = "it") -> Any:
    """A tqdm progress bar of ``total`` steps on stderr, named ``desc``; a :class:`NoBar`
    when ``enabled`` is false, or is None (the default) and stderr is not a terminal, or
    tqdm is not installed (it comes with the ``train`` extra). Use it as tqdm's: ``update``,
    ``set_postfix_str``, ``close`` or a ``with`` block."""
    if enabled is None:
        enabled = sys.stderr is not None and sys.stderr.isatty()
    if not enabled:
        return NoBar()
    try:
        from tqdm import tqdm
    except ImportError:
        return NoBar()
    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, dynamic_ncols=True)
