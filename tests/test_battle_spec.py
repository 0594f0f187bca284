"""Battle specs: round-trips, defaults and clear errors (docs/design.md, battle specs).

Rule ids: EP-SPACE-01 (spaces), EP-REACH-01 (natural reach), SRD-SIZE-01, UA-FACE-01,
UA-HEX-03, IC-05, IC-07 (diagonal option), IC-11, EP-TER-01..04 (map legend).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from facing_env import Battle, ScenarioError
from facing_env.rules import area_counts, area_of, step_cost

RICH: dict[str, Any] = {
    "ruleset": "ua35",
    "grid": {"kind": "square", "width": 8, "height": 6},
    "diagonal": "uniform",
    "map": """
        ........
        ..#.....
        ..o.~~..
        .....%..
        ........
        ........
    """,
    "creatures": [
        {
            "id": "fighter",
            "team": "red",
            "size": "Medium",
            "pos": [0, 0],
            "facing": "SE",
            "hp": 22,
            "max_hp": 30,
            "ac": 17,
            "speed": 20,
            "dex": 13,
            "base_attack_bonus": 5,
            "armor": "heavy",
            "feats": ["Combat Reflexes", "Cleave"],
            "shield": {"side": "left", "bonus": 2},
            "spells": ["shield"],
            "attacks": [
                {"name": "longsword", "bonus": 5, "damage": "1d8+3", "threat_range": 19},
                {"name": "bow", "bonus": 3, "damage": "1d8", "kind": "ranged", "range": 110},
            ],
        },
        {
            "id": "rogue",
            "team": "red",
            "size": "Small",
            "pos": [6, 0],
            "facing": "W",
            "sneak_attack": "2d6",
            "rogue_level": 3,
            "improved_uncanny_dodge": 2,
            "uncanny_dodge": True,
            "flat_footed": True,
        },
        {
            "id": "ogre",
            "team": "blue",
            "size": "Large",
            "pos": [5, 4],
            "facing": "NW",
            "reach": 10,
            "immune_to_sneak_attack": True,
            "all_around_vision": True,
            "attacks": [{"name": "club", "damage": "2d8+7", "zones": ["front", "rear"]}],
            "improved_chieftain": True,
            "pack_fighter_bonus": 2,
            "threatens": False,
        },
        {"id": "ooze", "team": "blue", "size": "Huge", "pos": [0, 3], "faceless": True},
        {"id": "corpse", "size": "Medium", "pos": [1, 3], "hp": 0, "max_hp": 8},
    ],
}

HEX: dict[str, Any] = {
    "ruleset": "side_rear",
    "grid": {"kind": "hex", "width": 14, "height": 12},
    "terrain": [{"pos": [2, 2], "kind": "difficult"}, {"pos": [7, 1], "kind": "pillar"}],
    "creatures": [
        {"id": "h", "size": "Medium", "pos": [1, 1], "facing": "SW"},
        {
            "id": "up",
            "size": "Large",
            "pos": [4, 4],
            "hexes": [[4, 4], [5, 4], [5, 3]],
            "front_side_hexes": [[4, 4], [5, 4]],
        },
        {
            "id": "down",
            "size": "Large",
            "pos": [2, 7],
            "hexes": [[2, 7], [3, 7], [2, 8]],
            "facing": "N",
        },
        {"id": "flower", "size": "Huge", "pos": [8, 6], "facing": "NW"},
    ],
}

MINIMAL: dict[str, Any] = {"creatures": [{"id": "x", "size": "Medium", "pos": [0, 0]}]}


@pytest.mark.parametrize("spec", [RICH, HEX, MINIMAL], ids=["rich", "hex", "minimal"])
def test_round_trip(spec):
    """Battle specs: ``Battle.from_spec(b.to_spec())`` round-trips, and the copy answers
    rule queries the same (UA-FACE-02/03, SR-06, EP-TER-01)."""
    b = Battle.from_spec(copy.deepcopy(spec))
    out = b.to_spec()
    again = Battle.from_spec(copy.deepcopy(out))
    assert again.to_spec() == out
    for c in out["creatures"]:
        if c["hp"] > 0:
            assert area_counts(again, c["id"]) == area_counts(b, c["id"])
            dirs = (
                ("E", "NE", "NW", "W", "SW", "SE")
                if out["grid"]["kind"] == "hex"
                else ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
            )
            assert [step_cost(again, c["id"], d) for d in dirs] == [
                step_cost(b, c["id"], d) for d in dirs
            ]


def test_round_trip_keeps_fields():
    """Battle specs: every given field survives to_spec (map written as a terrain list)."""
    out = Battle.from_spec(copy.deepcopy(RICH)).to_spec()
    assert out["ruleset"] == "ua35"
    assert out["diagonal"] == "uniform"
    assert out["grid"] == {"kind": "square", "width": 8, "height": 6}
    assert sorted((tuple(t["pos"]), t["kind"]) for t in out["terrain"]) == [
        ((2, 1), "blocked"),
        ((2, 2), "pillar"),
        ((4, 2), "difficult"),
        ((5, 2), "difficult"),
        ((5, 3), "impeded"),
    ]
    by_id = {c["id"]: c for c in out["creatures"]}
    f = by_id["fighter"]
    assert (f["team"], f["size"], f["pos"], f["facing"]) == ("red", "Medium", [0, 0], "SE")
    assert (f["hp"], f["max_hp"], f["ac"], f["speed"], f["dex"]) == (22, 30, 17, 20, 13)
    assert (f["base_attack_bonus"], f["armor"]) == (5, "heavy")
    assert f["feats"] == ["Cleave", "Combat Reflexes"]
    assert f["shield"] == {"side": "left", "bonus": 2}
    assert f["spells"] == ["shield"]
    assert [(a["name"], a["bonus"], a["damage"], a["kind"], a["reach"]) for a in f["attacks"]] == [
        ("longsword", 5, "1d8+3", "melee", 5),
        ("bow", 3, "1d8", "ranged", 5),
    ]
    assert (f["attacks"][0]["threat_range"], f["attacks"][1]["range"]) == (19, 110)
    r = by_id["rogue"]
    assert (r["sneak_attack"], r["rogue_level"], r["improved_uncanny_dodge"]) == ("2d6", 3, 2)
    assert (r["uncanny_dodge"], r["flat_footed"]) == (True, True)
    o = by_id["ogre"]
    assert (o["reach"], o["attacks"][0]["zones"], o["attacks"][0]["reach"]) == (
        10,
        ["front", "rear"],
        10,
    )
    assert (o["immune_to_sneak_attack"], o["all_around_vision"], o["threatens"]) == (
        True,
        True,
        False,
    )
    assert (o["improved_chieftain"], o["pack_fighter_bonus"]) == (True, 2)
    assert by_id["ooze"]["faceless"] is True
    assert (by_id["corpse"]["hp"], by_id["corpse"]["max_hp"]) == (0, 8)


def test_round_trip_hex_shapes():
    """SR-06, IC-11: the hex footprints and the facing given by front-side hexes survive."""
    out = Battle.from_spec(copy.deepcopy(HEX)).to_spec()
    by_id = {c["id"]: c for c in out["creatures"]}
    assert by_id["up"]["facing"] == "S"  # two front-side hexes: the base, facing S
    assert "hexes" not in by_id["up"]  # the default (point-up) triangle
    assert sorted(map(tuple, by_id["down"]["hexes"])) == [(2, 7), (2, 8), (3, 7)]
    assert by_id["down"]["facing"] == "N"
    b = Battle.from_spec(out)
    assert area_counts(b, "up") == {"front": 3, "side": 4, "rear": 2}
    assert area_counts(b, "down") == {"front": 3, "side": 4, "rear": 2}  # base forward


# -- defaults ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("size", "reach"),
    [
        ("Fine", 0),
        ("Diminutive", 0),
        ("Tiny", 0),
        ("Small", 5),
        ("Medium", 5),
        ("Large", 10),
        ("Huge", 15),
        ("Gargantuan", 20),
        ("Colossal", 25),
    ],
)
def test_defaults(size, reach):
    """Battle-spec defaults: team = the id, facing N, hp 10, ac 10, speed 30, one melee
    attack at +0 for 1d6 with the size's natural reach (EP-REACH-01: the side of the space;
    Tiny and smaller have none)."""
    b = Battle.from_spec({"creatures": [{"id": "solo", "size": size, "pos": [2, 2]}]})
    c = b.to_spec()["creatures"][0]
    assert (c["team"], c["facing"], c["hp"], c["ac"], c["speed"]) == ("solo", "N", 10, 10, 30)
    assert c["reach"] == reach
    assert len(c["attacks"]) == 1
    a = c["attacks"][0]
    assert (a["kind"], a["bonus"], a["damage"], a["reach"]) == ("melee", 0, "1d6", reach)


def test_default_teams_make_everyone_a_foe():
    """Battle specs (team defaults to the id), EP-WALK-01: two creatures without teams are
    enemies, so neither may walk through the other."""
    b = Battle.from_spec(
        {
            "creatures": [
                {"id": "a", "size": "Medium", "pos": [2, 2]},
                {"id": "b", "size": "Medium", "pos": [2, 1]},
            ]
        }
    )
    assert step_cost(b, "a", "N") is None


def test_default_board_and_rules():
    """Battle specs: ruleset ua35 on a 12x12 square grid with alternating diagonals (IC-07)."""
    out = Battle.from_spec(MINIMAL).to_spec()
    assert out["ruleset"] == "ua35"
    assert out["grid"] == {"kind": "square", "width": 12, "height": 12}
    assert out["diagonal"] == "alternating"
    assert Battle.from_spec({"ruleset": "standard"}).to_spec()["diagonal"] == "uniform"


def test_default_facing_hex():
    """UA-HEX-03, IC-05: the default hex facing is E (a triangle: its first corner, ENE)."""
    b = Battle.from_spec(
        {
            "grid": {"kind": "hex"},
            "creatures": [
                {"id": "a", "size": "Medium", "pos": [2, 2]},
                {"id": "t", "size": "Large", "pos": [5, 5]},
            ],
        }
    )
    facings = {c["id"]: c["facing"] for c in b.to_spec()["creatures"]}
    assert facings == {"a": "E", "t": "ENE"}
    assert area_of(b, "a", (3, 2)) == "front"


def test_map_sets_board_size():
    """Battle specs: without a grid, the map gives the board size."""
    out = Battle.from_spec({"map": "....\n....\n....", "creatures": []}).to_spec()
    assert (out["grid"]["width"], out["grid"]["height"]) == (4, 3)


def test_facing_by_index_and_case():
    """UA-FACE-01: a facing may be given by name in any case or by its index (N=0 .. NW=7)."""
    b = Battle.from_spec(
        {
            "creatures": [
                {"id": "a", "size": "Medium", "pos": [2, 2], "facing": "se"},
                {"id": "b", "size": "Medium", "pos": [5, 5], "facing": 6},
            ]
        }
    )
    assert [c["facing"] for c in b.to_spec()["creatures"]] == ["SE", "W"]


# -- errors --------------------------------------------------------------------------------------


def _c(**fields: Any) -> dict[str, Any]:
    return {"id": "a", "size": "Medium", "pos": [1, 1], **fields}


BAD = [
    ("unknown field", {"creatures": [_c(colour="red")]}, "a", "colour", "unknown field"),
    ("bad size", {"creatures": [_c(size="Mediun")]}, "a", "size", "unknown size 'Mediun'"),
    (
        "overlap",
        {"creatures": [_c(), {"id": "b", "size": "Large", "pos": [0, 0]}]},
        "b",
        "pos",
        "overlaps creature 'a'",
    ),
    ("out of map", {"creatures": [_c(pos=[12, 3])]}, "a", "pos", "off the 12x12 board"),
    (
        "large out of map",
        {"creatures": [_c(size="Large", pos=[11, 0])]},
        "a",
        "pos",
        "space [12, 0] is off the 12x12 board",
    ),
    ("negative pos", {"creatures": [_c(pos=[-1, 0])]}, "a", "pos", "off the 12x12 board"),
    ("on a wall", {"map": "...\n.#.\n...", "creatures": [_c()]}, "a", "pos", "blocked terrain"),
    ("on a pillar", {"map": "...\n.o.\n...", "creatures": [_c()]}, "a", "pos", "blocked"),
    (
        "bad dice",
        {"creatures": [_c(attacks=[{"damage": "1d"}])]},
        "a",
        "attacks.0.damage",
        "bad dice expression '1d'",
    ),
    (
        "bad sneak dice",
        {"creatures": [_c(sneak_attack="two d6")]},
        "a",
        "sneak_attack",
        "bad dice expression",
    ),
    ("bad facing", {"creatures": [_c(facing="Q")]}, "a", "facing", "unknown facing 'Q'"),
    ("facing index", {"creatures": [_c(facing=8)]}, "a", "facing", "unknown facing 8"),
    (
        "hex facing",
        {"grid": {"kind": "hex"}, "creatures": [_c(facing="N")]},
        "a",
        "facing",
        "facing N is not allowed",
    ),
    ("duplicate id", {"creatures": [_c(), _c(pos=[3, 3])]}, "a", "id", "duplicate id"),
    ("missing pos", {"creatures": [{"id": "a", "size": "Medium"}]}, "a", "pos", "missing"),
    ("unknown feat", {"creatures": [_c(feats=["Dodge"])]}, "a", "feats", "unknown feat 'Dodge'"),
    (
        "unknown attack field",
        {"creatures": [_c(attacks=[{"hit": 3}])]},
        "a",
        "attacks.0.hit",
        "unknown field",
    ),
]


@pytest.mark.parametrize(
    ("spec", "creature", "field", "words"), [b[1:] for b in BAD], ids=[b[0] for b in BAD]
)
def test_bad_creature_input(spec, creature, field, words):
    """Battle specs: a ScenarioError naming the creature and the field (EP-SPACE-01 spaces on
    the board, no overlaps; EP-TER-03 no creature on blocked terrain; UA-FACE-01 facings)."""
    with pytest.raises(ScenarioError) as err:
        Battle.from_spec(spec)
    e = err.value
    assert (e.creature, e.field) == (creature, field)
    assert f"creature '{creature}'" in str(e)
    assert f"field '{field}'" in str(e)
    assert words in str(e)


BAD_BOARD = [
    (
        "bad map character",
        {"map": "...\n.X.\n...", "creatures": [_c()]},
        "map",
        "unknown map character 'X' at row 1, column 1",
    ),
    (
        "map/grid size mismatch",
        {"grid": {"width": 4, "height": 3}, "map": "...\n...\n...", "creatures": [_c()]},
        "map",
        "map is 3x3 but the grid is 4x3",
    ),
    (
        "ragged map",
        {"map": "...\n..\n...", "grid": {"width": 3, "height": 3}},
        "map",
        "map rows are ragged",
    ),
    ("unknown top-level field", {"rules": "ua35"}, "rules", "unknown field"),
    ("bad ruleset", {"ruleset": "pathfinder"}, "ruleset", "pathfinder"),
    (
        "terrain off the board",
        {"terrain": [{"pos": [20, 1], "kind": "blocked"}]},
        "terrain.0.pos",
        "off the 12x12 board",
    ),
    ("bad terrain kind", {"terrain": [{"pos": [1, 1], "kind": "lava"}]}, "terrain.0.kind", "lava"),
]


@pytest.mark.parametrize(
    ("spec", "field", "words"), [b[1:] for b in BAD_BOARD], ids=[b[0] for b in BAD_BOARD]
)
def test_bad_board_input(spec, field, words):
    """Battle specs (map legend of EP-TER-01..04): board errors name the field."""
    with pytest.raises(ScenarioError) as err:
        Battle.from_spec(spec)
    assert err.value.field == field
    assert err.value.creature is None
    assert f"field '{field}'" in str(err.value)
    assert words in str(err.value)


def test_error_names_the_file():
    """Battle specs: a ScenarioError names the file when one is given."""
    with pytest.raises(ScenarioError) as err:
        Battle.from_spec({"creatures": [_c(size="Mediun")]}, file="configs/duel.yaml")
    assert str(err.value).startswith("configs/duel.yaml: creature 'a': field 'size': ")


def test_dead_creatures_may_share_a_square():
    """Battle specs: only living creatures occupy space (a corpse under a living creature)."""
    b = Battle.from_spec({"creatures": [_c(hp=0), {"id": "b", "size": "Medium", "pos": [1, 1]}]})
    assert [c["id"] for c in b.to_spec()["creatures"]] == ["a", "b"]
