"""Standard flanking (``rules.flanking``) as numba kernels over a :class:`State` row.

SRD-FLANK-01, EP-FLANK-01..08: the line rule (Liang-Barsky clipping against the
defender's box with the reference's ``EPS`` comparisons, the same float operations in
the same order), corner lines for creatures with reach (EP-FLANK-06), internal
creatures (EP-FLANK-07, ``rules.space.is_inside``) and flanks to a shared square
(EP-FLANK-08). On hex boards the line's ends must lie 150 degrees apart around the
defender: the angles are computed as the reference computes them (``math.atan2`` and
the degree conversion of ``math.degrees``, which numba calls in the same C library), so
both engines take the same branch to the last bit. ``tests/test_fast_attack.py``
compares :func:`flanks` with ``rules.flanking.flanks``.

Compiled as every kernel of the package (:mod:`facing_env.fast.jit`: ``kernel``,
``helper``: no reference counting), over the board primitives of
:mod:`facing_env.fast.geometry`.
"""

from __future__ import annotations

import math

import numpy as np

from facing_env.fast.geometry import alive, covers
from facing_env.fast.jit import helper, kernel
from facing_env.fast.opportunity import melee_reach, threatens_cell, threatens_creature
from facing_env.fast.state import RULESETS, SHAPE_CELLS, SHAPE_CENTROID, SHAPE_OFFSETS
from facing_env.rules import flanking as _reference
from facing_env.tables import FEET_PER_SQUARE, IUD_ROGUE_LEVEL_MARGIN, SHARED_SPACE_SIZE_GAP
from facing_env.tables import RULESETS as RULE_ROWS

EPS = _reference._EPS
"""The line rule's tolerance (``rules.flanking._EPS``)."""
HEX_FLANK_MIN_DEGREES = 150.0 - 1e-6
"""``rules.flanking._opposite``: hex line ends at least 150 degrees apart (its tolerance)."""
FULL_TURN = 360.0
RAD_TO_DEG = 180.0 / math.pi
"""CPython's ``math.degrees`` multiplies by this constant."""
SQRT3 = math.sqrt(3.0)
"""``geometry.cell_centre`` of a hex: ``(SQRT3 * (q + r / 2), HEX_ROW * r)``."""
HEX_ROW = 1.5
HALF = 0.5
"""The centre of a square, from its corner."""

# side bits of ``rules.flanking._sides``
WEST, EAST, NORTH, SOUTH = 1, 2, 4, 8

STANDARD_FLANKING = np.array([RULE_ROWS[r].standard_flanking for r in RULESETS])
"""``[ruleset]``: ``RulesetRow.standard_flanking``."""


def _immunity(field: str) -> np.ndarray:
    return np.array([field in RULE_ROWS[r].defender_immunity_fields for r in RULESETS])


IMMUNE_IUD = _immunity("improved_uncanny_dodge")
IMMUNE_UNCANNY = _immunity("uncanny_dodge")
IMMUNE_ALL_AROUND = _immunity("all_around_vision")
"""``[ruleset]``: the creature flags that deny positional bonuses
(``RulesetRow.defender_immunity_fields``, SR-13, UA-FEAT-IUD)."""


@kernel
def cannot_be_flanked(s, i, d):
    """``rules._common.cannot_be_flanked``."""
    r = s.ruleset[i]
    if IMMUNE_IUD[r] and s.improved_uncanny_dodge[i, d] >= 0:
        return True
    if IMMUNE_UNCANNY[r] and s.uncanny_dodge[i, d]:
        return True
    if IMMUNE_ALL_AROUND[r]:
        return s.all_around_vision[i, d]
    return False


@kernel
def rogue_beats_immunity(s, i, a, d):
    """``rules._common.rogue_beats_immunity``: true unless the defender cannot be flanked,
    save by a rogue four levels above its improved uncanny dodge (UA-FEAT-IUD, IC-17)."""
    if not cannot_be_flanked(s, i, d):
        return True
    r = s.ruleset[i]
    if IMMUNE_UNCANNY[r] and s.uncanny_dodge[i, d]:
        return False
    if IMMUNE_ALL_AROUND[r] and s.all_around_vision[i, d]:
        return False
    iud = s.improved_uncanny_dodge[i, d]
    if iud < 0:
        return False
    return s.rogue_level[i, a] >= iud + IUD_ROGUE_LEVEL_MARGIN


@helper
def _sides(px, py, x0, y0, x1, y1):
    """``rules.flanking._sides`` as bits."""
    out = 0
    if abs(px - x0) < EPS:
        out |= WEST
    if abs(px - x1) < EPS:
        out |= EAST
    if abs(py - y0) < EPS:
        out |= NORTH
    if abs(py - y1) < EPS:
        out |= SOUTH
    return out


@helper
def _opposite_bits(bits):
    out = 0
    if bits & WEST:
        out |= EAST
    if bits & EAST:
        out |= WEST
    if bits & NORTH:
        out |= SOUTH
    if bits & SOUTH:
        out |= NORTH
    return out


@helper
def _count(bits):
    return (bits & 1) + ((bits >> 1) & 1) + ((bits >> 2) & 1) + ((bits >> 3) & 1)


@kernel
def line_flanks(px, py, qx, qy, x0, y0, x1, y1):
    """``rules.flanking.line_flanks``: segment pq passes through opposite sides or opposite
    corners of the box ``(x0, y0, x1, y1)`` (Liang-Barsky, ``rules.flanking._clip``)."""
    dx = qx - px
    dy = qy - py
    t0 = 0.0
    t1 = 1.0
    for e in range(4):
        if e == 0:
            den, num = -dx, px - x0
        elif e == 1:
            den, num = dx, x1 - px
        elif e == 2:
            den, num = -dy, py - y0
        else:
            den, num = dy, y1 - py
        if abs(den) < EPS:
            if num < -EPS:
                return False
            continue
        t = num / den
        if den < 0:
            if t > t0:  # max(t0, t) keeps t0 on a tie
                t0 = t
        elif t < t1:  # min(t1, t) keeps t1 on a tie
            t1 = t
    if t1 - t0 < EPS:
        return False
    a = _sides(px + t0 * dx, py + t0 * dy, x0, y0, x1, y1)
    b = _sides(px + t1 * dx, py + t1 * dy, x0, y0, x1, y1)
    na = _count(a)
    nb = _count(b)
    if na == 1 and nb == 1:
        return _opposite_bits(a) == b  # along a border both ends share a side: no flank
    if na == 2 and nb == 2:
        return _opposite_bits(a) == b
    return False  # corner squares only flank with opposite corners (EP-FLANK-03)


@kernel
def has_reach(s, i, k):
    """``rules.flanking.has_reach`` (EP-FLANK-06): melee reach beyond 5 feet."""
    return melee_reach(s, i, k) > FEET_PER_SQUARE


@helper
def _hex_centre(q, r):
    """``geometry.cell_centre`` of a hex."""
    return SQRT3 * (q + r / 2.0), HEX_ROW * r


@helper
def _angle(dx, dy):
    """``geometry.vector_angle``."""
    return math.atan2(-dy, dx) * RAD_TO_DEG


@helper
def _is_corner(s, i, k, cx, cy):
    """Whether point ``(cx, cy)`` is a corner of a square of ``k``'s space."""
    for j in range(2):
        for u in range(2):
            if covers(s, i, k, cx - u, cy - j):
                return True
    return False


@helper
def _square_opposite(s, i, a, b, x0, y0, x1, y1):
    """``_opposite`` on a square grid: centre to centre, and corner to corner when either
    creature has reach (EP-FLANK-02, -05, -06)."""
    sa = s.shape[i, a]
    sb = s.shape[i, b]
    for p in range(SHAPE_CELLS[sa]):
        px = s.x[i, a] + SHAPE_OFFSETS[sa, p, 0] + HALF
        py = s.y[i, a] + SHAPE_OFFSETS[sa, p, 1] + HALF
        for q in range(SHAPE_CELLS[sb]):
            qx = s.x[i, b] + SHAPE_OFFSETS[sb, q, 0] + HALF
            qy = s.y[i, b] + SHAPE_OFFSETS[sb, q, 1] + HALF
            if line_flanks(px, py, qx, qy, x0, y0, x1, y1):
                return True
    if not (has_reach(s, i, a) or has_reach(s, i, b)):
        return False
    # the corners of a space lie in the box one wider than its cells
    ax0, ay0, ax1, ay1 = _bounds(s, i, a)
    bx0, by0, bx1, by1 = _bounds(s, i, b)
    for cy in range(ay0, ay1 + 2):
        for cx in range(ax0, ax1 + 2):
            if not _is_corner(s, i, a, cx, cy):
                continue
            for ey in range(by0, by1 + 2):
                for ex in range(bx0, bx1 + 2):
                    if _is_corner(s, i, b, ex, ey) and line_flanks(
                        float(cx), float(cy), float(ex), float(ey), x0, y0, x1, y1
                    ):
                        return True
    return False


@helper
def _bounds(s, i, k):
    """The smallest and largest x and y of ``k``'s cells."""
    shape = s.shape[i, k]
    x0 = y0 = 1 << 30
    x1 = y1 = -(1 << 30)
    for p in range(SHAPE_CELLS[shape]):
        x = s.x[i, k] + SHAPE_OFFSETS[shape, p, 0]
        y = s.y[i, k] + SHAPE_OFFSETS[shape, p, 1]
        x0 = min(x0, x)
        y0 = min(y0, y)
        x1 = max(x1, x)
        y1 = max(y1, y)
    return x0, y0, x1, y1


@helper
def _hex_opposite(s, i, a, b, cx, cy):
    """``_opposite`` on a hex grid: square centres only, 150 degrees apart around
    ``(cx, cy)``."""
    sa = s.shape[i, a]
    sb = s.shape[i, b]
    for p in range(SHAPE_CELLS[sa]):
        px, py = _hex_centre(
            s.x[i, a] + SHAPE_OFFSETS[sa, p, 0], s.y[i, a] + SHAPE_OFFSETS[sa, p, 1]
        )
        pa = _angle(px - cx, py - cy)
        for q in range(SHAPE_CELLS[sb]):
            qx, qy = _hex_centre(
                s.x[i, b] + SHAPE_OFFSETS[sb, q, 0], s.y[i, b] + SHAPE_OFFSETS[sb, q, 1]
            )
            diff = abs(pa - _angle(qx - cx, qy - cy))
            if min(diff, FULL_TURN - diff) >= HEX_FLANK_MIN_DEGREES and diff != 0.0:
                return True
    return False


@helper
def _opposite_space(s, i, a, b, d):
    """The line rule against ``d``'s whole space (its box; its centre on hexes)."""
    if s.kind[i] == 0:
        x0, y0, x1, y1 = _bounds(s, i, d)
        return _square_opposite(s, i, a, b, float(x0), float(y0), x1 + 1.0, y1 + 1.0)
    shape = s.shape[i, d]
    px, py = _hex_centre(s.x[i, d], s.y[i, d])
    return _hex_opposite(s, i, a, b, px + SHAPE_CENTROID[shape, 0], py + SHAPE_CENTROID[shape, 1])


@helper
def _opposite_cell(s, i, a, b, x, y):
    """The line rule against the one cell ``(x, y)``."""
    if s.kind[i] == 0:
        return _square_opposite(s, i, a, b, float(x), float(y), x + 1.0, y + 1.0)
    cx, cy = _hex_centre(x, y)
    return _hex_opposite(s, i, a, b, cx, cy)


@kernel
def is_inside(s, i, c, big):
    """``rules.space.is_inside``: ``c`` stands inside the space of ``big``, a living
    creature two or more size categories larger (EP-FLANK-07)."""
    if s.hp[i, c] <= 0 or s.hp[i, big] <= 0:
        return False
    if s.size[i, big] - s.size[i, c] < SHARED_SPACE_SIZE_GAP:
        return False
    shape = s.shape[i, c]
    for p in range(SHAPE_CELLS[shape]):
        if covers(
            s,
            i,
            big,
            s.x[i, c] + SHAPE_OFFSETS[shape, p, 0],
            s.y[i, c] + SHAPE_OFFSETS[shape, p, 1],
        ):
            return True
    return False


@helper
def _occupants(s, i, x, y):
    """``len(Battle.occupants((x, y)))``: living creatures whose space includes the cell."""
    n = 0
    for k in range(s.present.shape[1]):
        if alive(s, i, k) and covers(s, i, k, x, y):
            n += 1
    return n


@helper
def _shared_square(s, i, a, b, d):
    """EP-FLANK-08: a legal flank to one of ``d``'s squares that holds several creatures
    and that both ``a`` and ``b`` threaten."""
    shape = s.shape[i, d]
    for p in range(SHAPE_CELLS[shape]):
        x = s.x[i, d] + SHAPE_OFFSETS[shape, p, 0]
        y = s.y[i, d] + SHAPE_OFFSETS[shape, p, 1]
        if _occupants(s, i, x, y) < 2:
            continue
        if not (threatens_cell(s, i, a, x, y) and threatens_cell(s, i, b, x, y)):
            continue
        if _opposite_cell(s, i, a, b, x, y):
            return True
    return False


@kernel
def flanks_with(s, i, a, b, d):
    """Whether ``a`` flanks ``d`` with ally ``b`` (both already known to threaten ``d``):
    the line rule, internal flanking or a shared square (``flanking_allies``' test)."""
    if _opposite_space(s, i, a, b, d):
        return True
    if is_inside(s, i, a, d) or is_inside(s, i, d, a) or is_inside(s, i, d, b):
        return True
    return _shared_square(s, i, a, b, d)


@kernel
def flanks(s, i, a, d):
    """``rules.flanking.flanks``: ``a`` flanks ``d`` with some ally (SRD-FLANK-01,
    EP-FLANK-01: both threaten it); only in the ``standard`` rule set, never against a
    defender that cannot be flanked (bar a rogue four levels higher)."""
    if not STANDARD_FLANKING[s.ruleset[i]] or not rogue_beats_immunity(s, i, a, d):
        return False
    if not threatens_creature(s, i, a, d):
        return False
    for b in range(s.present.shape[1]):
        if b == a or b == d or not alive(s, i, b) or s.team[i, b] != s.team[i, a]:
            continue
        if threatens_creature(s, i, b, d) and flanks_with(s, i, a, b, d):
            return True
    return False
