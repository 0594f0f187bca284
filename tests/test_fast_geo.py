"""The batched engine's state and board primitives agree with the object engine.

``facing_env.fast.state.load`` writes a reference battle into arrays; the numba
primitives of ``facing_env.fast.geometry`` read those arrays and must answer what the
reference answers (``Battle.terrain_at``, ``Battle.cells_distance``, the occupancy index,
``rules._common.cell_area`` and the sides of IC-16) on random states of every scenario.
"""

from __future__ import annotations

import pytest

from facing_env.fast import geometry as geo
from facing_env.fast.lookup import SIDE_CODES, radius_for, tables_for, tables_of
from facing_env.fast.state import AREA_CODES, SHAPES, allocate_for, load, shape_index
from facing_env.rules import geometry
from facing_env.rules._common import cell_area
from facing_env.rules.battle import Battle
from facing_env.types import Area, GridKind, Side
from tests.env_play import SCENARIOS, walk

# their entry points are called from Python here only: one test process compiles them
# (pyproject's --dist loadgroup), not each
pytestmark = pytest.mark.xdist_group("kernel_twins")


def _states(scenario: str, count: int = 6) -> list[Battle]:
    seen: list[Battle] = []
    walk(scenario, 3, 40 * count, visit=lambda env: seen.append(env.battle.copy()))
    return seen[:: max(len(seen) // count, 1)][:count]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_primitives_match_the_reference(scenario: str) -> None:
    battles = _states(scenario)
    s = allocate_for(battles)
    for i, b in enumerate(battles):
        load(s, i, b)
    t = tables_of(s)
    for i, b in enumerate(battles):
        h, w = b.terrain.shape
        cells = [b.cell_at(r, c) for r in range(-1, h + 1) for c in range(-1, w + 1)]
        for x, y in cells:
            assert geo.terrain_at(s, i, x, y) == int(b.terrain_at((x, y))), (x, y)
            occupants = {
                k for k, c in enumerate(b.creatures.values()) if c.id in b.occupants((x, y))
            }
            covering = {
                k
                for k in range(len(b.creatures))
                if geo.alive(s, i, k) and geo.covers(s, i, k, x, y)
            }
            assert covering == occupants, (x, y)
        creatures = list(b.creatures.values())
        for a, ca in enumerate(creatures):
            for z, cz in enumerate(creatures):
                want = b.cells_distance(b.cells_of(ca), b.cells_of(cz))
                assert geo.creature_distance(s, i, a, z) == want
            for x, y in cells:
                ref = cell_area(b, ca, (x, y))
                code = geo.area_code(t, s, i, a, x, y)
                assert AREA_CODES[code] is (Area.NONE if ref is None else ref.area), (x, y)
                if ref is not None:
                    assert SIDE_CODES[geo.side_code(t, s, i, a, x, y)] is ref.side


def test_load_writes_the_turn_state() -> None:
    """The acting creature's economy and the initiative order come through ``load``."""
    env = walk("duel", 1, 3)
    b = env.battle
    s = allocate_for([b], n=2)
    load(s, 1, b)
    ts = b.turn
    ids = list(b.creatures)
    assert s.actor[1] == ids.index(ts.actor)
    assert [ids[k] for k in s.order[1, : s.n_order[1]]] == b.initiative.order
    assert (s.round[1], s.index[1]) == (b.initiative.round, b.initiative.index)
    assert bool(s.turn_move_available[1]) is ts.move_available
    assert s.n_remaining[1] == len(ts.remaining)
    assert list(s.hp[1, :2]) == [c.hp for c in b.creatures.values()]
    assert s.actor[0] == 0 and not s.present[0].any()  # row 0 untouched


def test_tables_cover_every_offset_of_the_board() -> None:
    """The radius holds the largest offset between two footprints on the board: a hex
    board's axial columns span its width plus half its height."""
    for kind in GridKind:
        r = radius_for(kind, 9, 12)
        big = max((s for s in SHAPES if s.kind is kind), key=lambda s: len(s.offsets))
        assert r >= 12 + (5 if kind is GridKind.HEX else 0) + 1
        t = tables_for(kind, "ua35", r, (shape_index(big),))
        assert t.area.shape[2] == 2 * r + 1
    square = tables_for(GridKind.SQUARE, "ua35", 10)
    medium = shape_index(geometry.SQUARE_SHAPES[4])
    # UA-FACE-02: a Medium creature facing N has 3 front, 2 flank, 3 rear squares in its ring
    ring = square.area[medium, 0, 9:12, 9:12]
    front, flank, rear = (AREA_CODES.index(a) for a in (Area.FRONT, Area.FLANK, Area.REAR))
    assert ring.tolist() == [
        [front, front, front],
        [flank, AREA_CODES.index(Area.NONE), flank],
        [rear, rear, rear],
    ]
    assert SIDE_CODES[square.side[medium, 0, 9, 9]] is Side.LEFT


def test_store_is_the_inverse_of_load_on_every_scenario() -> None:
    """``store`` writes a row back into a battle built from the same spec: the battle then
    has the reference's state key (positions, facings, hit points, flags, the turn) and
    initiative, on random states of every scenario."""
    from facing_env.fast.state import store
    from facing_env.rules import engine

    for scenario in SCENARIOS:
        for b in _states(scenario, 3):
            s = allocate_for([b])
            load(s, 0, b)
            twin = b.copy()
            for c in twin.creatures.values():  # scramble what store must restore
                c.pos, c.hp, c.readied = (0, 0), 1, not c.readied
            twin.turn = None
            store(s, 0, twin)
            assert engine.state_key(twin) == engine.state_key(b), scenario
            assert twin.initiative.order == b.initiative.order
            assert (twin.initiative.round, twin.initiative.index) == (
                b.initiative.round,
                b.initiative.index,
            )
            assert twin.initiative.aoo_used == b.initiative.aoo_used
            occupied = [{cell: sorted(ids) for cell, ids in x._occupancy.items() if ids}
                        for x in (twin, b)]  # fmt: skip
            assert occupied[0] == occupied[1]
