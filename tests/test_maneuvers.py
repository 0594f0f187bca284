"""Charge, withdraw, readied attacks and attacks traded for 5-foot steps, on ASCII boards.

EP-CHG-01, EP-CHG-02 (charge), EP-WDR-01 (withdraw), UA-PER-02 (readied attacks and the
sight rule), EP-5FT-02 (player characters trade attacks for 5-foot steps). Expected dice:
every d20 is 10.5, so an attack's ``total - roll`` is exactly its attack bonus.
"""

from __future__ import annotations

import pytest

from facing_env import IllegalActionError, rules
from facing_env.rules import engine
from facing_env.rules.engine import Action
from tests.boards import board
from tests.engine_boards import END, attack, begin, do, keep, kinds, move, step5

N, NE, E, SE, S, SW, W, NW = range(8)
READY = Action(engine.READY)


def charge(target: str) -> Action:
    return Action(engine.CHARGE, target)


def withdraw(target: str) -> Action:
    return Action(engine.WITHDRAW, target)


def legal(b) -> set[Action]:
    return set(engine.legal_actions(b))


# -- charge (EP-CHG-01, EP-CHG-02) ----------------------------------------------------------


def _lane(text: str = "A . . . B", **fields):
    b = board(text, A={"team": "pc", "facing": "N", **fields.pop("A", {})}, **fields)
    begin(b, *sorted(b.creatures), flat_footed_start=False)
    return b


def test_ep_chg_01_charge_ends_in_the_closest_space_facing_the_target_with_plus_2():
    """EP-CHG-01: from (0,0) against B at (4,0) the closest space from which A can attack is
    (3,0), three squares away; the charge ends there facing B (E) and attacks at +2."""
    b = _lane()
    assert rules.charge_destinations(b, "A", "B") == [(3, 0)]
    assert rules.charge_path(b, "A", (3, 0)) == [(1, 0), (2, 0), (3, 0)]
    assert charge("B") in legal(b)
    events = do(b, charge("B"))
    plain = rules.attack_breakdown(b, "A", "B").total  # from (3,0) facing E, as it struck
    assert kinds(events)[:2] == ["charge", "attack"]
    assert (events[0].target, events[0].pos, events[0].cost) == ("B", (3, 0), 3)
    hit = events[1]
    assert hit.attack_kind == "charge" and hit.total - hit.roll == plain + 2
    a = b.creatures["A"]
    assert a.pos == (3, 0) and a.facing == E and a.charging


def test_charge_minus_2_ac_until_the_chargers_next_turn():
    """Charge: -2 AC until the charger's next turn (``ac_terms["charging"]``)."""
    b = _lane(B={"team": "foe", "facing": "W"})
    do(b, charge("B"))
    terms = rules.attack_breakdown(b, "B", "A")
    assert terms.ac_terms["charging"] == -2 and terms.target_ac == 10 - 2
    do(b, END)  # B's turn ends, A's begins: the penalty lapses
    assert not b.creatures["A"].charging
    assert rules.attack_breakdown(b, "B", "A").ac_terms["charging"] == 0


@pytest.mark.parametrize(
    ("text", "fields", "why"),
    [
        ("A . B", {}, "one square only"),
        ("A B", {}, "adjacent already"),
        ("A . . . B", {"A": {"speed": 10}}, "three squares at speed 10 ft"),
        ("A . C . B", {"C": {"team": "pc"}}, "an ally in the lane"),
        ("A ~ . . B", {}, "difficult terrain in the lane (EP-TER-01)"),
        ("A # . . B", {}, "a wall in the lane"),
    ],
)
def test_ep_chg_01_no_charge(text, fields, why):
    """EP-CHG-01: at least 2 squares, at most the speed, a lane free of creatures (even an
    ally) and of terrain that blocks or slows."""
    b = _lane(text, **fields)
    assert rules.charge_destinations(b, "A", "B") == [], why
    assert charge("B") not in legal(b)
    assert "charge" in (engine.why_illegal(b, charge("B")) or "")


def test_charge_is_a_full_round_action():
    """A charge needs the whole turn: not after a move, a 5-foot step or an attack."""
    b = _lane("A . . . . B")
    do(b, step5(E))
    assert charge("B") not in legal(b)
    assert "full-round" in engine.why_illegal(b, charge("B"))


def test_ep_chg_02_no_attack_of_opportunity_from_the_target_but_from_others():
    """EP-CHG-02: leaving (2,1), which B (reach 10) threatens, gives B no attack of
    opportunity during the charge; C threatens the squares A leaves and attacks. Walking
    the same line provokes both."""
    text = """
        . C . . .
        A . . . B
    """
    fields = {"B": {"team": "foe", "reach": 10}, "C": {"team": "foe"}}
    b = _lane(text, **fields)
    events = do(b, charge("B"))
    aoo = [(e.actor, e.attack_kind) for e in events if e.kind == "attack"]
    assert aoo == [("C", "aoo"), ("A", "charge")]
    walk = _lane(text, **fields)
    events = do(walk, move(E), move(E), move(E))
    assert sorted(e.actor for e in events if e.kind == "attack") == ["B", "C"]


# -- withdraw (EP-WDR-01) -------------------------------------------------------------------


def _withdrawal():
    b = board(
        """
        . . . . . .
        . . A B . .
        . . C . . .
        """,
        A={"team": "pc", "facing": "E"},
        B={"team": "foe", "facing": "W"},
        C={"team": "foe", "facing": "N"},
    )
    begin(b, "A", "B", "C", flat_footed_start=False)
    return b


def test_ep_wdr_01_the_primary_target_makes_no_attack_of_opportunity():
    """EP-WDR-01: withdrawing from B, A leaves (2,1), threatened by B and C: only C attacks."""
    b = _withdrawal()
    assert {withdraw("B"), withdraw("C")} <= legal(b)
    events = do(b, withdraw("B"))
    assert (events[0].kind, events[0].target, events[0].cost) == ("withdraw", "B", 6)
    events = do(b, move(W))
    assert [(e.actor, e.attack_kind) for e in events if e.kind == "attack"] == [("C", "aoo")]
    assert b.creatures["A"].pos == (1, 1)


def test_ep_wdr_01_every_square_further_from_the_primary_target_and_no_5_foot_step():
    """EP-WDR-01: from (2,1) next to B at (3,1), W (distance 2) is allowed, N to (2,0)
    (distance 1) is not; then NW to (0,0) (distance 3) is, E back to (2,0) is not. No
    5-foot step in the turn of a withdrawal."""
    b = _withdrawal()
    do(b, withdraw("B"))
    moves = {a for a in legal(b) if a.kind in (engine.MOVE, engine.STEP_KEEP_FACING)}
    assert move(W) in moves and move(N) not in moves and keep(N) not in moves
    assert not [a for a in legal(b) if a.kind == engine.FIVE_FOOT_STEP]
    assert "further from B" in engine.why_illegal(b, move(N))
    assert "withdrawal" in engine.why_illegal(b, step5(W))
    do(b, move(W))
    assert move(NW) in legal(b) and move(E) not in legal(b) and move(NE) not in legal(b)


def test_ep_wdr_01_only_from_a_creature_that_threatens():
    """EP-WDR-01: the primary target must threaten the mover; a withdrawal is full-round."""
    b = board("A . . B", A={"team": "pc"}, B={"team": "foe"})
    begin(b, "A", "B", flat_footed_start=False)
    assert withdraw("B") not in legal(b)
    assert "does not threaten" in engine.why_illegal(b, withdraw("B"))
    b = _withdrawal()
    do(b, Action(engine.TURN, N))
    do(b, step5(W))
    assert "full-round" in engine.why_illegal(b, withdraw("B"))


# -- readied attacks (UA-PER-02) ------------------------------------------------------------


def _ready(facing: str, ruleset: str = "ua35", **b_fields):
    b = board(
        "A . . B",
        ruleset,
        A={"team": "pc", "facing": facing},
        B={"team": "foe", "facing": "W", **b_fields},
    )
    begin(b, "A", "B", flat_footed_start=False)
    return b


def test_ua_per_02_a_readied_attack_interrupts_the_first_step_into_reach():
    """A readies; B's step to (2,0) stays out of reach, its step to (1,0) triggers the
    readied attack (an ordinary attack with the facing modifiers of the moment)."""
    b = _ready("E")
    events = do(b, READY)
    assert kinds(events)[:1] == ["ready"] and b.creatures["A"].readied
    do(b, END)
    assert kinds(do(b, move(W))) == ["move"]
    events = do(b, move(W))
    assert kinds(events)[:3] == ["move", "trigger", "attack"]
    assert (events[1].actor, events[1].target, events[1].pos) == ("A", "B", (1, 0))
    hit = events[2]
    assert hit.actor == "A" and hit.attack_kind == "readied" and hit.own_area == "front"
    assert not b.creatures["A"].readied


def test_ua_per_02_no_trigger_in_the_rear_area():
    """UA-PER-02: A faces W, so B stepping to (1,0) is in A's rear: the readied attack
    cannot see its trigger and stays readied."""
    b = _ready("W")
    do(b, READY, END)
    events = do(b, move(W), move(W))
    assert "trigger" not in kinds(events) and b.creatures["A"].readied


def test_ua_per_02_without_facing_every_direction_triggers():
    """``standard`` has no facing: the same approach from behind triggers."""
    b = _ready("W", "standard")
    do(b, READY, END)
    assert "trigger" in kinds(do(b, move(W), move(W)))


def test_a_readied_attack_that_drops_the_mover_stops_its_movement():
    """The readied attack resolves before the movement goes on: B (1 hp) dies at (1,0)."""
    b = _ready("E", hp=1)
    do(b, READY, END, move(W))
    events = do(b, move(W))
    assert kinds(events) == ["move", "trigger", "attack", "death"]
    assert b.creatures["B"].hp <= 0 and b.creatures["B"].pos == (1, 0) and engine.is_over(b)


def test_ready_is_the_standard_action_and_lapses_at_the_next_turn():
    """READY uses the standard action (no attack after it, a move still allowed); an
    unused readied attack lapses when the readier's next turn starts."""
    b = _ready("E")
    do(b, READY)
    assert READY not in legal(b) and move(E) in legal(b)
    with pytest.raises(IllegalActionError, match="standard action"):
        do(b, READY)
    do(b, END, END)  # B does nothing; A's next turn
    assert not b.creatures["A"].readied and READY in legal(b)


# -- trading attacks for 5-foot steps (EP-5FT-02) -------------------------------------------


def _full_attacker(pc: bool):
    b = board(
        """
        . . . . .
        . A B . .
        . . . . .
        """,
        A={"team": "pc", "base_attack_bonus": 11, "player_character": pc, "hp": 40},
        B={"team": "foe", "hp": 200},
    )
    begin(b, "A", "B", flat_footed_start=False)
    return b


def test_ep_5ft_02_a_player_character_trades_its_worst_attack_for_a_5_foot_step():
    """EP-5FT-02: BAB +11 gives attacks at +0/-5/-10. After one attack and the free 5-foot
    step, a player character may step again by giving up the -10 attack; the -5 is left."""
    b = _full_attacker(pc=True)
    do(b, attack("B"), step5(S))
    assert step5(N) in legal(b)
    events = do(b, step5(N))
    assert (events[0].kind, events[0].attack_kind) == ("five_foot_step", "traded")
    assert [s.penalty for s in b.turn.remaining] == [-5] and b.turn.full_attack
    hit = attacks_made = do(b, attack("B"))
    assert attacks_made[0].attack_kind == "attack" and hit[0].total - hit[0].roll == (
        rules.attack_breakdown(b, "A", "B").total - 5
    )


def test_ep_5ft_02_monsters_cannot_trade_attacks():
    """EP-5FT-02: "Monsters cannot trade attack actions for 5-foot steps"."""
    b = _full_attacker(pc=False)
    do(b, attack("B"), step5(S))
    assert not [a for a in legal(b) if a.kind == engine.FIVE_FOOT_STEP]
    assert "5-foot step" in engine.why_illegal(b, step5(N))


def test_ep_5ft_02_trading_before_attacking_commits_to_the_full_attack():
    """Steps may come before the attacks: the free one, then one bought with -10; the move
    action is gone (the full attack is declared) and two attacks remain."""
    b = _full_attacker(pc=True)
    do(b, step5(S), step5(N))
    assert not b.turn.move_available and [s.penalty for s in b.turn.remaining] == [0, -5]
    assert not [a for a in legal(b) if a.kind == engine.MOVE]


# -- the charge query against a brute-force reading of EP-CHG-01 ---------------------------


def _brute_charge_allowed(battle, m, t, dest) -> bool:
    """EP-CHG-01 read literally over the whole board (the query before env v1): 2 squares
    to the speed; the destination the closest space from which m can attack; a free space;
    a clear lane (``rules.movement._lane_clear``)."""
    from facing_env.rules.movement import _lane_clear, _space_free

    moved = battle.distance(m.pos, dest)
    if moved < 2 or moved > m.speed // 5:
        return False
    reach = max((a.reach for a in m.attacks if not a.ranged), default=0) // 5
    t_cells = battle.cells_of(t)

    def can_attack_from(pos) -> bool:
        return 0 < battle.cells_distance(m.shape.cells(pos), t_cells) <= reach

    if not can_attack_from(dest) or not _space_free(battle, m, dest):
        return False
    closest = min(
        battle.distance(m.pos, (x, y))
        for y in range(-1, battle.height + 1)
        for x in range(-battle.width, 2 * battle.width)
        if battle.in_bounds((x, y)) and can_attack_from((x, y))
    )
    return moved == closest and _lane_clear(battle, m, dest)


@pytest.mark.parametrize("scenario", ["duel", "hex_duel", "ogre", "skirmish", "dragon"])
def test_charge_allowed_agrees_with_the_brute_force_reading(scenario):
    """EP-CHG-01: ``charge_allowed`` (which searches only the spaces around the target)
    answers as the whole-board reading for every destination, on random positions; every
    allowed destination whose path (``charge_path``) is free is offered by
    ``charge_destinations``, and no other."""
    import numpy as np

    from facing_env.scenario import load_scenario

    rng = np.random.default_rng(3)
    source = load_scenario(scenario)
    checked = 0
    for _ in range(12):
        b = source.build(rng)
        ids = list(b.creatures)
        for cid in ids:  # scatter the creatures to random free spaces
            c = b.creatures[cid]
            for _try in range(50):
                p = (int(rng.integers(b.width)), int(rng.integers(b.height)))
                cells = c.shape.cells(p)
                if all(
                    b.in_bounds(x)
                    and b.terrain_at(x).name in ("OPEN", "HAZARDOUS")
                    and all(o == cid for o in b.occupants(x))
                    for x in cells
                ):
                    b.place(c, p)
                    break
        for mid in ids:
            for tid in ids:
                m, t = b.creatures[mid], b.creatures[tid]
                if m.team == t.team:
                    continue
                want = {
                    (x, y)
                    for y in range(b.height)
                    for x in range(-b.width, 2 * b.width)
                    if b.in_bounds((x, y)) and _brute_charge_allowed(b, m, t, (x, y))
                }
                got = {
                    (x, y)
                    for y in range(b.height)
                    for x in range(-b.width, 2 * b.width)
                    if b.in_bounds((x, y)) and rules.charge_allowed(b, mid, tid, (x, y))
                }
                assert got == want, (scenario, mid, tid)
                free = {
                    p
                    for p in want
                    if all(
                        all(o == mid for o in b.occupants(cell))
                        and b.terrain_at(cell).name not in ("BLOCKED", "PILLAR")
                        for q in rules.charge_path(b, mid, p)
                        for cell in m.shape.cells(q)
                    )
                }
                assert set(rules.charge_destinations(b, mid, tid)) == free, (scenario, mid, tid)
                checked += bool(want)
    assert checked > 0


def test_replays_and_pictures_name_the_new_events():
    """The replay log (``export.describe``, also the HTML viewer's log) and the rgb frames'
    attack label name charges, withdrawals, readied attacks and their triggers."""
    from facing_env.events import Event
    from facing_env.render import canvas, export
    from facing_env.types import GridKind

    sq = GridKind.SQUARE
    assert export.describe(Event("charge", "A", "B", pos=(3, 0), cost=3), sq) == (
        "A charges B to (3, 0) (3 squares)"
    )
    assert export.describe(Event("withdraw", "A", "B", cost=6), sq) == (
        "A withdraws from B (6 squares of movement)"
    )
    assert export.describe(Event("ready", "A"), sq) == "A readies an attack"
    assert export.describe(Event("trigger", "A", "B", pos=(1, 0)), sq) == (
        "B steps into A's reach at (1, 0): readied attack"
    )
    step = Event("five_foot_step", "A", pos=(1, 1), attack_kind="traded")
    assert export.describe(step, sq) == "A takes a 5-foot step to (1, 1) for an attack"
    hit = Event("attack", "A", "B", attack_kind="charge", defender_area="front")
    assert canvas.attack_label(hit) == "charge front +0"
    assert export.describe(hit, sq).startswith("A charges into B with")


def test_the_hex_line_of_a_charge_is_the_same_wherever_it_is_drawn():
    """EP-CHG-01 on the hex grid: the lane and path of a charge depend on the offset between
    the two spaces only (this placement once gave a different line at (1, 2) than at the
    origin, from floating-point ties)."""
    from facing_env.rules.movement import _hex_line

    for a in [(0, 0), (1, 2), (4, -3), (-2, 5)]:
        for d in [(3, 1), (2, 2), (-3, 1), (1, -4), (4, 0)]:
            line = _hex_line(a, (a[0] + d[0], a[1] + d[1]))
            assert [(q - a[0], r - a[1]) for q, r in line] == _hex_line((0, 0), d)
    assert _hex_line((1, 2), (4, 3)) == [(1, 2), (2, 2), (2, 3), (3, 3), (4, 3)]
