"""Pictures of an evaluation report (matplotlib figures saved with Agg: no display needed).

- ``win_rates.png``: each pair's win rate with its 95% Wilson interval, and the draw share;
- ``learning_curves.png``: ``rollout/ep_rew_mean`` and every ``eval/*`` scalar of a training
  run's TensorBoard logs (skipped when there are none or tensorboard is missing);
- ``attack_origins.png``: per agent, around one defender facing up, how many of its chosen
  attacks came from each square (``AgentResult.attack_origins``, offsets in the defender's
  frame: :func:`facing_env.evaluation.match.attack_origin`), squares coloured by the area
  they are in for a one-cell defender under the scenario's rule set.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Polygon
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
    """Each pair's win rate (from its first agent's side) with a 95% interval."""
    pairs = report.pairs
    fig = Figure(figsize=(7.5, 0.6 * len(pairs) + 1.4), dpi=DPI, layout="constrained")
    ax = fig.subplots()
    y = np.arange(len(pairs))
    rates = [p.win_rate for p in pairs]
    intervals = np.array([wilson_interval(p.wins, p.games) for p in pairs]).reshape(-1, 2)
    err = np.clip([np.subtract(rates, intervals[:, 0]), np.subtract(intervals[:, 1], rates)], 0, 1)
    ax.barh(y, rates, xerr=err, color="#3c64c8", ecolor="#222", capsize=3, label="win rate")
    draws = [p.draws / p.games if p.games else 0.0 for p in pairs]
    ax.barh(y, draws, left=rates, color="#bbbbbb", label="draws")
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
    ax.set_xlabel(f"win rate with 95% Wilson interval ({report.games_per_pair} games per pair)")
    ax.set_title(f"Win rates on {report.scenario}")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8)
    return _save(fig, path)


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


def curves_figure(scalars: dict[str, list[tuple[int, float]]]) -> Figure:
    """One panel per tag; steps on the x axis as ``200k`` / ``1.2M``, whole numbers, at most
    :data:`STEP_TICKS` intervals between ticks, so the labels never overlap."""
    tags = sorted(scalars, key=lambda t: (t not in CURVE_TAGS, t))
    cols = min(3, len(tags))
    rows = math.ceil(len(tags) / cols)
    fig = Figure(figsize=(4 * cols, 2.8 * rows), dpi=DPI, layout="constrained")
    axes = fig.subplots(rows, cols, squeeze=False)
    for ax, tag in zip(axes.flat, tags, strict=False):
        steps, values = np.array(scalars[tag]).T
        ax.plot(steps, values, marker="o" if len(steps) < MARKED_POINTS else None, ms=3)
        ax.set_title(tag, fontsize=9)
        if ("rate" in tag or "share" in tag) and 0 <= min(values) <= max(values) <= 1:
            ax.set_ylim(-0.03, 1.03)
        ax.set_xlabel("learner steps", fontsize=8)
        ax.xaxis.set_major_locator(MaxNLocator(STEP_TICKS, steps=[1, 2, 2.5, 5, 10], integer=True))
        ax.xaxis.set_major_formatter(FuncFormatter(step_label))
        ax.tick_params(labelsize=8)
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(tags) :]:
        ax.axis("off")
    return fig


def _grid(report: Report) -> tuple[GridKind, Ruleset]:
    try:
        from facing_env.scenario import load_scenario

        battle = load_scenario(report.scenario).build(np.random.default_rng(0))
    except Exception:  # the scenario file may be gone: draw squares under ua35
        return GridKind.SQUARE, Ruleset.UA35
    return battle.kind, battle.ruleset


def attack_origins(report: Report, path: Path) -> Path:
    """Per agent: the squares its chosen attacks came from, around a defender facing up."""
    kind, ruleset = _grid(report)
    shape = geometry.default_shape(kind, Size.MEDIUM)
    table = None  # facing 0, north or east, is attack_origin's frame
    if ruleset is not Ruleset.STANDARD:
        table = geometry.area_table(kind, ruleset, shape, 0)
    agents = list(report.agents.values())
    fig = Figure(figsize=(3.2 * len(agents), 3.8), dpi=DPI, layout="constrained")
    axes = fig.subplots(1, len(agents), squeeze=False)
    for ax, agent in zip(axes.flat, agents, strict=True):
        counts = agent.attack_origins
        cells = set(shape.ring) | set(counts)
        total = sum(counts.values())
        for cell in sorted(cells):
            area = table.lookup(cell).area if table is not None else Area.NONE
            colour = [v / 255 for v in AREA_COLOURS.get(area, (200, 200, 200))]
            n = counts.get(cell, 0)
            alpha = 0.25 + 0.75 * (n / max(counts.values())) if n else 0.12
            ax.add_patch(Polygon(_corners(kind, cell), fc=(*colour, alpha), ec="#666", lw=0.6))
            x, y = _xy(kind, cell)
            ax.text(x, y, str(n), ha="center", va="center", fontsize=8 if n < SMALL_COUNT else 6)
        ax.add_patch(Polygon(_corners(kind, (0, 0)), fc="#555", ec="#222"))
        ax.annotate("", xy=(0, 0.42), xytext=(0, -0.3), arrowprops={"color": "w", "width": 2})
        ax.set_title(f"{agent.name}\n{total} chosen attacks", fontsize=9)
        ax.set_aspect("equal", adjustable="datalim")
        ax.autoscale_view()
        ax.axis("off")
    fig.supxlabel(
        f"Where attacks came from, defender facing up ({report.scenario}, {ruleset.value})",
        fontsize=10,
    )
    return _save(fig, path)


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
