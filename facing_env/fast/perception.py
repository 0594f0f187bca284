"""What a creature perceives of its foes, as kernels: the twin of
:mod:`facing_env.rules.perception`'s ``perceives``, ``hear``, ``forget``, ``bumped`` and
``look``, ``hidden_from`` (``unseen`` as bits), ``spot_checks`` and ``roll_spot`` (issue 36,
UA-PER-01).

``State.perception[i]`` is battle ``i``'s :class:`~facing_env.types.Perception` as a code
(:data:`FULL`, :data:`FACING`); ``heard[i, o, c]`` whether ``o`` heard ``c`` since the end
of its own last turn; ``seen[i, o, c]`` with ``seen_x`` / ``seen_y`` where ``o`` last
perceived ``c`` (``Battle.last_seen``). Under ``full`` every query answers at its first
comparison and nothing is written, so the default costs the step path one load per
query.
"""

from __future__ import annotations

import numpy as np

from facing_env.fast import dice as fdice
from facing_env.fast.geometry import alive, area_code, covers, has_facing, is_over
from facing_env.fast.jit import helper, inline, inline_kernel
from facing_env.fast.state import AREA_CODES, PERCEPTIONS, RULESETS, SHAPE_CELLS, SHAPE_OFFSETS
from facing_env.rules._common import EXPOSURE as _EXPOSURE
from facing_env.tables import FEATS, SPOT_PENALTY, SPOT_PENALTY_COMBAT_AWARENESS
from facing_env.tables import RULESETS as RULE_ROWS
from facing_env.types import Area, Perception

FULL = PERCEPTIONS.index(Perception.FULL)
FACING = PERCEPTIONS.index(Perception.FACING)
SPOT = PERCEPTIONS.index(Perception.SPOT)
FRONT = AREA_CODES.index(Area.FRONT)
REAR = AREA_CODES.index(Area.REAR)
NONE = AREA_CODES.index(Area.NONE)
EXPOSURE = np.array([_EXPOSURE[a] for a in AREA_CODES], dtype=np.int32)
"""``[area code]``: ``rules._common.EXPOSURE`` (none, front, flank or side, rear)."""
SPOT_PENALTY_BY_CODE = np.array([SPOT_PENALTY[a] for a in AREA_CODES], dtype=np.int32)
SPOT_PENALTY_CA = np.array([SPOT_PENALTY_COMBAT_AWARENESS[a] for a in AREA_CODES], dtype=np.int32)
"""``[area code]``: UA-PER-01's Spot penalty, and with Combat Awareness (UA-FEAT-CA)."""
FACING_PENALTIES = np.array([RULE_ROWS[r].facing_penalties for r in RULESETS])
COMBAT_AWARENESS_FEAT = 1 << FEATS.index("Combat Awareness")


@inline_kernel
def perceives(t, s, i, o, c):
    """``rules.perceives(battle, o, c)``: itself and its allies always; a foe unless it
    stands wholly in (or beyond) ``o``'s rear area (``rules.areas.visible_area``, the least
    exposed square) and ``o`` did not hear it; creatures with all-around vision or no
    facing see everything."""
    if s.perception[i] == FULL or s.team[i, o] == s.team[i, c]:
        return True
    if s.heard[i, o, c] or s.all_around_vision[i, o] or not has_facing(s, i, o):
        return True
    shape = s.shape[i, c]
    if s.perception[i] == FACING:
        for p in range(SHAPE_CELLS[shape]):
            x = s.x[i, c] + SHAPE_OFFSETS[shape, p, 0]
            y = s.y[i, c] + SHAPE_OFFSETS[shape, p, 1]
            if area_code(t, s, i, o, x, y) != REAR:
                return True
        return False
    best = REAR  # spot: the least exposed square (rules.areas.visible_area)
    for p in range(SHAPE_CELLS[shape]):
        x = s.x[i, c] + SHAPE_OFFSETS[shape, p, 0]
        y = s.y[i, c] + SHAPE_OFFSETS[shape, p, 1]
        code = area_code(t, s, i, o, x, y)
        if EXPOSURE[code] < EXPOSURE[best]:
            best = code
    if best == FRONT or best == NONE:
        return True  # in plain view
    penalty = 0
    if FACING_PENALTIES[s.ruleset[i]]:
        if s.feats[i, o] & COMBAT_AWARENESS_FEAT:
            penalty = SPOT_PENALTY_CA[best]
        else:
            penalty = SPOT_PENALTY_BY_CODE[best]
    margin = s.spot_margin[i, o, c]
    if np.isnan(margin):
        margin = 0.0
    return margin + penalty >= 0


@inline
def hear(s, i, a, d):
    """``rules.hear``: an attack roll between ``a`` and ``d``; each hears the other."""
    if s.perception[i] != FULL:
        s.heard[i, a, d] = True
        s.heard[i, d, a] = True


@inline
def forget(s, i, c):
    """``rules.forget``: the end of ``c``'s turn; what it heard is forgotten."""
    if s.perception[i] != FULL:
        for k in range(s.heard.shape[2]):
            s.heard[i, c, k] = False


@helper
def hidden_from(t, s, i, m):
    """``rules.unseen(battle, m)`` as bits: bit ``k`` for a living foe in slot ``k`` that
    ``m`` does not perceive now (0 under ``full``)."""
    bits = np.int64(0)
    if s.perception[i] == FULL:
        return bits
    for k in range(s.n_creatures[i]):
        if k == m or not alive(s, i, k) or s.team[i, k] == s.team[i, m]:
            continue
        if not perceives(t, s, i, m, k):
            bits |= np.int64(1) << np.int64(k)
    return bits


@helper
def bumped(s, i, m, x, y, hidden):
    """``rules.bumped``: the first creature (slot order) among the ``hidden`` bits
    (:func:`hidden_from`, taken when the action began) whose space meets ``m``'s space
    anchored at ``(x, y)``; -1 when none."""
    if hidden == 0:
        return -1
    shape = s.shape[i, m]
    for k in range(s.n_creatures[i]):
        if not (hidden >> np.int64(k)) & np.int64(1) or not alive(s, i, k):
            continue
        for p in range(SHAPE_CELLS[shape]):
            if covers(s, i, k, x + SHAPE_OFFSETS[shape, p, 0], y + SHAPE_OFFSETS[shape, p, 1]):
                return k
    return -1


@helper
def look(t, s, i):
    """``rules.look``: each living creature notes where it perceives each living foe now;
    a foe it perceives dead is dropped."""
    if s.perception[i] == FULL:
        return
    n = s.n_creatures[i]
    for o in range(n):
        if not alive(s, i, o):
            continue
        for c in range(n):
            if s.team[i, c] == s.team[i, o] or not s.present[i, c]:
                continue
            if not perceives(t, s, i, o, c):
                continue  # dead or alive, as it last saw it
            if not alive(s, i, c):
                s.seen[i, o, c] = False
            else:
                s.seen[i, o, c] = True
                s.seen_x[i, o, c] = s.x[i, c]
                s.seen_y[i, o, c] = s.y[i, c]


@helper
def spot_checks(s, i, o, mode):
    """``rules.spot_checks``: ``o``'s opposed checks against each living foe in slot order,
    d20 + its Spot against d20 + the foe's Hide."""
    for c in range(s.n_creatures[i]):
        if alive(s, i, c) and s.team[i, c] != s.team[i, o]:
            mine = fdice.d20(s, i, mode) + s.spot[i, o]
            s.spot_margin[i, o, c] = mine - (fdice.d20(s, i, mode) + s.hide[i, c])


@helper
def roll_spot(s, i, mode, start):
    """``rules.roll_spot``: under ``spot``, everyone's checks at the battle's start, else
    the acting creature's when its turn has just begun; whether any were rolled."""
    if s.perception[i] != SPOT or s.actor[i] < 0 or is_over(s, i):
        return False
    if start:
        for o in range(s.n_creatures[i]):
            if alive(s, i, o):
                spot_checks(s, i, o, mode)
        return True
    if s.turn_actions_taken[i] == 0 and alive(s, i, s.actor[i]):
        spot_checks(s, i, s.actor[i], mode)
        return True
    return False


@helper
def clear(s, i):
    """A battle's start: nothing heard, nothing seen yet."""
    for o in range(s.heard.shape[1]):
        for c in range(s.heard.shape[2]):
            s.heard[i, o, c] = False
            s.seen[i, o, c] = False
            s.seen_x[i, o, c] = 0
            s.seen_y[i, o, c] = 0
            s.spot_margin[i, o, c] = np.nan
