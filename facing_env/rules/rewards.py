"""Rewards from events: damage dealt to enemies, weighted by the scenario.

Per hit point dealt to an enemy ``damage_dealt``; per hit point taken ``damage_taken``
(usually zero or negative); per enemy dropped ``kill``; at the end, ``victory`` for every
creature of the winning team, ``defeat`` for the others, ``draw`` for all when the battle
is truncated or nobody is left. ``flank_attack`` / ``rear_attack`` pay for each attack a
creature chooses from its foe's flank (or side) or rear (not attacks of opportunity);
``flank_attack_taken`` / ``rear_attack_taken`` pay the foe so attacked (a negative weight
teaches a creature to keep its rear away from its foes).

The readable twin of :mod:`facing_env.fast.rewards` (here, under ``rules/``, rather than
at the top of the package as the design contract lists it: the twin shares its folder's
name, and the top level stays at 20 modules).
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Iterable, Mapping

from facing_env.events import Event

if TYPE_CHECKING:  # the weights' type only: the rules import nothing above them
    from facing_env.scenario import RewardWeights


def event_rewards(
    events: Iterable[Event], teams: Mapping[str, str], weights: RewardWeights
) -> dict[str, float]:
    """Rewards by creature id for a batch of events (``teams`` maps id -> team)."""
    out: dict[str, float] = defaultdict(float)
    killers: dict[str, str] = {}
    for e in events:
        if e.kind == "attack" and e.target is not None and e.attack_kind != "aoo":
            if e.defender_area in ("flank", "side"):
                out[e.actor] += weights.flank_attack
                out[e.target] += weights.flank_attack_taken
            elif e.defender_area == "rear":
                out[e.actor] += weights.rear_attack
                out[e.target] += weights.rear_attack_taken
        if e.kind == "attack" and e.target is not None and e.damage:
            if teams[e.actor] != teams[e.target]:
                out[e.actor] += weights.damage_dealt * e.damage
            out[e.target] += weights.damage_taken * e.damage
            killers[e.target] = e.actor
        elif e.kind == "death" and e.actor in killers:
            killer = killers[e.actor]
            if teams[killer] != teams[e.actor]:
                out[killer] += weights.kill
    return dict(out)


def outcome_rewards(
    teams: Mapping[str, str], winner: str | None, weights: RewardWeights
) -> dict[str, float]:
    """End-of-battle rewards by creature id."""
    if winner is None:
        return {cid: weights.draw for cid in teams}
    return {cid: weights.victory if t == winner else weights.defeat for cid, t in teams.items()}
