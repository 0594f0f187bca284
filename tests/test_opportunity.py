"""Threatened squares and attacks of opportunity: ``threatened_cells`` and ``provokers``,
and attacks of opportunity made through the engine's ``apply`` (the last section).

Rule ids (docs/rules.md): SRD-AOO-01..05, EP-THR-01, EP-REACH-01, EP-DBL-01, EP-RUN-01,
EP-WDR-01, EP-CHG-02, EP-5FT-01, EP-FORCE-01, SRD-FF-01 and IC-12; through ``apply``,
UA-AOO-01..03, SRD-AOO-05, UA-FEAT-CR and IC-09. Boards: x grows east, y grows south; the
letter is the id. The engine helpers (``begin``, ``do``, directions ``N`` .. ``NW`` = 0..7)
are in tests/engine_boards.py.
"""

from __future__ import annotations

import pytest

from facing_env.rules import engine, geometry, provokers, threatened_cells, threatens
from facing_env.rules.opportunity import can_make_attacks_of_opportunity, step_provokers
from tests.boards import board
from tests.engine_boards import END, NW, E, N, S, W, attacks_in, begin, do, keep, move
from tests.env_play import SCENARIOS, walk

FACINGS = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")


def _block(x0: int, y0: int, x1: int, y1: int) -> set[tuple[int, int]]:
    return {(x, y) for x in range(x0, x1 + 1) for y in range(y0, y1 + 1)}


# -- threatened squares ---------------------------------------------------------------------


def test_srd_aoo_01_ep_thr_01_medium_threatens_adjacent_and_own_square():
    """SRD-AOO-01: all adjacent squares; EP-THR-01: and the squares it occupies."""
    b = board(
        """
        . . . . .
        . . . . .
        . . E . .
        . . . . .
        . . . . .
        """
    )
    assert threatened_cells(b, "E") == frozenset(_block(1, 1, 3, 3))
    assert threatens(b, "E", (2, 2)) is True
    assert threatens(b, "E", (0, 2)) is False


def test_ep_thr_01_large_threatens_its_own_space():
    """EP-THR-01: a Large creature threatens all 4 squares it occupies, and (reach 10,
    EP-REACH-01) squares 2 away; ua35 counts the second diagonal double, so the 4 far
    corners (3 squares by 3.5 counting) are not threatened: 36 - 4 = 32 squares."""
    b = board(
        """
        . . . . . .
        . . . . . .
        . . L L . .
        . . L L . .
        . . . . . .
        . . . . . .
        """
    )
    zone = threatened_cells(b, "L")
    assert _block(2, 2, 3, 3) <= zone
    assert zone == frozenset(_block(0, 0, 5, 5) - {(0, 0), (5, 0), (0, 5), (5, 5)})
    assert len(zone) == 32


def test_ep_reach_01_reach_weapon_threatens_two_squares_away():
    """EP-REACH-01: a Medium creature with a 10-ft reach weapon threatens squares 2 away
    (and, in this engine, the adjacent ones); under ua35's alternating diagonals the
    (2, 2) diagonal is 15 ft: 25 - 4 = 21 squares. Under standard (uniform diagonals,
    EP-GEN-02) it is 10 ft: 25 squares."""
    text = """
        . . . . .
        . . . . .
        . . E . .
        . . . . .
        . . . . .
    """
    spear = {"attacks": [{"name": "longspear", "reach": 10}]}
    ua = board(text, E=spear)
    assert threatened_cells(ua, "E") == frozenset(
        _block(0, 0, 4, 4) - {(0, 0), (4, 0), (0, 4), (4, 4)}
    )
    std = board(text, "standard", E=spear)
    assert threatened_cells(std, "E") == frozenset(_block(0, 0, 4, 4))


def test_ep_reach_01_mover_two_squares_away_provokes_reach_creature():
    """EP-REACH-01 + SRD-AOO-02 + IC-12: leaving a square 2 away from a 10-ft reach
    creature provokes it; the same move 2 squares from a 5-ft creature does not."""
    text = """
        . . . . .
        . . . . .
        M . E . .
        . . . . .
    """
    reach = board(text, E={"reach": 10})
    assert provokers(reach, "M", [(0, 2), (0, 1), (0, 0)]) == ["E"]
    plain = board(text)
    assert provokers(plain, "M", [(0, 2), (0, 1), (0, 0)]) == []


def test_ep_reach_01_tiny_threatens_nothing_adjacent():
    """EP-REACH-01: Tiny and smaller have no reach and do not threaten adjacent squares;
    leaving a square next to them never provokes. (EP-THR-01: they threaten only the
    squares they occupy.)"""
    b = board(
        """
        . . .
        . T .
        . M .
        """,
        T={"size": "Tiny"},
    )
    zone = threatened_cells(b, "T")
    assert zone.isdisjoint(_block(0, 0, 2, 2) - {(1, 1)})
    assert zone <= frozenset({(1, 1)})
    assert provokers(b, "M", [(1, 2), (2, 2)]) == []


def test_srd_ff_01_flat_footed_creatures_do_not_threaten():
    """SRD-FF-01: 'A flat-footed combatant can't make attacks of opportunity.'"""
    b = board(
        """
        . F .
        . M .
        . . .
        """,
        F={"flat_footed": True},
    )
    assert can_make_attacks_of_opportunity(b.creature("F")) is False
    assert threatened_cells(b, "F") == frozenset()
    assert provokers(b, "M", [(1, 1), (1, 2)]) == []
    b.creature("F").flat_footed = False
    assert provokers(b, "M", [(1, 1), (1, 2)]) == ["F"]


def test_srd_ff_01_combat_reflexes_lifts_the_flat_footed_bar_and_aoo_traits_split_it():
    """SRD-FF-01 with the 3.5 SRD's Combat Reflexes exception (see
    ``can_make_attacks_of_opportunity``): a flat-footed creature with the feat still
    threatens. ``aoo_traits`` is the spec-fixed part of that rule (may at all, reflexes)."""
    from facing_env.rules.opportunity import aoo_traits

    b = board(
        """
        . F .
        . M .
        . R .
        """,
        F={"flat_footed": True, "feats": ["Combat Reflexes"]},
        R={"attacks": [{"name": "bow", "kind": "ranged", "range": 60, "damage": "1d8"}]},
    )
    assert aoo_traits(b.creature("F")) == (True, True)
    assert aoo_traits(b.creature("M")) == (True, False)
    assert aoo_traits(b.creature("R")) == (False, False)  # no melee attack (EP-THR-01)
    assert can_make_attacks_of_opportunity(b.creature("F")) is True
    assert provokers(b, "M", [(1, 1), (2, 1)]) == ["F"]
    b.creature("F").hp = 0
    assert can_make_attacks_of_opportunity(b.creature("F")) is False


def test_ep_thr_01_non_threatening_creature_provokes_nothing():
    """EP-THR-01: only creatures who can make attacks of opportunity threaten (a
    creature with ``threatens: false`` or only a ranged attack threatens nothing)."""
    b = board(
        """
        X . Y
        . M .
        . . .
        """,
        X={"threatens": False},
        Y={"attacks": [{"name": "bow", "kind": "ranged"}]},
    )
    assert threatened_cells(b, "X") == frozenset()
    assert threatened_cells(b, "Y") == frozenset()
    assert provokers(b, "M", [(1, 1), (1, 2)]) == []


# -- provoking ------------------------------------------------------------------------------

_CORRIDOR = """
    . . . . . . .
    M . . . . . .
    . . . E . . .
    . . . . . . .
"""


def test_srd_aoo_02_moving_into_a_threatened_area_does_not_provoke():
    """SRD-AOO-02: moving *into* a threatened square (and stopping) does not provoke."""
    b = board(_CORRIDOR)
    assert provokers(b, "M", [(0, 1), (1, 1), (2, 1)]) == []


def test_srd_aoo_02_moving_through_a_threatened_area_provokes_once():
    """SRD-AOO-02: moving through a threatened area provokes; SRD-AOO-05, EP-DBL-01: one
    attack of opportunity per enemy however many threatened squares are left."""
    b = board(_CORRIDOR)
    path = [(0, 1), (1, 1), (2, 1), (3, 1), (4, 1), (5, 1), (6, 1)]
    assert provokers(b, "M", path) == ["E"]
    assert provokers(b, "M", path, mode="double_move") == ["E"]


def test_srd_aoo_02_start_may_be_omitted_from_the_path():
    """The path may list the starting square or not (docs/design.md, rule queries)."""
    b = board(_CORRIDOR)
    assert provokers(b, "M", [(1, 1), (2, 1), (3, 1), (4, 1)]) == ["E"]


def test_ic_12_leaving_the_threatened_starting_square_provokes():
    """IC-12 (S4, 3.5): a walk out of a threatened starting square provokes (the S3
    start-square exemption, SRD-AOO-03, is the recorded alternative)."""
    b = board(
        """
        . . . .
        . E M .
        . . . .
        """
    )
    assert provokers(b, "M", [(2, 1), (3, 1)]) == ["E"]
    assert provokers(b, "M", [(2, 1), (3, 1)], mode="double_move") == ["E"]


def test_srd_aoo_04_ep_5ft_01_five_foot_step_never_provokes():
    """SRD-AOO-04, EP-5FT-01: a 5-foot step out of a threatened square does not provoke."""
    b = board(
        """
        . . . .
        . E M .
        . . . .
        """
    )
    assert provokers(b, "M", [(2, 1), (3, 1)], mode="five_foot_step") == []
    assert provokers(b, "M", [(3, 1)], mode="five_foot_step") == []


def test_ep_run_01_run_provokes_as_normal():
    """EP-RUN-01: running provokes like any other movement (each enemy once)."""
    b = board(
        """
        . . . . . . . .
        M . . . . . . .
        . . E . . F . .
        """
    )
    path = [(x, 1) for x in range(8)]
    assert provokers(b, "M", path, mode="run") == ["E", "F"]


def test_ep_dbl_01_each_enemy_once_in_order_provoked():
    """EP-DBL-01: 'only ... one attack of opportunity per enemy creature you provoke'; the
    list is in the order provoked; allies never provoke."""
    b = board(
        """
        . . . . . . . . .
        M . . . . . . . .
        . . F . A . E . .
        """,
        M={"team": "pc"},
        A={"team": "pc"},
    )
    path = [(x, 1) for x in range(9)] + [(8, 0), (7, 0), (6, 0), (5, 0), (4, 0), (3, 0)]
    assert provokers(b, "M", path, mode="double_move") == ["F", "E"]


_WITHDRAW = """
    . . . . . . . .
    . . . . Q . R .
    P M . . . . . .
    . . . . . . . .
"""
_WITHDRAW_PATH = [(1, 2), (2, 2), (3, 2), (4, 2), (5, 2), (6, 2), (7, 2)]


def test_ep_wdr_01_walk_reference():
    """EP-WALK-01: the same path as a walk provokes P (start square), Q and R."""
    b = board(_WITHDRAW)
    assert provokers(b, "M", _WITHDRAW_PATH) == ["P", "Q", "R"]


def test_ep_wdr_01_withdraw_success():
    """EP-WDR-01: the primary target never gets an attack of opportunity; on a successful
    check one other creature that threatens the path (here the first, Q) does not either."""
    b = board(_WITHDRAW)
    assert provokers(b, "M", _WITHDRAW_PATH, mode="withdraw", primary_target="P") == ["R"]


def test_ep_wdr_01_withdraw_failure():
    """EP-WDR-01: on a failed check every creature threatening an exited square provokes,
    'other than the primary target' (the primary target part is automatic)."""
    b = board(_WITHDRAW)
    got = provokers(
        b, "M", _WITHDRAW_PATH, mode="withdraw", primary_target="P", maneuver_succeeded=False
    )
    assert got == ["Q", "R"]


_CHARGE = """
    . . . . . . .
    M . . . . T .
    . . Q . . . .
"""
# M charges T along row 1 to (4,1): passes Q's threatened squares, ends next to T.
_CHARGE_PATH = [(0, 1), (1, 1), (2, 1), (3, 1), (4, 1)]


def test_ep_chg_02_charge_success_target_does_not_provoke():
    """EP-CHG-02: a charge never provokes from the target, but does from other creatures
    that threaten squares exited."""
    b = board(_CHARGE)
    assert provokers(b, "M", _CHARGE_PATH, mode="charge", primary_target="T") == ["Q"]


def test_ep_chg_02_charge_success_target_threatening_an_exited_square():
    """EP-CHG-02: even when the path leaves a square the target threatens, the target of
    a successful charge gets no attack of opportunity; on a failed charge it does."""
    b = board(
        """
        . . . . . .
        M . . . . .
        . . . T . .
        . . . . . .
        """
    )
    path = [(0, 1), (1, 1), (2, 1), (3, 1)]  # leaves (2,1), which T threatens
    assert provokers(b, "M", path, mode="walk") == ["T"]
    assert provokers(b, "M", path, mode="charge", primary_target="T") == []
    got = provokers(b, "M", path, mode="charge", primary_target="T", maneuver_succeeded=False)
    assert got == ["T"]


def test_ep_force_01_forced_movement_never_provokes():
    """EP-FORCE-01: 'Forced movement never provokes attacks of opportunity'."""
    b = board(_WITHDRAW)
    assert provokers(b, "M", _WITHDRAW_PATH, mode="forced") == []


def test_large_mover_provokes_only_for_squares_it_leaves():
    """SRD-AOO-02 for a Large mover: stepping E leaves its west column (threatened by W)
    but not squares it still occupies; E is approached, not left."""
    b = board(
        """
        . . . . . .
        W L L . . E
        . L L . . .
        . . . . . .
        """
    )
    assert provokers(b, "L", [(1, 1), (2, 1)]) == ["W"]


@pytest.mark.parametrize("enemy_facing", FACINGS)
@pytest.mark.parametrize("mover_facing", ["N", "E", "S", "W"])
def test_facing_never_changes_whether_a_move_provokes(enemy_facing, mover_facing):
    """UA-AOO-01..03: facing changes only the modifiers, never whether a
    move provokes: moving out past the enemy always provokes it, exactly once."""
    b = board(
        """
        . . . .
        . E M .
        . . . .
        """,
        E={"facing": enemy_facing},
        M={"facing": mover_facing},
    )
    assert provokers(b, "M", [(2, 1), (2, 0), (1, 0), (0, 0)]) == ["E"]
    assert provokers(b, "M", [(2, 1), (3, 1)], mode="five_foot_step") == []


def test_facing_never_changes_threatened_squares_side_rear():
    """SRD-AOO-01: threatened squares are the same in every ruleset and facing."""
    text = """
        . . .
        . E .
        . . .
    """
    zones = {
        (ruleset, f): threatened_cells(board(text, ruleset, E={"facing": f}), "E")
        for ruleset in ("ua35", "side_rear", "standard")
        for f in ("N", "SE")
    }
    assert set(zones.values()) == {frozenset(_block(0, 0, 2, 2))}


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_step_provokers_equals_provokers_of_a_one_step_path(scenario):
    """The engine's one-step query (``step_provokers``) names the same creatures, in the
    same order, as ``provokers`` of the path [dest] when walking or running (EP-RUN-01,
    IC-12), on random reachable states and every direction."""
    checked = provoking = 0
    for seed in (0, 1, 2, 3):

        def visit(env):
            nonlocal checked, provoking
            b = env.battle
            c = engine.actor(b)
            for vx, vy in geometry.direction_vectors(b.kind):
                dest = (c.pos[0] + vx, c.pos[1] + vy)
                expected = provokers(b, c, [dest], mode="walk")
                assert step_provokers(b, c, dest) == expected
                assert provokers(b, c, [dest], mode="run") == expected
                checked += 1
                provoking += bool(expected)

        walk(scenario, seed, 120, visit=visit)
    assert checked > 100
    assert provoking > 0  # some steps leave a threatened square


# ==========================================================================================
# Attacks of opportunity (UA-AOO-01..03, SRD-AOO-05, UA-FEAT-CR, IC-09)
# ==========================================================================================


@pytest.mark.parametrize(
    ("text", "r_facing", "action", "modifier", "cost"),
    [
        ("F R .", "N", move(N), 2, 1),  # UA-AOO-01 (Figure 1): F in R's flank
        ("F R .", "W", keep(N), 0, 2),  # UA-AOO-02 (Figure 2): sideways, F in R's front
        ("R F .", "N", move(N), -8, 1),  # UA-AOO-03 (Figure 3): R in F's rear, F in R's flank
        ("F R .", "N", move(NW), 0, 1),  # UA-MOVE-01: R turns NW first, F now in its front
        ("F R .", "N", keep(NW), 2, 1),  # the same step without turning: +2
    ],
)
def test_ua_aoo_01_03_attack_of_opportunity_facing_modifiers(
    text, r_facing, action, modifier, cost
):
    """UA-AOO-01..03 with IC-09: the fighter F (facing E) gets an attack of opportunity when
    the rogue R leaves the square next to it, with F's own penalty plus the bonus from R's
    facing in the square being left (after R turned toward its step, UA-MOVE-01)."""
    b = board(". . .\n" + text + "\n. . .", F={"facing": "E"}, R={"facing": r_facing})
    begin(b, "R", "F", flat_footed_start=False)
    events = do(b, action)
    assert [(e.kind, e.actor) for e in events] == [("attack", "F"), ("move", "R")]
    assert (events[0].attack_kind, events[0].facing_modifier) == ("aoo", modifier)
    assert events[1].cost == cost


@pytest.mark.parametrize(
    ("where", "m_facing", "away", "feats", "modifier"),
    [
        ((2, 1), "W", E, [], -5),  # M in F's flank: -5
        ((2, 1), "W", E, ["Combat Reflexes"], 0),  # UA-FEAT-CR: flank without penalty
        ((1, 2), "N", S, ["Combat Reflexes"], -10),  # the rear is still -10
    ],
)
def test_ua_feat_cr_attacks_of_opportunity_into_the_flank(where, m_facing, away, feats, modifier):
    """UA-FEAT-CR: Combat Reflexes lets F (facing N) make attacks of opportunity into its
    flank without penalty; M faces F and backs away without turning."""
    rows = [[".", ".", "."] for _ in range(4)]
    rows[1][1] = "F"
    rows[where[1]][where[0]] = "M"
    rows = [[*r, "."] for r in rows]
    b = board(
        "\n".join(" ".join(r) for r in rows),
        F={"facing": "N", "feats": feats},
        M={"facing": m_facing, "hp": 100},
    )
    begin(b, "M", "F", flat_footed_start=False)
    [aoo] = attacks_in(do(b, keep(away)))
    assert (aoo.actor, aoo.attack_kind, aoo.facing_modifier) == ("F", "aoo", modifier)


@pytest.mark.parametrize(
    ("dex", "feats", "makers"),
    [
        (10, [], ["F"]),  # SRD-AOO-05: one per round
        (12, ["Combat Reflexes"], ["F", "F"]),  # UA-FEAT-CR (3.5): 1 + Dex modifier
        (10, ["Combat Reflexes"], ["F"]),  # Dex modifier 0: still one
    ],
)
def test_srd_aoo_05_one_attack_of_opportunity_per_round(dex, feats, makers):
    """SRD-AOO-05 'a combatant can only make one per round': M and N both walk away from F
    in round 1; F strikes only the first, unless Combat Reflexes gives it more."""
    b = board(
        ". . . . .\n. M . N .\n. . F . .",
        F={"team": "f", "dex": dex, "feats": feats},
        M={"team": "mn", "hp": 100},
        N={"team": "mn", "hp": 100},
    )
    begin(b, "M", "N", "F", flat_footed_start=False)
    events = do(b, move(N), END, move(N))
    assert [e.actor for e in attacks_in(events)] == makers
    assert [e.target for e in attacks_in(events)] == ["M", "N"][: len(makers)]


def test_srd_aoo_05_one_per_enemy_per_move_and_again_next_round():
    """One attack of opportunity per enemy per move (EP-DBL-01), even with Combat Reflexes
    (Dex 18): M leaves F's threatened square twice in one turn and provokes once; after F's
    own turn its allowance is back and M provokes again in round 2."""
    b = board(
        "F M . .",
        F={"feats": ["Combat Reflexes"], "dex": 18, "facing": "E"},
        M={"hp": 100},
    )
    begin(b, "M", "F", flat_footed_start=False)
    first = do(b, move(E), move(W), move(E), move(W))
    assert [(e.kind, e.actor) for e in first] == [
        ("attack", "F"),
        ("move", "M"),
        ("move", "M"),
        ("move", "M"),
        ("move", "M"),
    ]
    do(b, END, END)
    assert engine.actor(b).id == "M"
    assert [(e.kind, e.actor) for e in do(b, move(E))] == [("attack", "F"), ("move", "M")]


def test_an_attack_of_opportunity_can_kill_the_mover():
    """The mover dies in the square it was leaving (the AoO hits: 10.5 vs AC 10, 4 damage
    to 4 hp); its turn ends and the next creature's begins."""
    b = board("F M . . X", F={"team": "f", "facing": "E"}, M={"hp": 4}, X={"team": "x"})
    begin(b, "M", "F", "X", flat_footed_start=False)
    events = do(b, move(E))
    assert [(e.kind, e.actor) for e in events] == [
        ("attack", "F"),
        ("death", "M"),
        ("end_turn", "M"),
        ("turn_start", "F"),
    ]
    assert b.creatures["M"].pos == (1, 0)
    assert engine.actor(b).id == "F"
