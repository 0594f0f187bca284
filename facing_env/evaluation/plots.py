"""Pictures of an evaluation report (matplotlib figures saved with Agg: no display needed).

- ``win_rates.png``: each pair's games split into wins, draws and losses (stacked bars, a
  legend naming them) with the win rate's 95% Wilson interval;
- ``learning_curves.png``: ``rollout/ep_rew_mean`` and every ``eval/*`` scalar of a training
  run's TensorBoard logs, one panel each, titled in words, on one shared axis of learner
  steps (skipped when there are none or tensorboard is missing);
- ``attack_origins.png``: per agent, around one defender facing up, how many of its chosen
  attacks came from each square (``AgentResult.attack_origins``, offsets in the defender's
  frame: :func:`facing_env.evaluation.match.attack_origin`), squares coloured by the area
  they are in for a one-cell defender under the scenario's rule set, a colour key naming
  the areas (front, flank or side, rear).

Each picture has a function that returns its matplotlib ``Figure`` (:func:`win_rates_figure`,
:func:`curves_figure`, :func:`attack_origins_figure`) and one that saves it.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Polygon
from matplotlib.ticker import FuncFormatter, MaxNLocator

from facing_env.evaluation.report import Report, wilson_interval
from facing_env.render.canvas import AREA_COLOURS
from facing_env.rules import geometry
from facing_env.types import Area, GridKind, Ruleset, Size

CURVE_TAGS = ("rollout/ep_rew_mean",)
CURVE_PREFIXES = ("eval/",)
DPI = 100
STEP_TICKS = 5
"""At most this many intervals between step ticks on a learning curve's x axis."""


MARKED_POINTS = 20
"""Learning curves with fewer points mark each one."""
SMALL_COUNT = 1000
"""Counts below this are written in the larger font."""


def plots(
    report: Report, out_dir: str | Path, *, tensorboard: str | Path | None = None
) -> list[Path]:
    """Write the report's pictures into ``out_dir``; the paths written."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = [win_rates(report, out / "win_rates.png")]
    if tensorboard is not None:
        curves = learning_curves(tensorboard, out / "learning_curves.png")
        paths += [curves] if curves is not None else []
    paths.append(attack_origins(report, out / "attack_origins.png"))
    return paths


def win_rates(report: Report, path: Path) -> Path:
    """Each pair's wins, draws and losses, the win rate with its 95% interval
    (:func:`win_rates_figure`)."""
    return _save(win_rates_figure(report), path)


WIN_COLOURS = {"wins": "#3c64c8", "draws": "#bbbbbb", "losses": "#d2785a"}
"""The colours of a pair's wins, draws and losses (from its first agent's side)."""


def win_rates_figure(report: Report) -> Figure:
    """One bar per pair, its games split into wins, draws and losses of its first agent
    (three bar sets, stacked, labelled in the legend), the win rate's 95% Wilson interval
    drawn over the wins."""
    pairs = report.pairs
    fig = Figure(figsize=(7.5, 0.6 * len(pairs) + 1.6), dpi=DPI, layout="constrained")
    ax = fig.subplots()
    y = np.arange(len(pairs))
    games = np.array([max(p.games, 1) for p in pairs], dtype=float)
    shares = {
        "wins": np.array([p.wins for p in pairs]) / games,
        "draws": np.array([p.draws for p in pairs]) / games,
        "losses": np.array([p.losses for p in pairs]) / games,
    }
    left = np.zeros(len(pairs))
    for label, share in shares.items():
        ax.barh(y, share, left=left, color=WIN_COLOURS[label], label=label)
        left = left + share
    rates = shares["wins"]
    intervals = np.array([wilson_interval(p.wins, p.games) for p in pairs]).reshape(-1, 2)
    err = np.clip([rates - intervals[:, 0], intervals[:, 1] - rates], 0, 1)
    ax.errorbar(
        rates,
        y,
        xerr=err,
        fmt="none",
        ecolor="#222",
        capsize=3,
        label="95% interval of the win rate",
    )
    ax.set_yticks(
        y,
        [
            f"{p.a} vs {p.b}\n{r:.2f} [{lo:.2f}, {hi:.2f}]"
            for p, r, (lo, hi) in zip(pairs, rates, intervals, strict=True)
        ],
        fontsize=8,
    )
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.axvline(0.5, color="#888", lw=0.8, ls="--")
    ax.set_xlabel(f"share of the {report.games_per_pair} games of each pair (first agent's side)")
    ax.set_title(f"Win rate of each pair, with its 95% interval ({report.scenario})")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8)
    return fig


def read_scalars(tensorboard: str | Path) -> dict[str, list[tuple[int, float]]]:
    """``{tag: [(step, value)]}`` of the learning-curve tags in every event file under the
    folder; empty when there are none or tensorboard is not installed."""
    try:
        from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    except ImportError:
        return {}
    out: dict[str, list[tuple[int, float]]] = {}
    for folder in sorted({f.parent for f in Path(tensorboard).rglob("events.out.tfevents.*")}):
        acc = EventAccumulator(str(folder), size_guidance={"scalars": 0})
        acc.Reload()
        for tag in acc.Tags().get("scalars", []):
            if tag in CURVE_TAGS or tag.startswith(CURVE_PREFIXES):
                out.setdefault(tag, []).extend((e.step, e.value) for e in acc.Scalars(tag))
    return {tag: sorted(v) for tag, v in out.items()}


def step_label(value: float, _position: object = None) -> str:
    """A short label for a number of steps: ``950``, ``200k``, ``1.25M``, ``3B`` (at most
    three significant digits; a matplotlib ``FuncFormatter``)."""
    sign, size = ("-" if value < 0 else ""), abs(float(value))
    for unit, scale in (("B", 1e9), ("M", 1e6), ("k", 1e3)):
        if round(size / scale, 2) >= 1:
            digits = 2 if size < 10 * scale else 1 if size < 100 * scale else 0
            text = f"{size / scale:.{digits}f}"
            return sign + (text.rstrip("0").rstrip(".") if digits else text) + unit
    return sign + f"{size:.0f}"


def learning_curves(tensorboard: str | Path, path: Path) -> Path | None:
    """The episode reward and evaluation scalars against training steps (None if no logs)."""
    scalars = read_scalars(tensorboard)
    if not scalars:
        return None
    return _save(curves_figure(scalars), path)


def curve_title(tag: str) -> str:
    """A learning curve's title in words: ``rollout/ep_rew_mean`` is "Mean episode reward
    in training", ``eval/win_rate_vs_random`` "Win rate against random", and so on."""
    if tag == "rollout/ep_rew_mean":
        return "Mean episode reward in training"
    name = tag.split("/", 1)[-1]
    name, _, opponent = name.partition("_vs_")
    words = CURVE_WORDS.get(name, name.replace("_", " "))
    words = words[:1].upper() + words[1:]
    return f"{words} against {opponent}" if opponent else words


CURVE_WORDS = {
    "win_rate": "win rate",
    "flank_or_rear_share": "flank or rear attack share",
}
"""The words of the evaluation scalars ``train.py`` logs (``eval/NAME_vs_OPPONENT``)."""


def curves_figure(scalars: dict[str, list[tuple[int, float]]]) -> Figure:
    """One panel per tag (titled by :func:`curve_title`), every panel on one shared x axis of
    learner steps, labelled as ``200k`` / ``1.2M``, whole numbers, at most
    :data:`STEP_TICKS` intervals between ticks, so the labels never overlap."""
    tags = sorted(scalars, key=lambda t: (t not in CURVE_TAGS, t))
    cols = min(3, len(tags))
    rows = math.ceil(len(tags) / cols)
    fig = Figure(figsize=(4 * cols, 2.8 * rows + 0.4), dpi=DPI, layout="constrained")
    axes = fig.subplots(rows, cols, squeeze=False, sharex=True)
    for k, (ax, tag) in enumerate(zip(axes.flat, tags, strict=False)):
        steps, values = np.array(scalars[tag]).T
        ax.plot(steps, values, marker="o" if len(steps) < MARKED_POINTS else None, ms=3)
        ax.set_title(curve_title(tag), fontsize=9)
        if ("rate" in tag or "share" in tag) and 0 <= min(values) <= max(values) <= 1:
            ax.set_ylim(-0.03, 1.03)
        if k + cols >= len(tags):  # no panel below it: its step labels show
            ax.xaxis.set_tick_params(which="both", labelbottom=True)
        ax.xaxis.set_major_locator(MaxNLocator(STEP_TICKS, steps=[1, 2, 2.5, 5, 10], integer=True))
        ax.xaxis.set_major_formatter(FuncFormatter(step_label))
        ax.tick_params(labelsize=8)
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(tags) :]:
        ax.axis("off")
    fig.suptitle("Learning curves", fontsize=11)
    fig.supxlabel("learner steps", fontsize=9)
    return fig


def _grid(report: Report) -> tuple[GridKind, Ruleset]:
    try:
        from facing_env.scenario import load_scenario

        battle = load_scenario(report.scenario).build(np.random.default_rng(0))
    except Exception:  # the scenario file may be gone: draw squares under ua35
        return GridKind.SQUARE, Ruleset.UA35
    return battle.kind, battle.ruleset


def attack_origins(report: Report, path: Path) -> Path:
    """Per agent: the squares its chosen attacks came from, around a defender facing up
    (:func:`attack_origins_figure`)."""
    return _save(attack_origins_figure(report), path)


AREA_ORDER = (Area.FRONT, Area.FLANK, Area.SIDE, Area.REAR, Area.NONE)
"""The order of the areas in the attack origins' colour key."""
AREA_NAMES = {Area.NONE: "no facing"}
"""Names in the colour key other than the area's own (``front``, ``flank``, ...)."""
NO_AREA_COLOUR = (200, 200, 200)
"""The colour of a square in no area (under the standard rules)."""


def attack_origins_figure(report: Report) -> Figure:
    """One panel per agent: the squares around a defender facing up, each with the number
    of the agent's chosen attacks made from it, coloured by the area it is in (a colour
    key below names them: front, flank or side, rear) and darker the more attacks."""
    kind, ruleset = _grid(report)
    shape = geometry.default_shape(kind, Size.MEDIUM)
    table = None  # facing 0, north or east, is attack_origin's frame
    if ruleset is not Ruleset.STANDARD:
        table = geometry.area_table(kind, ruleset, shape, 0)
    agents = list(report.agents.values())
    fig = Figure(figsize=(max(3.2 * len(agents), 6.4), 4.8), dpi=DPI, layout="constrained")
    axes = fig.subplots(1, len(agents), squeeze=False)
    seen: set[Area] = set()
    for ax, agent in zip(axes.flat, agents, strict=True):
        counts = agent.attack_origins
        total = sum(counts.values())
        for cell in sorted(set(shape.ring) | set(counts)):
            area = table.lookup(cell).area if table is not None else Area.NONE
            seen.add(area)
            n = counts.get(cell, 0)
            alpha = 0.25 + 0.75 * (n / max(counts.values())) if n else 0.12
            ax.add_patch(
                Polygon(_corners(kind, cell), fc=(*_colour(area), alpha), ec="#666", lw=0.6)
            )
            x, y = _xy(kind, cell)
            ax.text(x, y, str(n), ha="center", va="center", fontsize=8 if n < SMALL_COUNT else 6)
        ax.add_patch(Polygon(_corners(kind, (0, 0)), fc="#555", ec="#222"))
        ax.annotate("", xy=(0, 0.42), xytext=(0, -0.3), arrowprops={"color": "w", "width": 2})
        ax.set_title(f"{agent.name}\n{total} chosen attacks", fontsize=9)
        ax.set_aspect("equal", adjustable="datalim")
        ax.autoscale_view()
        ax.axis("off")
    key = [
        Patch(fc=_colour(area), ec="#666", label=AREA_NAMES.get(area, area.value))
        for area in AREA_ORDER
        if area in seen
    ]
    fig.legend(
        handles=key,
        loc="outside lower center",
        ncols=len(key),
        fontsize=9,
        title="the defender's area the attacks came from",
        title_fontsize=9,
    )
    fig.suptitle(
        f"Where each agent's attacks came from, around a defender facing up\n"
        f"({report.scenario}, {ruleset.value} rules)",
        fontsize=10,
    )
    return fig


def _colour(area: Area) -> tuple[float, float, float]:
    """An area's colour as matplotlib takes it (the board pictures' colours)."""
    r, g, b = AREA_COLOURS.get(area, NO_AREA_COLOUR)
    return r / 255, g / 255, b / 255


def _xy(kind: GridKind, cell: tuple[int, int]) -> tuple[float, float]:
    """Plot coordinates (y up) of a cell in the defender's frame, its facing pointing up."""
    x, y = geometry.cell_centre(kind, cell)
    ox, oy = geometry.cell_centre(kind, (0, 0))
    dx, dy = x - ox, oy - y  # y up
    if kind is GridKind.HEX:
        dx, dy = -dy, dx  # the hex frame faces east: turn it a quarter left
        scale = 1 / math.sqrt(3)
        return dx * scale, dy * scale
    return dx, dy


def _corners(kind: GridKind, cell: tuple[int, int]) -> Any:
    x, y = _xy(kind, cell)
    if kind is GridKind.SQUARE:
        return [(x - 0.5, y - 0.5), (x + 0.5, y - 0.5), (x + 0.5, y + 0.5), (x - 0.5, y + 0.5)]
    r = 1 / math.sqrt(3)
    return [
        (x + r * math.cos(math.radians(60 * k)), y + r * math.sin(math.radians(60 * k)))
        for k in range(6)
    ]


def _save(fig: Figure, path: Path) -> Path:
    FigureCanvasAgg(fig)
    fig.savefig(path)
    return path


# -- the benchmark (facing_env.evaluation.benchmark) ------------------------------------------


def benchmark_plots(report: dict[str, Any], out_dir: str | Path) -> list[Path]:
    """Write a benchmark report's pictures into ``out_dir``: ``task_win_rates.png``
    (:func:`task_win_rates_figure`) and, when the report has a rating, ``ladder.png``
    (:func:`ladder_figure`); the paths written."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = [_save(task_win_rates_figure(report), out / "task_win_rates.png")]
    if report.get("rating"):
        paths.append(_save(ladder_figure(report), out / "ladder.png"))
    return paths


def task_win_rates_figure(report: dict[str, Any]) -> Figure:
    """Per task, the method's win rate with its 95% interval (a dot per run when there are
    several), the baseline's beside it when there is one, and the aggregate IQM with its
    interval as a last row."""
    methods = [report] + ([report["baseline"]] if report.get("baseline") else [])
    names = list(report["tasks"])
    fig = Figure(
        figsize=(7.5, 0.5 * (len(names) + 1) * len(methods) + 1.8), dpi=DPI, layout="constrained"
    )
    ax = fig.subplots()
    colours = ("#3c64c8", "#d2785a")
    step = 0.8 / len(methods)
    for m, (part, colour) in enumerate(zip(methods, colours, strict=False)):
        rows = [
            (part["tasks"][n]["win_rate"], part["tasks"][n]["ci_low"], part["tasks"][n]["ci_high"])
            for n in names
        ]
        agg = part["aggregate"]
        rows.append((agg["iqm"], agg["ci_low"], agg["ci_high"]))
        y = np.arange(len(rows)) + m * step
        rate, low, high = (np.array(c) for c in zip(*rows, strict=True))
        ax.errorbar(
            rate,
            y,
            xerr=np.clip([rate - low, high - rate], 0, 1),
            fmt="o",
            color=colour,
            capsize=3,
            label=f"{part['method']} (95% interval)",
        )
        if len(part["runs"]) > 1:
            for k, name in enumerate(names):
                runs = [r["tasks"][name]["win_rate"] for r in part["runs"]]
                ax.plot(runs, [y[k]] * len(runs), "|", color=colour, alpha=0.6, ms=9)
    ax.set_yticks(
        np.arange(len(names) + 1) + step * (len(methods) - 1) / 2,
        [*names, "IQM over runs x tasks"],
        fontsize=8,
    )
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.axvline(0.5, color="#888", lw=0.8, ls="--")
    ax.set_xlabel(
        f"win rate ({report['suite']['games_per_task']} games per task and run, "
        "both sides; a draw is not a win)"
    )
    ax.set_title("Win rate on each task of the benchmark, with its 95% interval")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8)
    return fig


def ladder_figure(report: dict[str, Any]) -> Figure:
    """The ladder: the anchors at their pinned ratings and the method (and the baseline)
    placed among them with its 95% interval."""
    anchors = report["suite"]["ladder"]["anchors"]
    placed = [(report["method"], report["rating"], "#3c64c8")]
    base = report.get("baseline")
    if base and base.get("rating"):
        placed.append((base["method"], base["rating"], "#d2785a"))
    fig = Figure(
        figsize=(7.5, 0.45 * (len(anchors) + len(placed)) + 1.4), dpi=DPI, layout="constrained"
    )
    ax = fig.subplots()
    rows = sorted(anchors.items(), key=lambda kv: kv[1])
    for k, (name, value) in enumerate(rows):
        ax.plot([value], [k], "s", color="#555")
        ax.annotate(
            f"{name} {value:.0f}",
            (value, k),
            xytext=(6, 0),
            textcoords="offset points",
            va="center",
            fontsize=8,
        )
    for k, (name, r, colour) in enumerate(placed, start=len(rows)):
        ax.errorbar(
            [r["elo"]],
            [k],
            xerr=[[r["elo"] - r["ci_low"]], [r["ci_high"] - r["elo"]]],
            fmt="o",
            color=colour,
            capsize=4,
        )
        ax.annotate(
            f"{name} {r['elo']:.0f} [{r['ci_low']:.0f}, {r['ci_high']:.0f}]",
            (r["elo"], k),
            xytext=(6, 6),
            textcoords="offset points",
            fontsize=8,
        )
    labels = [f"{n} (anchor)" for n, _ in rows] + [f"{n} (placed)" for n, _, _ in placed]
    ax.set_yticks(range(len(labels)), labels, fontsize=8)
    ax.set_ylim(-0.6, len(labels) - 0.2)
    ax.margins(x=0.2)  # room for the labels right of the points
    ax.set_xlabel("rating (Elo scale: 400 points are 10:1 odds; random pinned at 0)")
    ax.set_title("The rating ladder: pinned anchors and the placed agent (95% interval)")
    return fig
