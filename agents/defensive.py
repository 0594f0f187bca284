"""The ``defensive`` agent: hold the line, keep enemies in front, strike what comes."""

from __future__ import annotations

from facing_env.agents.base import ScriptedAgent
from facing_env.agents.pathing import footprint, free
from facing_env.agents.tactics import (
    READY,
    area,
    attack,
    face,
    five_foot_step,
    guard,
    move,
    withdraw,
)
from facing_env.agents.view import ObservationView
from facing_env.types import Pos


class DefensiveAgent(ScriptedAgent):
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
