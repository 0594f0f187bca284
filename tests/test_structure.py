"""Structure rules of the step path (the speed issue): state is owned by one object.

Caches live in attributes their owner declares (``Battle.legal_memo``, the codec's memo,
``Board.kernel_context``, ``ObservationView.memo``); no module writes into another
object's ``__dict__``.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted(
    [*ROOT.joinpath("facing_env").rglob("*.py"), *ROOT.joinpath("agents").rglob("*.py")]
)


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


def test_observation_parts_are_indexed_by_name():
    """The named indices of the observation (``observation.Column``, ``Scalar``,
    ``Tactic``, ``TacticScalar``) are the layout's names in order: ``FEATURES[i]`` is
    the lower-case name of index ``i``, and a gap or a reordering is refused."""
    import pytest

    from facing_env import observation as o

    for namespace, names in (
        (o.Column, o.FEATURES),
        (o.Scalar, o.SCALARS),
        (o.Tactic, o.TACTICS),
        (o.TacticScalar, o.TACTIC_SCALARS),
    ):
        assert [getattr(namespace, n.upper()) for n in names] == list(range(len(names)))
    assert (o.Column.DISTANCE, o.Column.SNEAK_ATTACK_DICE, len(o.FEATURES)) == (21, 32, 33)
    assert (o.Scalar.ROUND_FRACTION, o.Tactic.CAN_CHARGE) == (8, 3)

    class Gap:
        A = 0
        B = 2

    with pytest.raises(ValueError, match=r"Gap: indices must be 0\.\.n-1 in order"):
        o._names(Gap)


def test_the_table_read_by_name_on_the_duel_start():
    """The duel's opening observation, read by name: the foe 6 squares south of the red
    fighter (window 11: dy 6/11, distance 6/11), in its front, both unhurt."""
    import pytest

    import facing_env
    from facing_env import observation as o

    env = facing_env.raw_env(scenario="duel")
    env.reset(seed=0)
    obs = env.observe("red_0")["observation"]
    _, table, scalars = env.layout.split(obs)
    foe = table[1]
    assert foe[o.Column.ENEMY] == 1.0 and foe[o.Column.PRESENT] == 1.0
    assert foe[o.Column.DY] * 11 == pytest.approx(6.0)
    assert foe[o.Column.DISTANCE] * 11 == pytest.approx(6.0)
    assert foe[o.Column.IN_MY_FRONT] == 1.0 and foe[o.Column.ME_IN_ITS_FRONT] == 1.0
    assert foe[o.Column.HP_FRACTION] == 1.0
    assert scalars[o.Scalar.UA35_RULES] == 1.0 and scalars[o.Scalar.HEX_GRID] == 0.0
