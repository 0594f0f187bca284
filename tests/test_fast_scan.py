"""The batched engine's reach, charge and legal-scan kernels agree with the object engine.

``facing_env.fast.reach`` (reach, threat and attack slots), ``facing_env.fast.charge``
(charge destinations, withdrawals) and ``facing_env.fast.scan`` (the action mask and the
step costs) read a State row written by ``facing_env.fast.state.load``; on states of every
scenario they must answer what the reference answers (``engine.slot_reaches``,
``rules.threatened_cells``, ``rules.charge_destinations``, ``env.observe(agent)
["action_mask"]``, ``engine.scan_cost``...).

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
from facing_env import engine, rules
from facing_env.agents import make_agent
from facing_env.battle import Battle
from facing_env.fast import charge, reach
from facing_env.fast.state import State, allocate_for, load
from facing_env.fast.tables import Tables, tables_of
from facing_env.turn import AttackSlot
from tests.env_play import SCENARIOS

STATES_PER_SCENARIO = 60
SCRIPTED = ("aggressive", "flanker", "defensive")


class Sample(NamedTuple):
    """A battle at a living agent's decision, with what the env showed that agent."""

    battle: Battle
    mask: np.ndarray
    slots: list[str]


def _episode(scenario: str, seed: int, names: dict[str, str] | None, every: int) -> list[Sample]:
    """One episode of ``scenario``: each team played by a scripted agent (``names``, with
    one random action in five) or at random (None); every ``every``-th decision kept."""
    env = facing_env.raw_env(scenario=scenario)
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
        if decisions % every == 0:
            out.append(Sample(env.battle.copy(), obs["action_mask"].copy(), env.slots[cid]))
        decisions += 1
        player = agents.get(env.teams[cid], random)
        if rng.random() < 0.2:
            player = random
        env.step(int(player.act(obs["observation"], obs["action_mask"], rng)))
    return out


@cache
def samples(scenario: str) -> tuple[Sample, ...]:
    """About :data:`STATES_PER_SCENARIO` states of ``scenario``: half from random play,
    half from the scripted agents (every pairing of two of them over the teams)."""
    teams = facing_env.scenario.load_scenario(scenario).teams
    found: list[Sample] = []
    for seed in range(2):
        found += _episode(scenario, seed, None, 7)
    for n, name in enumerate(SCRIPTED):
        other = SCRIPTED[(n + 1) % len(SCRIPTED)]
        names = {team: (name if j % 2 == 0 else other) for j, team in enumerate(teams)}
        found += _episode(scenario, 10 + n, names, 5)
    step = max(len(found) // STATES_PER_SCENARIO, 1)
    return tuple(found[::step][:STATES_PER_SCENARIO])


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
    from facing_env.observation import _pair_geometry

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
                covers_it = _pair_geometry(b, other, c)[1]
                assert reach.reach_covers_creature(s, i, k, o) == covers_it
            for a, attack in enumerate(c.attacks):
                want = engine.slot_reaches(b, c, other, AttackSlot(attack, 0))
                assert reach.slot_reaches(t, s, i, k, o, a) == want, (c.id, other.id, a)
            slot = engine._melee_slot(b, c, other)
            want_slot = -1 if slot is None else c.attacks.index(slot.attack)
            assert reach.melee_slot(t, s, i, k, o) == want_slot
    actor = engine.actor(b)
    if actor is None:
        return
    slots = engine._attack_slots(b)[0]
    assert reach.has_attack_slots(s, i) == bool(slots)
    for o, other in enumerate(creatures):
        slot = engine._usable_slot(b, actor, other)
        attack, penalty, _ = reach.usable_slot(t, s, i, o)
        if slot is None:
            assert attack == -1
        else:
            assert (actor.attacks[attack], penalty) == (slot.attack, slot.penalty)
        allowed = engine._check_attack(b, actor, other.id) is None
        assert reach.can_attack(t, s, i, o) == allowed


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_reach_matches_the_reference(scenario: str) -> None:
    battles = [x.battle for x in samples(scenario)][::3]
    t, s = loaded(battles)
    for i, b in enumerate(battles):
        check_reach(t, s, i, b)


def test_reach_on_hand_made_boards() -> None:
    for b in hand_made():
        t, s = loaded([b])
        check_reach(t, s, 0, b)


# -- charges and withdrawals ----------------------------------------------------------------


def scattered(b: Battle, rng: np.random.Generator) -> Battle:
    """A copy of ``b`` with its living creatures at random free places, facing random
    allowed ways (the turn state kept): charges of every length and direction."""
    from facing_env import geometry
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
                assert charge.first_destination(t, s, i, m, e) == want[0]
            for dest in want:
                n = charge.path_length(t, s, i, m, *cm.pos, *dest)
                path = [charge.path_square(t, s, i, m, *cm.pos, *dest, p) for p in range(n)]
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
    from facing_env import geometry

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


# -- hand-made boards -----------------------------------------------------------------------


def hand_made() -> list[Battle]:
    """Boards random play never reaches, each with its turn begun (see the module
    docstring)."""
    from tests.boards import board
    from tests.test_engine import begin

    out = []
    # reach, ranged attacks, a flat-footed creature with and without Combat Reflexes
    b = board(
        """
        . . . . . . .
        . A . . . B .
        . . . . . . .
        . . C . . . D
        """,
        A={"team": "pc", "attacks": [{"name": "glaive", "bonus": 5, "damage": "1d10",
                                      "reach": 10}, {"name": "bow", "bonus": 3,
                                      "damage": "1d8", "kind": "ranged", "range": 30}]},
        B={"team": "foe", "flat_footed": True, "feats": ["Combat Reflexes"]},
        C={"team": "foe", "flat_footed": True},
        D={"team": "pc", "faceless": True},
    )  # fmt: skip
    begin(b, "A", "B", "C", "D", flat_footed_start=False)
    out.append(b)
    return out
