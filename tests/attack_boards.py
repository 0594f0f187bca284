"""Shared boards of the attack-roll tests (test_attacks.py, test_attacks_shields_spells.py,
test_attacks_side_rear.py, test_attacks_flanking.py): an attacker A next to a defender D
(``_pair``) or on a compass ray from it (``_far``, IC-03), and the attack and rogue fields
they use. Boards follow docs/rules.md's coordinates: x grows east, y grows south.
"""

from __future__ import annotations

from tests.boards import board

ROGUE = {"sneak_attack": "2d6", "rogue_level": 4}
BOW = {"name": "bow", "kind": "ranged", "range": 100}
SWORD = {"name": "sword"}
SPEAR = {"name": "longspear", "reach": 10}

# A defender D at the centre of a 5x5 board and the attacker A around it.
_RING = {
    "N": (2, 1),
    "NE": (3, 1),
    "E": (3, 2),
    "SE": (3, 3),
    "S": (2, 3),
    "SW": (1, 3),
    "W": (1, 2),
    "NW": (1, 1),
}
_OPPOSITE = {"N": "S", "NE": "SW", "E": "W", "SE": "NW", "S": "N", "SW": "NE", "W": "E", "NW": "SE"}


def _pair(
    where: str,
    ruleset: str = "ua35",
    *,
    a_facing: str = "N",
    d_facing: str = "N",
    size: int = 5,
    centre: tuple[int, int] = (2, 2),
    **fields,
):
    """Attacker A at compass point ``where`` of defender D (adjacent), on a size x size board."""
    rows = [["." for _ in range(size)] for _ in range(size)]
    dx, dy = _RING[where][0] - 2, _RING[where][1] - 2
    rows[centre[1]][centre[0]] = "D"
    rows[centre[1] + dy][centre[0] + dx] = "A"
    text = "\n".join(" ".join(r) for r in rows)
    a = {"facing": a_facing, "team": "pc", **fields.pop("A", {})}
    d = {"facing": d_facing, "team": "foe", **fields.pop("D", {})}
    return board(text, ruleset, A=a, D=d, **fields)


def _far(where: str, distance: int, ruleset: str = "ua35", **kw):
    """Attacker ``distance`` squares from the defender along a compass ray (IC-03)."""
    size = 2 * distance + 1
    rows = [["." for _ in range(size)] for _ in range(size)]
    dx, dy = _RING[where][0] - 2, _RING[where][1] - 2
    rows[distance][distance] = "D"
    rows[distance + dy * distance][distance + dx * distance] = "A"
    text = "\n".join(" ".join(r) for r in rows)
    a = {"facing": kw.pop("a_facing", "N"), "team": "pc", **kw.pop("A", {})}
    d = {"facing": kw.pop("d_facing", "N"), "team": "foe", **kw.pop("D", {})}
    return board(text, ruleset, A=a, D=d, **kw)
