"""The batched engine's reach, charge and legal-scan kernels agree with the object engine.

``facing_env.fast.opportunity`` (reach, threat and attack slots), ``facing_env.fast.maneuvers``
(charge destinations, withdrawals) and ``facing_env.fast.legality`` (the action mask and the
step costs) read a State row written by ``facing_env.fast.state.load``; on states of every
scenario they must answer what the reference answers (``engine.slot_reaches``,
``rules.threatened_cells``, ``rules.charge_destinations``, ``env.observe(agent)
["action_mask"]``, ``legality._step``...).

The states: random masked play and the scripted agents (``aggressive``, ``flanker``,
``defensive``, with a few random moves mixed in), whose play charges, withdraws and
readies, recorded along whole episodes of every scenario; plus hand-made boards for what
play never reaches (Cleave, a player character trading attacks for 5-foot steps, hex
footprints, reach and ranged attacks, faceless and Tiny creatures).
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

import numpy as np
import pytest

import facing_env
from facing_env import rules
from facing_env.actions import (
    ATTACK_BASE,
    MOVE_BASE,
    STEP_BASE,
    action_names,
)
from facing_env.agents import make_agent
from facing_env.fast import legality as scan
from facing_env.fast import maneuvers as charge
from facing_env.fast import opportunity as reach
from facing_env.fast.lookup import Tables, tables_of
from facing_env.fast.state import State, allocate_for, load
from facing_env.rules import engine, legality
from facing_env.rules.battle import Battle
from facing_env.rules.codec import ActionCodec, creature_slots
from facing_env.rules.engine import Action
from facing_env.rules.turns import AttackSlot
from tests.env_play import SCENARIOS
from tests.reference import readable_env

# their entry points are called from Python here only: one test process compiles them
# (pyproject's --dist loadgroup), not each. Indices go in as the engine passes them
# (np.int32 where it does), so that a call loads the version `python -m facing_env warm`
# compiled instead of compiling one of its own (minutes of one core on a fresh cache)
pytestmark = pytest.mark.xdist_group("kernel_twins")

I32 = np.int32
"""The engine's type of creature indices and cells (above)."""

STATES_PER_SCENARIO = 40
SCRIPTED = ("aggressive", "flanker", "defensive")


class Sample(NamedTuple):
    """A battle at a living agent's decision, with what the env showed that agent."""

    battle: Battle
    mask: np.ndarray
    slots: list[str]


def _episode(scenario: str, seed: int, names: dict[str, str] | None, every: int) -> list[Sample]:
    """One episode of ``scenario``: each team played by a scripted agent (``names``, with
    one random action in five) or at random (None); every ``every``-th decision kept, and
    every one in a turn that withdraws, attacks, runs or may trade 5-foot steps."""
    env = readable_env(scenario=scenario)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    random = make_agent("random")
    agents = {team: make_agent(name) for team, name in (names or {}).items()}
    out: list[Sample] = []
    decisions = 0
    for agent in env.agent_iter(max_iter=20_000):
        obs, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        cid = env.agent_to_id[agent]
        if decisions % every == 0 or _unusual(env.battle):
            out.append(Sample(env.battle.copy(), obs["action_mask"].copy(), env.slots[cid]))
        decisions += 1
        player = agents.get(env.teams[cid], random)
        if rng.random() < 0.2:
            player = random
        env.step(int(player.act(obs["observation"], obs["action_mask"], rng)))
    return out


def _unusual(b: Battle) -> bool:
    """A turn state random sampling seldom meets."""
    ts = b.turn
    return (
        ts.withdrawing is not None
        or ts.attacks_made > 0
        or ts.running
        or ts.cleave is not None
        or legality._may_trade_step(b, b.creatures[ts.actor])
    )


@cache
def samples(scenario: str) -> tuple[Sample, ...]:
    """About :data:`STATES_PER_SCENARIO` states of ``scenario`` from random play and from
    the scripted agents (every pairing of two of them over the teams, both ways), a third
    of them in unusual turns (:func:`_unusual`)."""
    teams = facing_env.scenario.load_scenario(scenario).teams
    found: list[Sample] = []
    for seed in range(2):
        found += _episode(scenario, seed, None, 7)
    for n, name in enumerate(SCRIPTED):
        for way in range(2):
            other = SCRIPTED[(n + 1) % len(SCRIPTED)]
            pair = (name, other) if way == 0 else (other, name)
            names = {team: pair[j % 2] for j, team in enumerate(teams)}
            found += _episode(scenario, 10 + 2 * n + way, names, 9)
    unusual = [x for x in found if _unusual(x.battle)]
    usual = [x for x in found if not _unusual(x.battle)]
    keep = STATES_PER_SCENARIO // 3
    unusual = unusual[:: max(len(unusual) // keep, 1)][:keep]
    rest = STATES_PER_SCENARIO - len(unusual)
    return tuple(usual[:: max(len(usual) // rest, 1)][:rest] + unusual)


def loaded(battles: list[Battle]) -> tuple[Tables, State]:
    """The tables and a State holding ``battles``, one per row."""
    s = allocate_for(battles)
    for i, b in enumerate(battles):
        load(s, i, b)
    return tables_of(s), s


# -- reach ----------------------------------------------------------------------------------


def check_reach(t: Tables, s: State, i: int, b: Battle) -> None:
    """Every reach and threat query of ``reach`` against the reference, for every pair of
    creatures (and every attack, every cell of the board and a margin)."""
    creatures = list(b.creatures.values())
    h, w = b.terrain.shape
    cells = [b.cell_at(r, c) for r in range(-2, h + 2) for c in range(-2, w + 2)]
    for k, c in enumerate(creatures):
        assert reach.melee_reach(s, i, k) == rules.opportunity.melee_reach(c)
        assert reach.can_make_aoo(s, i, k) == rules.can_make_attacks_of_opportunity(c)
        zone = rules.threatened_cells(b, c)
        covered = rules.opportunity.cells_within(b, c, rules.opportunity.melee_reach(c))
        for x, y in cells:
            assert reach.threatens_cell(s, i, k, x, y) == ((x, y) in zone), (c.id, x, y)
            assert reach.reach_covers(s, i, k, x, y) == ((x, y) in covered), (c.id, x, y)
        for o, other in enumerate(creatures):
            assert reach.threatens_creature(s, i, k, o) == rules.threatens(b, c, other)
            if o != k:
                covers_it = any(cell in covered for cell in b.cells_of(other))
                assert reach.reach_covers_creature(s, i, k, o) == covers_it
            for a, attack in enumerate(c.attacks):
                want = engine.slot_reaches(b, c, other, AttackSlot(attack, 0))
                assert reach.slot_reaches(t, s, i, k, o, I32(a)) == want, (c.id, other.id, a)
            slot = legality._melee_slot(b, c, other)
            want_slot = -1 if slot is None else c.attacks.index(slot.attack)
            assert reach.melee_slot(t, s, i, I32(k), o) == want_slot
    actor = engine.actor(b)
    if actor is None:
        return
    slots = legality._attack_slots(b)[0]
    assert reach.has_attack_slots(s, i) == bool(slots)
    for o, other in enumerate(creatures):
        slot = legality._usable_slot(b, actor, other)
        attack, penalty, _ = reach.usable_slot(t, s, i, o)
        if slot is None:
            assert attack == -1
        else:
            assert (actor.attacks[attack], penalty) == (slot.attack, slot.penalty)
        allowed = legality._check_attack(b, actor, other.id) is None
        assert reach.can_attack(t, s, i, I32(o)) == allowed


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_reach_matches_the_reference(scenario: str) -> None:
    battles = [x.battle for x in samples(scenario)][::3]
    t, s = loaded(battles)
    for i, b in enumerate(battles):
        check_reach(t, s, i, b)


def test_reach_on_hand_made_boards() -> None:
    rng = np.random.default_rng(1)
    for b in hand_made():
        battles = [b] + [scattered(b, rng) for _ in range(3)]
        t, s = loaded(battles)
        for i, x in enumerate(battles):
            check_reach(t, s, i, x)


# -- charges and withdrawals ----------------------------------------------------------------


def scattered(b: Battle, rng: np.random.Generator) -> Battle:
    """A copy of ``b`` with its living creatures at random free places, facing random
    allowed ways (the turn state kept): charges of every length and direction."""
    from facing_env.rules import geometry
    from facing_env.types import Terrain

    out = b.copy()
    h, w = out.terrain.shape
    taken: set[tuple[int, int]] = set()
    for c in out.creatures.values():
        if c.hp <= 0:
            continue
        for _ in range(200):
            pos = out.cell_at(int(rng.integers(h)), int(rng.integers(w)))
            cells = c.shape.cells(pos)
            if all(
                out.in_bounds(x) and out.terrain_at(x) not in (Terrain.BLOCKED, Terrain.PILLAR)
                for x in cells
            ) and taken.isdisjoint(cells):
                break
        else:
            pos, cells = c.pos, c.shape.cells(c.pos)
        taken.update(cells)
        c.pos = pos
        c.facing = int(rng.choice(geometry.allowed_facings(out.kind, out.ruleset, c.shape)))
    out.rebuild_occupancy()
    return out


def check_charges(t: Tables, s: State, i: int, b: Battle) -> int:
    """``charge`` against the reference for every pair of creatures: the destinations in
    order, the first, each one's path, the withdrawal queries (every step of every
    creature); returns how many charges there were."""
    creatures = list(b.creatures.values())
    vectors = geometry_vectors(b)
    out = np.zeros((max(t.charge_bend.shape[2], 1), 2), dtype=np.int32)
    found = 0
    for m, cm in enumerate(creatures):
        for e, ce in enumerate(creatures):
            want = rules.charge_destinations(b, cm, ce)
            n = charge.charge_destinations(t, s, i, m, e, out)
            assert [tuple(r) for r in out[:n].tolist()] == want, (cm.id, ce.id)
            assert charge.can_charge(t, s, i, m, e) == bool(want)
            found += bool(want)
            if want:
                assert charge.first_destination(t, s, i, I32(m), e) == want[0]
            for dest in want:
                start = (I32(m), I32(cm.pos[0]), I32(cm.pos[1]))
                n = charge.path_length(t, s, i, *start, *dest)
                path = [charge.path_square(t, s, i, *start, *dest, I32(p)) for p in range(n)]
                assert path == rules.charge_path(b, cm, dest)
            allowed = rules.may_withdraw_from(b, cm, ce)
            assert charge.may_withdraw_from(s, i, m, e) == allowed
            if m != e:
                for vx, vy in vectors:
                    dest = (cm.pos[0] + vx, cm.pos[1] + vy)
                    want_step = rules.withdraw_step_allowed(b, cm, ce, dest)
                    assert charge.withdraw_step_allowed(s, i, m, e, *dest) == want_step
    return found


def geometry_vectors(b: Battle) -> tuple[tuple[int, int], ...]:
    from facing_env.rules import geometry

    return geometry.direction_vectors(b.kind)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_charges_match_the_reference(scenario: str) -> None:
    """On the played states and on as many with the creatures scattered at random."""
    rng = np.random.default_rng(7)
    played = [x.battle for x in samples(scenario)][::2]
    battles = played + [scattered(b, rng) for b in played]
    t, s = loaded(battles)
    found = sum(check_charges(t, s, i, b) for i, b in enumerate(battles))
    assert found >= 10, f"only {found} charges: the test sees too few"


def test_charges_on_hand_made_boards() -> None:
    """Hex footprints and reach: the hand-made boards, scattered."""
    rng = np.random.default_rng(3)
    found = 0
    for b in hand_made():
        battles = [b] + [scattered(b, rng) for _ in range(6)]
        t, s = loaded(battles)
        found += sum(check_charges(t, s, i, x) for i, x in enumerate(battles))
    assert found >= 20


def test_charge_tables_are_the_reference_routes_and_lines() -> None:
    """Every anchor offset the tables hold, for every footprint of every scenario: the
    path and lane squares are ``maneuvers._route``'s, the positions ``_line``'s."""
    from facing_env.fast.state import SHAPES
    from facing_env.rules.maneuvers import _line, _route

    for scenario in SCENARIOS:
        t, _ = loaded([samples(scenario)[0].battle])
        kind = samples(scenario)[0].battle.kind
        span = (t.route_n_path.shape[1] - 1) // 2
        for row in np.flatnonzero(t.charge_shape >= 0):
            cm = t.charge_shape[row]
            a = int(t.charge_span[cm])
            for py in range(-a, a + 1):
                for px in range(-a, a + 1):
                    _, path, lane, _ = _route(kind, SHAPES[row], (px, py))
                    at = (cm, py + span, px + span)
                    got = {tuple(c) for c in t.route_path[at][: t.route_n_path[at]].tolist()}
                    assert got == path
                    got = {tuple(c) for c in t.route_lane[at][: t.route_n_lane[at]].tolist()}
                    assert got == lane
                    line = [tuple(c) for c in t.charge_line[py + span, px + span].tolist()]
                    assert line[: t.charge_n_line[py + span, px + span]] == _line(
                        kind, (0, 0), (px, py)
                    )


# -- the legal scan -------------------------------------------------------------------------


def reference_mask(b: Battle, n_slots: int) -> np.ndarray:
    """The acting creature's mask as the env's codec writes it (zeros when it is over)."""
    actor = engine.actor(b)
    codec = ActionCodec(n_slots)
    if actor is None:
        return np.zeros(codec.n, dtype=np.int8)
    return codec.mask(b, creature_slots(b, actor.id))


def check_scan(battles: list[Battle], masks: list[np.ndarray]) -> None:
    """``scan.mask_batch`` over ``battles`` gives ``masks`` row for row, and the cost of
    every legal MOVE and STEP_KEEP_FACING is ``legality._step``'s (``rules.step_cost``)."""
    t, s = loaded(battles)
    n = masks[0].shape[0]
    out = np.full((len(battles), n), 7, dtype=np.int8)
    cost = np.full((len(battles), n), 99, dtype=np.int32)
    scan.mask_batch(t, s, out, cost)
    names = action_names(battles[0].kind.value, (n - ATTACK_BASE) // 3)
    for i, (b, mask) in enumerate(zip(battles, masks, strict=True)):
        wrong = [names[a] for a in np.flatnonzero(out[i] != mask)]
        assert not wrong, f"row {i}: {wrong} (kernel {out[i][out[i] != mask].tolist()})"
        for base, kind in ((MOVE_BASE, engine.MOVE), (STEP_BASE, engine.STEP_KEEP_FACING)):
            for d in range(8):
                want = 0
                if mask[base + d]:
                    actor = engine.actor(b)
                    want, why = legality._step(b, actor, d, kind == engine.MOVE)
                    assert why is None, (i, names[base + d], why)
                want = scan.FULL_ROUND if want == rules.FULL_ROUND else want
                assert cost[i, base + d] == want, (i, names[base + d])


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_mask_matches_the_env(scenario: str) -> None:
    """The played states against the env's own mask (what the agent saw), then the same
    states with the creatures scattered against the codec's, then the end of a battle."""
    played = samples(scenario)
    check_scan([x.battle for x in played], [x.mask for x in played])
    rng = np.random.default_rng(11)
    n = (played[0].mask.shape[0] - ATTACK_BASE) // 3
    battles = [scattered(x.battle, rng) for x in played[::2]]
    check_scan(battles, [reference_mask(b, n) for b in battles])
    battles = derived([x.battle for x in played])
    check_scan(battles, [reference_mask(b, n) for b in battles])
    over = played[-1].battle.copy()
    for c in over.creatures.values():
        if c.team != next(iter(over.creatures.values())).team:
            c.hp = 0
    over.rebuild_occupancy()
    assert engine.is_over(over)
    check_scan([over, played[0].battle], [reference_mask(over, n), played[0].mask])


def test_mask_on_hand_made_boards() -> None:
    """Random play on the hand-made boards (every state of it): Cleave, trades of a
    player character, withdrawals, hex footprints, reach and ranged attacks."""
    for b in hand_made():
        states = wander(b, np.random.default_rng(5), 60)
        for taken in (engine.MAX_ACTIONS_PER_TURN - 1, engine.MAX_ACTIONS_PER_TURN):
            states.append(b.copy())
            states[-1].turn.actions_taken = taken  # the safety net: END_TURN only
        n_slots = len(b.creatures)
        check_scan(states, [reference_mask(x, n_slots) for x in states])


def derived(battles: list[Battle]) -> list[Battle]:
    """States one or two actions past ``battles``: a withdrawal begun and its first step,
    an attack made (the rest of a full attack), a run begun (expected dice)."""
    from facing_env.rules.dice import Dice

    rng = np.random.default_rng(2)
    out = []
    for b in battles:
        legal = engine.legal_actions(b)
        for kind in (engine.WITHDRAW, engine.ATTACK, engine.RUN, engine.CHARGE):
            chosen = [a for a in legal if a.kind == kind]
            if not chosen:
                continue
            x = b.copy()
            engine.apply(x, chosen[0], Dice(np.random.default_rng(0), "expected"))
            if engine.actor(x) is None:
                continue
            out.append(x)
            steps = [a for a in engine.legal_actions(x) if a.kind != engine.END_TURN]
            if steps:
                x = x.copy()
                engine.apply(x, steps[rng.integers(len(steps))], Dice(rng, "expected"))
                if engine.actor(x) is not None:
                    out.append(x)
    return out


def wander(b: Battle, rng: np.random.Generator, steps: int) -> list[Battle]:
    """Copies of ``b`` along random legal play (expected dice), one per action."""
    from facing_env.rules.dice import Dice

    b = b.copy()
    out = [b.copy()]
    for n in range(steps):
        legal = engine.legal_actions(b)
        if not legal:
            break
        weights = np.array([0.2 if a.kind == engine.END_TURN else 1.0 for a in legal])
        action = legal[rng.choice(len(legal), p=weights / weights.sum())]
        engine.apply(b, action, Dice(np.random.default_rng(n), "expected"))
        out.append(b.copy())
    return out


# -- hand-made boards -----------------------------------------------------------------------


def hand_made() -> list[Battle]:
    """Boards random play never reaches, each with its turn begun (see the module
    docstring), and a few states scripted from them (a withdrawal under way, a player
    character's traded 5-foot steps, a Cleave left)."""
    from tests.boards import board
    from tests.engine_boards import attack, begin, do, step5

    out = []
    # reach, ranged attacks, a flat-footed creature with and without Combat Reflexes, a
    # faceless one, a Tiny one (no reach, no facing), a slow one (no 5-foot step)
    b = board(
        """
        . . . . . . . .
        . A . . . B . .
        . . ~ ~ . . . o
        . . C . % . D .
        . # . . . E . F
        """,
        A={"team": "pc", "attacks": [{"name": "glaive", "bonus": 5, "damage": "1d10",
                                      "reach": 10}, {"name": "bow", "bonus": 3,
                                      "damage": "1d8", "kind": "ranged", "range": 30}]},
        B={"team": "foe", "flat_footed": True, "feats": ["Combat Reflexes"]},
        C={"team": "foe", "flat_footed": True, "speed": 5},
        D={"team": "pc", "faceless": True},
        E={"team": "foe", "size": "Tiny"},
        F={"team": "pc", "speed": 0},
    )  # fmt: skip
    begin(b, "A", "B", "C", "D", "E", "F", flat_footed_start=False)
    out.append(b)
    # Cleave and a player character's full attack (BAB +11: three attacks to trade)
    text = """
        . . . . . .
        . ~ B . . .
        . A C . # .
        . % . . . .
        """
    fields = {
        "A": {"team": "pc", "base_attack_bonus": 11, "player_character": True, "hp": 60,
              "feats": ["Great Cleave"]},
        "B": {"team": "foe", "hp": 1, "ac": 1},
        "C": {"team": "foe", "hp": 200},
    }  # fmt: skip
    b = board(text, **fields)
    begin(b, "A", "B", "C", flat_footed_start=False)
    out.append(b)
    cleave = b.copy()
    do(cleave, attack("B"))
    assert cleave.turn.cleave is not None
    out.append(cleave)
    traded = b.copy()
    do(traded, step5(6), step5(2))
    assert traded.turn.traded_steps == 1
    out.append(traded)
    withdrawing = b.copy()
    do(withdrawing, Action(engine.WITHDRAW, "C"))
    assert withdrawing.turn.withdrawing == "C"
    out.append(withdrawing)
    # a large creature with reach and a Huge one that steps over Medium ones, side_rear
    b = board(
        """
        . . . . . . . .
        . G G . . . . .
        . G G . . A . .
        . . . . . . . .
        . . . . . H H H
        . B . . . H H H
        . . . . . H H H
        """,
        "side_rear",
        G={"team": "foe", "attacks": [{"name": "spiked chain", "reach": 10}], "speed": 40},
        H={"team": "foe", "attacks": [{"name": "tail", "reach": 15, "zones": ["rear"]},
                                      {"name": "bite", "reach": 10}]},
        A={"team": "pc"},
        B={"team": "pc", "player_character": True},
    )  # fmt: skip
    begin(b, "G", "A", "H", "B", flat_footed_start=False)
    out.append(b)
    for ruleset in ("ua35", "side_rear", "standard"):
        out.append(_hex_board(ruleset))
    return out


def _hex_board(ruleset: str) -> Battle:
    """A hex board with triangle and flower footprints, reach and terrain."""
    from tests.engine_boards import begin

    spec = {
        "ruleset": ruleset,
        "grid": {"kind": "hex", "width": 9, "height": 8},
        "terrain": [{"pos": [4, 1], "kind": "difficult"}, {"pos": [0, 1], "kind": "blocked"},
                    {"pos": [5, 3], "kind": "impeded"}, {"pos": [1, 6], "kind": "pillar"}],
        "creatures": [
            {"id": "T", "team": "foe", "size": "Large", "pos": [2, 2],
             "attacks": [{"name": "claw", "reach": 10}]},
            {"id": "A", "team": "pc", "size": "Medium", "pos": [5, 1]},
            {"id": "H", "team": "foe", "size": "Huge", "pos": [3, 5], "speed": 40},
            {"id": "B", "team": "pc", "size": "Medium", "pos": [6, 4],
             "player_character": True, "base_attack_bonus": 6},
            {"id": "C", "team": "pc", "size": "Small", "pos": [0, 4],
             "attacks": [{"name": "sling", "kind": "ranged", "range": 50}]},
        ],
    }  # fmt: skip
    b = Battle.from_spec(spec)
    begin(b, "B", "T", "A", "H", "C", flat_footed_start=False)
    return b
