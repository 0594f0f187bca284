"""Movement: step costs under facing and terrain, 5-foot steps, allowances, charges and
forced movement.

Rule ids are defined in docs/rules.md: UA-MOVE-01..06, EP-GEN-01..03, EP-5FT-01..03,
EP-TER-01..04, EP-WALK-01, EP-OCC-01, EP-DBL-01, EP-RUN-01, EP-CHG-01, EP-FORCE-01..04,
UA-FCL-01/02, UA-HEX-01, IC-06, IC-07, IC-13.
"""

from __future__ import annotations

import pytest

from facing_env import Battle, RulesQueryError
from facing_env.rules import (
    FULL_ROUND,
    charge_allowed,
    forced_path,
    movement_allowance,
    provokers,
    step_area,
    step_cost,
)
from tests.boards import board

ALL = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")


def _centre(ruleset: str = "ua35", diagonal: str | None = None, **fields) -> Battle:
    """A Medium creature ``M`` at (2,2) of an open 5x5 board."""
    spec = {
        "ruleset": ruleset,
        "grid": {"width": 5, "height": 5},
        "creatures": [{"id": "M", "size": "Medium", "pos": [2, 2], **fields}],
    }
    if diagonal:
        spec["diagonal"] = diagonal
    return Battle.from_spec(spec)


# -- UA-MOVE-03 / -04 / -01: front, flank, rear, turning first -----------------------------------


@pytest.mark.parametrize(
    ("direction", "area", "cost"),
    [
        ("N", "front", 1),
        ("NE", "front", 1),
        ("E", "flank", 2),
        ("SE", "rear", 2),
        ("S", "rear", 2),
        ("SW", "rear", 2),
        ("W", "flank", 2),
        ("NW", "front", 1),
    ],
)
def test_medium_facing_n_step_costs(direction, area, cost):
    """UA-MOVE-03 (front at normal cost 1), UA-MOVE-04 (flank/rear cost 2 squares), IC-07
    (the first diagonal of a move costs 1 before the surcharge)."""
    battle = _centre(facing="N")
    assert step_area(battle, "M", direction) == area
    assert step_cost(battle, "M", direction) == cost


@pytest.mark.parametrize(
    ("direction", "cost"),
    [("N", 1), ("NE", 1), ("E", 1), ("SE", 2), ("S", 2), ("SW", 2), ("W", 2), ("NW", 2)],
)
def test_medium_facing_ne_step_costs(direction, cost):
    """UA-MOVE-03/04 for a diagonal facer: N, NE and E are its front (UA-FACE-02)."""
    assert step_cost(_centre(facing="NE"), "M", direction) == cost


@pytest.mark.parametrize("direction", ALL)
def test_turn_first_costs_base(direction):
    """UA-MOVE-01, IC-07: turning toward the square before stepping (free during a move)
    makes every step cost 1."""
    assert step_cost(_centre(facing="N"), "M", direction, turn_first=True) == 1


def test_step_queries_do_not_turn_the_mover():
    """UA-MOVE-06 (a 5-foot step keeps facing), UA-MOVE-01: asking for a cost, even with
    turn_first or as a 5-foot step, leaves the creature's facing and position unchanged."""
    battle = _centre(facing="N")
    step_cost(battle, "M", "S", turn_first=True)
    step_cost(battle, "M", "S", five_foot_step=True)
    assert battle.to_spec()["creatures"][0]["facing"] == "N"
    assert battle.to_spec()["creatures"][0]["pos"] == [2, 2]


# -- IC-06: multi-square steps by direction --------------------------------------------------------


@pytest.mark.parametrize(
    ("facing", "direction", "area", "cost"),
    [
        ("N", "N", "front", 1),
        ("N", "NE", "front", 1),
        ("N", "E", "flank", 2),
        ("N", "SE", "rear", 2),
        ("N", "S", "rear", 2),
        ("N", "NW", "front", 1),
        ("NE", "N", "front", 1),
        ("NE", "E", "front", 1),
        ("NE", "SE", "flank", 2),
        ("NE", "SW", "rear", 2),
    ],
)
def test_large_step_cost_by_direction(facing, direction, area, cost):
    """IC-06: a Large creature facing N stepping NE enters two front squares and one flank
    square; the step direction decides (within 45 degrees of the facing: front, cost 1)."""
    battle = board(
        """
        . . . . . .
        . . . . . .
        . . L L . .
        . . L L . .
        . . . . . .
        . . . . . .
        """,
        L={"facing": facing},
    )
    assert step_area(battle, "L", direction) == area
    assert step_cost(battle, "L", direction) == cost


# -- IC-07: difficult terrain and diagonal counting ------------------------------------------------


@pytest.mark.parametrize(
    ("direction", "turn_first", "cost"),
    [
        ("N", False, 2),
        ("S", False, 4),
        ("E", False, 4),
        ("S", True, 2),
        ("NE", False, 2),
        ("SW", False, 4),
    ],
)
def test_difficult_terrain_with_surcharge(direction, turn_first, cost):
    """EP-TER-01 (difficult counts double), IC-07 (the facing surcharge doubles the step's
    base cost: front 2, flank/rear 4 in difficult terrain)."""
    battle = board(
        """
        ~ ~ ~
        ~ M ~
        ~ ~ ~
        """,
        M={"facing": "N"},
    )
    assert step_cost(battle, "M", direction, turn_first=turn_first) == cost


@pytest.mark.parametrize(
    ("direction", "so_far", "cost"),
    [
        ("NE", 0, 1),
        ("NE", 1, 2),
        ("NE", 2, 1),
        ("NE", 3, 2),
        ("SE", 0, 2),
        ("SE", 1, 4),
        ("N", 1, 1),
        ("S", 1, 2),
    ],
)
def test_alternating_diagonals_ua35(direction, so_far, cost):
    """IC-07 (alternating, the ua35 default; 3.5 "every other square counts double"): the
    second diagonal of a move costs 2, 4 with the flank/rear surcharge; straight steps are
    not affected by the diagonal count."""
    battle = _centre(facing="N")
    assert step_cost(battle, "M", direction, diagonals_so_far=so_far) == cost


@pytest.mark.parametrize(("direction", "cost"), [("NE", 1), ("SE", 2)])
def test_uniform_diagonal_option_ua35(direction, cost):
    """IC-07 option ``uniform`` (EP-GEN-02: "Diagonal moves are the same as straight
    moves"): the second diagonal costs like the first."""
    battle = _centre(diagonal="uniform", facing="N")
    assert step_cost(battle, "M", direction, diagonals_so_far=1) == cost


@pytest.mark.parametrize(("direction", "cost"), [("NE", 4), ("SE", 8)])
def test_second_diagonal_into_difficult(direction, cost):
    """IC-07 (project choice, each factor doubles): second diagonal 2, difficult x2 = 4,
    the flank/rear surcharge doubles that again to 8."""
    battle = board(
        """
        ~ ~ ~
        ~ M ~
        ~ ~ ~
        """,
        M={"facing": "N"},
    )
    assert step_cost(battle, "M", direction, diagonals_so_far=1) == cost


def test_leaving_difficult_terrain_is_free():
    """EP-GEN-03: "Leaving a square is always free": stepping off difficult terrain onto
    open ground costs 1."""
    battle = board(
        """
        . . .
        . M .
        . . .
        """,
        M={"facing": "N"},
    )
    on_difficult = {**battle.to_spec(), "terrain": [{"pos": [1, 1], "kind": "difficult"}]}
    battle_on = Battle.from_spec(on_difficult)
    assert step_cost(battle_on, "M", "N") == 1
    assert step_cost(battle_on, "M", "S") == 2


# -- faceless, Tiny, side_rear, standard: no surcharge ---------------------------------------------


@pytest.mark.parametrize(
    ("ruleset", "fields"),
    [
        ("ua35", {"faceless": True}),
        ("ua35", {"size": "Tiny"}),
        ("ua35", {"size": "Fine"}),
        ("side_rear", {}),
        ("standard", {}),
    ],
    ids=["faceless", "tiny", "fine", "side_rear", "standard"],
)
@pytest.mark.parametrize("direction", ALL)
def test_no_surcharge(ruleset, fields, direction):
    """UA-FCL-01/02, IC-07 (faceless and Tiny-or-smaller movers pay the base cost),
    SR-01 and IC-18 (side_rear and standard have no facing surcharge: the UA-MOVE-04
    doubling is a UA rule)."""
    battle = _centre(ruleset, facing="N", **fields)
    assert step_cost(battle, "M", direction) == 1


def test_no_facing_step_area_is_none():
    """UA-FCL-01/02, IC-18: movers without facing enter no area."""
    assert step_area(_centre(faceless=True, facing="N"), "M", "S") == "none"
    assert step_area(_centre(size="Tiny", facing="N"), "M", "S") == "none"
    assert step_area(_centre("standard", facing="N"), "M", "S") == "none"
    assert step_area(_centre("side_rear", facing="N"), "M", "S") == "rear"
    assert step_area(_centre("side_rear", facing="N"), "M", "SE") == "side"


@pytest.mark.parametrize(("ruleset", "cost"), [("side_rear", 2), ("standard", 1)])
def test_second_diagonal_by_ruleset_default(ruleset, cost):
    """IC-07: side_rear keeps the 3.5 alternating diagonals; standard defaults to uniform
    (EP-GEN-02)."""
    assert step_cost(_centre(ruleset, facing="N"), "M", "SE", diagonals_so_far=1) == cost


def test_difficult_without_surcharge_side_rear():
    """EP-TER-01 under side_rear: difficult costs 2 in every direction (no surcharge)."""
    battle = board(
        """
        ~ ~ ~
        ~ M ~
        ~ ~ ~
        """,
        "side_rear",
        M={"facing": "N"},
    )
    assert [step_cost(battle, "M", d) for d in ALL] == [2] * 8


# -- hex steps ---------------------------------------------------------------------------------


def _hex(size: str = "Medium", pos=(3, 3), terrain=(), **fields) -> Battle:
    return Battle.from_spec(
        {
            "grid": {"kind": "hex", "width": 8, "height": 8},
            "terrain": [{"pos": list(p), "kind": k} for p, k in terrain],
            "creatures": [{"id": "H", "size": size, "pos": list(pos), **fields}],
        }
    )


@pytest.mark.parametrize(
    ("direction", "area", "cost"),
    [
        ("E", "front", 1),
        ("NE", "front", 1),
        ("SE", "front", 1),
        ("NW", "flank", 2),
        ("SW", "flank", 2),
        ("W", "rear", 2),
    ],
)
def test_hex_step_costs(direction, area, cost):
    """UA-HEX-03 with IC-05 (3 front / 2 flank / 1 rear), UA-MOVE-03/04 on hexes."""
    battle = _hex(facing="E")
    assert step_area(battle, "H", direction) == area
    assert step_cost(battle, "H", direction) == cost
    assert step_cost(battle, "H", direction, turn_first=True) == 1


def test_hex_has_no_alternating_diagonals():
    """UA-HEX-01: the hex grid eliminates the "every other square counts double" rule."""
    battle = _hex(facing="E")
    assert step_cost(battle, "H", "NE", diagonals_so_far=1) == 1
    assert step_cost(battle, "H", "W", diagonals_so_far=1) == 2


def test_hex_difficult():
    """EP-TER-01, IC-07 on hexes: difficult front 2, difficult rear 4."""
    battle = _hex(facing="E", terrain=[((4, 3), "difficult"), ((2, 3), "difficult")])
    assert step_cost(battle, "H", "E") == 2
    assert step_cost(battle, "H", "W") == 4


@pytest.mark.parametrize(
    ("direction", "area", "cost"),
    [
        ("NE", "front", 1),
        ("NW", "front", 1),
        ("E", "flank", 2),
        ("W", "flank", 2),
        ("SW", "rear", 2),
        ("SE", "rear", 2),
    ],
)
def test_hex_large_triangle_apex_north(direction, area, cost):
    """IC-06 on hexes (the project's multi-hex extrapolation, UA-HEX-03): a Large triangle
    facing N (its apex) steps at cost 1 within 60 degrees of the facing."""
    battle = _hex("Large", pos=(3, 4), facing="N")
    assert step_area(battle, "H", direction) == area
    assert step_cost(battle, "H", direction) == cost


# -- 5-foot steps (UA-MOVE-05, EP-5FT-01..03) ------------------------------------------------------


@pytest.mark.parametrize("ruleset", ["ua35", "side_rear", "standard"])
@pytest.mark.parametrize("direction", ALL)
def test_five_foot_step_any_direction_costs_one(ruleset, direction):
    """UA-MOVE-05 ("even squares in your rear or on your flank", no doubling), EP-5FT-01
    (one square)."""
    battle = _centre(ruleset, facing="N")
    assert step_cost(battle, "M", direction, five_foot_step=True) == 1


def test_five_foot_step_second_diagonal_costs_one():
    """UA-MOVE-05, EP-5FT-01: a 5-foot step is one square, whatever came before."""
    battle = _centre(facing="N")
    assert step_cost(battle, "M", "SE", five_foot_step=True, diagonals_so_far=1) == 1


@pytest.mark.parametrize(("char", "normal"), [("~", 2), ("%", FULL_ROUND)])
def test_five_foot_step_not_into_difficult_or_impeded(char, normal):
    """EP-5FT-03, EP-TER-01, EP-TER-02: no 5-foot step into difficult or impeded terrain
    (a normal step there costs 2 / a full-round action)."""
    battle = board(
        f"""
        . {char} .
        . M .
        . . .
        """,
        M={"facing": "N"},
    )
    assert step_cost(battle, "M", "N", five_foot_step=True) is None
    assert step_cost(battle, "M", "N") == normal
    assert step_cost(battle, "M", "S", five_foot_step=True) == 1


@pytest.mark.parametrize(("speed", "cost", "allowance"), [(5, None, 0), (0, None, 0), (10, 1, 1)])
def test_five_foot_step_needs_speed_over_5(speed, cost, allowance):
    """EP-5FT-03: "Any creature with a move speed of 5 feet or less cannot ever take a
    5-foot step"."""
    battle = _centre(facing="N", speed=speed)
    assert step_cost(battle, "M", "N", five_foot_step=True) == cost
    assert movement_allowance(battle, "M", "five_foot_step") == allowance


def test_five_foot_step_not_into_an_occupied_square():
    """EP-5FT-01 (the step moves the creature into the square; EP-WALK-01: walking only
    passes through allies): a 5-foot step cannot end in an ally's square."""
    battle = board(
        """
        . A .
        . M .
        . . .
        """,
        M={"facing": "N", "team": "pc"},
        A={"team": "pc"},
    )
    assert step_cost(battle, "M", "N", five_foot_step=True) is None
    assert step_cost(battle, "M", "N") == 1


# -- terrain (EP-TER-01..04) -------------------------------------------------------------------


def test_impeded_is_full_round():
    """EP-TER-02: impeded terrain takes a full-round action to move 5 feet, whatever the
    facing."""
    battle = board(
        """
        % % %
        % M %
        % % %
        """,
        M={"facing": "N"},
    )
    assert [step_cost(battle, "M", d) for d in ALL] == [FULL_ROUND] * 8


@pytest.mark.parametrize("char", ["#", "o"])
def test_blocked_and_pillar_cannot_be_entered(char):
    """EP-TER-03: blocked terrain (walls, pillars, statues) cannot be entered."""
    battle = board(
        f"""
        . {char} .
        . M .
        . . .
        """,
        M={"facing": "N"},
    )
    assert step_cost(battle, "M", "N") is None
    assert step_cost(battle, "M", "N", turn_first=True) is None
    assert step_cost(battle, "M", "N", five_foot_step=True) is None


def test_off_the_board_cannot_be_entered():
    """EP-TER-03: squares off the map count as blocked."""
    battle = board("M .", M={"facing": "N"})
    assert step_cost(battle, "M", "N") is None
    assert step_cost(battle, "M", "W") is None
    assert step_cost(battle, "M", "E") == 2


@pytest.mark.parametrize(
    ("picture", "ne_cost"),
    [
        (". # .\n. M .\n. . .", None),  # wall N: cannot cut the corner
        (". . .\n. M #\n. . .", None),  # wall E
        (". o .\n. M .\n. . .", 1),  # pillar N: rounded, corner may be cut
        (". . .\n. M o\n. . .", 1),
        (". . #\n. M .\n. . .", None),  # the target square itself is a wall
    ],
)
def test_corner_cutting_walls_vs_pillars(picture, ne_cost):
    """EP-TER-04: a completely filled blocked square (a wall) stops a diagonal move past its
    corner; a rounded pillar does not."""
    battle = board(picture, M={"facing": "N"})
    assert step_cost(battle, "M", "NE") == ne_cost
    assert step_cost(battle, "M", "NE", five_foot_step=True) == ne_cost


@pytest.mark.parametrize(
    ("corner", "char", "cost"),
    [((1, 1), "#", None), ((1, 1), "o", 1), ((3, 3), "#", None), ((3, 3), "o", 1)],
)
def test_large_corner_cutting(corner, char, cost):
    """EP-TER-04 for a Large mover at (1,2) stepping NE: its body sweeps past the corners
    of (1,1) and (3,3); a wall there stops the step, a pillar does not."""
    rows = [list(".....") for _ in range(5)]
    for x, y in [(1, 2), (2, 2), (1, 3), (2, 3)]:
        rows[y][x] = "L"
    rows[corner[1]][corner[0]] = char
    battle = board("\n".join(" ".join(r) for r in rows), L={"facing": "N"})
    assert step_cost(battle, "L", "NE") == cost
    assert step_cost(battle, "L", "SW") == 2  # the opposite diagonal passes no obstacle


# -- walking through creatures (EP-WALK-01, EP-OCC-01) ---------------------------------------------


def test_walk_through_ally_not_enemy():
    """EP-WALK-01 ("only walk through unoccupied spaces or spaces occupied by allies"),
    EP-OCC-01 (an occupied square is not difficult terrain): through the ally at normal
    cost, never through the enemy."""
    battle = board(
        """
        . A .
        E M .
        . . .
        """,
        M={"facing": "N", "team": "pc"},
        A={"team": "pc"},
        E={"team": "monsters"},
    )
    assert step_cost(battle, "M", "N") == 1
    assert step_cost(battle, "M", "W") is None
    assert step_cost(battle, "M", "W", turn_first=True) is None


def test_walk_through_ally_on_flank_pays_only_surcharge():
    """EP-OCC-01, UA-MOVE-04: an ally on the flank: 2 (the facing surcharge), not 4."""
    battle = board(
        """
        . . .
        . M A
        . . .
        """,
        M={"facing": "N", "team": "pc"},
        A={"team": "pc"},
    )
    assert step_cost(battle, "M", "E") == 2
    assert step_cost(battle, "M", "E", turn_first=True) == 1


def test_large_step_into_partly_enemy_space():
    """EP-WALK-01: a Large mover cannot step if any entered square holds an enemy."""
    battle = board(
        """
        . . . E
        . L L .
        . L L .
        """,
        L={"facing": "N"},
    )
    assert step_cost(battle, "L", "NE") is None
    assert step_cost(battle, "L", "N") == 1


# -- allowances (EP-DBL-01, EP-RUN-01, IC-13) ------------------------------------------------------


@pytest.mark.parametrize(
    ("speed", "armor", "mode", "squares"),
    [
        (30, "none", "walk", 6),
        (30, "none", "double_move", 12),
        (30, "none", "run", 24),
        (30, "light", "run", 24),
        (30, "medium", "run", 24),
        (30, "heavy", "run", 18),
        (20, "heavy", "run", 12),
        (20, "none", "run", 16),
        (20, "heavy", "double_move", 8),
        (40, "none", "charge", 8),
        (30, "none", "withdraw", 6),
        (30, "none", "five_foot_step", 1),
        (5, "none", "walk", 1),
        (5, "none", "run", 4),
    ],
)
def test_movement_allowance(speed, armor, mode, squares):
    """EP-GEN-01 (5 feet a square), EP-DBL-01 (double move x2), EP-RUN-01 with IC-13 (run
    x4, x3 in heavy armour; medium armour x4 under both texts), EP-CHG-01 (charge up to the
    speed), EP-5FT-01 (one square)."""
    battle = _centre(speed=speed, armor=armor)
    assert movement_allowance(battle, "M", mode) == squares


def test_movement_allowance_rejects_unknown_mode():
    """EP-GEN-01: only the movement modes of docs/rules.md exist."""
    with pytest.raises(RulesQueryError, match="unknown movement mode 'teleport'"):
        movement_allowance(_centre(), "M", "teleport")


# -- charge (EP-CHG-01) ---------------------------------------------------------------------------

CHARGE_ROW = """
    . . . . . . . . . .
    C . {a} . . T . . . .
    . . . . . . . . . .
"""


def _charge(a: str = ".", ruleset: str = "ua35", **fields) -> Battle:
    extra = {"A": {"team": "c"}} if a == "A" else {}
    return board(CHARGE_ROW.format(a=a), ruleset, C={"facing": "E", "team": "c", **fields}, **extra)


@pytest.mark.parametrize(
    ("dest", "ok"),
    [
        ((4, 1), True),
        ((3, 1), False),
        ((5, 0), False),
        ((5, 2), False),
        ((6, 1), False),
        ((4, 0), True),
        ((4, 2), True),
    ],
)
def test_charge_destination(dest, ok):
    """EP-CHG-01: "You must move to the closest space from which you can attack the
    opponent": (4,1) and its diagonal neighbours (4,0), (4,2) are 4 squares away; (3,1)
    cannot attack; (5,0), (5,2) (5 squares) and (6,1) (6) are not the closest."""
    assert charge_allowed(_charge(), "C", "T", dest) is ok


def test_charge_needs_two_squares():
    """EP-CHG-01: "You must move at least 10 feet (2 squares)"."""
    near = board("C . T . .", C={"facing": "E"})
    adjacent_start = board(". C . T .", C={"facing": "E"})
    assert charge_allowed(near, "C", "T", (1, 0)) is False  # 1 square
    assert charge_allowed(adjacent_start, "C", "T", (2, 0)) is False
    far = board("C . . T .", C={"facing": "E"})
    assert charge_allowed(far, "C", "T", (2, 0)) is True  # exactly 2 squares


@pytest.mark.parametrize(("speed", "ok"), [(20, False), (25, True), (30, True)])
def test_charge_up_to_speed(speed, ok):
    """EP-CHG-01: "may move up to your speed": 5 squares need speed 25."""
    battle = board(". . . . . . .\nC . . . . . T", C={"facing": "E", "speed": speed})
    assert charge_allowed(battle, "C", "T", (5, 1)) is ok


@pytest.mark.parametrize("blocker", ["A", "#", "o", "~", "%"])
def test_charge_lane_must_be_clear(blocker):
    """EP-CHG-01: "without passing through any object that blocks movement, slows movement,
    or contains a creature (even an ally)"."""
    assert charge_allowed(_charge(), "C", "T", (4, 1)) is True
    assert charge_allowed(_charge(blocker), "C", "T", (4, 1)) is False


def test_charge_into_occupied_destination():
    """EP-CHG-01: the charger must end in a space it can occupy."""
    battle = board("C . . . X T", C={"facing": "E"}, X={"team": "C"})
    assert charge_allowed(battle, "C", "T", (4, 0)) is False


# -- forced movement (EP-FORCE-01..04) -------------------------------------------------------------

FORCE_ROW = """
    . . . . . . . . .
    . . A T . . . . .
    . . . . . . . . .
"""


def _force(text: str = FORCE_ROW, **fields) -> Battle:
    return board(text, A={"facing": "E"}, T={"facing": "W"}, **fields)


def test_push_straight_away():
    """EP-FORCE-02: each square further from the attacker than the one exited."""
    path = [(4, 1), (5, 1), (6, 1)]
    assert forced_path(_force(), "T", "A", path) == path


def test_push_path_may_include_start():
    """EP-FORCE-02: a path given from the target's own square starts after it."""
    assert forced_path(_force(), "T", "A", [(3, 1), (4, 1)]) == [(4, 1)]


@pytest.mark.parametrize(
    ("path", "moved"),
    [
        ([(4, 1), (4, 0)], [(4, 1)]),  # (4,0) is no further from A than (4,1)
        ([(4, 1), (3, 1)], [(4, 1)]),  # back toward the attacker
        ([(4, 0), (5, 0)], [(4, 0), (5, 0)]),  # diagonal away then straight away
        ([(5, 1)], []),
    ],  # not adjacent
)
def test_push_must_move_away(path, moved):
    """EP-FORCE-02: "Each square of this forced movement must be further away from the
    attacker's square(s) than the square being exited"."""
    assert forced_path(_force(), "T", "A", path) == moved


@pytest.mark.parametrize("obstacle", ["X", "#", "o"])
def test_push_stops_before_obstruction(obstacle):
    """EP-FORCE-01 (never into blocked terrain, only into unoccupied squares), EP-FORCE-02
    ("the push ends in the square prior to this obstruction", friend or foe)."""
    text = FORCE_ROW.replace(". . A T . . .", f". . A T . {obstacle} .")
    extra = {"X": {"team": "T"}} if obstacle == "X" else {}
    battle = _force(text, **extra)
    assert forced_path(battle, "T", "A", [(4, 1), (5, 1), (6, 1)]) == [(4, 1)]


@pytest.mark.parametrize("char", ["~", "%"])
def test_forced_movement_ignores_rough_terrain(char):
    """EP-FORCE-01: "Forced movement ignores the penalties to movement for rough terrain"."""
    battle = _force(FORCE_ROW.replace(". . A T . . .", f". . A T {char} {char} ."))
    assert forced_path(battle, "T", "A", [(4, 1), (5, 1), (6, 1)]) == [(4, 1), (5, 1), (6, 1)]


def test_push_off_the_board_stops_at_edge():
    """EP-FORCE-01: squares off the map are blocked."""
    battle = board(". A T .", A={"facing": "E"})
    assert forced_path(battle, "T", "A", [(3, 0), (4, 0)]) == [(3, 0)]


def test_pull_toward_then_around():
    """EP-FORCE-03: each square closer to the attacker; once adjacent, the target may be
    pulled into any other square adjacent to the attacker's space."""
    text = """
        . . . . . . . . .
        . . A . . . T . .
        . . . . . . . . .
    """
    battle = _force(text)
    path = [(5, 1), (4, 1), (3, 1), (3, 0), (2, 0), (1, 0)]
    assert forced_path(battle, "T", "A", path, kind="pull") == path
    assert forced_path(battle, "T", "A", [(7, 1)], kind="pull") == []
    assert forced_path(battle, "T", "A", [(5, 1), (5, 0)], kind="pull") == [(5, 1)]
    # once adjacent, pulling away from the attacker ends the pull
    away = [(5, 1), (4, 1), (3, 1), (4, 0)]
    assert forced_path(battle, "T", "A", away, kind="pull") == [(5, 1), (4, 1), (3, 1)]


def test_slide_any_path_until_obstructed():
    """EP-FORCE-04: a slide follows any path the attacker wishes and ends before an
    obstruction (the attacker's own space included)."""
    battle = _force()
    path = [(3, 0), (2, 0), (1, 0), (1, 1), (1, 2)]
    assert forced_path(battle, "T", "A", path, kind="slide") == path
    assert forced_path(battle, "T", "A", [(3, 0), (2, 1)], kind="slide") == [(3, 0)]
    assert forced_path(battle, "T", "A", [(3, 0)], kind="push") == []  # not further away


def test_forced_movement_never_provokes():
    """EP-FORCE-01: "Forced movement never provokes attacks of opportunity", though the same
    path walked provokes the attacker (whose squares the target leaves)."""
    battle = _force()
    path = [(4, 1), (5, 1)]
    assert provokers(battle, "T", path, mode="walk") == ["A"]
    assert provokers(battle, "T", path, mode="forced") == []


def test_forced_movement_unknown_kind():
    """EP-FORCE-02..04: the three kinds are push, pull and slide."""
    with pytest.raises(RulesQueryError):
        forced_path(_force(), "T", "A", [(4, 1)], kind="throw")
