"""Hostile and mistaken input files end at once in a clear error: every size a scenario file
can set is bounded (``facing_env.limits``), and each refusal arrives within a small time and
memory budget with a short message naming the file, creature and field."""

from __future__ import annotations

import os
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from facing_env import ScenarioError
from facing_env.limits import (
    MAX_NESTING,
    MAX_SCENARIO_BYTES,
    MAX_YAML_NODES,
    json_depth,
    read_bounded,
    short_repr,
)
from facing_env.scenario import load_scenario, scenario_from_dict

SECONDS = 5.0
"""CPU-time budget of one refusal, traced by tracemalloc (which slows allocation several
times; the attacks it guards against ran for 50 s and more); CPU time, not wall time, so a
busy machine does not fail it."""
PEAK_BYTES = 64 << 20
"""Memory budget of one refusal (Python allocations, measured with tracemalloc)."""

HEAD = "name: Hostile\n"
RED = "  - {id: a, size: Medium, pos: [1, 1], team: red"
RED_FIELDS = {"id": "a", "size": "Medium", "pos": "[1, 1]", "team": "red"}
BLUE = "  - {id: b, size: Medium, pos: [3, 3], team: blue}\n"


def refused(load: Callable[[], Any], *needles: str) -> str:
    """Run ``load``, expect a ScenarioError within the budgets; its message, checked to
    hold every needle and to be one short line."""
    tracemalloc.start()
    start = time.process_time()
    try:
        with pytest.raises(ScenarioError) as info:
            load()
    finally:
        elapsed = time.process_time() - start
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    message = str(info.value)
    assert elapsed < SECONDS, f"took {elapsed:.1f} s: {message}"
    assert peak < PEAK_BYTES, f"peaked at {peak >> 20} MB: {message}"
    assert "\n" not in message and len(message) < 400, message
    for needle in needles:
        assert needle in message, message
    return message


def scenario_file(tmp_path: Path, red_fields: str = "", extra: str = "") -> Path:
    """A two-creature scenario with ``red_fields`` added to creature ``a`` and ``extra``
    top-level text."""
    path = tmp_path / "hostile.yaml"
    kept = {k: v for k, v in RED_FIELDS.items() if f", {k}:" not in red_fields}  # replaced
    red = "  - {" + ", ".join(f"{k}: {v}" for k, v in kept.items())
    path.write_text(HEAD + extra + "creatures:\n" + red + red_fields + "}\n" + BLUE)
    return path


def alias_bomb(levels: int = 9) -> str:
    """YAML anchors that expand to 9**levels strings in about 500 bytes."""
    lines = ['x0: &x0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, levels):
        refs = ", ".join([f"*x{i - 1}"] * 9)
        lines.append(f"x{i}: &x{i} [{refs}]")
    return "bomb:\n" + "\n".join("  " + line for line in lines) + "\n"


# -- YAML structure ------------------------------------------------------------------------


def test_an_alias_bomb_in_a_creature_field_is_refused_before_it_expands(tmp_path):
    path = tmp_path / "bomb.yaml"
    path.write_text(
        alias_bomb()
        + HEAD
        + "creatures:\n"
        + "  - {id: a, size: Medium, pos: [1, 1], team: red"
        + ", feats: *x8}\n"
        + BLUE
    )
    assert path.stat().st_size < 1000
    refused(lambda: load_scenario(path), str(path), f"more than {MAX_YAML_NODES} values")


def test_an_alias_bomb_in_a_template_is_refused(tmp_path):
    path = tmp_path / "bomb.yaml"
    path.write_text(
        alias_bomb()
        + HEAD
        + "creatures:\n  - {template: *x8, id: a, pos: [1, 1], team: red}\n"
        + BLUE
    )
    refused(lambda: load_scenario(path), str(path), "aliases count as what they repeat")


def test_a_recursive_alias_is_refused(tmp_path):
    path = tmp_path / "loop.yaml"
    path.write_text("loop: &a [1, *a]\n" + HEAD)
    refused(lambda: load_scenario(path), "an alias inside its own anchor")


@pytest.mark.parametrize(
    "nested",
    ["[" * 5000 + "]" * 5000, "{a: " * 5000 + "1" + "}" * 5000],
    ids=["lists", "mappings"],
)
def test_yaml_nested_thousands_deep_is_refused(tmp_path, nested):
    path = scenario_file(tmp_path, f", feats: {nested}")
    refused(lambda: load_scenario(path), str(path), f"nested deeper than {MAX_NESTING} levels")


def test_block_yaml_nested_deeply_is_refused(tmp_path):
    path = tmp_path / "deep.yaml"
    path.write_text(HEAD + "deep:\n" + "".join("  " * i + "  -\n" for i in range(600)))
    refused(lambda: load_scenario(path), "nested deeper than")


def test_an_integer_too_long_to_convert_is_refused(tmp_path):
    path = scenario_file(tmp_path, ", hp: " + "9" * 5000)
    refused(lambda: load_scenario(path), str(path), "not valid YAML")


# -- files ---------------------------------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_refused_without_opening_it(tmp_path):
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)  # opening it for reading would block until a writer comes
    refused(lambda: load_scenario(fifo), str(fifo), "not a regular file")


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_a_device_is_refused_without_reading_it():
    refused(lambda: load_scenario("/dev/zero"), "/dev/zero", "not a regular file")


def test_a_folder_is_refused(tmp_path):
    folder = tmp_path / "folder.yaml"
    folder.mkdir()
    refused(lambda: load_scenario(folder), "a directory")


def test_a_file_over_the_size_limit_is_refused(tmp_path):
    path = scenario_file(tmp_path, extra="description: '" + "x" * MAX_SCENARIO_BYTES + "'\n")
    refused(lambda: load_scenario(path), str(path), f"limit of {MAX_SCENARIO_BYTES}")


def test_read_bounded_reads_at_most_the_limit(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"abc")
    assert read_bounded(path, 3) == b"abc"
    with pytest.raises(ValueError, match="more than the limit of 2"):
        read_bounded(path, 2)


# -- sizes and numbers ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        (", reach: 10000", "reach"),
        (", attacks: [{reach: 10000}]", "attacks.0.reach"),
        (", attacks: [{kind: ranged, range: 100000000}]", "attacks.0.range"),
        (", hp: " + "9" * 400, "hp"),
        (", ac: " + "9" * 400, "ac"),
        (", touch_ac: -" + "9" * 400, "touch_ac"),
        (", speed: 2147483648", "speed"),
        (", speed: -1", "speed"),
        (", dex: 100000", "dex"),
        (", base_attack_bonus: 1000000", "base_attack_bonus"),
        (", rogue_level: 1000000", "rogue_level"),
        (", improved_uncanny_dodge: 1000000", "improved_uncanny_dodge"),
        (", pack_fighter_bonus: 1000000", "pack_fighter_bonus"),
        (", shield: {side: left, bonus: 1000000}", "shield.bonus"),
        (", attacks: [{bonus: 1000000}]", "attacks.0.bonus"),
        (", pos: [100000000, 1]", "pos.0"),
        (", hexes: [[100000000, 1]]", "hexes.0.0"),
        (", max_hp: 100000000", "max_hp"),
    ],
)
def test_every_number_of_a_creature_is_bounded(tmp_path, fields, field):
    path = scenario_file(tmp_path, fields)
    refused(lambda: load_scenario(path), str(path), "creature 'a'", f"field '{field}'")


@pytest.mark.parametrize(
    "dice",
    ["1d0", "0d6", "1000000000d6", "1d1000000000", "1d6+1000000000", "99999999", "1" * 40 + "d6"],
)
def test_damage_dice_are_bounded(tmp_path, dice):
    path = scenario_file(tmp_path, f", attacks: [{{damage: '{dice}'}}]")
    refused(lambda: load_scenario(path), "creature 'a'", "field 'attacks.0.damage'")
    path = scenario_file(tmp_path, f", sneak_attack: '{dice}'")
    refused(lambda: load_scenario(path), "creature 'a'", "field 'sneak_attack'")


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        (", hp: true", "hp"),
        (", ac: false", "ac"),
        (", speed: true", "speed"),
        (", facing: true", "facing"),
        (", pos: [true, 1]", "pos.0"),
        (", flat_footed: 1", "flat_footed"),
        (", threatens: 'yes'", "threatens"),
        (", hp: 2.5", "hp"),
        (", attacks: [{touch: 0}]", "attacks.0.touch"),
    ],
)
def test_booleans_are_not_numbers_nor_numbers_booleans(tmp_path, fields, field):
    path = scenario_file(tmp_path, fields)
    refused(lambda: load_scenario(path), "creature 'a'", f"field '{field}'")


def test_max_hp_below_hp_is_an_error(tmp_path):
    path = scenario_file(tmp_path, ", hp: 20, max_hp: 10")
    refused(lambda: load_scenario(path), "creature 'a'", "max_hp 10 is below hp 20")


def test_an_empty_team_name_is_an_error(tmp_path):
    path = scenario_file(tmp_path, ", team: ''")
    refused(lambda: load_scenario(path), "field 'team'")


def test_a_name_with_a_control_character_is_an_error(tmp_path):
    """Names are printed and become agent names: a newline in one would break lines."""
    path = scenario_file(tmp_path, ', team: "r\\ned"')
    refused(lambda: load_scenario(path), "field 'team'", "may not hold control characters")


def test_a_procedural_scenario_takes_no_battle_keys(tmp_path):
    """A generator draws its own board and creatures: creatures beside it would be ignored."""
    path = scenario_file(tmp_path, extra="generator: {}\n")
    refused(lambda: load_scenario(path), "field 'generator'", "['creatures'", "would be ignored")


def test_a_top_level_setting_of_the_wrong_type_is_named_with_its_value(tmp_path):
    path = scenario_file(tmp_path, extra="max_rounds: thirty\n")
    refused(lambda: load_scenario(path), "field 'max_rounds'", "got 'thirty'")


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ("rewards: {damage_dealt: .nan}\n", "rewards.damage_dealt"),
        ("rewards: {kill: .inf}\n", "rewards.kill"),
        ("rewards: {victory: -1.0e+300}\n", "rewards.victory"),
        ("rewards: {defeat: true}\n", "rewards.defeat"),
        ("max_rounds: true\n", "max_rounds"),
        ("max_rounds: 100000000\n", "max_rounds"),
        ("observation: {window: true}\n", "observation.window"),
        ("observation: {window: 4}\n", "observation.window"),  # not centred: refused, not rounded
        ("observation: {max_creatures: 100000}\n", "observation.max_creatures"),
        ("description: '" + "x" * 10_000 + "'\n", "description"),
        ("grid: {width: 100000}\n", "grid.width"),
        ("grid: {height: true}\n", "grid.height"),
    ],
)
def test_every_setting_of_a_scenario_is_bounded(tmp_path, extra, field):
    path = scenario_file(tmp_path, extra=extra)
    refused(lambda: load_scenario(path), str(path), f"field '{field}'")


def test_a_map_string_cannot_skip_the_board_limit(tmp_path):
    rows = "\n".join("    " + "." * 10 for _ in range(300))
    path = tmp_path / "map.yaml"
    path.write_text(HEAD + "map: |\n" + rows + "\ncreatures:\n" + RED + "}\n" + BLUE)
    refused(lambda: load_scenario(path), "field 'map'", "10x300 cells", "at most 64 cells a side")


@pytest.mark.parametrize(
    ("spec", "field"),
    [
        (
            {"creatures": [{"id": f"c{i}", "size": "Medium", "pos": [i, 0]} for i in range(65)]},
            "creatures",
        ),
        ({"terrain": [{"pos": [0, 0], "kind": "open"}] * 70_000}, "terrain"),
        ({"map": "." * 100_000}, "map"),
    ],
    ids=["creatures", "terrain", "map"],
)
def test_lists_and_strings_of_a_battle_are_bounded(spec, field):
    refused(lambda: scenario_from_dict({"name": "x", **spec}), f"field '{field}'")


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        (", attacks: [" + ", ".join(["{}"] * 17) + "]", "attacks"),
        (", feats: [" + ", ".join(["dodge"] * 65) + "]", "feats"),
        (", id: " + "a" * 10_000, "id"),
        (", attacks: [{name: " + "a" * 10_000 + "}]", "attacks.0.name"),
        (", facing: " + "N" * 10_000, "facing"),
        (", size: " + "M" * 10_000, "size"),
    ],
)
def test_lists_and_strings_of_a_creature_are_bounded(tmp_path, fields, field):
    path = scenario_file(tmp_path, fields)
    message = refused(lambda: load_scenario(path), f"field '{field}'")
    assert "a" * 100 not in message and "N" * 100 not in message  # values are cut short


@pytest.mark.parametrize(
    ("generator", "field"),
    [
        ("{teams: [" + ", ".join(f"t{i}" for i in range(20)) + "]}", "generator.teams"),
        ("{team_size: [1, 100]}", "generator"),
        ("{team_size: [true, 2]}", "generator.team_size.0"),
        ("{width: [4, 100000]}", "generator.width"),
        ("{terrain_density: .nan}", "generator.terrain_density"),
        ("{bestiary: ['" + "x" * 1000 + "']}", "generator.bestiary.0"),
        ("{teams: ['', b]}", "generator.teams.0"),
    ],
)
def test_generator_settings_are_bounded(tmp_path, generator, field):
    path = tmp_path / "gen.yaml"
    path.write_text(HEAD + f"generator: {generator}\n")
    refused(lambda: load_scenario(path), f"field '{field}'")


def test_an_unknown_template_of_any_size_is_named_short(tmp_path):
    path = scenario_file(tmp_path, ", template: " + "q" * 10_000)
    message = refused(lambda: load_scenario(path), "unknown template", "field 'template'")
    assert "q" * 100 not in message


def test_a_huge_scenario_name_is_cut_short():
    message = refused(lambda: load_scenario("z" * 100_000), "unknown scenario")
    assert "z" * 100 not in message


def test_a_nul_in_a_scenario_path_is_refused():
    refused(lambda: load_scenario("bad\0name.yaml"), "NUL")


# -- helpers -------------------------------------------------------------------------------


def test_short_repr_is_bounded_in_time_and_length():
    deep: list = []
    for _ in range(10_000):
        deep = [deep, deep]  # shared: 2**10000 leaves if walked
    start = time.process_time()
    for value in (deep, "x" * 10**7, 10**4000, {i: i for i in range(10**5)}):
        assert len(short_repr(value)) <= 80
    assert time.process_time() - start < 1.0


def test_json_depth_counts_brackets_outside_strings():
    assert json_depth('{"a": [1, "[[[{", {"b": []}]}') == 4
    assert json_depth('"\\"[["') == 0
    assert json_depth("[" * 100_000 + "]" * 100_000) == 100_000


@pytest.mark.parametrize(
    ("grid", "needles"),
    [
        ("{width: 256, height: 256}", ("field 'grid.width'", "less than or equal to 64")),
        ("{width: 160, height: 160}", ("field 'grid.width'", "less than or equal to 64")),
        ("{kind: hex, width: 50, height: 40}", ("50x40 hex board spans 70 columns", "at most 64")),
    ],
)
def test_a_board_too_large_for_memory_is_refused_at_load(tmp_path, grid, needles):
    """Issue 33: a valid 5-line scenario on a 160x160 or 256x256 board exhausted memory
    (6 GB, 23 GB) building the lookup tables; it is refused when it loads, within the
    budgets of :func:`refused` (limits.MAX_SIDE: a 64x64 board peaks at 0.73 GB)."""
    path = tmp_path / "big.yaml"
    path.write_text(HEAD + f"grid: {grid}\ncreatures:\n" + RED + "}\n" + BLUE)
    refused(lambda: load_scenario(path), *needles)
