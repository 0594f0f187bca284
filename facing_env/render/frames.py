"""Pictures of a battle: RGB frames drawn with pillow (``render_mode="rgb_array"``).

Used by the ``rgb_array`` and ``human`` render modes and by :mod:`facing_env.render.replay`. A frame
shows the terrain; every creature's footprint in its team colour (its size: multi-cell
spaces, smaller marks below Medium) with its letter, a facing arrow and a hit-point bar;
the acting creature's front / flank (side) / rear shaded (ring cells strongly, cells beyond
faintly, IC-03); the last attack as a line labelled with the defender's area and the
facing modifier; and a legend. Frames of one :class:`~facing_env.render.canvas.Layout` all have
one shape.
"""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    from PIL import Image, ImageDraw, ImageFont
except ImportError as exc:  # pragma: no cover - the message is the point
    raise ImportError(
        "pictures need pillow: pip install 'facing-env[render]' (or pip install pillow)"
    ) from exc

from facing_env.events import Event
from facing_env.render.canvas import (
    AREA_COLOURS,
    LINE,
    MARGIN,
    Colour,
    Layout,
    Point,
    area_map,
    attack_label,
    facing_vector,
    footprint,
    team_colours,
    wedge,
)
from facing_env.render.text import creature_letters
from facing_env.rules.battle import Battle, Creature
from facing_env.types import Terrain

HEALTHY = 0.5
"""Hit-point fractions above this draw a green bar."""
WOUNDED = 0.25
"""Above this (and not healthy) a yellow bar; below, a red one."""

BACKGROUND = (250, 248, 240)
GRID = (200, 196, 184)
TERRAIN_COLOURS = {
    Terrain.OPEN: (238, 234, 222),
    Terrain.BLOCKED: (70, 70, 78),
    Terrain.PILLAR: (238, 234, 222),
    Terrain.DIFFICULT: (205, 190, 150),
    Terrain.IMPEDED: (150, 170, 120),
    Terrain.HAZARDOUS: (235, 170, 130),
}
_FONT = ImageFont.load_default_imagefont()  # the built-in bitmap font: the same everywhere


def _text(s: str) -> str:
    return s.encode("latin-1", "replace").decode("latin-1")


def draw_terrain(battle: Battle, layout: Layout) -> Image.Image:
    """The empty board: terrain and grid."""
    img = Image.new("RGB", layout.size, BACKGROUND)
    draw = ImageDraw.Draw(img)
    for row in range(battle.height):
        for col in range(battle.width):
            pos = battle.cell_at(row, col)
            terrain = battle.terrain_at(pos)
            draw.polygon(layout.polygon(pos), fill=TERRAIN_COLOURS[terrain], outline=GRID)
            if terrain is Terrain.PILLAR:
                draw.polygon(layout.polygon(pos, 0.6), fill=(120, 120, 128))
            elif terrain is Terrain.IMPEDED:
                (x0, y0), (x1, y1) = layout.centre(pos), layout.polygon(pos, 0.5)[2]
                draw.line([(2 * x0 - x1, 2 * y0 - y1), (x1, y1)], fill=(90, 110, 70), width=2)
    return img


def draw_battle(
    battle: Battle,
    layout: Layout | None = None,
    *,
    active: str | None = None,
    focus: str | None = None,
    attack: Event | None = None,
    title: str | None = None,
) -> Image.Image:
    """A frame: terrain, ``focus``'s areas (default: ``active``), creatures, ``attack``."""
    layout = layout or Layout.of(battle)
    img = draw_terrain(battle, layout).convert("RGBA")
    focus = focus if focus is not None else active
    if focus is not None:
        shade = Image.new("RGBA", layout.size, (0, 0, 0, 0))
        sd = ImageDraw.Draw(shade)
        for cell, (area, ring) in area_map(battle, battle.creature(focus)).items():
            sd.polygon(layout.polygon(cell), fill=(*AREA_COLOURS[area], 120 if ring else 40))
        img = Image.alpha_composite(img, shade)
    img = img.convert("RGB")
    draw = ImageDraw.Draw(img)
    colours, letters = team_colours(battle), creature_letters(battle)
    line = _attack_line(battle, layout, attack) if attack is not None else None
    if line is not None:
        draw.line(line[:2], fill=line[2], width=2)
    for c in battle.creatures.values():
        if c.hp > 0:
            _draw_creature(draw, battle, layout, c, colours[c.team], letters[c.id], c.id == active)
        else:
            x, y = layout.point(*c.shape.centre_at(c.pos))
            draw.line([(x - 5, y - 5), (x + 5, y + 5)], fill=(120, 120, 120), width=2)
            draw.line([(x - 5, y + 5), (x + 5, y - 5)], fill=(120, 120, 120), width=2)
    if line is not None and attack is not None:
        (px, py), (qx, qy), colour = line
        _centred(draw, ((px + qx) / 2, (py + qy) / 2), attack_label(attack), colour, box=True)
    _draw_legend(draw, battle, layout, colours, letters, active, title)
    return img


def _draw_creature(
    draw: ImageDraw.ImageDraw,
    battle: Battle,
    layout: Layout,
    c: Creature,
    colour: Colour,
    letter: str,
    acting: bool,
) -> None:
    fp = footprint(battle, layout, c)
    cells, scale = set(fp.cells), fp.scale
    dark = tuple(v // 2 for v in colour)
    for cell in cells:
        draw.polygon(layout.polygon(cell, scale), fill=colour)
    outline = (20, 20, 20) if acting else dark
    width = 3 if acting else 1
    if scale != 1.0:
        draw.polygon(layout.polygon(c.pos, scale), outline=outline, width=width)
    else:  # outline the whole space, not each cell
        for cell in cells:
            for other, p, q in layout.edges(cell):
                if other not in cells:
                    draw.line([p, q], fill=outline, width=width)
    arrow, at = wedge(fp, facing_vector(battle, c))
    if arrow:
        draw.polygon(arrow, fill=(255, 255, 255), outline=(20, 20, 20))
    _centred(draw, at, letter, (255, 255, 255))
    frac = max(0.0, min(1.0, c.hp / max(1, c.max_hp)))
    x0, x1, y0 = fp.left + 3, fp.right - 3, fp.top + 1
    draw.rectangle([x0, y0, x1, y0 + 2], fill=(60, 20, 20))
    bar = (60, 190, 70) if frac > HEALTHY else (230, 180, 30) if frac > WOUNDED else (220, 50, 40)
    draw.rectangle([x0, y0, x0 + (x1 - x0) * frac, y0 + 2], fill=bar)


def _centred(
    draw: ImageDraw.ImageDraw, at: Point, text: str, colour: Colour, box: bool = False
) -> None:
    text = _text(text)
    w, h = _FONT.getbbox(text)[2:]
    x, y = round(at[0] - w / 2), round(at[1] - h / 2)
    if box:
        draw.rectangle([x - 2, y - 1, x + w + 1, y + h], fill=(255, 255, 255))
    draw.text((x, y), text, fill=colour, font=_FONT)


def _attack_line(battle: Battle, layout: Layout, e: Event) -> tuple[Point, Point, Colour] | None:
    a, d = battle.creatures.get(e.actor), battle.creatures.get(e.target or "")
    if a is None or d is None:
        return None
    p = layout.point(*a.shape.centre_at(a.pos))
    q = layout.point(*d.shape.centre_at(d.pos))
    return p, q, ((200, 30, 30) if e.hit else (90, 90, 90))


def _draw_legend(
    draw: ImageDraw.ImageDraw,
    battle: Battle,
    layout: Layout,
    colours: dict[str, Colour],
    letters: dict[str, str],
    active: str | None,
    title: str | None,
) -> None:
    y = MARGIN + layout.board_px[1] + MARGIN
    rnd = battle.initiative.round if battle.initiative is not None else 0
    head = title or f"round {rnd}" + (f"  acting: {active}" if active else "")
    draw.text((MARGIN, y), _text(head), fill=(20, 20, 20), font=_FONT)
    for i, c in enumerate(list(battle.creatures.values())[: layout.rows - 1]):
        yy = y + LINE * (i + 1)
        draw.rectangle([MARGIN, yy + 1, MARGIN + 8, yy + 9], fill=colours[c.team])
        hp = f"hp {c.hp:g}/{c.max_hp}" if c.hp > 0 else "dead"  # :g: mean dice
        facing = battle.facing_name(c) if battle.table(c) is not None else "-"
        text = f"{letters[c.id]} {c.id} {c.size.label} {facing} {hp}"
        text += " readied" if c.readied and c.hp > 0 else ""
        text += " charging" if c.charging and c.hp > 0 else ""
        draw.text((MARGIN + 12, yy), _text(text), fill=(20, 20, 20), font=_FONT)


def frame(battle: Battle, layout: Layout | None = None, **kwargs: Any) -> np.ndarray:
    """:func:`draw_battle` as an ``H x W x 3`` uint8 array."""
    return np.asarray(draw_battle(battle, layout, **kwargs), dtype=np.uint8)
