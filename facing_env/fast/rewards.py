"""Rewards of the batched engine: :mod:`facing_env.rules.rewards` and the env's step rewards.

:func:`step_rewards` is ``raw_env._finish_step``'s arithmetic for one battle row: the
events' rewards (``rewards.event_rewards``: damage dealt and taken, kills, attacks from
the flank or rear), then the outcome when the battle is over (``outcome_rewards``), then
the draw of a battle that passed its round limit; each creature's sum is added to its
agent's column of a float64 reward row (the engine's ``BatchEngine._rewards``; a float32
engine such as ``VectorEnv``'s rounds the row once after the step,
``BatchEngine._publish_rewards``). Creatures whose agent has left the env (``gone``: dead
in an earlier step) earn nothing, as in the AEC env. The float64 sums are made in the
reference's order, so the results are equal.
"""

from __future__ import annotations

import numpy as np

from facing_env.fast.events import E_ATTACK, E_DEATH
from facing_env.fast.geometry import is_over, winner
from facing_env.fast.jit import kernel
from facing_env.fast.resolve import K_AOO
from facing_env.fast.state import AREA_CODES
from facing_env.scenario import RewardWeights
from facing_env.types import Area

WEIGHTS: tuple[str, ...] = tuple(RewardWeights.model_fields)
"""The reward weights in the order of :func:`weight_array`."""
W_DAMAGE_DEALT = WEIGHTS.index("damage_dealt")
W_DAMAGE_TAKEN = WEIGHTS.index("damage_taken")
W_KILL = WEIGHTS.index("kill")
W_VICTORY = WEIGHTS.index("victory")
W_DEFEAT = WEIGHTS.index("defeat")
W_DRAW = WEIGHTS.index("draw")
W_FLANK = WEIGHTS.index("flank_attack")
W_REAR = WEIGHTS.index("rear_attack")
W_FLANK_TAKEN = WEIGHTS.index("flank_attack_taken")
W_REAR_TAKEN = WEIGHTS.index("rear_attack_taken")
FLANK = AREA_CODES.index(Area.FLANK)
SIDE = AREA_CODES.index(Area.SIDE)
REAR = AREA_CODES.index(Area.REAR)


def weight_array(weights: RewardWeights) -> np.ndarray:
    """A scenario's reward weights as a float64 array (:data:`WEIGHTS` order)."""
    return np.array([getattr(weights, name) for name in WEIGHTS], dtype=np.float64)


# complexity above 15 on purpose: raw_env._finish_step's arithmetic for one row in one kernel, read
# side by side with it
@kernel
def step_rewards(s, i, ev, w, max_rounds, gone, agent_of, out, acc, killer):  # noqa: C901
    """Add battle ``i``'s step rewards to ``out[i]`` (float64, by agent column
    ``agent_of[i, k]``); returns ``(over, truncated)``. ``acc`` (float64) and ``killer``
    (int64), of at least the creature count, are scratch."""
    k_max = s.n_creatures[i]
    for k in range(k_max):
        acc[k] = 0.0
        killer[k] = -1
    for n in range(ev.count[i]):
        kind = ev.kind[i, n]
        a = ev.actor[i, n]
        d = ev.target[i, n]
        if kind == E_ATTACK and d >= 0 and ev.attack_kind[i, n] != K_AOO:
            area = ev.defender_area[i, n]
            if area == FLANK or area == SIDE:
                acc[a] += w[W_FLANK]
                acc[d] += w[W_FLANK_TAKEN]
            elif area == REAR:
                acc[a] += w[W_REAR]
                acc[d] += w[W_REAR_TAKEN]
        if kind == E_ATTACK and d >= 0 and ev.damage[i, n] != 0:
            if s.team[i, a] != s.team[i, d]:
                acc[a] += w[W_DAMAGE_DEALT] * ev.damage[i, n]
            acc[d] += w[W_DAMAGE_TAKEN] * ev.damage[i, n]
            killer[d] = a
        elif kind == E_DEATH and killer[a] >= 0 and s.team[i, killer[a]] != s.team[i, a]:
            acc[killer[a]] += w[W_KILL]
    over = is_over(s, i)
    won = winner(s, i) if over else -1
    truncated = not over and s.round[i] > max_rounds
    for k in range(k_max):
        if gone[i, k]:
            continue
        total = 0.0
        total += acc[k]
        if over:
            if won < 0:
                total += w[W_DRAW]
            elif s.team[i, k] == won:
                total += w[W_VICTORY]
            else:
                total += w[W_DEFEAT]
        if truncated and s.hp[i, k] > 0:
            total += w[W_DRAW]
        if total != 0.0:
            column = agent_of[i, k]
            out[i, column] = out[i, column] + total  # rounded once into out's dtype
    return over, truncated
