"""Text rendering of a battle: the board with facing arrows, and a legend with hit points.

Used by ``render_mode="ansi"`` and ``python -m facing_env``.
"""

from __future__ import annotations

import string

from facing_env.rules import geometry
from facing_env.rules.battle import Battle, Creature
from facing_env.types import GridKind, Terrain

SQUARE_ARROWS = ("↑", "↗", "→", "↘", "↓", "↙", "←", "↖")
HEX_ARROWS = ("→", "↗", "↗", "↑", "↖", "↖", "←", "↙", "↙", "↓", "↘", "↘")
TERRAIN_GLYPHS = {
    Terrain.OPEN: ".",
    Terrain.BLOCKED: "#",
    Terrain.PILLAR: "o",
    Terrain.DIFFICULT: "~",
    Terrain.IMPEDED: "%",
    Terrain.HAZARDOUS: "^",
}


def creature_letters(battle: Battle) -> dict[str, str]:
    """A letter per creature, in spec order: A, B, C, ..."""
    letters = string.ascii_uppercase + string.ascii_lowercase
    return {cid: letters[i % len(letters)] for i, cid in enumerate(battle.creatures)}


def arrow(battle: Battle, c: Creature) -> str:
    """The facing arrow of a creature, or ``*`` when it has no facing."""
    if battle.table(c) is None:
        return "*"
    return (SQUARE_ARROWS if battle.kind is GridKind.SQUARE else HEX_ARROWS)[c.facing]


def board_text(battle: Battle, *, active: str | None = None) -> str:
    """The board as text: terrain glyphs, creatures as letter + facing arrow, then a legend."""
    letters = creature_letters(battle)
    cells: dict[tuple[int, int], str] = {}
    for c in battle.living():
        for cell in battle.cells_of(c):
            cells[cell] = letters[c.id] + (arrow(battle, c) if cell == c.pos else letters[c.id])
    lines = []
    for row in range(battle.height):
        out = " " if battle.kind is GridKind.HEX and row % 2 else ""
        for col in range(battle.width):
            pos = battle.cell_at(row, col)
            glyph = cells.get(pos) or TERRAIN_GLYPHS[battle.terrain_at(pos)] + " "
            out += glyph
        lines.append(out.rstrip())
    lines.append("")
    for cid, c in battle.creatures.items():
        mark = ">" if cid == active else " "
        status = f"hp {c.hp:g}/{c.max_hp}" if c.hp > 0 else "dead"  # :g: mean dice
        facing = battle.facing_name(c) if battle.table(c) is not None else "-"
        lines.append(
            f"{mark}{letters[cid]} {cid} ({c.team}) {c.size.label} at {list(c.pos)} "
            f"facing {facing} {status} AC {c.ac}"
        )
    return "\n".join(lines)


def areas_text(battle: Battle, creature: str) -> str:
    """A creature's surroundings drawn with F/K/S/R for front, flank, side and rear."""
    c = battle.creature(creature)
    table = battle.table(c)
    marks = {"front": "F", "flank": "K", "side": "S", "rear": "R"}
    own = set(battle.cells_of(c))
    lines = []
    for row in range(battle.height):
        out = " " if battle.kind is GridKind.HEX and row % 2 else ""
        for col in range(battle.width):
            pos = battle.cell_at(row, col)
            if pos in own:
                out += "# "
            elif table is None:
                out += ". "
            else:
                area = table.lookup((pos[0] - c.pos[0], pos[1] - c.pos[1])).area.value
                out += marks.get(area, ".") + " "
        lines.append(out.rstrip())
    return "\n".join(lines)


__all__ = ["areas_text", "board_text", "creature_letters", "geometry"]
