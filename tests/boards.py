"""ASCII boards for tests: a picture in, a Battle out.

Terrain characters are the map legend (``.`` open, ``#`` wall, ``o`` pillar, ``~``
difficult, ``%`` impeded); any other letter is a creature, drawn on every square it
covers. Spaces between cells are ignored. Per-creature fields come from ``creatures``
keyed by letter; a creature's id defaults to its letter and its size to what its drawn
footprint implies (1 square: Medium, 2x2: Large, 3x3: Huge, ...). A creature inside
another's space (EP-STEP-01, EP-CLAMBER-01) is not drawn: give its ``pos`` (and ``size``,
default Medium) in its fields.

    battle = board('''
        . A .
        . G .
        . B .
    ''', G={"facing": "N"}, A={"team": "pc"}, B={"team": "pc"})
"""

from __future__ import annotations

from typing import Any

from facing_env import Battle
from facing_env.tables import TERRAIN_CHARS

_SIZE_BY_SIDE = {1: "Medium", 2: "Large", 3: "Huge", 4: "Gargantuan", 5: "Colossal"}


def board(text: str, ruleset: str = "ua35", *, grid: str = "square", **creatures: Any) -> Battle:
    """Build a battle from an ASCII picture; keyword arguments give creature fields."""
    rows = [line.replace(" ", "") for line in text.strip("\n").splitlines() if line.strip()]
    width, height = max(len(r) for r in rows), len(rows)
    terrain_rows: list[str] = []
    cells: dict[str, list[tuple[int, int]]] = {}
    for y, row in enumerate(rows):
        row = row.ljust(width, ".")
        out = []
        for x, ch in enumerate(row):
            if ch in TERRAIN_CHARS:
                out.append(ch)
            else:
                out.append(".")
                col = x - (y >> 1) if grid == "hex" else x
                cells.setdefault(ch, []).append((col, y))
        terrain_rows.append("".join(out))
    specs = []
    for letter, squares in cells.items():
        fields = dict(creatures.get(letter, {}))
        xs, ys = [p[0] for p in squares], [p[1] for p in squares]
        side = max(xs) - min(xs) + 1
        fields.setdefault("id", letter)
        fields.setdefault(
            "size", _SIZE_BY_SIDE.get(side, "Medium") if grid == "square" else "Medium"
        )
        fields.setdefault("pos", [min(xs), min(ys)])
        specs.append(fields)
    hidden = [k for k in creatures if k not in cells and "pos" in creatures[k]]
    for letter in hidden:
        specs.append({"id": letter, "size": "Medium", **creatures[letter]})
    unknown = set(creatures) - set(cells) - set(hidden)
    if unknown:
        raise ValueError(f"letters {sorted(unknown)} are not on the board")
    return Battle.from_spec(
        {
            "ruleset": ruleset,
            "grid": {"kind": grid, "width": width, "height": height},
            "map": "\n".join(terrain_rows),
            "creatures": specs,
        }
    )
