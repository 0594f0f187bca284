"""Limits on everything an input file can ask for, and the bounded readers that apply them.

Scenario files, replay files and model files are untrusted input: each size, count and
number they set is checked against a limit here when the file is loaded, so that a hostile
or mistaken file ends at once in an error naming the file, creature and field
(:class:`~facing_env.errors.ScenarioError`, ``ReplayError``, ``ModelFileError``) rather
than using gigabytes of memory, minutes of time or crashing mid-game. The limits are far
above anything the rules or the built-in scenarios need.

This module imports nothing from the package (only numpy).
"""

from __future__ import annotations

import os
import re
import reprlib
import stat
from pathlib import Path

import numpy as np

# -- files ---------------------------------------------------------------------------------

MAX_SCENARIO_BYTES = 1 << 20
"""Bytes of a scenario (or bestiary) YAML file: 1 MiB."""
MAX_REPLAY_BYTES = 64 << 20
"""Bytes of a replay JSON file: 64 MiB (a 30-round skirmish records about 100 kB)."""
MAX_YAML_NODES = 200_000
"""Nodes of a YAML document, counting every alias as the nodes it stands for (a small
file whose aliases expand to billions of nodes is refused before it is expanded)."""
MAX_NESTING = 32
"""Levels of nested mappings and lists in a YAML or JSON file (the deepest spec needs 5)."""

MAX_MODEL_BYTES = 1 << 30
"""Bytes of a ``model:PATH`` archive (a MaskablePPO ``.zip``)."""
MAX_MODEL_DATA_BYTES = 16 << 20
"""Uncompressed bytes of the archive's ``data`` (JSON) member."""
MAX_MODEL_WEIGHTS_BYTES = 512 << 20
"""Uncompressed bytes of the archive's ``policy.pth`` (weights) member."""
MAX_MODEL_OBSERVATION = 1_000_000
"""Values of a model's declared observation."""
MAX_MODEL_ACTIONS = 100_000
"""Actions of a model's declared ``Discrete`` action space."""
MAX_MODEL_LAYERS = 16
"""Hidden layers of a model's policy or value network."""
MAX_MODEL_WIDTH = 4096
"""Units of one hidden layer."""
MAX_MODEL_PARAMETERS = 64_000_000
"""Parameters of a model's networks, counted from the declared sizes before any is built."""

# -- the board and its creatures -----------------------------------------------------------

MAX_SIDE = 64
"""Cells along each side of a board (``grid``, ``map`` and the generator's ranges), and
the span of a hex board (its width plus half its height: axial columns shear). The batched
engine's lookup tables cover every offset between two cells of the board, so the memory
they take while built grows with the square of the span: a 64x64 square board peaked at
0.73 GB (32x32: 0.31 GB), a 160x160 one needs about 6 GB. Larger boards are refused when
the scenario loads, before anything is built."""
MAX_COORD = 2 * MAX_SIDE
"""Largest absolute value of a cell coordinate (hex columns can be negative)."""
MAX_MAP_CHARS = MAX_SIDE * (MAX_SIDE + 1) + 4096
"""Characters of a ``map`` string: the largest board's rows with room for indentation."""
MAX_TERRAIN = MAX_SIDE * MAX_SIDE
"""Entries of a ``terrain`` list: one per cell of the largest board."""
MAX_CREATURES = 64
"""Creatures of a battle (the observation's table has at most 64 rows)."""
MAX_TEAMS = 16
"""Teams of a procedural scenario."""
MAX_ATTACKS = 16
"""Attacks of one creature."""
MAX_LIST = 64
"""Entries of the other lists of a creature or generator (feats, spells, hexes, bestiary)."""

# -- numbers ---------------------------------------------------------------------------------

MAX_HP = 100_000
"""Hit points (``hp``, ``max_hp``); ``hp`` may be as low as ``-MAX_HP`` (a dead creature)."""
MAX_BONUS = 1_000
"""Largest absolute value of AC, touch AC and attack, shield and pack fighter bonuses."""
MAX_ABILITY = 100
"""An ability score (``dex``)."""
MAX_LEVEL = 100
"""Base attack bonus, rogue level and improved uncanny dodge level."""
MAX_SPEED = 1_000
"""Speed in feet (a run is four times as far); also keeps it inside a C ``int``."""
MAX_REACH = 100
"""Reach in feet (Colossal creatures have 25; the observation board is padded by it)."""
MAX_RANGE = 10_000
"""Range of a ranged attack in feet."""
MAX_DICE = 100
"""Dice rolled by one expression (``100d6``)."""
MAX_DIE_SIDES = 1_000
"""Sides of one die (``1d1000``); dice have at least one side."""
MAX_ROUNDS = 10_000
"""Rounds of a battle before it is truncated."""
MAX_REWARD = 1_000.0
"""Largest absolute value of a reward weight (weights are finite)."""

# -- text --------------------------------------------------------------------------------------

MAX_NAME = 64
"""Characters of an id, team, attack, template, bestiary or scenario name."""
MAX_TEXT = 4_096
"""Characters of a free text (a scenario's ``description``)."""
MAX_DICE_TEXT = 32
"""Characters of a dice expression."""
MAX_SHOWN = 60
"""Characters of an input value quoted in an error message (longer ones are cut)."""

_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = _REPR.maxlong = MAX_SHOWN
_REPR.maxlevel, _REPR.maxlist, _REPR.maxtuple, _REPR.maxdict = 3, 4, 4, 4


def short_repr(value: object) -> str:
    """``repr(value)`` cut to about :data:`MAX_SHOWN` characters, in time and memory that
    do not depend on the value's size (nested containers are abbreviated, not walked)."""
    try:
        text = _REPR.repr(value)
    except ValueError:  # an int of more digits than Python converts to text
        return f"<a {type(value).__name__} too long to show>"
    return text if len(text) <= MAX_SHOWN + 5 else text[:MAX_SHOWN] + "..."


def read_bounded(path: str | Path, limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; raises ``ValueError`` with
    the reason (no file, not a regular file, too large) without opening a FIFO or a device
    and without reading more than ``limit + 1`` bytes."""
    try:
        info = os.stat(path)
    except OSError as exc:
        raise ValueError(f"cannot read the file: {exc.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        kind = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file"
        raise ValueError(f"cannot read the file: {kind} (a FIFO, device or folder)")
    if info.st_size > limit:
        raise ValueError(f"the file has {info.st_size} bytes, more than the limit of {limit}")
    chunks: list[bytes] = []
    left = limit + 1
    try:
        with open(path, "rb") as handle:
            while left > 0:  # in chunks: read(n) would allocate n bytes at once
                chunk = handle.read(min(left, 1 << 20))
                if not chunk:
                    break
                chunks.append(chunk)
                left -= len(chunk)
    except OSError as exc:
        raise ValueError(f"cannot read the file: {exc.strerror}") from None
    if left <= 0:  # it grew since the stat
        raise ValueError(f"the file has more than the limit of {limit} bytes")
    return b"".join(chunks)


def json_depth(text: str) -> int:
    """The deepest nesting of ``[`` and ``{`` in JSON text (brackets in strings do not
    count), in linear time and without recursion: a check before ``json.loads``."""
    brackets = _NOT_BRACKET.sub("", _JSON_STRING.sub("", text))
    if not brackets:
        return 0
    codes = np.frombuffer(brackets.encode("ascii"), dtype=np.uint8)
    steps = np.where((codes == ord("[")) | (codes == ord("{")), 1, -1)
    return int(np.cumsum(steps).max())


_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
