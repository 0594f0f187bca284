"""Export a replayed game (:func:`facing_env.render.replay.replay`): frames, GIF, MP4 and HTML.

The HTML viewer is one self-contained file (``viewer.html`` filled in: inline CSS and JS,
the terrain as one base64 PNG, every step as JSON drawn on a canvas). The JSON sits in a
``<script type="application/json">`` block with ``<``, ``>`` and ``&`` escaped, the page
puts names in with ``textContent`` only, and the title goes through ``html.escape``: a
creature called ``<script>`` stays text.
"""

from __future__ import annotations

import base64
import copy
import html
import io
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from facing_env.actions import ATTACK_BASE, RUN_INDEX, SLOT_KINDS, TURN_BASE, action_names
from facing_env.env import raw_env
from facing_env.events import Event
from facing_env.render import frames as pictures
from facing_env.render.canvas import (
    AREA_CODES,
    AREA_COLOURS,
    MARGIN,
    Layout,
    area_map,
    attack_label,
    facing_vector,
    footprint,
    team_colours,
    wedge,
)
from facing_env.render.record import ReplayStep
from facing_env.render.text import creature_letters
from facing_env.rules import geometry
from facing_env.rules.battle import Battle
from facing_env.types import GridKind

TEMPLATE = Path(__file__).with_name("viewer.html")


def restore(battle: Battle, step: ReplayStep) -> Battle:
    """Put the creatures of ``battle`` where they were at ``step`` (in place)."""
    for cid, s in step.creatures.items():
        c = battle.creatures[cid]
        c.pos, c.facing, c.hp = s.pos, s.facing, s.hp
    battle.rebuild_occupancy()
    return battle


def frames(env: raw_env, steps: Sequence[ReplayStep]) -> list[np.ndarray]:
    """One ``H x W x 3`` frame per step, the acting creature's areas shaded."""
    scratch = copy.deepcopy(env.battle)
    layout = Layout.of(scratch)
    out = []
    for s in steps:
        title = f"step {s.index}/{len(steps) - 1}  round {s.round}"
        title += f"  acting: {s.active}" if s.active else "  over"
        restore(scratch, s)
        out.append(pictures.frame(scratch, layout, active=s.active, attack=s.attack, title=title))
    return out


def gif(env: raw_env, steps: Sequence[ReplayStep], out: str | Path, *, fps: float = 4) -> None:
    """An animated GIF of the game (pillow), looping."""
    from PIL import Image

    images = [Image.fromarray(f) for f in frames(env, steps)]
    images[0].save(out, save_all=True, append_images=images[1:], duration=round(1000 / fps), loop=0)


def mp4(env: raw_env, steps: Sequence[ReplayStep], out: str | Path, *, fps: float = 4) -> None:
    """An H.264 video of the game (imageio with its ffmpeg plugin)."""
    try:
        import imageio.v2 as imageio
    except ImportError:
        raise ImportError(
            "MP4 export needs imageio and imageio-ffmpeg: pip install 'facing-env[render]'"
        ) from None
    with imageio.get_writer(out, fps=fps, codec="libx264", macro_block_size=16) as writer:
        for f in frames(env, steps):
            writer.append_data(f)


def describe(e: Event, kind: GridKind) -> str:
    """One line of text for an event."""
    names = geometry.facing_names(kind)
    facing = names[e.facing] if e.facing is not None else "-"
    where = f"({e.pos[0]}, {e.pos[1]})" if e.pos is not None else ""
    if e.kind == "attack":
        verb = {
            "aoo": "makes an attack of opportunity on",
            "cleave": "cleaves into",
            "charge": "charges into",
            "readied": "strikes with its readied attack at",
        }
        text = f"{e.actor} {verb.get(e.attack_kind or '', 'attacks')} {e.target}"
        text += f" with {e.attack}: from its {e.defender_area or 'none'}, into the attacker's"
        text += f" {e.own_area or 'none'}, facing {e.facing_modifier:+d};"
        text += f" roll {_num(e.roll)}, total {_num(e.total)} vs AC {e.ac}: "
        if not e.hit:
            return text + "miss"
        text += "critical hit" if e.critical else "hit"
        damage = _num(e.damage)  # fractions with mean dice
        return text + f", {damage} damage" + (" (sneak attack)" if e.sneak_attack else "")
    return {
        "initiative": f"initiative order: {e.actor}",
        "turn_start": f"round {e.round}: {e.actor}'s turn",
        "move": f"{e.actor} moves to {where} facing {facing} (cost {e.cost})",
        "five_foot_step": f"{e.actor} takes a 5-foot step to {where}"
        + (" for an attack" if e.attack_kind == "traded" else ""),
        "charge": f"{e.actor} charges {e.target} to {where} ({e.cost} squares)",
        "withdraw": f"{e.actor} withdraws from {e.target} ({e.cost} squares of movement)",
        "ready": f"{e.actor} readies an attack",
        "trigger": f"{e.target} steps into {e.actor}'s reach at {where}: readied attack",
        "bump": f"{e.actor} bumps into {e.target}, unseen at {where}, and stops",
        "turn": f"{e.actor} turns to face {facing}",
        "run": f"{e.actor} runs ({e.cost} squares of movement)",
        "death": f"{e.actor} dies",
        "end_turn": f"{e.actor} ends its turn",
        "round": f"round {e.round} begins",
    }.get(e.kind, f"{e.kind}: {e.actor}")


def viewer_data(env: raw_env, steps: Sequence[ReplayStep], *, fps: float = 4) -> dict[str, Any]:
    """What the HTML viewer draws: cell polygons, creatures, and per step their state."""
    battle = copy.deepcopy(env.battle)
    layout = Layout(battle.kind, battle.width, battle.height, rows=0)
    cells = [battle.cell_at(r, c) for r in range(battle.height) for c in range(battle.width)]
    index = {cell: k for k, cell in enumerate(cells)}
    png = io.BytesIO()
    pictures.draw_terrain(battle, layout).save(png, format="PNG", optimize=True)
    colours, letters = team_colours(battle), creature_letters(battle)
    ids = list(battle.creatures)
    areas: dict[str, int] = {}
    cache: dict[Any, int] = {}
    names = action_names(battle.kind.value, env.layout.n_slots)
    out_steps, events = [], []
    for s in steps:
        restore(battle, s)
        units = []
        for c in battle.creatures.values():
            fp = footprint(battle, layout, c)
            key = (c.shape, c.facing, c.pos, c.hp > 0)
            if key not in cache:
                amap = area_map(battle, c)
                codes = "".join(_code(*amap[cell]) if cell in amap else "." for cell in cells)
                cache[key] = areas.setdefault(codes, len(areas)) if amap else -1
            vec = facing_vector(battle, c)
            arrow, at = wedge(fp, vec)
            units.append(
                {
                    "hp": c.hp,
                    "x": round(fp.centre[0], 1),
                    "y": round(fp.centre[1], 1),
                    "top": round(fp.top, 1),
                    "left": round(fp.left, 1),
                    "right": round(fp.right, 1),
                    "scale": fp.scale,
                    "arrow": _flat(arrow),
                    "label": [round(v, 1) for v in at],
                    "cells": [index[x] for x in fp.cells if x in index],
                    "areas": cache[key],
                    "facing": battle.facing_name(c) if vec else "-",
                }
            )
        first = len(events)
        events += [
            {"step": s.index, "kind": _kind(e), "text": describe(e, battle.kind)} for e in s.events
        ]
        a = s.attack
        out_steps.append(
            {
                "round": s.round,
                "actor": ids.index(s.active) if s.active else -1,
                "action": _action(env, names, s),
                "units": units,
                "events": [first, len(events)],
                "attack": [ids.index(a.actor), ids.index(a.target), a.hit, attack_label(a)]
                if a is not None and a.target in ids
                else None,
            }
        )
    return {
        "fps": fps,
        "width": layout.board_px[0] + 2 * MARGIN,
        "height": layout.board_px[1] + 2 * MARGIN,
        "background": "data:image/png;base64," + base64.b64encode(png.getvalue()).decode(),
        "cells": [
            {"c": [round(v, 1) for v in layout.centre(x)], "p": _flat(layout.polygon(x))}
            for x in cells
        ],
        "areaColours": {AREA_CODES[a]: list(rgb) for a, rgb in AREA_COLOURS.items()},
        "creatures": [
            {
                "id": c.id,
                "team": c.team,
                "letter": letters[c.id],
                "size": c.size.label,
                "maxHp": c.max_hp,
                "colour": list(colours[c.team]),
            }
            for c in battle.creatures.values()
        ],
        "areas": list(areas),
        "steps": out_steps,
        "events": events,
    }


def _action(env: raw_env, names: list[str], s: ReplayStep) -> str:
    if s.action is None or s.agent is None:
        return ""
    name, cid = names[s.action], env.agent_to_id[s.agent]
    if s.action >= ATTACK_BASE:  # the slot's creature, as the acting agent saw its table
        slots = env.slots[cid]
        block, slot = divmod(s.action - ATTACK_BASE, env.codec.n_slots)
        kind = SLOT_KINDS[block].upper()
        name = f"{kind}({slots[slot] if slot < len(slots) else slot})"
    elif TURN_BASE <= s.action < RUN_INDEX:
        b, slot = env.battle, s.action - TURN_BASE
        allowed = geometry.allowed_facings(b.kind, b.ruleset, b.creatures[cid].shape)
        if slot < len(allowed):
            name = f"TURN({geometry.facing_names(b.kind)[allowed[slot]]})"
    return f"{s.agent}: {name}"


def _num(x: float | None) -> str:
    return "-" if x is None else f"{x:g}"


def _code(area: Any, ring: bool) -> str:
    code = AREA_CODES[area]
    return code if ring else code.lower()


def _kind(e: Event) -> str:
    return "aoo" if e.attack_kind == "aoo" else e.kind


def _flat(points: Sequence[tuple[float, float]]) -> list[float]:
    return [round(v, 1) for p in points for v in p]


def script_json(data: Any) -> str:
    """JSON safe inside a ``<script>`` element: no ``<``, ``>`` or ``&`` left as is."""
    text = json.dumps(data, ensure_ascii=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def html_page(env: raw_env, steps: Sequence[ReplayStep], *, title: str, fps: float = 4) -> str:
    """The viewer as one HTML string."""
    values = {"title": html.escape(title), "data": script_json(viewer_data(env, steps, fps=fps))}
    template = TEMPLATE.read_text(encoding="utf-8")  # one pass: values are never rescanned
    return re.sub(r"\{\{(title|data)\}\}", lambda m: values[m.group(1)], template)


def html_file(
    env: raw_env, steps: Sequence[ReplayStep], out: str | Path, *, fps: float = 4, title: str = ""
) -> None:
    """Write the viewer to ``out``."""
    page = html_page(env, steps, title=title or Path(out).stem, fps=fps)
    Path(out).write_text(page, encoding="utf-8")
