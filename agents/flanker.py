"""The ``flanker`` agent: strike foes from their flank or rear (UA-OPP-01, UA-OPP-02,
UA-SNK-01) and never walk out of a threatened square when a 5-foot step will do.

Each action it scores every way to attack this turn (from here; after a 5-foot step, which
provokes nothing, SRD-AOO-04; after a walk along the route that draws the fewest attacks of
opportunity) by the area of the target it attacks from, the target's wounds and armour, an
ally on the far side of the target (the foe can face only one of them), the exposure of
the spot to other foes, and the attacks of opportunity of the way there. Without an attack
this turn it waits just outside every foe's striking distance (so a charging foe arrives
with no attack left) or closes in; it ends each turn facing the foes that threaten it.

Its logic is the ``_flanker`` kernel of :mod:`facing_env.agents.batch`, which reads the
values below when it builds its tables.
"""

from __future__ import annotations

from facing_env.agents.base import ScriptedAgent
from facing_env.agents.tactics import ASSUMED_SPEED

AREA_VALUE = {"rear": 4.0, "flank": 2.0, "front": 0.0, "none": 0.0}
SNEAK_VALUE = 5.0  # sneak attack damage, in attack-bonus points, if it may apply
AOO_COST = 12.0  # one attack of opportunity drawn
WOUND_VALUE = 4.0  # a foe at 0 hp fraction vs an unhurt one
OPPOSITE_VALUE = 2.0  # an ally straight across the target
EXPOSURE = 0.5  # per point of :func:`tactics.danger` at the attack spot
HOW_BONUS = {"stay": 0.6, "five": 0.4, "move": 0.0}
STANDOFF_ROUNDS = 0.2  # wait for a charge only in the first fifth of the battle
FOLLOW = 2  # squares a follower keeps behind its leader, measured to the nearest foe
STRIKE_DISTANCE = ASSUMED_SPEED + 1  # a foe this close may walk up and attack


class FlankerAgent(ScriptedAgent):
    """Seeks the flank or rear of a foe before striking (see the module docstring).

    Scoring an attack (in attack-bonus points): the value of the target's area the
    observer strikes from (:data:`AREA_VALUE`) plus :data:`HOW_BONUS` for how it gets
    there, :data:`SNEAK_VALUE` when sneak attack may apply from there (from the rear or on
    a flat-footed foe; unknown until seen, so assumed), :data:`WOUND_VALUE` times the
    target's missing hit points, minus 30 times its AC / 30, plus :data:`OPPOSITE_VALUE`
    for an ally across the target, minus :data:`EXPOSURE` times ``tactics.danger`` at the
    spot; an attack from here that cannot turn to face the target counts its facing
    modifier instead of its area; a walk costs :data:`AOO_COST` per attack of opportunity
    and 0.1 per square. The best score wins (the first of equals: attacks from here, then
    5-foot steps, then walks, in route order).

    Without an attack: while it may still attack this turn it walks toward the spot that
    draws the fewest attacks of opportunity, then (in the first :data:`STANDOFF_ROUNDS` of
    the battle) stays out of :data:`STRIKE_DISTANCE` of the most foes, then keeps
    :data:`FOLLOW` squares behind its leader (the ally with the highest AC, then hit points,
    then the north-west-most, if sturdier than itself), then nears the weakest foe, then
    walks the least; after attacking it takes a 5-foot step out of the foes' reach when a
    less wounded ally (or its leader) holds them; else it turns to lower its exposure."""

    name = "flanker"
