"""The ``flanker`` agent: strike foes from their flank or rear (UA-OPP-01, UA-OPP-02,
UA-SNK-01) and never walk out of a threatened square when a 5-foot step will do.

Each action it scores every way to attack this turn (from here; after a 5-foot step, which
provokes nothing, SRD-AOO-04; after a walk along the route that draws the fewest attacks of
opportunity) by the area of the target it attacks from, the target's wounds and armour, an
ally on the far side of the target (the foe can face only one of them), the exposure of
the spot to other foes, and the attacks of opportunity of the way there. Without an attack
this turn it waits just outside every foe's striking distance (so a charging foe arrives
with no attack left) or closes in; it ends each turn facing the foes that threaten it.
"""

from __future__ import annotations

from dataclasses import dataclass

from facing_env.agents.base import ScriptedAgent
from facing_env.agents.pathing import footprint, free, routes
from facing_env.agents.tactics import (
    ASSUMED_SPEED,
    angle_gap,
    area_from,
    attack,
    danger,
    face,
    five_foot_step,
    guard,
    move,
    move_budget,
    total_budget,
)
from facing_env.agents.view import ObservationView
from facing_env.types import Pos

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


@dataclass(frozen=True)
class Option:
    """One way to attack this turn: its value, the action that starts it, its target."""

    value: float
    action: int
    target: int


class FlankerAgent(ScriptedAgent):
    """Seeks the flank or rear of a foe before striking (see the module docstring)."""

    def choose(self, view: ObservationView) -> int | None:
        """The action index, or None to end the turn."""
        if not view.enemies:
            return None
        options = self.attack_options(view)
        if options:
            best = max(options, key=lambda o: o.value)
            if best.action == attack(best.target):
                return face(view, best.target) or best.action
            return best.action
        if view.scalar("attacks_made") == 0 and view.scalar("standard_available") > 0.5:
            step = self.approach(view)
        else:
            step = self.step_back(view)
        return step if step is not None else guard(view)

    # -- attacking --------------------------------------------------------------------------

    def attack_options(self, view: ObservationView) -> list[Option]:
        """Every scored way to attack this turn."""
        out = [
            Option(self.value(view, e, view.self_cells, "stay"), attack(e), e)
            for e in view.enemies
            if view.legal(attack(e))
        ]
        if view.scalar("attacks_made") > 0 or view.scalar("standard_available") < 0.5:
            return out  # iterative attacks strike from here; no attack after moving on
        for d, vec in enumerate(view.directions):
            if view.legal(five_foot_step(d)) and free(view, vec):
                cells = footprint(view, vec)
                out += [
                    Option(self.value(view, e, cells, "five"), five_foot_step(d), e)
                    for e in self.in_reach(view, cells)
                ]
        budget = move_budget(view)
        if budget > 0:
            for anchor, route in routes(view, max_cost=budget + 1e-3).items():
                if route.first < 0:
                    continue
                cells = footprint(view, anchor)
                cost = AOO_COST * route.provoked + 0.1 * route.cost
                out += [
                    Option(self.value(view, e, cells, "move") - cost, move(route.first), e)
                    for e in self.in_reach(view, cells)
                ]
        return out

    @staticmethod
    def in_reach(view: ObservationView, cells: list[Pos]) -> list[int]:
        """Enemies within the observer's reach from ``cells``."""
        return [e for e in view.enemies if view.gap(cells, view.cells_of(e)) <= view.reach]

    def value(self, view: ObservationView, target: int, cells: list[Pos], how: str) -> float:
        """Worth of attacking ``target`` from ``cells`` (in attack-bonus points)."""
        where = area_from(view, target, cells)
        value = AREA_VALUE[where] + HOW_BONUS[how]
        flat = view.value(target, "flat_footed") > 0.5
        if (where == "rear" or flat) and self.may_sneak(view):
            value += SNEAK_VALUE
        value += WOUND_VALUE * (1.0 - view.value(target, "hp_fraction"))
        value -= 30.0 * view.value(target, "ac")
        value += OPPOSITE_VALUE * self.opposite(view, target, cells)
        facing = view.angle_between(cells, view.cells_of(target))
        if how == "stay" and face(view, target) is None and view.facing_angle(0) is not None:
            facing = view.facing_angle(0)  # cannot turn: attack from the current facing
            value += 10.0 * view.value(target, "my_facing_modifier") - AREA_VALUE[where]
        return value - EXPOSURE * danger(view, facing, cells)

    @staticmethod
    def may_sneak(view: ObservationView) -> bool:
        """Whether sneak attack may apply from a rear (unknown unless seen: assume yes)."""
        seen = view.column("my_sneak_attack")[view.enemies]
        rear = view.column("me_in_its_rear")[view.enemies]
        return bool(seen.any() or not (rear > 0.5).any())

    @staticmethod
    def opposite(view: ObservationView, target: int, cells: list[Pos]) -> float:
        """1 when an ally next to ``target`` stands straight across it from ``cells``."""
        best = 0.0
        spot = view.cells_of(target)
        for a in view.allies:
            if view.gap(view.cells_of(a), spot) > 1:
                continue
            me = view.angle_between(spot, cells)
            ally = view.angle_between(spot, view.cells_of(a))
            best = max(best, angle_gap(me, ally) / 180.0)
        return best

    # -- stepping back ---------------------------------------------------------------------

    @staticmethod
    def threat(view: ObservationView, cells: list[Pos]) -> float:
        """Number of enemies threatening any of ``cells``."""
        return max(4.0 * view.at("threatened_by_enemies", c) for c in cells)

    def step_back(self, view: ObservationView) -> int | None:
        """After attacking, a 5-foot step (no attack of opportunity) out of the foes' reach
        when an ally stays engaged with them (a foe then turns to the ally)."""
        if view.scalar("attacks_made") == 0:
            return None
        return self.retreat(view)

    def retreat(self, view: ObservationView) -> int | None:
        """The 5-foot step to the least threatened square, if it is less threatened than
        here and a less wounded ally holds the foes that threaten the observer."""
        here = self.threat(view, view.self_cells)
        if here == 0 or not self.ally_engaged(view):
            return None
        best, best_threat = None, here
        for d, vec in enumerate(view.directions):
            if view.legal(five_foot_step(d)) and free(view, vec):
                threat = self.threat(view, footprint(view, vec))
                if threat < best_threat:
                    best, best_threat = five_foot_step(d), threat
        return best

    def ally_engaged(self, view: ObservationView) -> bool:
        """Whether an ally that should hold (the leader, or a less wounded ally) stands next
        to an enemy that threatens the observer."""
        mine = view.value(0, "hp_fraction")
        lead = self.leader(view)
        return any(
            view.gap(view.cells_of(a), view.cells_of(e)) <= 1
            and (a == lead or view.value(a, "hp_fraction") >= mine)
            for a in view.allies
            for e in view.enemies
            if view.value(e, "threatens_me") > 0.5
        )

    # -- closing in -------------------------------------------------------------------------

    def approach(self, view: ObservationView) -> int | None:
        """A MOVE toward the spot that keeps every foe out of striking distance while
        nearest the weakest foe; toward that foe if no such spot exists. None to stay.
        A follower (see :meth:`leader`) keeps two squares further from the foes than its
        leader, so that the foes close in on the leader and leave it free to walk around
        them."""
        target = min(
            view.enemies, key=lambda e: (view.distance(e) + 3 * view.value(e, "hp_fraction"), e)
        )
        wait = int(view.scalar("round_fraction") <= STANDOFF_ROUNDS)
        lead = self.leader(view)
        lead_gap = self.enemy_gap(view, view.cells_of(lead)) if lead is not None else 0
        best, best_key = None, None
        for anchor, route in routes(view, max_cost=total_budget(view) + 1e-3).items():
            cells = footprint(view, anchor)
            close = wait * sum(
                1 for e in view.enemies if view.gap(cells, view.cells_of(e)) <= STRIKE_DISTANCE
            )
            behind = 0
            if lead is not None:
                behind = max(0, lead_gap + FOLLOW - self.enemy_gap(view, cells))
            key = (
                -route.provoked,
                -close,
                -behind,
                -view.gap(cells, view.cells_of(target)),
                -route.cost,
            )
            if best_key is None or key > best_key:
                best, best_key = route.first, key
        return None if best is None or best < 0 else move(best)

    @staticmethod
    def enemy_gap(view: ObservationView, cells: list[Pos]) -> int:
        """Distance from ``cells`` to the nearest enemy."""
        return min(view.gap(cells, view.cells_of(e)) for e in view.enemies)

    @staticmethod
    def leader(view: ObservationView) -> int | None:
        """The ally that leads the approach (the sturdiest: highest AC, then hit points,
        then the north-west-most), or None when the observer leads."""

        def rank(slot: int) -> tuple[float, float, int, int]:
            x, y = view.offset(slot)
            return (-view.value(slot, "ac"), -view.value(slot, "hp"), y, x)

        best = min([0, *view.allies], key=rank)
        return None if best == 0 else best
