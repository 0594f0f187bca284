"""Facing-limited perception as the env option (issue 36; UA-PER-01): nothing a creature
does not perceive leaks into its observation or its mask, a step into an unseen foe
bumps, last-known positions, and the option on ``raw_env``, ``VectorEnv`` and scenario
files. Every test runs on both engines (``engine``), which must agree exactly.
"""

from __future__ import annotations

import numpy as np
import pytest

import facing_env
from facing_env.errors import ScenarioError
from facing_env.observation import Column
from facing_env.rules import engine as rules_engine
from facing_env.scenario import scenario_from_dict
from facing_env.vector import VectorEnv

ENGINES = ["compiled", "readable"]
SWORD = {"name": "sword", "bonus": 5, "damage": "1d8+3"}
FIGHTER = {"size": "medium", "hp": 40, "ac": 16, "speed": 30, "attacks": [SWORD]}


def _scenario(o_pos, b_pos, f_pos=(3, 1), o_facing="N", o_dex=18, **o_fields) -> dict:
    """O (team o, Dex 18: it acts first with expected dice) at ``o_pos`` facing
    ``o_facing``; foes B and F of team x. A 7x7 open field."""
    return {
        "name": "perceive",
        "ruleset": "ua35",
        "dice": "expected",
        "map": ".......\n" * 7,
        "creatures": [
            {"id": "O", "team": "o", "pos": list(o_pos), "facing": o_facing, "dex": o_dex,
             **FIGHTER, **o_fields},
            {"id": "B", "team": "x", "pos": list(b_pos), "facing": "N", "dex": 10, **FIGHTER},
            {"id": "F", "team": "x", "pos": list(f_pos), "facing": "S", "dex": 10, **FIGHTER},
        ],
    }  # fmt: skip


def _env(spec: dict, perception: str, engine: str):
    env = facing_env.raw_env(
        scenario=scenario_from_dict(spec), perception=perception, engine=engine
    )
    env.reset(seed=0)
    return env


def _o_view(env) -> tuple[np.ndarray, np.ndarray]:
    agent = env.agent_selection
    assert env.agent_to_id[agent] == "O"
    obs = env.observe(agent)
    return obs["observation"], obs["action_mask"]


# B stands in O's rear (O faces N at (3, 3)): right behind it, or two squares behind.
_PAIRS = [((3, 4), (3, 6)), ((3, 5), (2, 6)), ((3, 4), (4, 5))]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("first", "second"), _PAIRS)
def test_where_an_unseen_foe_stands_changes_nothing_the_observer_gets(engine, first, second):
    """Issue 36's "done when": two battles that differ only in where B stands, wholly in
    O's rear area (UA-PER-01), give O the same observation and the same mask under
    ``facing`` (B right behind O does not even block O's step south: a step into it
    bumps); under ``full`` they differ."""
    views = {}
    for perception in ("full", "facing"):
        a = _o_view(_env(_scenario((3, 3), first), perception, engine))
        b = _o_view(_env(_scenario((3, 3), second), perception, engine))
        views[perception] = (a, b)
    (obs_a, mask_a), (obs_b, mask_b) = views["facing"]
    np.testing.assert_array_equal(obs_a, obs_b)
    np.testing.assert_array_equal(mask_a, mask_b)
    (full_a, fmask_a), (full_b, fmask_b) = views["full"]
    assert not np.array_equal(full_a, full_b)
    if first == (3, 4):  # under full, B right behind O blocks the step south
        south = facing_env.actions.MOVE_BASE + 4
        assert fmask_a[south] == 0 and fmask_b[south] == 1 and mask_a[south] == 1


@pytest.mark.parametrize("engine", ENGINES)
def test_an_unseen_foe_has_an_empty_table_row_and_no_window_cells(engine):
    """B behind O: its table row is all zeros (PRESENT 0: never seen, no last-known
    position), the window shows no enemy at its square, and no action names it."""
    env = _env(_scenario((3, 3), (3, 5)), "facing", engine)
    obs, mask = _o_view(env)
    layout = env.layout
    window, table, _ = layout.split(obs.copy())
    slots = _slots(env, "O")
    assert not table[slots.index("B")].any()
    assert table[slots.index("F"), Column.PRESENT] == 1.0
    half = layout.window // 2
    assert window[half + 2, half, facing_env.observation.Channel.ENEMY] == 0.0
    assert window[half - 2, half, facing_env.observation.Channel.ENEMY] == 1.0  # F
    n = layout.n_slots
    for block in range(3):  # ATTACK, CHARGE, WITHDRAW of B's slot
        assert mask[facing_env.actions.ATTACK_BASE + block * n + slots.index("B")] == 0


def _slots(env, cid: str) -> list[str]:
    from facing_env.rules.codec import creature_slots

    return creature_slots(env.battle, cid)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_step_into_an_unseen_foe_bumps(engine):
    """Issue 36's bump: O steps south into B's square (unseen, in its rear). O stays
    where it was, facing south now (MOVE turns toward the step), the rest of that move's
    movement is lost, a ``bump`` event names B, and the two hear each other: B is now
    perceived (in O's front anyway) and attackable."""
    env = _env(_scenario((3, 3), (3, 4)), "facing", engine)
    south = facing_env.actions.MOVE_BASE + 4
    env.step(south)
    b = env.battle
    o = b.creatures["O"]
    assert o.pos == (3, 3)
    bump = [e for e in env.events if e.kind == rules_engine.BUMP]
    assert [(e.actor, e.target, e.pos) for e in bump] == [("O", "B", (3, 4))]
    assert b.heard == {"O": {"B"}, "B": {"O"}}
    assert b.turn.movement_left == 0 and b.turn.moved
    assert not b.turn.move_available  # the move action that opened the movement is spent
    _, mask = _o_view(env)
    slots = _slots(env, "O")
    assert mask[facing_env.actions.ATTACK_BASE + slots.index("B")] == 1
    assert mask[facing_env.actions.FIVE_FOOT_BASE + 4] == 0  # it moved: no 5-foot step


@pytest.mark.parametrize("engine", ENGINES)
def test_a_five_foot_step_into_an_unseen_foe_is_spent_where_it_stands(engine):
    env = _env(_scenario((3, 3), (3, 4)), "facing", engine)
    env.step(facing_env.actions.FIVE_FOOT_BASE + 4)
    b = env.battle
    assert b.creatures["O"].pos == (3, 3) and b.creatures["O"].facing == 0  # still N
    assert b.turn.five_foot_step_taken and b.turn.move_available
    assert [e.kind for e in env.events[-1:]] == [rules_engine.BUMP]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_foe_left_behind_keeps_its_last_known_position(engine):
    """F stands in O's front, two squares north. O turns south (its free facing change):
    F is now wholly in O's rear, so its row shows only ENEMY 1 and where O last saw it
    (DX 0, DY -2 / window), and ``battle.last_seen`` says so."""
    env = _env(_scenario((3, 3), (0, 6)), "facing", engine)
    obs, _ = _o_view(env)
    slots = _slots(env, "O")
    table = env.layout.split(obs.copy())[1]
    assert table[slots.index("F"), Column.PRESENT] == 1.0
    env.step(facing_env.actions.TURN_BASE + 4)  # face S
    assert env.battle.last_seen["O"]["F"] == (3, 1)
    obs, _ = _o_view(env)
    row = env.layout.split(obs.copy())[1][slots.index("F")]
    want = np.zeros_like(row)
    want[Column.ENEMY] = 1.0
    want[Column.DY] = np.float32(-2 / env.layout.window)
    np.testing.assert_array_equal(row, want)


def test_full_perception_is_the_default_and_unchanged():
    env = facing_env.raw_env()
    assert env.scenario.perception == "full"
    env.reset(seed=0)
    assert env.battle.last_seen == {} and env.battle.heard == {}


def test_the_option_is_checked_by_name():
    with pytest.raises(ValueError, match=r"perception must be one of \('full', 'facing', 'spot'\)"):
        facing_env.raw_env(perception="sideways")
    with pytest.raises(ValueError, match="perception must be one of"):
        VectorEnv("duel", 2, perception="x-ray")


def test_a_scenario_file_names_its_perception(tmp_path):
    spec = _scenario((3, 3), (3, 5))
    assert scenario_from_dict({**spec, "perception": "facing"}).perception == "facing"
    with pytest.raises(ScenarioError, match="perception"):
        scenario_from_dict({**spec, "perception": "sideways"}, source="bad.yaml")


def test_the_vector_env_hides_alike():
    """``VectorEnv(perception="facing")`` gives the AEC env's observations and masks."""
    spec = scenario_from_dict(_scenario((3, 3), (3, 5)))
    vec = VectorEnv(spec, 1, seed=0, perception="facing")
    obs, _ = vec.reset(seed=0)
    env = facing_env.raw_env(scenario=spec, perception="facing")
    env.reset(seed=0)
    want = env.observe(env.agent_selection)
    np.testing.assert_array_equal(obs["observation"][0], want["observation"])
    np.testing.assert_array_equal(obs["action_mask"][0], want["action_mask"])
    vec.close()


@pytest.mark.parametrize(("first", "second"), _PAIRS)
def test_the_agents_act_on_what_they_perceive(first, second):
    """The scripted agents read the observation, so they choose alike in both battles of
    a pair; the expert reads the battle as O knows it (``agents.expert.perceived``): B,
    never perceived, stands in the free space farthest from O, and the plan is the same."""
    from facing_env.agents import make_agent
    from facing_env.agents.expert import perceived

    rng = np.random.default_rng(0)
    chosen: dict[str, set[int]] = {}
    for b_pos in (first, second):
        env = _env(_scenario((3, 3), b_pos), "facing", "compiled")
        obs, mask = _o_view(env)
        for name in ("aggressive", "flanker", "defensive"):
            chosen.setdefault(name, set()).add(make_agent(name).act(obs, mask, rng))
        view = perceived(env.battle, "O")
        assert view.creatures["B"].pos == (0, 0) and view.creatures["F"].pos == (3, 1)
        expert = make_agent("expert")
        chosen.setdefault("expert", set()).add(expert.act_battle(env.battle, mask))
    assert all(len(actions) == 1 for actions in chosen.values()), chosen


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("b_pos", "feats", "seen"),
    [
        ((5, 3), [], True),  # flank: 10.5 + 6 - 10.5 - 0 = 6, less 5: 1 >= 0
        ((3, 5), [], False),  # rear: 6 - 10 = -4
        ((3, 5), ["Combat Awareness"], True),  # UA-FEAT-CA: rear -5: 1
        ((2, 1), [], True),  # front: in plain view, no check
    ],
)
def test_spot_perception_opposes_spot_and_hide_with_the_facing_penalties(
    engine, b_pos, feats, seen
):
    """``perception="spot"`` (UA-PER-01 with the dice), expected dice (every d20 10.5): O
    (Spot +6, facing N) against B (Hide +0): O's margin is 6 from the start's checks; B is
    perceived in O's front, in its flank (-5) but not its rear (-10), unless O has Combat
    Awareness (-5 in the rear). What O does not perceive is hidden as under ``facing``."""
    spec = {**_scenario((3, 3), b_pos, spot=6, feats=feats), "dice": "expected"}
    env = _env(spec, "spot", engine)
    assert env.battle.spot_rolls["O"] == {"B": 6.0, "F": 6.0}
    obs, _ = _o_view(env)
    table = env.layout.split(obs.copy())[1]
    assert bool(table[_slots(env, "O").index("B"), Column.PRESENT] == 1.0) is seen


def _creature(cid, team, pos, facing, dex=10, **fields) -> dict:
    return {"id": cid, "team": team, "pos": list(pos), "facing": facing, "dex": dex,
            **FIGHTER, **fields}  # fmt: skip


@pytest.mark.parametrize("engine", ENGINES)
def test_an_unseen_foes_death_is_not_seen(engine):
    """O sees B, then turns its back on it (B is hidden, its row the last-known place). A
    strikes B: whether B dies or not, O's observation is the same (a foe's death is seen
    only when the body is perceived); B's row keeps its last-known place."""
    views = []
    for b_hp in (1, 30):
        spec = {
            "name": "death",
            "ruleset": "ua35",
            "dice": "expected",
            "map": ".......\n" * 7,
            "creatures": [
                _creature("O", "o", (3, 3), "S", dex=18),
                _creature("A", "o", (3, 6), "N", dex=16),
                _creature("B", "x", (3, 5), "N", hp=b_hp, ac=10),
                _creature("C", "x", (0, 0), "S"),
            ],
        }
        env = _env(spec, "facing", engine)
        env.step(facing_env.actions.TURN_BASE + 0)  # O faces N: B is in its rear now
        env.step(0)  # END_TURN
        assert env.agent_to_id[env.agent_selection] == "A"
        slots_a = _slots(env, "A")
        env.step(facing_env.actions.ATTACK_BASE + slots_a.index("B"))
        assert (env.battle.creatures["B"].hp <= 0) is (b_hp == 1)
        o_agent = next(a for a, cid in env.agent_to_id.items() if cid == "O")
        views.append(env.observe(o_agent)["observation"])
        assert env.battle.last_seen["O"]["B"] == (3, 5)
    np.testing.assert_array_equal(views[0], views[1])


@pytest.mark.parametrize("engine", ENGINES)
def test_a_charge_whose_lane_meets_an_unseen_foe_bumps_at_once(engine):
    """O (facing N) may charge T, in its flank: the lane to (7, 6) crosses (6, 6), where H
    stands in O's rear, unseen, so the mask allows the charge. The charge bumps before
    its first step: O stays, the full-round action is spent, no attack, and the two hear
    each other."""
    spec = {
        "name": "lane",
        "ruleset": "ua35",
        "dice": "expected",
        "map": ".........\n" * 9,
        "creatures": [
            _creature("O", "o", (4, 4), "N", dex=18),
            _creature("T", "x", (8, 7), "N"),
            _creature("H", "x", (6, 6), "N"),
        ],
    }
    env = _env(spec, "facing", engine)
    n = env.layout.n_slots
    charge = facing_env.actions.ATTACK_BASE + n + _slots(env, "O").index("T")
    assert _o_view(env)[1][charge] == 1
    env.step(charge)
    b = env.battle
    assert b.creatures["O"].pos == (4, 4)
    bumps = [(e.actor, e.target, e.pos) for e in env.events if e.kind == rules_engine.BUMP]
    assert bumps == [("O", "H", (5, 5))]
    assert not any(e.kind == "attack" for e in env.events[-3:])
    # nothing left but END_TURN: O's turn ended by itself, and with it what O heard; H
    # hears O until the end of its own turn
    assert b.turn.actor != "O" and b.heard == {"H": {"O"}}
