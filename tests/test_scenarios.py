"""Scenario files: the built-ins load, malformed files fail with a ``ScenarioError`` that
names the file (and the creature and field where there is one) and never with anything
else, the procedural generator is deterministic per seed, and the action codec
round-trips on random states.
"""

from __future__ import annotations

import copy
import re
from typing import Any

import numpy as np
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import facing_env
from facing_env import Battle, ScenarioError
from facing_env.actions import (
    ATTACK_BASE,
    FIVE_FOOT_BASE,
    MOVE_BASE,
    READY_INDEX,
    RUN_INDEX,
    STEP_BASE,
    TURN_BASE,
    action_names,
)
from facing_env.rules import engine, geometry
from facing_env.rules.codec import ActionCodec
from facing_env.scenario import (
    CONFIG_DIR,
    GeneratorSpec,
    bestiary,
    generate_spec,
    load_scenario,
    scenario_from_dict,
)
from tests.env_play import SCENARIOS, walk

PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
BASE = """\
name: Tiny
creatures:
  - {id: a, size: Medium, pos: [1, 1], team: red}
  - {id: b, size: Medium, pos: [3, 3], team: blue}
"""


# -- built-in scenarios -------------------------------------------------------------------


def test_there_are_built_in_scenarios():
    assert "duel" in SCENARIOS and "procedural" in SCENARIOS
    assert len(SCENARIOS) == len(list(CONFIG_DIR.glob("*.yaml"))) - 1  # all but the bestiary


@pytest.mark.parametrize("name", SCENARIOS)
def test_built_in_scenario_loads_and_builds(name):
    scenario = load_scenario(name)
    assert scenario.name and scenario.source.endswith(f"{name}.yaml")
    assert load_scenario(CONFIG_DIR / f"{name}.yaml").name == scenario.name
    first = scenario.build(np.random.default_rng(0))
    second = scenario.build(np.random.default_rng(0))
    assert isinstance(first, Battle)
    assert len({c.team for c in first.creatures.values()}) >= 2
    assert all(c.hp > 0 for c in first.creatures.values())
    assert len(first.creatures) <= scenario.max_creatures()
    assert first.to_spec() == second.to_spec()
    # each episode gets its own battle: damage in one does not leak into the next
    next(iter(first.creatures.values())).hp -= 5
    assert first.to_spec() != scenario.build(np.random.default_rng(0)).to_spec()
    env = facing_env.raw_env(scenario=name)
    env.reset(seed=0)
    assert env.agents and not any(env.terminations.values())


def test_unknown_built_in_name_lists_the_built_ins():
    with pytest.raises(ScenarioError, match=r"unknown scenario 'dule'.*duel"):
        load_scenario("dule")


def test_missing_file_names_the_file(tmp_path):
    path = tmp_path / "nowhere.yaml"
    with pytest.raises(ScenarioError, match="cannot read") as info:
        load_scenario(path)
    assert str(path) in str(info.value)


# -- malformed files ----------------------------------------------------------------------


def _with(creature_a: str = "", top: str = "", **replace: str) -> str:
    text = BASE.replace("team: red}", f"team: red{creature_a}}}") + top
    for old, new in replace.items():
        text = text.replace(old, new)
    return text


MALFORMED: dict[str, tuple[str, str | None, str | None, str]] = {
    # name: (file text, creature, field, a regex the message must match)
    "yaml_syntax": ("name: [unclosed\ncreatures: {", None, None, "not valid YAML"),
    "yaml_tabs": ("name: x\n\tcreatures: []\n", None, None, "not valid YAML"),
    "unknown_top_level_key": (_with(top="colour: red\n"), None, "colour", "unknown field"),
    "unknown_creature_field": (_with(", wings: 2"), "a", "wings", "unknown field"),
    "hp_not_a_number": (_with(", hp: lots"), "a", "hp", "integer.*lots"),
    "pos_not_a_pair": (_with(**{"[1, 1]": "here"}), "a", "pos", "tuple"),
    "pos_three_numbers": (_with(**{"[1, 1]": "[1, 1, 1]"}), "a", "pos", "at most 2"),
    "attacks_not_a_list": (_with(", attacks: sword"), "a", "attacks", "tuple"),
    "bad_damage_dice": (
        _with(", attacks: [{damage: lots}]"),
        "a",
        "attacks.0.damage",
        "bad dice expression",
    ),
    "no_attacks": (_with(", attacks: []"), "a", "attacks", "at least 1"),
    "max_rounds_not_a_number": (_with(top="max_rounds: soon\n"), None, "max_rounds", "integer"),
    "size_is_a_boolean": (
        _with(**{"size: Medium, pos: [1, 1]": "size: true, pos: [1, 1]"}),
        "a",
        "size",
        "unknown size",
    ),
    "overlapping_creatures": (_with(**{"[3, 3]": "[1, 1]"}), "b", "pos", "overlaps creature 'a'"),
    "large_overlapping": (
        _with(**{"id: b, size: Medium": "id: b, size: Large", "[3, 3]": "[0, 0]"}),
        "b",
        "pos",
        "overlaps creature 'a'",
    ),
    "off_board": (_with(**{"[3, 3]": "[30, 3]"}), "b", "pos", r"off the 12x12 board"),
    "negative_position": (_with(**{"[3, 3]": "[-1, 3]"}), "b", "pos", "off the"),
    "large_hanging_off_the_edge": (
        _with(**{"id: b, size: Medium": "id: b, size: Large", "[3, 3]": "[11, 5]"}),
        "b",
        "pos",
        "off the",
    ),
    "on_a_wall": (_with(top="terrain: [{pos: [1, 1], kind: blocked}]\n"), "a", "pos", "blocked"),
    "unknown_template": (
        _with(**{"size: Medium, pos: [1, 1]": "template: dragonn, pos: [1, 1]"}),
        "a",
        "template",
        "unknown template 'dragonn'.*fighter",
    ),
    "template_not_a_name": (
        _with(**{"size: Medium, pos: [1, 1]": "template: [1], pos: [1, 1]"}),
        "a",
        "template",
        "unknown template",
    ),
    "unknown_size": (
        _with(**{"size: Medium, pos: [1, 1]": "size: Mediun, pos: [1, 1]"}),
        "a",
        "size",
        "unknown size 'Mediun'.*Medium",
    ),
    "unknown_facing": (_with(", facing: UP"), "a", "facing", "unknown facing 'UP'"),
    "facing_not_allowed": (
        _with(
            ", facing: NE",
            top="ruleset: side_rear\n",
            **{"size: Medium, pos: [1": "size: Large, pos: [1"},
        ),
        "a",
        "facing",
        "not allowed",
    ),
    "unknown_ruleset": (_with(top="ruleset: ua36\n"), None, "ruleset", "ua35.*side_rear"),
    "unknown_grid_kind": (_with(top="grid: {kind: tri}\n"), None, "grid.kind", "square.*hex"),
    "unknown_terrain": (
        _with(top="terrain: [{pos: [5, 5], kind: lava}]\n"),
        None,
        "terrain.0.kind",
        "lava",
    ),
    "terrain_off_board": (
        _with(top="terrain: [{pos: [50, 5], kind: pillar}]\n"),
        None,
        "terrain.0.pos",
        "off the",
    ),
    "unknown_map_character": (
        _with(top="map: |\n  ..x.\n  ....\n  ....\n  ....\n"),
        None,
        "map",
        "'x'",
    ),
    "unknown_feat": (_with(", feats: [Flying]"), "a", "feats", "unknown feat 'Flying'"),
    "unknown_dice_mode": (_with(top="dice: loaded\n"), None, "dice", "roll.*expected.*deck"),
    "duplicate_id": (_with(**{"id: b": "id: a"}), "a", "id", "duplicate"),
    "one_team": (_with(**{"team: blue": "team: red"}), None, "creatures", "two teams"),
    "starts_dead": (_with(", hp: 0"), "a", "hp", "alive"),
    "table_too_small": (
        BASE + "  - {id: c, size: Medium, pos: [5, 5], team: blue}\n"
        "observation: {max_creatures: 2}\n",
        None,
        "observation.max_creatures",
        "2 table rows for up to 3 creatures",
    ),
    "not_a_mapping": ("- a\n- b\n", None, None, "mapping at the top level"),
    "empty_file": ("", None, None, "mapping at the top level"),
    "creature_not_a_mapping": ("name: x\ncreatures: [5, 6]\n", "#0", None, "dictionary"),
    "python_object_tag": (
        BASE + 'evil: !!python/object/apply:os.system ["echo hi"]\n',
        None,
        None,
        "not valid YAML.*python/object",
    ),
    "generator_team_size_reversed": (
        "name: G\ngenerator: {team_size: [3, 1]}\n",
        None,
        "generator.team_size",
        r"1 <= low <= high, got \[3, 1\]",
    ),
    "generator_one_team": (
        "name: G\ngenerator: {teams: [red]}\n",
        None,
        "generator.teams",
        "at least 2",
    ),
    "generator_same_team_twice": (
        "name: G\ngenerator: {teams: [red, red]}\n",
        None,
        "generator.teams",
        "must differ",
    ),
    "generator_nobody": (
        "name: G\ngenerator: {team_size: [0, 0]}\n",
        None,
        "generator.team_size",
        "1 <= low",
    ),
    "generator_empty_bestiary": (
        "name: G\ngenerator: {bestiary: []}\n",
        None,
        "generator.bestiary",
        "at least 1",
    ),
    "generator_unknown_entry": (
        "name: G\ngenerator: {bestiary: [nope]}\n",
        None,
        "generator.bestiary",
        "unknown bestiary entry 'nope'",
    ),
    "generator_board_too_small": (
        "name: G\ngenerator: {width: [1, 1], height: [1, 1]}\n",
        None,
        "generator.width",
        "4 <= low <= high",
    ),
    "generator_dragon_on_a_small_board": (
        "name: G\ngenerator: {bestiary: [young_dragon], height: [6, 9]}\n",
        None,
        "generator.bestiary",
        "'young_dragon' \\(Huge, 3x3\\) does not fit",
    ),
    "generator_dragon_on_hexes": (
        "name: G\ngenerator: {bestiary: [young_dragon], grid: hex}\n",
        None,
        "generator.bestiary",
        "up to Large",
    ),
    "generator_table_too_small": (
        "name: G\nobservation: {max_creatures: 2}\ngenerator: {team_size: [1, 3]}\n",
        None,
        "observation.max_creatures",
        "2 table rows for up to 6 creatures",
    ),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_file_raises_a_scenario_error_naming_file_creature_and_field(case, tmp_path):
    text, creature, field, pattern = MALFORMED[case]
    path = tmp_path / f"{case}.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    err = info.value
    message = str(err)
    assert message.startswith(f"{path}: "), message
    assert err.file == str(path)
    if creature is not None:
        assert err.creature == creature and f"creature {creature!r}" in message, message
    if field is not None:
        assert err.field == field and f"field {field!r}" in message, message
    assert re.search(pattern, message, re.DOTALL), message


def test_python_tags_are_never_executed(tmp_path):
    marker = tmp_path / "executed"
    path = tmp_path / "evil.yaml"
    path.write_text(f'!!python/object/apply:os.system ["touch {marker}"]\n', encoding="utf-8")
    with pytest.raises(ScenarioError, match="not valid YAML"):
        load_scenario(path)
    path.write_text(BASE + f'x: !!python/object/apply:os.system ["touch {marker}"]\n')
    with pytest.raises(ScenarioError):
        load_scenario(path)
    assert not marker.exists()


def test_a_file_that_is_not_utf8_text(tmp_path):
    path = tmp_path / "latin1.yaml"
    path.write_bytes(BASE.replace("Tiny", "Caf\xe9").encode("latin-1"))
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    assert str(path) in str(info.value) and "UTF-8" in str(info.value)


# -- random mutations of valid scenario dicts ---------------------------------------------

VALID_DICTS = [yaml.safe_load((CONFIG_DIR / f"{n}.yaml").read_text()) for n in SCENARIOS]
VALID_DICTS.append(yaml.safe_load(BASE))

JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 40),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=6),
    st.sampled_from(
        [
            "Medium",
            "Large",
            "Huge",
            "Colossal",
            "Fine",
            "N",
            "SE",
            "hex",
            "square",
            "ua35",
            "side_rear",
            "standard",
            "fighter",
            "ogre",
            "young_dragon",
            "1d6+2",
            "front",
            "rear",
            "expected",
            "roll",
            "Cleave",
            "blocked",
            "pillar",
            "red",
            "blue",
            "a",
            "b",
        ]
    ),
    st.lists(st.integers(-2, 14), max_size=3),
    st.dictionaries(
        st.sampled_from(["id", "pos", "size", "kind", "x"]), st.integers(0, 9), max_size=2
    ),
)
KEYS = st.sampled_from(
    [
        "name",
        "creatures",
        "map",
        "grid",
        "ruleset",
        "terrain",
        "generator",
        "observation",
        "rewards",
        "max_rounds",
        "dice",
        "hp",
        "pos",
        "size",
        "facing",
        "team",
        "id",
        "template",
        "attacks",
        "reach",
        "speed",
        "max_creatures",
        "window",
        "team_size",
        "width",
        "height",
        "bestiary",
        "teams",
        "zones",
        "damage",
        "feats",
        "hexes",
        "unknown_key",
    ]
)


def _children(node: Any) -> list[Any]:
    if isinstance(node, dict):
        return list(node)
    if isinstance(node, list):
        return list(range(len(node)))
    return []


def _mutate(data: st.DataObject, root: dict) -> None:
    """One random edit somewhere in the tree: replace, delete, add or duplicate."""
    parent: Any = root
    key = data.draw(st.sampled_from(_children(root)))
    busy = [k for k in ("creatures", "generator") if k in root]
    if busy and data.draw(st.booleans()):  # half the edits go to the creatures / generator
        key = data.draw(st.sampled_from(busy))
    while _children(parent[key]) and data.draw(st.integers(0, 3)) > 0:  # mostly deep
        parent, key = parent[key], data.draw(st.sampled_from(_children(parent[key])))
    op = data.draw(st.sampled_from(["replace", "replace", "delete", "add", "duplicate"]))
    if op == "replace":
        parent[key] = data.draw(JUNK)
    elif op == "delete":
        del parent[key]
    elif op == "add" and isinstance(parent[key], dict):
        parent[key][data.draw(KEYS)] = data.draw(JUNK)
    elif op == "add" and isinstance(parent[key], list):
        parent[key].append(data.draw(JUNK))
    elif isinstance(parent, list):
        parent.append(copy.deepcopy(parent[key]))
    else:
        parent[data.draw(KEYS)] = copy.deepcopy(parent[key])


@PROPERTY
@given(data=st.data(), base=st.sampled_from(range(len(VALID_DICTS))))
def test_mutated_scenarios_load_and_play_or_raise_scenario_error(data, base):
    scenario = copy.deepcopy(VALID_DICTS[base])
    for _ in range(data.draw(st.integers(1, 4))):
        if scenario:
            _mutate(data, scenario)
    try:
        loaded = scenario_from_dict(scenario, source="mutated.yaml")
    except ScenarioError as exc:
        assert str(exc).startswith("mutated.yaml: ")
        return
    # whatever loads must also play: reset and a few random masked turns
    env = facing_env.raw_env(scenario=loaded)
    env.reset(seed=data.draw(st.integers(0, 2**16)))
    assert env.agents and not any(env.terminations.values())
    rng = np.random.default_rng(0)
    for _agent in env.agent_iter(40):
        obs, _, termination, truncation, _ = env.last()
        assert env.observation_space(env.agent_selection).contains(obs)
        env.step(
            None
            if termination or truncation
            else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        )


def test_mutations_round_trip_through_yaml_files(tmp_path):
    """The same checks through real files: a dumped mutation loads or raises ScenarioError."""
    for i, base in enumerate(VALID_DICTS):
        for key in list(base):
            broken = {k: v for k, v in base.items() if k != key}
            path = tmp_path / f"{i}_{key}.yaml"
            path.write_text(yaml.safe_dump(broken), encoding="utf-8")
            try:
                load_scenario(path)
            except ScenarioError as exc:
                assert str(exc).startswith(f"{path}: ")


# -- the procedural generator -------------------------------------------------------------


def _generator() -> GeneratorSpec:
    gen = load_scenario("procedural").generator
    assert gen is not None
    return gen


def test_generator_is_deterministic_per_seed():
    gen = _generator()
    for seed in range(10):
        assert generate_spec(gen, np.random.default_rng(seed)) == generate_spec(
            gen, np.random.default_rng(seed)
        )
    one = facing_env.raw_env(scenario="procedural")
    two = facing_env.raw_env(scenario="procedural")
    one.reset(seed=123)
    two.reset(seed=123)
    assert one.battle.to_spec() == two.battle.to_spec()
    assert one.agents == two.agents


def test_generator_gives_different_boards_for_different_seeds():
    gen = _generator()
    specs = [generate_spec(gen, np.random.default_rng(seed)) for seed in range(20)]
    assert len({repr(s) for s in specs}) == 20
    sizes = {(s["grid"]["width"], s["grid"]["height"]) for s in specs}
    assert len(sizes) > 3
    boards = []
    env = facing_env.raw_env(scenario="procedural")
    for seed in range(5):
        env.reset(seed=seed)
        boards.append(repr(env.battle.to_spec()))
    assert len(set(boards)) == 5


@st.composite
def generators(draw: st.DrawFn) -> dict[str, Any]:
    names = sorted(bestiary())
    lo_w, lo_h = draw(st.integers(4, 10)), draw(st.integers(4, 10))
    lo_n = draw(st.integers(1, 3))
    return {
        "teams": draw(st.sampled_from([["red", "blue"], ["a", "b", "c"]])),
        "team_size": [lo_n, draw(st.integers(lo_n, 4))],
        "bestiary": draw(st.lists(st.sampled_from(names), min_size=1, max_size=4, unique=True)),
        "width": [lo_w, draw(st.integers(lo_w, 14))],
        "height": [lo_h, draw(st.integers(lo_h, 14))],
        "terrain_density": draw(st.sampled_from([0.0, 0.06, 0.2, 0.5])),
        "ruleset": draw(st.sampled_from(["ua35", "side_rear", "standard"])),
        "grid": draw(st.sampled_from(["square", "hex"])),
    }


@PROPERTY
@given(gen=generators(), seed=st.integers(0, 2**32 - 1))
def test_generated_battles_are_valid_or_rejected_at_load(gen, seed):
    """A generator section either fails to load with a ScenarioError, or every seed builds
    a valid battle in its bounds with every team on the board (issue 33: a generator that
    could leave a team no room is refused at load, never at a later reset)."""
    try:
        scenario = scenario_from_dict({"name": "G", "generator": gen}, source="gen.yaml")
    except ScenarioError as exc:
        assert str(exc).startswith("gen.yaml: ")
        return
    battle = scenario.build(np.random.default_rng(seed))
    assert gen["width"][0] <= battle.width <= gen["width"][1]
    assert gen["height"][0] <= battle.height <= gen["height"][1]
    per_team = {t: 0 for t in gen["teams"]}
    for c in battle.creatures.values():
        per_team[c.team] += 1
    assert all(1 <= n <= gen["team_size"][1] for n in per_team.values()), per_team
    assert len(battle.creatures) <= scenario.max_creatures()
    env = facing_env.raw_env(scenario=scenario, engine="readable")
    env.reset(seed=seed)
    assert not any(env.terminations.values())


@pytest.mark.parametrize(
    ("generator", "message"),
    [
        (  # 4 teams of 3, Huge (3x3) at most, on 8x8: 4 blocks, 9 creatures touch up to 36
            "{teams: [a, b, c, d], team_size: [1, 3], bestiary: [young_dragon, ogre],"
            " width: [8, 9], height: [8, 9]}",
            "4 teams of up to 3 creatures of up to 3x3 squares may leave no room for a team on"
            " the smallest board 8x8",
        ),
        (  # hex: single cells; 3 teams of 4 before the last on 4x4 = 16 cells
            "{teams: [a, b, c, d, e], team_size: [4, 4], bestiary: [fighter], grid: hex,"
            " width: [4, 4], height: [4, 4]}",
            "5 teams of up to 4 creatures of up to 1x1 squares may leave no room",
        ),
    ],
)
def test_a_generator_that_may_leave_a_team_no_room_is_refused_at_load(generator, message):
    with pytest.raises(ScenarioError, match="gen.yaml: field 'generator': " + message):
        scenario_from_dict({"name": "G", "generator": yaml.safe_load(generator)}, source="gen.yaml")


def test_a_generator_with_room_loads():
    """Two teams of three Medium creatures on 4x4: 3 creatures before blue's first, 16
    blocks."""
    gen = {"team_size": [3, 3], "bestiary": ["fighter"], "width": [4, 4], "height": [4, 4]}
    scenario = scenario_from_dict({"name": "G", "generator": gen}, source="gen.yaml")
    for seed in range(50):
        assert len(scenario.build(np.random.default_rng(seed)).creatures) == 6


# -- the action codec ---------------------------------------------------------------------


def _check_codec(env) -> None:
    battle, codec = env.battle, env.codec
    cid = env.agent_to_id[env.agent_selection]
    slots = env.slots[cid]
    names = action_names(battle.kind.value, codec.n_slots)
    dirs = geometry.direction_names(battle.kind)
    used = [n for n in names if "unused" not in n]
    assert len(names) == codec.n and len(set(used)) == len(used)
    legal = engine.legal_actions(battle)
    for action in legal:
        index = codec.encode(battle, slots, action)
        assert 0 <= index < codec.n
        assert codec.decode(battle, slots, index) == action
    mask = codec.mask(battle, slots)
    assert sorted(np.flatnonzero(mask)) == sorted(codec.encode(battle, slots, a) for a in legal)
    allowed = geometry.allowed_facings(battle.kind, battle.ruleset, battle.creatures[cid].shape)
    for index in range(codec.n):
        action = codec.decode(battle, slots, index)
        name = names[index]
        assert name.split("(")[0].lower() == action.kind, (name, action)
        if index in (0, RUN_INDEX, READY_INDEX):
            assert codec.encode(battle, slots, action) == index
        elif MOVE_BASE <= index < TURN_BASE:
            d = (index - MOVE_BASE) % 8
            assert action.arg == d
            assert name.endswith(f"({dirs[d]})" if d < len(dirs) else "(unused)")
            if d < len(dirs):
                assert codec.encode(battle, slots, action) == index
        elif TURN_BASE <= index < RUN_INDEX:
            slot = index - TURN_BASE
            assert action.arg == (allowed[slot] if slot < len(allowed) else -1)
            if slot < len(allowed):
                assert codec.encode(battle, slots, action) == index
        else:
            block, slot = divmod(index - ATTACK_BASE, codec.n_slots)
            kind = ("ATTACK", "CHARGE", "WITHDRAW")[block]
            assert name == f"{kind}(slot {slot})"
            assert codec.slot_base(kind.lower()) + slot == index
            if slot < len(slots):
                assert action.arg == slots[slot]
                assert codec.encode(battle, slots, action) == index
        if mask[index]:
            assert codec.encode(battle, slots, action) == index
    for outside in (-1, codec.n, codec.n + 5):
        with pytest.raises(ValueError, match="outside"):
            codec.decode(battle, slots, outside)


@PROPERTY
@given(
    scenario=st.sampled_from(SCENARIOS),
    seed=st.integers(0, 2**32 - 1),
    decisions=st.integers(0, 300),
)
def test_action_codec_round_trips_on_random_states(scenario, seed, decisions):
    _check_codec(walk(scenario, seed, decisions))


def test_action_layout_matches_the_api_doc():
    codec = ActionCodec(4)
    assert codec.n == 35 + 3 * 4
    assert (
        MOVE_BASE,
        STEP_BASE,
        FIVE_FOOT_BASE,
        TURN_BASE,
        RUN_INDEX,
        READY_INDEX,
        ATTACK_BASE,
    ) == (1, 9, 17, 25, 33, 34, 35)
    assert (codec.slot_base("charge"), codec.slot_base("withdraw")) == (39, 43)
    square = action_names("square", 4)
    assert square[0] == "END_TURN" and square[1] == "MOVE(N)" and square[8] == "MOVE(NW)"
    assert square[9] == "STEP_KEEP_FACING(N)" and square[17] == "FIVE_FOOT_STEP(N)"
    assert square[25] == "TURN(slot 0)" and square[33] == "RUN" and square[34] == "READY"
    assert square[38] == "ATTACK(slot 3)" and square[39] == "CHARGE(slot 0)"
    assert square[46] == "WITHDRAW(slot 3)" and len(square) == 47
    hex_names = action_names("hex", 2)
    assert hex_names[1:9] == [f"MOVE({d})" for d in ("E", "NE", "NW", "W", "SW", "SE")] + [
        "MOVE(unused)",
        "MOVE(unused)",
    ]
    assert len(hex_names) == 35 + 3 * 2


def test_duplicate_yaml_keys_are_an_error(tmp_path):
    """YAML would silently keep the last of two equal keys; a scenario file may not."""
    path = tmp_path / "dup.yaml"
    path.write_text(
        "name: x\nname: y\ncreatures:\n"
        "  - {id: a, pos: [0, 0], team: red}\n  - {id: b, pos: [2, 0], team: blue}\n"
    )
    with pytest.raises(ScenarioError, match=r"dup\.yaml.*duplicate key 'name'"):
        load_scenario(path)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_rounds": 0}, "max_rounds must be an integer from 1 to 10000, got 0"),
        (
            {"dice": "loaded"},
            "dice must be one of 'roll', 'expected', 'deck', 'mean', got 'loaded'",
        ),
        ({"window": 2}, "window must be an odd integer from 3 to 63"),
        ({"window": 4}, r"window must be an odd integer from 3 to 63 \(.*\), got 4"),
    ],
)
def test_bad_env_overrides_fail_at_construction(kwargs, message):
    with pytest.raises(ValueError, match=message):
        facing_env.raw_env(scenario="duel", **kwargs)


@pytest.mark.parametrize("scenario", [None, 5])
def test_a_scenario_that_is_neither_a_name_a_path_nor_a_scenario_is_named(scenario):
    with pytest.raises(TypeError, match="scenario must be a scenario's name, a path to its"):
        facing_env.raw_env(scenario=scenario)
