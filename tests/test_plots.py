"""Learning-curve axes: step counts read as 200k / 1.2M, few ticks, no overlapping labels."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from matplotlib.backends.backend_agg import FigureCanvasAgg

from facing_env.evaluation.plots import STEP_TICKS, curves_figure, step_label


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
