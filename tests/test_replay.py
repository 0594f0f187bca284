"""Replays: record -> save -> load -> replay round trips, divergence and malformed files,
the exports (GIF, MP4, HTML), and the HTML viewer run in headless Chromium.

The Chromium tests need Debian's ``chromium`` (``apt-get install -y chromium
chromium-driver``, which ``.ci/run`` does); without ``/usr/bin/chromium`` they skip.
"""

from __future__ import annotations

import html
import json
import re
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("PIL")

from PIL import Image

import facing_env
from facing_env.agents import make_agent
from facing_env.env import raw_env
from facing_env.evaluation.match import play_game, replay_record
from facing_env.render import export
from facing_env.render.replay import (
    ReplayDivergence,
    ReplayError,
    load_replay,
    main,
    parse_record,
    replay,
)

CHROMIUM = Path("/usr/bin/chromium")
EVIL = "</script><script>alert(1)</script>"
EVIL_SCENARIO = f"""
name: Evil
ruleset: ua35
max_rounds: 4
map: |
  ......
  ......
  ......
  ......
creatures:
  - {{id: {json.dumps(EVIL)}, template: fighter, team: "<b>red</b>", pos: [1, 1], facing: E}}
  - {{id: "a&b\\"'", template: rogue, team: blue, pos: [3, 1], facing: W}}
"""


def _record(scenario: str, seed: int, **env_kwargs) -> tuple[dict, raw_env]:
    env = raw_env(scenario=scenario, **env_kwargs)
    teams = env.scenario.teams
    names = dict(zip(teams, ("flanker", "aggressive"), strict=False))
    agents = {t: make_agent(n) for t, n in names.items()}
    result = play_game(scenario, agents, seed, env=env, **env_kwargs)
    return json.loads(json.dumps(replay_record(result, names, **env_kwargs))), env


@pytest.fixture(scope="module")
def skirmish(tmp_path_factory) -> tuple[Path, dict, raw_env]:
    record, env = _record("skirmish", 7)
    path = tmp_path_factory.mktemp("replays") / "skirmish.json"
    path.write_text(json.dumps(record))
    return path, record, env


@pytest.mark.parametrize(("scenario", "kwargs"), [("hex_duel", {}), ("ogre", {"dice": "expected"})])
def test_round_trip_gives_the_same_events_and_final_state(tmp_path, scenario, kwargs):
    record, original = _record(scenario, 3, **kwargs)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    env, steps = replay(load_replay(path))
    assert [e.to_dict() for e in env.events] == [e.to_dict() for e in original.events]
    assert env.battle.to_spec() == original.battle.to_spec()
    assert len(steps) == len(record["actions"]) + 1
    final = {cid: (s.pos, s.facing, s.hp) for cid, s in steps[-1].creatures.items()}
    assert final == {cid: (c.pos, c.facing, c.hp) for cid, c in original.battle.creatures.items()}
    assert sum(len(s.events) for s in steps) == len(record["events"])


def test_evaluate_records_replay(tmp_path):
    from facing_env.evaluation.evaluate import evaluate

    evaluate("duel", ["random", "defensive"], 2, record_dir=tmp_path)
    files = sorted(tmp_path.glob("*.json"))
    assert len(files) == 2
    for f in files:
        env, _ = replay(f)
        assert len(env.events) == len(json.loads(f.read_text())["events"])


def test_a_replay_recorded_under_facing_limited_perception_reads_back(tmp_path):
    """What ``--record`` writes, ``replay`` reads: the record's ``perception`` included."""
    from facing_env.evaluation.evaluate import evaluate

    evaluate("duel", ["random", "aggressive"], 1, record_dir=tmp_path, perception="facing")
    (path,) = sorted(tmp_path.glob("*.json"))
    assert json.loads(path.read_text())["env_kwargs"] == {"perception": "facing"}
    env, _ = replay(path)
    assert env.battle.perception.value == "facing"
    assert len(env.events) == len(json.loads(path.read_text())["events"])


def test_a_replay_of_a_scenario_file_reads_from_another_folder(tmp_path, monkeypatch):
    """A scenario given by a relative path is recorded by its absolute path, so the replay
    is read from any folder; a built-in one by its name."""
    from facing_env.evaluation.evaluate import evaluate

    duel = Path(facing_env.__file__).with_name("configs") / "duel.yaml"
    (tmp_path / "mine.yaml").write_text(duel.read_text())
    monkeypatch.chdir(tmp_path)
    evaluate("mine.yaml", ["random", "aggressive"], 1, record_dir=tmp_path / "out")
    (path,) = sorted((tmp_path / "out").glob("*.json"))
    assert json.loads(path.read_text())["scenario"] == str(tmp_path.resolve() / "mine.yaml")
    monkeypatch.chdir(tmp_path / "out")
    env, _ = replay(path)
    assert len(env.events) == len(json.loads(path.read_text())["events"])
    evaluate("duel", ["random", "aggressive"], 1, record_dir=tmp_path / "named")
    (named,) = sorted((tmp_path / "named").glob("*.json"))
    assert json.loads(named.read_text())["scenario"] == "duel"


def test_a_replay_cut_short_by_its_round_limit_says_so(skirmish):
    _, record, _ = skirmish
    short = json.loads(json.dumps(record))
    short["env_kwargs"] = {**short.get("env_kwargs", {}), "max_rounds": 1}
    with pytest.raises(ReplayDivergence, match=r"reached its round limit \(1 rounds\) after"):
        replay(short)


def test_divergence_is_reported_with_the_first_differing_event(skirmish):
    _, record, _ = skirmish
    attack = next(k for k, e in enumerate(record["events"]) if e["kind"] == "attack")
    bad = json.loads(json.dumps(record))
    bad["events"][attack]["roll"] = 99
    with pytest.raises(ReplayDivergence, match=rf"event {attack} after action \d+ differs"):
        replay(bad)
    other_seed = dict(record, seed=record["seed"] + 1)
    with pytest.raises(ReplayDivergence):
        replay(other_seed)
    bad_actor = json.loads(json.dumps(record))
    bad_actor["actions"][3][0] = "nobody_0"
    with pytest.raises(ReplayDivergence, match="action 4: the record has 'nobody_0' act"):
        replay(bad_actor)
    cut = dict(record, events=record["events"][:-1])
    with pytest.raises(ReplayDivergence):
        replay(cut)
    liar = dict(record, winner="nobody")
    with pytest.raises(ReplayDivergence, match="field 'winner'"):
        replay(liar)


def _mutate(record: dict, path: tuple, value) -> dict:
    out = json.loads(json.dumps(record))
    target = out
    for key in path[:-1]:
        target = target[key]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return out


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("format",), "facing_env.replay/0", "field 'format': not a replay file"),
        (("actions",), KeyError, "field 'actions': Field required"),
        (("actions", 2, 1), "3", "field 'actions.2.1': Input should be a valid integer"),
        (("actions", 2, 1), 2.5, "field 'actions.2.1'"),
        (("seed",), -1, "field 'seed': Input should be greater than or equal to 0"),
        (("seed",), True, "field 'seed': Input should be a valid integer"),
        (("events", 1, "kind"), KeyError, "field 'events.1.kind': Field required"),
        (("events", 0, "pos"), [1, 2, 3], "field 'events.0.pos'"),
        (("env_kwargs", "render_mode"), "human", "field 'env_kwargs.render_mode': unknown field"),
        (("env_kwargs", "dice"), "loaded", "field 'env_kwargs.dice'"),
        (("__class__",), "os.system", "field '__class__': unknown field"),
        (("scenario",), "", "field 'scenario'"),
    ],
)
def test_malformed_files_name_the_file_and_field(skirmish, tmp_path, path, value, message):
    _, record, _ = skirmish
    f = tmp_path / "broken.json"
    f.write_text(json.dumps(_mutate(record, path, value)))
    with pytest.raises(ReplayError, match=re.escape(f"{f}: ") + ".*" + re.escape(message)):
        load_replay(f)


def test_unreadable_and_non_json_files(tmp_path):
    with pytest.raises(ReplayError, match=r"missing\.json: cannot read"):
        load_replay(tmp_path / "missing.json")
    f = tmp_path / "junk.json"
    f.write_text("{'format': 1")
    with pytest.raises(ReplayError, match=r"junk\.json: not valid JSON"):
        load_replay(f)
    f.write_text("[1, 2]")
    with pytest.raises(ReplayError, match=r"junk\.json: Input should be an object"):
        load_replay(f)
    with pytest.raises(ReplayError, match="unknown scenario"):
        replay(parse_record({"format": "facing_env.replay/1", "scenario": "nope", "seed": 0,
                             "env_version": 2, "actions": [], "events": []}))  # fmt: skip


def test_a_record_of_another_env_version_is_refused(skirmish):
    """A record names the env version it was played under (absent before v2: v1); the dice
    of another version differ, so the replay refuses it by that field instead of diverging
    somewhere in the middle."""
    _, record, _ = skirmish
    assert record["env_version"] == 2
    old = {k: v for k, v in record.items() if k != "env_version"}
    with pytest.raises(ReplayError, match=r"field 'env_version': recorded with env v1, this is"):
        replay(parse_record(old))


def test_cli_writes_gif_html_and_mp4(skirmish, tmp_path, capsys):
    path, record, _ = skirmish
    gif, page, mp4 = tmp_path / "g.gif", tmp_path / "v.html", tmp_path / "v.mp4"
    argv = [str(path), "--gif", str(gif), "--html", str(page)]
    try:
        import imageio_ffmpeg  # noqa: F401

        argv += ["--mp4", str(mp4)]
    except ImportError:
        mp4 = None
    assert main(argv) == 0
    assert "identical to the record" in capsys.readouterr().out
    with Image.open(gif) as im:
        assert im.n_frames == len(record["actions"]) + 1
    if mp4 is not None:
        assert mp4.stat().st_size > 1000
    text = page.read_text()
    assert "<script src" not in text and "<link" not in text  # self-contained
    with pytest.raises(SystemExit) as info:
        main([str(tmp_path / "nope.json")])
    assert info.value.code == 2
    assert "nope.json: cannot read" in capsys.readouterr().err


@pytest.fixture(scope="module")
def evil_page(tmp_path_factory) -> tuple[Path, dict]:
    folder = tmp_path_factory.mktemp("evil")
    scenario = folder / "evil.yaml"
    scenario.write_text(EVIL_SCENARIO)
    record, _ = _record(str(scenario), 1)
    env, steps = replay(record)
    page = folder / "evil.html"
    export.html_file(env, steps, page, title=f"<img src=x onerror=alert(1)> {EVIL}")
    return page, record


def test_html_escapes_every_name(evil_page):
    page, record = evil_page
    text = page.read_text()
    assert EVIL not in text and "<b>red</b>" not in text and "<img" not in text
    assert text.count("<script") == 2  # the data block and the viewer
    assert html.escape(f"<img src=x onerror=alert(1)> {EVIL}") in text
    block = re.search(r'id="replay-data">(.*?)</script>', text, re.S)
    data = json.loads(block.group(1))
    assert [c["id"] for c in data["creatures"]] == [EVIL, "a&b\"'"]
    assert len(data["steps"]) == len(record["actions"]) + 1


def _chromium(url: str, profile: Path) -> tuple[str, list[str]]:
    if not CHROMIUM.exists():
        pytest.skip(
            "Chromium is not installed at /usr/bin/chromium "
            "(apt-get install -y chromium chromium-driver; .ci/run installs it)"
        )
    flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={profile}",
        "--enable-logging=stderr",
        "--v=0",
        "--virtual-time-budget=60000",
        "--dump-dom",
    ]
    proc = subprocess.run(
        [str(CHROMIUM), *flags, url], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    console = [line for line in proc.stderr.splitlines() if ":CONSOLE" in line]
    return proc.stdout, console


def _body(dom: str) -> dict[str, str]:
    tag = re.search(r"<body([^>]*)>", dom)
    assert tag is not None, dom[:500]
    return dict(re.findall(r'([\w-]+)="([^"]*)"', tag.group(1)))


def test_viewer_in_chromium_plays_to_the_last_event(skirmish, tmp_path):
    path, record, _ = skirmish
    env, steps = replay(path)
    page = tmp_path / "viewer.html"
    export.html_file(env, steps, page, title="skirmish")
    last = len(steps) - 1
    dom, console = _chromium(page.as_uri() + "?autoplay", tmp_path / "profile")
    assert console == [], console
    body = _body(dom)
    assert body.get("data-ready") == "true"
    assert body.get("data-step") == str(last) and body.get("data-at-last") == "true"
    events = re.findall(r'<li class="([^"]*)">([^<]*)</li>', dom)
    assert len(events) == len(record["events"])
    assert not [text for cls, text in events if "future" in cls.split()]
    latest = [html.unescape(text) for cls, text in events if "latest" in cls.split()]
    assert latest == [export.describe(env.events[-1], env.battle.kind)]
    dom, console = _chromium(page.as_uri() + "#last", tmp_path / "profile")
    assert console == [] and _body(dom).get("data-at-last") == "true"


def test_viewer_in_chromium_keeps_hostile_names_as_text(evil_page, tmp_path):
    page, _ = evil_page
    dom, console = _chromium(page.as_uri() + "?autoplay", tmp_path / "profile")
    assert console == [], console  # no alert(), no error
    assert _body(dom).get("data-at-last") == "true"
    assert dom.count("<script") == 2
    assert html.escape(EVIL, quote=False) in dom  # shown in the legend and the event list
