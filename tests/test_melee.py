"""The one-on-one melee table (facing_env.agents.melee): exact values, the engine's steps,
and the expert's turns by it."""

from __future__ import annotations

import numpy as np
import pytest

from facing_env.actions import FIVE_FOOT_BASE
from facing_env.agents.expert import ExpertAgent
from facing_env.agents.melee import _steps, hit_values, solve
from facing_env.rules.codec import ActionCodec, creature_slots
from facing_env.rules.geometry import direction_vectors
from facing_env.types import GridKind, Terrain
from tests.test_expert import HELD_CORNER, NAMES, _a_to_act

HITS = hit_values(6, 7.5, 17)  # the duel's fighters: +6 against AC 17, 1d8+3
OPEN = np.zeros((5, 5), dtype=np.int8)
W, E, S, NE = 6, 2, 4, 1  # facings (geometry.direction_vectors: N, NE, E, SE, S, SW, W, NW)


def test_hit_values_are_the_d20_chances_times_the_mean_damage():
    """UA-OPP-01/02: +6 against AC 17 hits on 11 or more (0.50); +2 from the flank on 9
    (0.60), +4 from the rear on 7 (0.70); 1d8+3 deals 7.5 on average. A natural 20 always
    hits, a natural 1 always misses."""
    assert HITS.tolist() == pytest.approx([3.75, 4.125, 4.5, 4.875, 5.25])
    assert hit_values(30, 1.0, 10).tolist() == pytest.approx([0.95] * 5)
    assert hit_values(-30, 1.0, 10).tolist() == pytest.approx([0.05] * 5)


def test_the_tables_areas_are_the_engines_for_every_facing():
    """UA-FACE-02, IC-02, UA-OPP-01/02: the table reads a square's area by its direction
    less the facing; for every facing of a one-square creature and every neighbouring
    square that is the engine's area (front 0, flank +2, rear +4)."""
    from facing_env.agents.melee import _AREA_BONUS, _FRONT
    from facing_env.rules.areas import area_of

    battle = _a_to_act("""
        . . .
        . A .
        . . B
    """, "N", "N")  # fmt: skip
    bonus = {"front": 0, "flank": 2, "rear": 4}
    for facing in range(8):
        battle.creatures["A"].facing = facing
        for d, (dx, dy) in enumerate(direction_vectors(GridKind.SQUARE)):
            area = area_of(battle, "A", (1 + dx, 1 + dy))
            assert _AREA_BONUS[(d - facing) % 8] == bonus[area]
            assert bool(_FRONT[(d - facing) % 8]) == (area == "front")


@pytest.mark.parametrize("steps", [False, True])
def test_the_corner_trap_is_worth_a_flank_attack_every_round(steps):
    """UA-OPP-01, UA-MOVE-05/06, UA-FACE-02: B cornered at (0, 0) facing A, east of it.
    A steps to B's south (its flank), attacks at +2 and ends facing NE: both squares B
    could step to are in A's front, so B, turning toward A, strikes from A's front; next
    turn the square A left is B's flank. A deals 4.5 a round and takes 3.75: 0.75 a
    round, 7.5 over the rounds at the table's discount of 0.9 (0.75 / 0.1), whether or
    not B may step."""
    table = solve(OPEN, HITS, HITS, steps)
    assert table.to_act[table.index((1, 0), W, (0, 0), E)] == pytest.approx(7.5, abs=1e-3)


def test_a_foe_that_never_steps_is_flanked_every_round_anywhere():
    """UA-OPP-01: against a foe that holds its square and turns toward its attacker only
    when it leaves its front, A steps into its flank each turn (+2) and ends with B's
    square in its front: 0.75 a round anywhere on open ground (7.5), and once the rear
    (+4, UA-OPP-02) from a foe facing a diagonal: 7.5 + 0.75."""
    table = solve(OPEN, HITS, HITS, b_steps=False)
    assert table.to_act[table.index((2, 2), S, (2, 1), S)] == pytest.approx(7.5, abs=1e-3)
    assert table.to_act[table.index((2, 2), S, (2, 1), NE)] == pytest.approx(8.25, abs=1e-3)


def test_steps_do_not_cut_a_walls_corner_but_may_cut_a_pillars():
    """EP-TER-04: a diagonal step past a wall's corner is not allowed, past a pillar's it
    is; EP-5FT-03: no 5-foot step into difficult terrain. A at (1, 1), B at (2, 1): A's
    step NE to (2, 0) passes the corner of (1, 0)."""
    for corner, legal in ((Terrain.BLOCKED, False), (Terrain.PILLAR, True)):
        terrain = np.zeros((3, 3), dtype=np.int8)
        terrain[0, 1] = corner
        free = np.isin(terrain, (Terrain.OPEN, Terrain.HAZARDOUS))
        _, ok = _steps(free, terrain == Terrain.BLOCKED, *map(np.array, ([1], [1], [2], [1])))
        assert bool(ok[0, NE]) is legal
    terrain = np.zeros((3, 3), dtype=np.int8)
    terrain[0, 2] = Terrain.DIFFICULT
    free = np.isin(terrain, (Terrain.OPEN, Terrain.HAZARDOUS))
    _, ok = _steps(free, terrain == Terrain.BLOCKED, *map(np.array, ([1], [1], [2], [1])))
    assert not ok[0, NE]


ROUGH = """
    A B # . .
    . o . . ~
    . . . # .
    ~ . . . .
"""


def test_the_tables_steps_are_the_engines():
    """Every 5-foot step the table gives A (to a square next to B) is one the engine
    allows, and every one the engine allows to such a square is in the table
    (EP-5FT-01/03, EP-TER-04, UA-MOVE-05), for every pair of neighbouring open squares
    of a board with walls, a pillar and difficult terrain."""
    battle = _a_to_act(ROUGH, "N", "N")
    codec = ActionCodec(2)
    free = np.isin(battle.terrain, (Terrain.OPEN, Terrain.HAZARDOUS))
    wall = battle.terrain == Terrain.BLOCKED
    checked = 0
    for ay, ax in zip(*np.nonzero(free), strict=True):
        for by, bx in zip(*np.nonzero(free), strict=True):
            if max(abs(ax - bx), abs(ay - by)) != 1:
                continue
            b = battle.copy()
            b.place("A", (int(ax), int(ay)))
            b.place("B", (int(bx), int(by)))
            mask = codec.mask(b, creature_slots(b, "A"))
            _, ok = _steps(free, wall, *map(np.array, ([ax], [ay], [bx], [by])))
            for d, (dx, dy) in enumerate(direction_vectors(GridKind.SQUARE)):
                near = max(abs(ax + dx - bx), abs(ay + dy - by)) == 1
                engine = bool(mask[FIVE_FOOT_BASE + d]) and near
                assert bool(ok[0, d]) == engine, ((ax, ay), (bx, by), d)
            checked += 1
    assert checked > 40


def test_a_foe_seen_stepping_is_baited_into_the_corner():
    """The held corner of tests/test_expert.py after the expert has seen B 5-foot-step:
    B would step again to strike from A's flank (UA-OPP-01). Staying in the corner, every
    square B could reach is in A's front and the melee is even; the table's turn instead
    steps S out of the corner (still B's front), attacks and ends facing W, so that B's
    best step is into the corner square (8, 0), A's flank: from there on B is cornered
    and A flanks it every round (the corner trap)."""
    b = _a_to_act(HELD_CORNER, "SW", "NE")
    moved = b.copy()
    moved.place("B", (8, 1))  # B stood E of its square, within A's reach
    codec = ActionCodec(2)
    agent = ExpertAgent()
    agent.act_battle(moved, codec.mask(moved, creature_slots(moved, "A")))
    agent.act_battle(b, codec.mask(b, creature_slots(b, "A")))
    assert agent.steppers.tolist() == [False, True]
    plan = [NAMES[a] for a, _ in agent.plan(b, codec.n)]
    assert plan == ["FIVE_FOOT_STEP(S)", "ATTACK(slot 1)", "TURN(slot 6)", "END_TURN"]


def test_the_table_is_left_to_the_search_with_more_than_two_creatures():
    """Three creatures: the turn is the search's (a one-on-one table does not apply)."""
    from facing_env.agents.lookahead import Lookahead
    from facing_env.agents.melee import melee_turn
    from facing_env.env import raw_env

    env = raw_env(scenario="skirmish")
    env.reset(seed=0)
    look = Lookahead(1024)
    look.load(env.battle, ActionCodec(len(env.battle.creatures)).n)
    assert melee_turn(look, np.zeros(4, dtype=bool)) == -1


def test_a_stepping_foe_steps_for_any_better_area_however_weak_its_blow():
    """UA-OPP-01: a foe that may step takes the flank over the front even when its blow
    deals 1 hit point (a flank's +2 is worth 0.1 of it). A at (2, 2) facing N, B north of
    it facing S; this turn alone (no later rounds counted): B holding its square strikes
    from A's front (0.50 to hit), B stepping W of A from its flank (0.60)."""
    weak = hit_values(6, 1.0, 17)
    holds = solve(OPEN, HITS, weak, b_steps=False, discount=0.0, sweeps=1)
    steps = solve(OPEN, HITS, weak, b_steps=True, discount=0.0, sweeps=1)
    state = holds.index((2, 2), 0, (2, 1), S)
    assert holds.replying[state] == pytest.approx(-0.5)
    assert steps.replying[state] == pytest.approx(-0.6)
