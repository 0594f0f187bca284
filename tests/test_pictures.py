"""Pictures: ``render_mode="rgb_array"`` and ``"human"``, frame shapes on both grids, and
golden images of two small fixed boards.

The golden PNGs live in ``tests/golden/``; after an intended change of the drawing,
regenerate them with ``UPDATE_GOLDEN=1 python -m pytest tests/test_pictures.py -k golden``
and look at them before committing.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("PIL")

from pettingzoo.test import render_test
from PIL import Image

import facing_env
from facing_env import Battle
from facing_env.events import Event
from facing_env.render import canvas
from facing_env.render import frames as pictures
from facing_env.train.team_env import TeamLearnerEnv

GOLDEN = Path(__file__).with_name("golden")
SQUARE_BOARD = {
    "ruleset": "ua35",
    "map": "......\n..o...\n......\n.~~.%#\n......",
    "creatures": [
        {"id": "knight", "size": "Medium", "pos": [1, 2], "facing": "NE", "team": "red"},
        {"id": "ogre", "size": "Large", "pos": [3, 1], "facing": "W", "team": "blue", "hp": 9,
         "max_hp": 30},
        {"id": "imp", "size": "Small", "pos": [0, 4], "facing": "E", "team": "blue"},
        {"id": "rat", "size": "Tiny", "pos": [4, 4], "team": "blue"},
    ],
}  # fmt: skip
HEX_BOARD = {
    "ruleset": "ua35",
    "grid": {"kind": "hex", "width": 6, "height": 5},
    "terrain": [{"pos": [2, 1], "kind": "pillar"}, {"pos": [0, 4], "kind": "difficult"}],
    "creatures": [
        {"id": "elf", "size": "Medium", "pos": [1, 2], "facing": "E", "team": "green"},
        {"id": "troll", "size": "Large", "pos": [2, 3], "facing": "ENE", "team": "purple"},
    ],
}
SQUARE_ATTACK = Event(
    "attack", "knight", "ogre", attack="longsword", attack_kind="attack", roll=14, total=20,
    ac=15, hit=True, damage=7, own_area="front", defender_area="flank", facing_modifier=2,
)  # fmt: skip
HEX_ATTACK = Event("attack", "troll", "elf", attack_kind="attack", defender_area="rear",
                   facing_modifier=4)  # fmt: skip


def _play(env, seed: int, steps: int | None = None) -> list[np.ndarray]:
    """Random masked play on a raw env, a frame after every step."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    frames = [env.render()]
    for n, _ in enumerate(env.agent_iter()):
        obs, _, term, trunc, _ = env.last()
        action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
        frames.append(env.render())
        if steps is not None and n >= steps:
            break
    return frames


def test_pettingzoo_render_test_every_mode(monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")  # "human" needs a display: a dummy one
    assert facing_env.raw_env.metadata["render_modes"] == ["ansi", "rgb_array", "human"]
    render_test(lambda render_mode: facing_env.env(scenario="duel", render_mode=render_mode))


@pytest.mark.parametrize("scenario", ["duel", "hex_duel", "ogre"])
def test_rgb_frames_keep_one_shape_and_dtype_for_a_whole_episode(scenario):
    env = facing_env.raw_env(scenario=scenario, render_mode="rgb_array")
    frames = _play(env, seed=3)
    shapes = {f.shape for f in frames}
    assert len(shapes) == 1, shapes
    h, w, c = shapes.pop()
    assert c == 3 and h % 16 == 0 and w % 16 == 0
    assert all(f.dtype == np.uint8 for f in frames)
    assert len({f.tobytes() for f in frames}) > 1  # the picture changes as the battle goes


def test_procedural_boards_of_every_size_give_one_frame_shape():
    env = facing_env.raw_env(scenario="procedural", render_mode="rgb_array")
    sizes, shapes = set(), set()
    for seed in range(4):
        env.reset(seed=seed)
        sizes.add((env.battle.width, env.battle.height))
        shapes.add(env.render().shape)
    assert len(sizes) > 1 and len(shapes) == 1


def test_frames_shade_the_acting_creatures_areas():
    env = facing_env.raw_env(scenario="duel", render_mode="rgb_array")
    env.reset(seed=0)
    actor = facing_env.rules.engine.actor(env.battle)
    frame = env.render()
    layout = canvas.Layout.of(env.battle, env._state_dims, len(env.possible_agents))
    table = env.battle.table(actor)
    colours = {}
    for area, offsets in table.by_area.items():
        dx, dy = sorted(offsets)[0]
        x, y = layout.centre((actor.pos[0] + dx, actor.pos[1] + dy))
        colours[area.value] = frame[int(y) + 8, int(x) + 8].astype(int)  # off the centre mark
    r, g, _ = colours["front"]
    assert g > r  # front: green
    r, g, _ = colours["rear"]
    assert r > g  # rear: red


def test_gymnasium_render_collection_on_the_learner_view():
    from gymnasium.wrappers import RenderCollection

    env = RenderCollection(TeamLearnerEnv("hex_duel", render_mode="rgb_array"))
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    for _ in range(15):
        mask = env.unwrapped.action_masks()
        _, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        if term or trunc:
            env.reset()
    frames = env.render()
    assert len(frames) >= 15
    assert len({f.shape for f in frames}) == 1 and frames[0].dtype == np.uint8


def test_gymnasium_record_video(tmp_path):
    pytest.importorskip("moviepy", reason="gymnasium's RecordVideo writes with moviepy")
    from gymnasium.wrappers import RecordVideo

    env = RecordVideo(TeamLearnerEnv("duel", render_mode="rgb_array"), str(tmp_path))
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    done = False
    while not done:
        mask = env.unwrapped.action_masks()
        _, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        done = term or trunc
    env.close()
    assert list(tmp_path.glob("*.mp4"))


def test_human_mode_shows_frames_in_a_pygame_window(monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    env = facing_env.raw_env(scenario="hex_duel", render_mode="human")
    env.reset(seed=0)
    assert env.render() is None
    import pygame

    layout = canvas.Layout.of(env.battle, env._state_dims, len(env.possible_agents))
    assert pygame.display.get_surface().get_size() == layout.size
    env.close()
    assert not pygame.display.get_init()


def test_human_mode_without_pygame_or_display_says_what_to_do(monkeypatch):
    import pygame

    env = facing_env.raw_env(scenario="duel", render_mode="human")
    env.reset(seed=0)
    monkeypatch.setitem(sys.modules, "pygame", None)
    with pytest.raises(ImportError, match=r"needs pygame.*facing-env\[render\]"):
        env.render()
    monkeypatch.setitem(sys.modules, "pygame", pygame)
    monkeypatch.setenv("SDL_VIDEODRIVER", "no_such_driver")
    with pytest.raises(RuntimeError, match=r"needs a display.*rgb_array"):
        env.render()
    env.close()


def test_last_attack_is_shown_until_someone_moves():
    hit = Event("attack", "a", "b", attack_kind="attack")
    aoo = Event("attack", "a", "b", attack_kind="aoo")
    step_b = Event("move", "b", pos=(1, 1))
    step_c = Event("move", "c", pos=(2, 2))
    assert canvas.last_attack([hit, Event("end_turn", "a"), Event("turn_start", "b")]) is hit
    assert canvas.last_attack([hit, step_c]) is None
    assert canvas.last_attack([aoo, step_b]) is aoo  # the move that provoked it
    assert canvas.last_attack([aoo, step_b, step_b]) is None
    assert canvas.attack_label(SQUARE_ATTACK) == "flank +2"


def _golden_frame(spec: dict, attack: Event, active: str) -> np.ndarray:
    battle = Battle.from_spec(spec)
    return pictures.frame(battle, active=active, attack=attack, title="golden board")


@pytest.mark.parametrize(
    ("name", "spec", "attack", "active"),
    [
        ("square_board", SQUARE_BOARD, SQUARE_ATTACK, "knight"),
        ("hex_board", HEX_BOARD, HEX_ATTACK, "troll"),
    ],
)
def test_golden_image(name, spec, attack, active):
    frame = _golden_frame(spec, attack, active)
    path = GOLDEN / f"{name}.png"
    if os.environ.get("UPDATE_GOLDEN"):
        GOLDEN.mkdir(exist_ok=True)
        Image.fromarray(frame).save(path, optimize=True)
    want = np.asarray(Image.open(path).convert("RGB"))
    assert frame.shape == want.shape
    diff = np.abs(frame.astype(int) - want.astype(int)).max(axis=2)
    # A small tolerance for anti-aliasing differences between pillow versions.
    assert (diff > 48).mean() < 0.005, f"{(diff > 48).mean():.2%} of pixels differ from {path}"
    assert diff.mean() < 2.0


# -- evaluation plots ----------------------------------------------------------------------


def test_attack_origin_is_turned_into_the_defenders_frame():
    from facing_env.evaluation.match import attack_origin

    square = Battle.from_spec(
        {
            "creatures": [
                {"id": "d", "size": "Medium", "pos": [5, 5], "facing": "E"},
                {"id": "front", "size": "Medium", "pos": [6, 5]},
                {"id": "rear", "size": "Medium", "pos": [4, 6]},
                {"id": "big", "size": "Large", "pos": [5, 2]},
                {"id": "far", "size": "Medium", "pos": [7, 3]},
            ]
        }
    )
    assert attack_origin(square, "front", "d") == (0, -1)  # ahead: up
    assert attack_origin(square, "rear", "d") == (1, 1)  # south-west: behind, on its right
    assert attack_origin(square, "big", "d") == (-2, 0)  # two squares to its left
    assert attack_origin(square, "far", "d") == (-2, -2)  # the ring of radius 2 turns too
    hexes = Battle.from_spec(
        {
            "grid": {"kind": "hex", "width": 9, "height": 9},
            "creatures": [
                {"id": "d", "size": "Medium", "pos": [3, 4], "facing": "NW"},
                {"id": "ahead", "size": "Medium", "pos": [3, 3]},
                {"id": "behind", "size": "Medium", "pos": [3, 5]},
            ],
        }
    )
    assert attack_origin(hexes, "ahead", "d") == (1, 0)  # the hex frame faces east
    assert attack_origin(hexes, "behind", "d") == (-1, 0)


@pytest.fixture(scope="module")
def skirmish_report():
    from facing_env.evaluation.evaluate import evaluate

    return evaluate("skirmish", ["flanker", "aggressive", "random"], 2, seed=5)


def test_attack_origins_agree_with_the_area_counts(skirmish_report):
    from facing_env.rules import geometry
    from facing_env.types import GridKind, Ruleset, Size

    shape = geometry.default_shape(GridKind.SQUARE, Size.MEDIUM)
    table = geometry.area_table(GridKind.SQUARE, Ruleset.UA35, shape, 0)
    for agent in skirmish_report.agents.values():
        by_area: dict[str, int] = {}
        for offset, n in agent.attack_origins.items():
            area = table.lookup(offset).area.value
            by_area[area] = by_area.get(area, 0) + n
        assert by_area == {a: n for a, n in agent.attacks.items() if n}  # all Medium here
        keys = skirmish_report.to_dict()["agents"][agent.name]["attack_origins"]
        assert sum(keys.values()) == sum(agent.attacks.values())


def _fake_tensorboard(folder: Path) -> None:
    pytest.importorskip("tensorboard")
    from tensorboard.compat.proto.event_pb2 import Event as TbEvent
    from tensorboard.compat.proto.summary_pb2 import Summary
    from tensorboard.summary.writer.event_file_writer import EventFileWriter

    writer = EventFileWriter(str(folder / "ppo_1"))
    for step in range(0, 1000, 100):
        for tag, value in (("rollout/ep_rew_mean", step / 1000), ("eval/win_rate_vs_random", 0.5)):
            summary = Summary(value=[Summary.Value(tag=tag, simple_value=value)])
            writer.add_event(TbEvent(step=step, wall_time=1.0, summary=summary))
    writer.close()


def test_plots_write_win_rates_learning_curves_and_attack_origins(skirmish_report, tmp_path):
    pytest.importorskip("matplotlib")
    from facing_env.evaluation.evaluate import plots
    from facing_env.evaluation.plots import read_scalars

    _fake_tensorboard(tmp_path / "tb")
    assert len(read_scalars(tmp_path / "tb")["rollout/ep_rew_mean"]) == 10
    paths = plots(skirmish_report, tmp_path / "out", tensorboard=tmp_path / "tb")
    assert [p.name for p in paths] == ["win_rates.png", "learning_curves.png", "attack_origins.png"]
    for p in paths:
        with Image.open(p) as im:
            assert im.size[0] > 300 and im.size[1] > 150
    no_logs = plots(skirmish_report, tmp_path / "bare", tensorboard=tmp_path / "nothing-here")
    assert [p.name for p in no_logs] == ["win_rates.png", "attack_origins.png"]


def test_evaluate_command_links_its_plots_from_the_markdown(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    from facing_env.evaluation.evaluate import main

    md = tmp_path / "report.md"
    argv = ["--scenario", "hex_duel", "--agents", "random", "flanker", "--games", "2"]
    main([*argv, "--markdown", str(md), "--plots", str(tmp_path / "plots")])
    assert capsys.readouterr().err.splitlines() == [  # each file written, in order
        f"wrote {tmp_path / 'plots' / 'win_rates.png'}",
        f"wrote {tmp_path / 'plots' / 'attack_origins.png'}",
        f"wrote {md}",
    ]
    text = md.read_text()
    assert "](plots/win_rates.png)" in text and "](plots/attack_origins.png)" in text
    assert (tmp_path / "plots" / "attack_origins.png").exists()


def test_readme_picture_is_what_the_api_doc_code_draws(tmp_path, monkeypatch):
    """The picture of the README and of docs/api.md is what the code printed under
    docs/api.md's "Pictures and replays" draws."""
    root = Path(__file__).resolve().parents[1]
    assert "](docs/skirmish_frame.png)" in (root / "README.md").read_text(encoding="utf-8")
    api = root / "docs" / "api.md"
    section = api.read_text(encoding="utf-8").split("## Pictures and replays", 1)[1]
    assert "](skirmish_frame.png)" in section.split("```", 1)[0]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(tmp_path)
    (tmp_path / "docs").mkdir()
    exec(compile(code, str(api), "exec"), {"__name__": "__readme__"})
    drawn = np.asarray(Image.open(tmp_path / "docs" / "skirmish_frame.png").convert("RGB"))
    shipped = root / "docs" / "skirmish_frame.png"
    assert shipped.stat().st_size < 100_000
    want = np.asarray(Image.open(shipped).convert("RGB"))
    assert drawn.shape == want.shape
    assert (np.abs(drawn.astype(int) - want.astype(int)).max(axis=2) > 48).mean() < 0.005
