"""What the ``expert`` knows of a battle beyond its public state (:mod:`facing_env.agents.expert`):
the battle as one creature knows it under facing-limited perception (issue 36,
:func:`perceived`), and what it has seen its foes do in a game (:class:`Sightings`)."""

from __future__ import annotations

import numpy as np

from facing_env.rules.battle import Battle, Creature
from facing_env.rules.opportunity import melee_reach
from facing_env.rules.perception import unseen
from facing_env.tables import FEET_PER_SQUARE
from facing_env.types import Terrain


def perceived(battle: Battle, observer: str) -> Battle:
    """The battle as ``observer`` knows it under facing-limited perception (issue 36): a
    copy in which each foe it does not perceive stands where it last perceived it
    (``Battle.last_seen``), or, when it never did or that space is taken now, in the free
    space farthest from it. ``battle`` itself when it perceives every foe."""
    hidden = unseen(battle, observer)
    if not hidden:
        return battle
    view = battle.snapshot()
    me = view.creatures[observer]
    known = battle.last_seen.get(observer, {})
    unplaced = set(hidden)  # where these stand now is not known: no square is theirs yet
    for c in view.creatures.values():
        if c.id not in hidden:
            continue
        unplaced.discard(c.id)
        spot = known.get(c.id)
        if spot is None or not _free(view, c, spot, unplaced):
            spot = _farthest_free(view, c, me.pos, unplaced)
        if spot is not None:
            view.place(c, spot)
    return view


def _free(battle: Battle, c: Creature, pos: tuple[int, int], ignore: set[str]) -> bool:
    """Whether ``c``'s space at ``pos`` is on passable ground and nobody else's (but the
    creatures in ``ignore``)."""
    return all(
        battle.in_bounds(cell)
        and battle.terrain_at(cell) not in (Terrain.BLOCKED, Terrain.PILLAR)
        and all(o == c.id or o in ignore for o in battle.occupants(cell))
        for cell in c.shape.cells(pos)
    )


def _farthest_free(
    battle: Battle, c: Creature, origin: tuple[int, int], ignore: set[str]
) -> tuple[int, int] | None:
    """The free space for ``c`` farthest from ``origin`` (ties: the first in row order)."""
    best, far = None, -1
    for y in range(battle.height):
        for x in range(battle.width + battle.height):
            pos = (x, y)
            if not battle.in_bounds(pos) or not _free(battle, c, pos, ignore):
                continue
            d = battle.distance(origin, pos)
            if d > far:
                best, far = pos, d
    return best


class Sightings:
    """What the expert has seen its foes do in one game, between two of its decisions
    (never which agent drives them):

    - which creatures have changed square while an enemy stood within their reach (a
      5-foot step, a withdrawal or a walk out of a fight): :meth:`update`'s flags;
    - which have held a readied attack out of every enemy's reach and never come (walked
      more than a square, or stepped into an enemy's reach): :meth:`waiting`."""

    def __init__(self) -> None:
        self.where: dict[str, tuple[tuple[int, int], bool]] = {}
        self.stepped: set[str] = set()
        self.waited: set[str] = set()
        self.came: set[str] = set()
        self.clock: tuple[int, int] = (0, 0)

    def update(self, battle: Battle) -> np.ndarray:
        """Note where every creature stands now; returns the flags by creature index. A
        battle earlier than the last one seen, or with creatures not seen before (a new
        battle in the same game slot, as a ``VectorEnv`` starts one when one ends), starts
        the sightings over."""
        clock = (battle.initiative.round, battle.initiative.index)
        if clock < self.clock or not set(battle.creatures) <= set(self.where or battle.creatures):
            self.where, self.stepped = {}, set()
            self.waited, self.came = set(), set()
        self.clock = clock
        ids = list(battle.creatures)
        for c in battle.creatures.values():
            before = self.where.get(c.id)
            if before is not None and before[1] and before[0] != c.pos and c.hp > 0:
                self.stepped.add(c.id)
            engaged = _in_reach_of_enemy(battle, c)
            if before is not None and before[0] != c.pos and c.hp > 0:
                far = max(abs(before[0][0] - c.pos[0]), abs(before[0][1] - c.pos[1])) > 1
                if far or (engaged and not before[1]):
                    self.came.add(c.id)  # a walk, or a step into an enemy's reach
            if c.readied and not engaged:
                self.waited.add(c.id)
            self.where[c.id] = (c.pos, engaged)
        return np.array([i in self.stepped for i in ids], dtype=bool)

    def waiting(self, battle: Battle) -> np.ndarray:
        """Flags by creature index: the creatures seen holding a readied attack out of
        every enemy's reach and never seen coming (walking more than a square between two
        of the expert's decisions, or stepping into an enemy's reach)."""
        return np.array(
            [i in self.waited and i not in self.came for i in battle.creatures], dtype=bool
        )


def _in_reach_of_enemy(battle: Battle, c: Creature) -> bool:
    """Whether a living enemy of ``c`` stands within ``c``'s melee reach (at least 1)."""
    reach = max(melee_reach(c) // FEET_PER_SQUARE, 1)
    return any(
        o.team != c.team
        and o.hp > 0
        and battle.cells_distance(battle.cells_of(c), battle.cells_of(o)) <= reach
        for o in battle.creatures.values()
    )


__all__ = ["Sightings", "perceived"]
