"""Evaluation plots: learning-curve axes (step counts read as 200k / 1.2M, few ticks, no
overlapping labels, one x axis shared by every panel, titles in words), win rates (wins,
draws and losses as separate stacked bars, the interval over the wins) and attack origins
(a colour key naming the areas)."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from collections import Counter

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.container import BarContainer, ErrorbarContainer

from facing_env.evaluation.plots import (
    STEP_TICKS,
    attack_origins_figure,
    curve_title,
    curves_figure,
    step_label,
    win_rates_figure,
)
from facing_env.evaluation.report import AgentResult, PairResult, Report, wilson_interval


@pytest.mark.parametrize(
    ("steps", "label"),
    [
        (0, "0"),
        (950, "950"),
        (1000, "1k"),
        (1500, "1.5k"),
        (12_345, "12.3k"),
        (200_000, "200k"),
        (999_999, "1M"),
        (1_200_000, "1.2M"),
        (1_250_000, "1.25M"),
        (40_000_000, "40M"),
        (3_000_000_000, "3B"),
        (-50_000, "-50k"),
    ],
)
def test_step_label(steps, label):
    assert step_label(steps) == label


@pytest.mark.parametrize("last", [900, 48_000, 2_000_000, 3_700_000, 10_000_000, 250_000_000])
def test_learning_curve_step_ticks_are_short_few_and_apart(last):
    steps = np.linspace(0, last, 60).round()
    scalars = {
        "rollout/ep_rew_mean": [(int(s), float(i)) for i, s in enumerate(steps)],
        "eval/win_rate_vs_random": [(int(s), 0.5) for s in steps[::6]],
    }
    fig = curves_figure(scalars)
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    for ax in fig.axes[:2]:
        lo, hi = ax.get_xlim()
        ticks = [t for t in ax.xaxis.get_major_ticks() if lo <= t.get_loc() <= hi]
        labels = [t.label1 for t in ticks if t.label1.get_visible() and t.label1.get_text()]
        assert 2 <= len(labels) <= STEP_TICKS + 1
        for text in (lb.get_text() for lb in labels):
            assert re.fullmatch(r"\d+(\.\d+)?[kMB]?", text), text
            assert len(text) <= 5
        boxes = sorted((lb.get_window_extent(renderer) for lb in labels), key=lambda b: b.x0)
        for left, right in itertools.pairwise(boxes):
            assert left.x1 < right.x0, [lb.get_text() for lb in labels]


CURVES = {
    "rollout/ep_rew_mean": "Mean episode reward in training",
    "eval/win_rate_vs_aggressive": "Win rate against aggressive",
    "eval/win_rate_vs_random": "Win rate against random",
    "eval/flank_or_rear_share_vs_random": "Flank or rear attack share against random",
    "eval/some_new_scalar": "Some new scalar",
}


@pytest.mark.parametrize(("tag", "title"), CURVES.items())
def test_curve_titles_are_words(tag, title):
    assert curve_title(tag) == title


def test_learning_curves_share_one_x_axis_and_label_the_bottom_of_each_column():
    """Five panels on 2 x 3: one x axis for all; the step labels show under the last panel
    of each column (the top right one has no panel below it), not under the others."""
    steps = np.linspace(0, 800_000, 20).round()
    fig = curves_figure({tag: [(int(s), 0.5) for s in steps] for tag in CURVES})
    FigureCanvasAgg(fig).draw()
    axes = fig.axes
    assert len(axes) == 6 and not axes[5].axison  # the sixth cell is empty
    shared = axes[0].get_shared_x_axes()
    assert all(shared.joined(axes[0], ax) for ax in axes[1:5])
    assert [ax.get_title() for ax in axes[:5]] == [
        "Mean episode reward in training",
        "Flank or rear attack share against random",
        "Some new scalar",
        "Win rate against aggressive",
        "Win rate against random",
    ]
    labelled = [any(t.label1.get_visible() for t in ax.xaxis.get_major_ticks()) for ax in axes[:5]]
    assert labelled == [False, False, True, True, True]
    assert fig.get_suptitle() == "Learning curves"
    assert fig.get_supxlabel() == "learner steps"


def _report(scenario: str = "skirmish") -> Report:
    pairs = [PairResult("flanker", "random", wins=5, draws=3, losses=2)]
    pairs.append(PairResult("flanker", "aggressive", wins=0, draws=0, losses=10))
    flanker = AgentResult("flanker", attack_origins=Counter({(0, -1): 4, (1, 0): 7, (0, 1): 2}))
    return Report(scenario, 10, pairs, {"flanker": flanker, "random": AgentResult("random")})


def test_win_rates_draw_wins_draws_and_losses_apart():
    fig = win_rates_figure(_report())
    [ax] = fig.axes
    bars = [c for c in ax.containers if isinstance(c, BarContainer)]
    assert [c.get_label() for c in bars] == ["wins", "draws", "losses"]
    widths = [[round(p.get_width(), 6) for p in c] for c in bars]
    lefts = [[round(p.get_x(), 6) for p in c] for c in bars]
    assert widths == [[0.5, 0.0], [0.3, 0.0], [0.2, 1.0]]
    assert lefts == [[0.0, 0.0], [0.5, 0.0], [0.8, 0.0]]
    assert [p.get_facecolor() for p in bars[1]] != [p.get_facecolor() for p in bars[0]]
    [interval] = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    segments = interval.lines[2][0].get_segments()
    for segment, (wins, games) in zip(segments, [(5, 10), (0, 10)], strict=True):
        np.testing.assert_allclose(segment[:, 0], wilson_interval(wins, games))
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["wins", "draws", "losses", "95% interval of the win rate"]
    assert ax.get_title() == "Win rate of each pair, with its 95% interval (skirmish)"
    assert ax.get_xlabel() == "share of the 10 games of each pair (first agent's side)"


@pytest.mark.parametrize(
    ("scenario", "key", "rules"),
    [
        ("skirmish", ["front", "flank", "rear"], "ua35"),
        ("side_rear_skirmish", ["front", "side", "rear"], "side_rear"),
        ("standard_skirmish", ["no facing"], "standard"),
    ],
)
def test_attack_origins_have_a_colour_key_of_the_areas(scenario, key, rules):
    from facing_env.render.canvas import AREA_COLOURS
    from facing_env.types import Area

    fig = attack_origins_figure(_report(scenario))
    [legend] = fig.legends
    assert [t.get_text() for t in legend.get_texts()] == key
    assert legend.get_title().get_text() == "the defender's area the attacks came from"
    colours = [tuple(round(c, 3) for c in h.get_facecolor()[:3]) for h in legend.legend_handles]
    want = [
        AREA_COLOURS.get(Area(k), (200, 200, 200)) if k != "no facing" else (200, 200, 200)
        for k in key
    ]
    assert colours == [tuple(round(c / 255, 3) for c in rgb) for rgb in want]
    assert fig.get_suptitle() == (
        "Where each agent's attacks came from, around a defender facing up\n"
        f"({scenario}, {rules} rules)"
    )
    assert [ax.get_title() for ax in fig.axes] == [
        "flanker\n13 chosen attacks",
        "random\n0 chosen attacks",
    ]
