"""The ``aggressive`` agent: charge the closest enemy and hit it."""

from __future__ import annotations

from facing_env.agents.base import ScriptedAgent
from facing_env.agents.pathing import footprint, routes
from facing_env.agents.tactics import attack, charge, face, move
from facing_env.agents.view import ObservationView

_FAR = 1e6


class AggressiveAgent(ScriptedAgent):
    """Targets the closest enemy (ties: lowest hp fraction, then slot). Attacks it whenever
    ATTACK is legal (another enemy in reach if it is not), turning to face it first; else
    charges it when CHARGE is legal (the closest enemy it can charge if not: EP-CHG-01);
    else walks toward it with MOVE, ignoring attacks of opportunity; ends the turn when
    nothing helps."""

    def choose(self, view: ObservationView) -> int | None:
        """The action index, or None to end the turn."""
        enemies = view.enemies
        if not enemies:
            return None

        def rank(e: int) -> tuple[int, float, int]:
            return (view.distance(e), view.value(e, "hp_fraction"), e)

        target = min(enemies, key=rank)
        attackable = [e for e in enemies if view.legal(attack(e))]
        if attackable:
            hit = target if target in attackable else min(attackable, key=rank)
            return face(view, hit) or attack(hit)
        chargeable = [e for e in enemies if view.legal(charge(view, e))]
        if chargeable:
            return charge(view, target if target in chargeable else min(chargeable, key=rank))
        if view.distance(target) > view.reach:
            step = self.toward(view, target)
            if step is not None:
                return step
        return face(view, target)

    @staticmethod
    def toward(view: ObservationView, target: int) -> int | None:
        """The first MOVE of the shortest walk into reach of ``target`` (or, if the window
        holds no such spot, toward the reachable spot nearest to it)."""
        goal = view.cells_of(target)
        best: tuple[float, float] | None = None
        first = None
        for anchor, route in routes(view, max_cost=_FAR, aoo_weight=0.0).items():
            d = view.gap(footprint(view, anchor), goal)
            key = (max(d - view.reach, 0), route.cost)
            if best is None or key < best:
                best, first = key, route.first
        return None if first is None or first < 0 else move(first)
