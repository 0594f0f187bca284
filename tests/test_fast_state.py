"""The arrays' creature table (``fast.state``): one table drives the State columns,
``load``, ``store`` and the reference's ``state_key``."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from facing_env.fast import state as fs
from facing_env.rules import engine
from facing_env.rules.battle import CHANGING, Battle
from facing_env.rules.dice import Dice
from facing_env.scenario import load_scenario

RED = "red_fighter"


def _battle() -> Battle:
    """The duel, started (initiative rolled, a turn begun)."""
    battle = load_scenario("duel").build(np.random.default_rng(0))
    engine.start(battle, Dice(0))
    return battle


def test_every_creature_column_is_in_the_table_once() -> None:
    names = [c.name for c in (*fs.CREATURE_COLUMNS, *fs.ATTACK_COLUMNS, *fs._VIEW_COLUMNS)]
    assert len(names) == len(set(names))
    assert sorted(names) == sorted(fs.CREATURE_FIELDS)


def test_the_changing_columns_are_the_changing_fields() -> None:
    assert {c.changes for c in fs.CREATURE_COLUMNS if c.changes} == set(CHANGING)
    assert set(CHANGING) <= {f.name for f in dataclasses.fields(_battle().creatures[RED])}


def test_allocate_takes_shapes_and_types_from_the_table() -> None:
    s = fs.allocate(2, 5, 6, 3, 4, 7)
    assert s.sneak_attack.shape == (2, 3, 3) and s.sneak_attack.dtype == fs._INT
    assert s.attack_damage.shape == (2, 3, 4, 3)
    assert s.hp.dtype.name == "float64" and s.readied.dtype.name == "bool"
    assert s.attack_touch.shape == (2, 3, 4) and s.attack_touch.dtype.name == "bool"
    assert s.remaining.shape == (2, 7, 2)


@pytest.mark.parametrize(
    ("column", "value", "field", "expected"),
    [
        ("x", 2, "pos", None),
        ("facing", 5, "facing", 5),
        ("hp", 7.0, "hp", 7),
        ("hp", 2.5, "hp", 2.5),
        ("flat_footed", True, "flat_footed", True),
        ("readied", True, "readied", True),
        ("charging", True, "charging", True),
    ],
)
def test_store_writes_each_changing_column_back(column, value, field, expected) -> None:
    battle = _battle()
    s = fs.allocate_for([battle])
    fs.load(s, 0, battle)
    k = list(battle.creatures).index(RED)
    getattr(s, column)[0, k] = value
    before = engine.state_key(battle)
    fs.store(s, 0, battle)
    got = getattr(battle.creatures[RED], field)
    if field == "pos":
        assert got == (2, int(s.y[0, k]))
    else:
        assert got == expected and type(got) is type(expected)
    assert engine.state_key(battle) != before  # the fingerprint sees every changing field
