"""Starting a battle in the arrays: :func:`facing_env.rules.engine.start` as a kernel.

A fixed scenario (no generator) builds the same battle every time; only the dice differ.
:func:`restart` puts row ``i`` back to the scenario's opening (the changing fields of the
creatures, from a one-row :class:`~facing_env.fast.state.State` loaded from the built
battle), gives it a new dice seed and rolls initiative and begins the first turn as the
object engine does (SRD-INIT-01, SRD-FF-01): every living creature in spec order draws a
d20 (+ Dexterity modifier, +4 with Improved Initiative) then a uniform tie-break; the
order sorts by (-total, -Dexterity, tie-break, id); everyone is flat-footed when
``flat_footed_start``; one ``initiative`` event per creature in order, then the first turn
(:func:`~facing_env.fast.resolve.begin_turn` and the automatic end of empty turns, which
scans the legal actions). The static fields of the row (board, creature profiles, attacks)
are the scenario's already: the row was loaded from the same scenario before.
``tests/test_env_reference.py`` and ``tests/test_vector.py`` compare the resulting battles,
events and masks with the object engine's.
"""

from __future__ import annotations

import numpy as np

from facing_env.fast import perception as seeing
from facing_env.fast.dice import d20, uniform
from facing_env.fast.events import emit
from facing_env.fast.geometry import is_over
from facing_env.fast.jit import helper, kernel
from facing_env.fast.legality import legal_mask
from facing_env.fast.resolve import auto_end, begin_turn
from facing_env.tables import FEATS

E_INITIATIVE = 0  # fast.events.EVENT_KINDS.index("initiative")
IMPROVED_INITIATIVE_FEAT = 1 << FEATS.index("Improved Initiative")


@kernel
def restart(t, s, i, ev, mask, cost, tpl, seed, mode, flat_footed_start, id_rank, keys, rows):
    """Row ``i`` back to the opening of ``tpl``'s row 0 with dice seed ``seed``, then the
    start (see the module docstring). ``id_rank[k]``: slot ``k``'s place among the ids in
    string order; ``keys`` ``(K, 3)`` float64 and ``rows`` ``(K,)`` int64 are scratch.
    The start's events are row ``i`` of ``ev``."""
    n_creatures = s.n_creatures[i]
    for k in range(n_creatures):
        s.x[i, k] = tpl.x[0, k]
        s.y[i, k] = tpl.y[0, k]
        s.facing[i, k] = tpl.facing[0, k]
        s.hp[i, k] = tpl.hp[0, k]
        s.flat_footed[i, k] = tpl.flat_footed[0, k]
        s.readied[i, k] = tpl.readied[0, k]
        s.charging[i, k] = tpl.charging[0, k]
        s.aoo_used[i, k] = 0
    seeing.clear(s, i)
    s.dice_seed[i] = seed
    s.dice_count[i] = 0
    s.deck_left[i] = 0
    for v in range(s.deck.shape[1]):
        s.deck[i, v] = 0
    ev.count[i] = 0
    n = 0
    for k in range(n_creatures):
        if s.hp[i, k] <= 0:
            continue
        bonus = (s.dex[i, k] - 10) // 2
        if s.feats[i, k] & IMPROVED_INITIATIVE_FEAT:
            bonus += 4
        keys[n, 0] = -(d20(s, i, mode) + bonus)
        keys[n, 1] = -s.dex[i, k]
        keys[n, 2] = uniform(s, i)
        rows[n] = k
        if flat_footed_start:
            s.flat_footed[i, k] = True
        n += 1
    # insertion sort of rows 0..n-1 by (keys, id rank): n is a handful of creatures
    for a in range(1, n):
        j = a
        while j > 0 and _before_rows(keys, rows, id_rank, j, j - 1):
            _swap(keys, rows, j, j - 1)
            j -= 1
    for p in range(s.order.shape[1]):
        s.order[i, p] = -1
    for p in range(n):
        s.order[i, p] = rows[p]
    s.n_order[i] = n
    s.round[i] = 1
    s.index[i] = 0
    for p in range(n):
        emit(ev, i, E_INITIATIVE, rows[p], 1)
    if is_over(s, i):
        s.actor[i] = -1
        _clear_turn(s, i)
    else:
        begin_turn(s, i, ev)
        auto_end(t, s, i, ev, mask, cost)
        if seeing.roll_spot(s, i, mode, True):  # perception="spot": everyone's first checks
            legal_mask(t, s, i, mask[i], cost[i])
    seeing.look(t, s, i)  # where each creature first perceives each foe (issue 36)


@helper
def _before_rows(keys, rows, id_rank, a, b):
    for col in range(3):
        if keys[a, col] != keys[b, col]:
            return keys[a, col] < keys[b, col]
    return id_rank[rows[a]] < id_rank[rows[b]]


@helper
def _swap(keys, rows, a, b):
    for col in range(3):
        held = keys[a, col]
        keys[a, col] = keys[b, col]
        keys[b, col] = held
    r = rows[a]
    rows[a] = rows[b]
    rows[b] = r


@helper
def _clear_turn(s, i):
    """No turn (a battle over before it starts): the turn fields as ``load`` leaves them."""
    s.n_remaining[i] = 0
    s.turn_withdrawing[i] = -1
    s.turn_cleave[i, 0] = -1
    s.turn_cleave[i, 1] = 0


def id_ranks(ids: list[str]) -> np.ndarray:
    """Each slot's place among ``ids`` in string order (the initiative's last key)."""
    order = sorted(range(len(ids)), key=lambda k: ids[k])
    rank = np.zeros(len(ids), dtype=np.int64)
    for place, k in enumerate(order):
        rank[k] = place
    return rank
