"""The scripted agents as they were written before their numba kernels: their ``choose``
over an :class:`~facing_env.agents.ObservationView`, with the helpers of
``tests/reference/pathing.py`` and ``tests/reference/tactics.py`` (the differential oracle
of the kernels, which ``tests/test_batch_agents.py`` compares with them action for action).

The logic is the old ``agents/aggressive.py``, ``agents/defensive.py`` and
``agents/flanker.py`` verbatim, but for the class names; the flanker's parameters are read
from ``agents/flanker.py``, where its kernels read them too. A change of behaviour goes
into the kernels and here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from facing_env.agents.flanker import (
    AOO_COST,
    AREA_VALUE,
    EXPOSURE,
    FOLLOW,
    HOW_BONUS,
    OPPOSITE_VALUE,
    SNEAK_VALUE,
    STANDOFF_ROUNDS,
    STRIKE_DISTANCE,
    WOUND_VALUE,
)
from facing_env.agents.view import ObservationView
from facing_env.types import Pos
from tests.reference.pathing import footprint, free, routes
from tests.reference.tactics import (
    READY,
    angle_gap,
    area,
    area_from,
    attack,
    charge,
    danger,
    face,
    five_foot_step,
    guard,
    legal_or_end,
    move,
    move_budget,
    total_budget,
    withdraw,
)

_FAR = 1e6


class _Reference:
    """``act`` as the old ``ScriptedAgent``: read a view, let ``choose`` pick an index
    (None ends the turn), END_TURN when the mask forbids it."""

    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        view = ObservationView(observation, action_mask)
        return legal_or_end(view, self.choose(view))

    def choose(self, view: ObservationView) -> int | None:
        raise NotImplementedError


class ReferenceAggressive(_Reference):
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


class ReferenceDefensive(_Reference):
    """Withdraws when flanked (two or more enemies threaten it; from the most dangerous,
    EP-WDR-01) and then walks out of every threat; otherwise attacks whatever is in reach
    (best facing modifier, then the most wounded), turning to face it first; otherwise takes
    a 5-foot step that brings a foe into its reach without entering any foe's threat
    (reach), or that puts more walls behind it, turns to face the nearest enemy and readies
    an attack against whoever comes (UA-PER-02). It never walks toward the enemy."""

    def choose(self, view: ObservationView) -> int | None:
        """The action index, or None to end the turn."""
        enemies = view.enemies
        if not enemies:
            return None
        if view.tactic_scalar("withdrawing") > 0.5:
            return self.retreat(view)
        away = self.withdrawal(view)
        if away is not None:
            return away
        attackable = [e for e in enemies if view.legal(attack(e))]
        if attackable:
            hit = max(
                attackable,
                key=lambda e: (view.value(e, "my_facing_modifier"), -view.value(e, "hp_fraction")),
            )
            return face(view, hit) or attack(hit)
        nearest = min(enemies, key=lambda e: (view.distance(e), e))
        step = self.step(view, nearest)
        if step is not None:
            return step
        turn = face(view, nearest)
        if turn is not None:
            return turn
        if view.legal(READY):
            return READY
        return guard(view)

    @staticmethod
    def withdrawal(view: ObservationView) -> int | None:
        """WITHDRAW from the most dangerous of two or more threatening enemies."""
        threats = [e for e in view.enemies if view.value(e, "threatens_me") > 0.5]
        if len(threats) < 2:
            return None
        options = [e for e in threats if view.legal(withdraw(view, e))]
        if not options:
            return None
        worst = max(options, key=lambda e: (view.value(e, "its_facing_modifier"), -e))
        return withdraw(view, worst)

    @staticmethod
    def retreat(view: ObservationView) -> int | None:
        """During a withdrawal: the legal step to the least threatened free square (then the
        furthest from the nearest enemy) while the current one is threatened; then face the
        nearest enemy."""
        here = footprint(view, (0, 0))
        threat = sum(view.at("threatened_by_enemies", c) for c in here)
        nearest = min(view.enemies, key=lambda e: (view.distance(e), e))
        if threat > 0:
            best, best_key = None, None
            for d, vec in enumerate(view.directions):
                if not view.legal(move(d)) or not free(view, vec):
                    continue
                cells = footprint(view, vec)
                key = (
                    -sum(view.at("threatened_by_enemies", c) for c in cells),
                    min(view.gap(cells, view.cells_of(e)) for e in view.enemies),
                    -d,
                )
                if best_key is None or key > best_key:
                    best, best_key = move(d), key
            if best is not None:
                return best
        return face(view, nearest)

    def step(self, view: ObservationView, nearest: int) -> int | None:
        """A 5-foot step into reach of a foe from outside every foe's threat, or to a
        square with more walls behind (facing the nearest enemy)."""
        here = self.walls_behind(view, (0, 0), nearest)
        can_strike = view.scalar("standard_available") > 0.5 and view.scalar("attacks_made") == 0
        best, best_key = None, (0, here)
        for d, vec in enumerate(view.directions):
            if not view.legal(five_foot_step(d)) or not free(view, vec):
                continue
            cells = footprint(view, vec)
            if any(view.at("threatened_by_enemies", c) > 0 for c in cells):
                continue
            in_reach = can_strike and any(
                view.gap(cells, view.cells_of(e)) <= view.reach for e in view.enemies
            )
            key = (int(in_reach), self.walls_behind(view, vec, nearest))
            if key > best_key:
                best, best_key = five_foot_step(d), key
        return best

    @staticmethod
    def walls_behind(view: ObservationView, anchor: Pos, nearest: int) -> int:
        """Blocked cells around ``anchor`` that would be in the observer's flank or rear
        when it faces the nearest enemy."""
        cells = footprint(view, anchor)
        facing = view.angle_between(cells, view.cells_of(nearest))
        ring = {(x + vx, y + vy) for x, y in cells for vx, vy in view.directions} - set(cells)
        return sum(
            1
            for c in ring
            if view.at("blocked", c) and area(view, facing, cells, [c]) in ("flank", "rear")
        )


@dataclass(frozen=True)
class Option:
    """One way to attack this turn: its value, the action that starts it, its target."""

    value: float
    action: int
    target: int


class ReferenceFlanker(_Reference):
    """Seeks the flank or rear of a foe before striking (see ``agents/flanker.py``)."""

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


REFERENCES = {
    "aggressive": ReferenceAggressive,
    "defensive": ReferenceDefensive,
    "flanker": ReferenceFlanker,
}
"""The reference agents by ``make_agent`` name."""
