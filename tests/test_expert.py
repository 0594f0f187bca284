"""The ``expert`` search agent (facing_env.agents.expert): exact decisions on ASCII boards.

Each test builds a position, lets the expert plan the acting creature's turn and checks
the whole plan: the tactics it finds with the engine as its forward model.
"""

from __future__ import annotations

import numpy as np
import pytest

from facing_env.actions import action_names
from facing_env.agents import make_agent
from facing_env.agents.expert import ExpertAgent
from facing_env.agents.lookahead import (
    _AREA_VALUE,
    Lookahead,
    _best_strike,
    _free,
    attack_potential,
)
from facing_env.evaluation.match import play_game, play_games
from facing_env.rules import engine
from facing_env.rules.codec import ActionCodec, creature_slots
from facing_env.rules.dice import Dice
from tests.boards import board
from tests.test_ceiling import FIGHTER  # the duel's fighter, as a board's fields

NAMES = action_names("square", 2)


def _a_to_act(text: str, a_facing: str, b_facing: str, ruleset: str = "ua35", **a_fields):
    b = board(
        text,
        ruleset,
        A={"facing": a_facing, "team": "a", **FIGHTER, **a_fields},
        B={"facing": b_facing, "team": "b", **FIGHTER},
    )
    engine.start(b, Dice(0), flat_footed_start=False)
    while b.turn.actor != "A":
        engine.apply(b, engine.Action(engine.END_TURN), Dice(0))
    return b


def _plan(battle) -> list[str]:
    codec = ActionCodec(len(battle.creatures))
    return [NAMES[a] for a, _ in ExpertAgent().plan(battle, codec.n)]


REAR_STEP = """
    . . . . . .
    . . . A o .
    . . . B . .
    . . . . o .
    . . . . . .
"""


def test_rear_step_against_a_foe_facing_a_diagonal():
    """UA-MOVE-05, UA-OPP-02: B faces NW with A north of it, in its front (a foe that
    turns only when its attacker leaves its front). B's rear (E, SE, S) is one 5-foot
    step away: the expert steps SE into it (no attack of opportunity, SRD-AOO-04), turns
    to face it squarely (W) and attacks at +4. The pillars cover the squares from which
    B could answer from the expert's flank. (A one-on-one melee: the turn of the melee
    table, tests/test_melee.py.)"""
    plan = _plan(_a_to_act(REAR_STEP, "S", "NW"))
    assert plan == ["FIVE_FOOT_STEP(SE)", "TURN(slot 6)", "ATTACK(slot 1)", "END_TURN"]


CORNER = """
    B A . . . .
    . . . . . .
    . . . . . .
    . . . . . .
"""


def test_corner_trap():
    """UA-MOVE-05/06, UA-OPP-01: B is cornered, facing A on its east. The expert
    5-foot-steps SW into B's flank (south of it), attacks at +2 and ends facing NE: both
    squares B could step to are then in its front, and when B turns to face it, the
    square it left is B's flank again (the trap repeats)."""
    plan = _plan(_a_to_act(CORNER, "W", "E"))
    assert plan == ["FIVE_FOOT_STEP(SW)", "TURN(slot 0)", "ATTACK(slot 1)", "TURN(slot 1)"]


def test_no_rear_to_seek_under_standard_rules():
    """Under ``standard`` (no facing) no square round the foe is better than another: the
    expert attacks once and walks nowhere (a walk would draw an attack of opportunity)."""
    plan = _plan(_a_to_act(REAR_STEP, "S", "NW", ruleset="standard"))
    assert plan.count("ATTACK(slot 1)") == 1
    assert not any(p.startswith("MOVE") for p in plan)


def test_plan_is_deterministic_and_leaves_the_battle_alone():
    """The same battle gives the same plan (the search rolls no dice: every attack deals
    its mean), and planning does not touch the battle."""
    b = _a_to_act(REAR_STEP, "S", "NW")
    key = engine.state_key(b)
    assert _plan(b) == _plan(b)
    assert engine.state_key(b) == key


def test_opening_with_the_initiative_readies_out_of_the_foes_reach():
    """The duel's start with the expert to act first. A foe beyond its move and its reach
    walks in (the expert's assumption of a foe that cannot strike): the expert walks to the
    corner (8, 0), from where every square next to it is more than the foe's 6 squares of
    a move away (every second diagonal counts 2 under ``ua35``; UA-MOVE-01's free facing
    while walking) and off every charge lane (EP-CHG-01), turns toward the foe and readies:
    the foe walks into a readied attack (UA-PER-02's readied action, seen in front) and has
    no attack left this round."""
    from facing_env.env import raw_env

    env = raw_env(scenario="duel")
    env.reset(seed=0)
    assert env.battle.turn.actor == "red_fighter"
    plan = _plan(env.battle)
    assert plan == ["MOVE(NE)", "MOVE(E)", "MOVE(E)", "MOVE(E)", "TURN(slot 5)", "READY"]


HELD_CORNER = """
    . . . . . . . . A
    . . . . . . . B .
    . . . . . . . . .
    . . . o . . . . .
    . . . . . . . . .
    . . . . . o . . .
    . . . . . . . . .
"""


def test_a_foe_never_seen_leaving_a_fight_is_assumed_to_stay():
    """B faces NE with A in its front corner (A cornered at the board's edge: no square by
    B is off its front). A foe never seen stepping away while an enemy stood within its
    reach is assumed to attack from where it stands, turning only when A leaves its front:
    the expert 5-foot-steps S (still B's front, UA-MOVE-05), attacks (B, W of it, is in
    its front) and turns W, so that B's rear (S of it) is one 5-foot step away next turn
    (UA-OPP-02, +4). The same position once B has been seen stepping:
    tests/test_melee.py."""
    plan = _plan(_a_to_act(HELD_CORNER, "SW", "NE"))
    assert plan == ["FIVE_FOOT_STEP(S)", "ATTACK(slot 1)", "TURN(slot 6)", "END_TURN"]


WAITING_FOE = """
    . . . . . . . . .
    . . . . . B . . .
    . . . . . . . . .
    . . . o . . . . .
    . . . . . . . . .
    . . . . . o . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . A
"""


@pytest.mark.parametrize(("rounds", "plan"), [
    (4, ["READY", "END_TURN"]),
    (6, ["READY", "END_TURN"]),
    (10, ["MOVE(N)", "MOVE(N)", "MOVE(N)", "MOVE(N)", "MOVE(NW)", "MOVE(NW)", "END_TURN"]),
])  # fmt: skip
def test_the_expert_waits_readied_for_a_foe_that_waits(rounds, plan):
    """A in the corner facing NW, B more than a move and an attack away (7 squares: it
    can neither walk up and attack nor charge, EP-CHG-01). In rounds before
    :data:`~facing_env.agents.expert.PATIENCE` (7) the expert stays readied in its corner
    (UA-PER-02: B must come through its front), as a foe that waits out of reach in its
    first rounds (the scripted ``flanker``, 6 of the duel's 30) walks into a readied
    attack once it comes. Past PATIENCE it closes in, by round 10 here
    (:data:`~facing_env.agents.expert.LATE_APPROACH` grows with each round: a battle that
    reaches its round limit counts against both sides)."""
    b = _a_to_act(WAITING_FOE, "NW", "S")
    b.initiative.round = rounds
    assert _plan(b) == plan


def test_a_waiting_turn_that_comes_back_is_replayed_not_searched(monkeypatch):
    """Before round PATIENCE no score depends on the round: the same battle a round later
    gets the same turn, replayed without a search (the same games, faster)."""
    b = _a_to_act(WAITING_FOE, "NW", "S")
    b.initiative.round = 3
    codec = ActionCodec(2)
    mask = codec.mask(b, creature_slots(b, "A"))
    agent = ExpertAgent()
    assert NAMES[agent.act_battle(b, mask)] == "READY"
    later = b.copy()
    later.initiative.round = 4
    monkeypatch.setattr(agent, "_search", lambda *args: pytest.fail("searched again"))
    assert NAMES[agent.act_battle(later, mask)] == "READY"
    later.place("B", (4, 1))  # the foe moved: a new search
    with pytest.raises(pytest.fail.Exception, match="searched again"):
        agent.act_battle(later, mask)


def test_a_battle_that_comes_back_is_not_searched_again(monkeypatch):
    """The search is remembered by battle (ExpertAgent._search): the same battle in
    another game (a fork of the same expert) gets the same turn without a search; a
    battle that differs in any moving field is searched."""
    b = _a_to_act(WAITING_FOE, "NW", "S")
    b.initiative.round = 10
    codec = ActionCodec(2)
    mask = codec.mask(b, creature_slots(b, "A"))
    agent = ExpertAgent()
    first = agent.act_battle(b, mask)
    assert NAMES[first] == "MOVE(N)"
    other = agent.fork()
    monkeypatch.setattr(other, "_searched", lambda *args: pytest.fail("searched again"))
    assert other.act_battle(b.copy(), mask) == first
    moved = b.copy()
    moved.place("B", (4, 1))
    with pytest.raises(pytest.fail.Exception, match="searched again"):
        other.act_battle(moved, mask)


def test_the_memory_changes_no_game(monkeypatch):
    """Games played with the remembered searches are the games played searching every
    turn afresh."""
    expert, flanker = make_agent("expert"), make_agent("flanker")
    lineups = [{"red": expert, "blue": flanker}, {"red": flanker, "blue": expert}] * 2
    remembered = play_games("duel", lineups, 90)
    assert expert._memo
    monkeypatch.setattr(ExpertAgent, "_search", ExpertAgent._searched)
    fresh = play_games("duel", lineups, 90)
    assert [(r.winner, r.actions) for r in remembered] == [(r.winner, r.actions) for r in fresh]


def test_expert_is_named_everywhere_agents_are():
    agent = make_agent("expert")
    assert isinstance(agent, ExpertAgent)
    with pytest.raises(TypeError, match="needs the battle"):
        agent.act(np.zeros(3, np.float32), np.ones(3, np.int8), np.random.default_rng(0))


def test_lookahead_rows_are_the_engine():
    """A row of the forward model stepped with an action is the object engine's battle
    after that action with mean dice (the hit points as fractions)."""
    b = _a_to_act(REAR_STEP, "S", "NW")
    codec = ActionCodec(2)
    look = Lookahead(64)
    look.load(b, codec.n)
    mask = codec.mask(b, creature_slots(b, "A"))
    assert np.array_equal(look.mask[0], mask)
    step = next(a for a in np.flatnonzero(mask) if NAMES[a] == "FIVE_FOOT_STEP(SE)")
    row = look.expand(np.array([0]), np.array([step]))[0]
    reference = b.copy()
    engine.apply(reference, codec.decode(b, creature_slots(b, "A"), step), Dice(0, "mean"))
    slot = {cid: k for k, cid in enumerate(b.creatures)}
    for cid, c in reference.creatures.items():
        k = slot[cid]
        assert (look.state.x[row, k], look.state.y[row, k]) == c.pos
        assert look.state.facing[row, k] == c.facing


@pytest.mark.parametrize("scenario", ["duel", "skirmish"])
def test_play_games_matches_play_game_with_the_expert(scenario):
    """The expert keeps one plan per game, so games played side by side as the battles
    of one VectorEnv are the games play_game plays one by one."""
    expert, flanker = make_agent("expert"), make_agent("flanker")
    teams = ("red", "blue")
    lineups = [{teams[0]: expert, teams[1]: flanker}, {teams[0]: flanker, teams[1]: expert}]
    batch = play_games(scenario, lineups, 40)
    for g, lineup in enumerate(lineups):
        one = play_game(scenario, lineup, 40 + g)
        assert (one.winner, one.rounds) == (batch[g].winner, batch[g].rounds)
        assert [a for a in one.actions if a[1] is not None] == batch[g].actions


def test_evaluate_in_worker_processes_plays_the_same_games():
    """evaluate(workers=2) splits a pair's games over two processes (the expert chooses
    game by game): the same games, the same tallies as in one process."""
    from facing_env.evaluation.evaluate import evaluate

    one = evaluate("duel", ["expert", "flanker"], 4, seed=77)
    two = evaluate("duel", ["expert", "flanker"], 4, seed=77, workers=2)
    assert one.pairs[0].to_dict() == two.pairs[0].to_dict()
    assert one.agents["expert"].attacks == two.agents["expert"].attacks


SOUTH_EDGE_APART = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . A . . . .
    . . . . . . . . .
    . . . . B . . . .
"""
SOUTH_EDGE_TOGETHER = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . A . . . .
    . . . . B . . . .
"""


@pytest.mark.parametrize(("seen_waiting", "plan"), [
    (False, ["FIVE_FOOT_STEP(SE)", "TURN(slot 6)", "ATTACK(slot 1)", "TURN(slot 7)"]),
    (True, ["ATTACK(slot 1)", "FIVE_FOOT_STEP(N)", "END_TURN"]),
])  # fmt: skip
def test_a_foe_seen_waiting_is_struck_and_left(seen_waiting, plan):
    """B stands against the south edge facing N, A north of it, in its front. A foe never
    seen holding a readied attack out of reach is the melee table's foe: the expert
    5-foot-steps into B's flank (UA-MOVE-05), turns and attacks at +2 (UA-OPP-01). Once
    the expert has seen B wait (readied, out of every enemy's reach, and not come since:
    ``Sightings.waiting``), B is modelled as staying where it is, so the expert strikes
    from where it stands and 5-foot-steps back out of B's reach (SRD-AOO-04: the step
    draws no attack of opportunity): B cannot strike back this turn, and next turn the
    expert walks in again where B's readied attack cannot go off (UA-PER-02) or goes off
    at -5 (UA-ATK-02, from B's flank)."""
    expert = ExpertAgent()
    n = ActionCodec(2).n
    mask = np.ones(n, dtype=np.int8)
    if seen_waiting:
        apart = _a_to_act(SOUTH_EDGE_APART, "S", "N")
        apart.creatures["B"].readied = True
        expert.act_battle(apart, mask)
    together = _a_to_act(SOUTH_EDGE_TOGETHER, "S", "N")
    expert.act_battle(together, mask)
    assert list(expert.waiters) == [False, seen_waiting]
    assert [NAMES[a] for a, _ in expert.plan(together, n)] == plan


def test_a_waiting_foe_that_comes_is_waiting_no_more():
    """``Sightings.waiting`` flags a creature seen readied out of every enemy's reach; a
    walk of more than a square, or a step into an enemy's reach, clears the flag for the
    rest of the game (the expert's model of that foe goes back to walking in)."""
    from facing_env.agents.belief import Sightings

    apart = _a_to_act(SOUTH_EDGE_APART, "S", "N")
    apart.creatures["B"].readied = True
    seen = Sightings()
    seen.update(apart)
    assert list(seen.waiting(apart)) == [False, True]
    stepped = _a_to_act(SOUTH_EDGE_APART, "S", "N")
    stepped.creatures["B"].pos = (4, 5)  # B steps north, into A's reach
    seen.update(stepped)
    assert list(seen.waiting(stepped)) == [False, False]
    apart.creatures["B"].readied = True
    seen.update(apart)  # readied out of reach again: it has come once, it is no waiter
    assert list(seen.waiting(apart)) == [False, False]
    walked = Sightings()
    walked.update(apart)
    moved = _a_to_act(SOUTH_EDGE_APART, "S", "N")
    moved.creatures["B"].pos = (6, 6)  # two squares in one go: a walk
    walked.update(moved)
    assert list(walked.waiting(moved)) == [False, False]


def test_sightings_start_over_with_a_new_battle_in_the_same_slot():
    """A VectorEnv starts a new battle in a slot when one ends: a battle earlier than the
    last one seen (round, turn) starts the expert's sightings over, so a foe's jump back to
    its starting square is not a step seen."""
    b = _a_to_act(HELD_CORNER, "SW", "NE")
    codec = ActionCodec(2)
    agent = ExpertAgent()
    moved, later = b.copy(), b.copy()
    moved.place("B", (8, 1))
    moved.initiative.round = later.initiative.round = 5
    for battle in (moved, later):
        agent.act_battle(battle, codec.mask(battle, creature_slots(battle, "A")))
    assert agent.steppers.tolist() == [False, True]
    fresh = b.copy()
    fresh.place("B", (8, 1))  # round 1 again: B where it stood before, not a step
    agent.act_battle(fresh, codec.mask(fresh, creature_slots(fresh, "A")))
    assert agent.steppers.tolist() == [False, False]


WALK_TO_REAR = """
    . . . . . . .
    . A . . . . .
    . . . . . . .
    . . . B . . .
    . . . . . . .
"""

REAR_WALLED = """
    . . . . . . .
    . A . . . . .
    . . . . . . .
    . . . B . . .
    . . o o o . .
"""


def _potential(text: str, moves: int) -> float:
    """``attack_potential`` of A on a board (B facing N), A allowed ``moves`` cells."""
    battle = _a_to_act(text, "S", "N")
    look = Lookahead(4)
    look.load(battle, ActionCodec(len(battle.creatures)).n)
    s = look.state
    k = s.present.shape[1]
    out = np.zeros((1, k))
    walk = np.full((1, k), moves, dtype=np.int64)
    attack_potential(look.tables, s, np.zeros(1, dtype=np.int64), _AREA_VALUE, walk, out)
    return float(out[0, list(battle.creatures).index("A")])


def test_attack_potential_after_a_walk_is_the_rear_attack():
    """UA-OPP-02: A (+6, 1d8+3) may walk 6 cells to B's rear (B faces N, its rear the
    row below it, 3 cells away): 0.70 x 7.5 = 5.25 hit points at +4 against AC 17.
    With a 5-foot step (to the cell NW of B) only B's front is in reach: 0.50 x 7.5 =
    3.75; with the rear row walled by pillars the best is the flank, 0.60 x 7.5 = 4.5
    (UA-OPP-01)."""
    assert _potential(WALK_TO_REAR, 6) == pytest.approx(5.25)
    assert _potential(WALK_TO_REAR, 1) == pytest.approx(3.75)
    assert _potential(REAR_WALLED, 6) == pytest.approx(4.5)


def _scanned(look: Lookahead, a: int, m: int) -> float:
    """The best strike of creature ``a`` of row 0 over every free cell within ``m``,
    scanned one by one (what ``attack_potential`` computes). The kernels get ``a`` as an
    np.int32, as the engine passes it, so they load the versions ``python -m facing_env
    warm`` compiled instead of compiling their own."""
    s = look.state
    a = np.int32(a)
    best = 0.0
    for dy in range(-m, m + 1):
        for dx in range(-m, m + 1):
            cx, cy = int(s.x[0, a]) + dx, int(s.y[0, a]) + dy
            if (dx or dy) and not _free(s, 0, a, cx, cy, m):
                continue
            best = max(best, _best_strike(look.tables, s, 0, a, cx, cy, _AREA_VALUE))
    return best


@pytest.mark.parametrize("scenario", ["skirmish", "ogre", "benchmark/ruins", "hex_duel"])
def test_attack_potential_after_a_walk_is_the_best_over_every_cell(scenario):
    """The walk's potential (found from the cells around each foe) is the best strike over
    every free cell within the walk, scanned one by one, on battles of a scenario after
    random actions (Large reach, terrain, a hex grid)."""
    from facing_env.env import raw_env

    env = raw_env(scenario=scenario)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    look = Lookahead(64)
    checked = 0
    for step in range(60):
        obs, *_ = env.last()
        if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            break
        if step % 6 == 0:
            look.load(env.battle, obs["action_mask"].shape[0])
            s = look.state
            for m in (2, 4, 6, 8):
                walk = np.full((1, s.present.shape[1]), m, dtype=np.int64)
                out = np.zeros((1, s.present.shape[1]))
                attack_potential(
                    look.tables, s, np.zeros(1, dtype=np.int64), _AREA_VALUE, walk, out
                )
                for a in range(int(s.n_creatures[0])):
                    if s.present[0, a] and s.hp[0, a] > 0 and s.n_attacks[0, a] > 0:
                        assert out[0, a] == _scanned(look, a, m)
                        checked += 1
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert checked > 0
