"""Structure rules of the step path (the speed issue): state is owned by one object.

Caches live in attributes their owner declares (``Battle.legal_memo``, the codec's memo,
``Board.kernel_context``, ``ObservationView.memo``); no module writes into another
object's ``__dict__``.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted([*ROOT.joinpath("facing_env").rglob("*.py"), *ROOT.joinpath("agents").rglob("*.py")])


def test_sources_are_found():
    names = {p.name for p in SOURCES}
    assert {"engine.py", "actions.py", "_obs_kernel.py", "pathing.py"} <= names


def test_no_module_reaches_into_another_objects_dict():
    """Every ``__dict__`` in the package is an object's own (``self.__dict__``)."""
    offenders = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in SOURCES
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if re.search(r"(?<!self)\.__dict__|\b(?<!\.)__dict__\[", line)
    ]
    assert offenders == []
