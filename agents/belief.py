"""The battle as one creature knows it, under facing-limited perception (issue 36): what the
``expert`` plans on when it does not perceive every foe (:mod:`facing_env.agents.expert`)."""

from __future__ import annotations

from facing_env.rules.battle import Battle, Creature
from facing_env.rules.perception import unseen
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


__all__ = ["perceived"]
