"""The batched engine's attack modifiers agree with the object engine.

``facing_env.fast.attacks.breakdown`` must give what ``rules.attack_breakdown`` gives
(``total``, ``target_ac``, ``facing``, the two areas, ``sneak_attack``, ``concealment``),
``fast.flanking.flanks`` what ``rules.flanking.flanks`` gives and
``fast.attack.can_ready_against`` what ``rules.can_ready_against`` gives (and the parts:
``sneak_attack_applies``, ``shield_applies``, ``concealment_miss_chance``), for every
ordered pair of living creatures, every attack of the attacker and every attack kind, on:

- states of every scenario reached by random masked play and by the scripted agents;
- random hand-made battles (every rule set and grid, sizes Tiny to Gargantuan, shared
  squares, shields, the shield spell, squeezing, flat-footed, uncanny dodge and its
  improved form, all-around vision, faceless creatures, Improved Chieftain, Pack Fighter,
  monster zones, touch, reach and ranged attacks, attacks sharing a name, charging
  defenders), whose coverage of every term is asserted;
- hypothesis-random placements on small boards for standard flanking's line rule, and
  the boards of the EP-FLANK rules (reach corners, internal creatures, shared squares,
  hexes).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import facing_env
from facing_env import rules
from facing_env.agents import make_agent
from facing_env.errors import ScenarioError
from facing_env.fast import attacks as fast_attack
from facing_env.fast import flanking as fast_flanking
from facing_env.fast.lookup import tables_of
from facing_env.fast.state import AREA_CODES, allocate_for, load
from facing_env.rules import flanking as ref_flanking
from facing_env.rules import geometry
from facing_env.rules.battle import Battle
from facing_env.types import Area, AttackKind, GridKind, Size
from tests.boards import board
from tests.env_play import SCENARIOS, masked_choice

# their entry points are called from Python here only: one test process compiles them
# (pyproject's --dist loadgroup), not each. Indices go in as the engine passes them
# (np.int32 where it does), so that a call loads the version `python -m facing_env warm`
# compiled instead of compiling one of its own (minutes of one core on a fresh cache)
pytestmark = pytest.mark.xdist_group("kernel_twins")

I32 = np.int32
"""The engine's type of creature indices (above)."""

ENGINE_KINDS = ("attack", "aoo", "cleave", "charge", "readied")
"""The attack kinds the engine asks ``attack_breakdown`` for."""


def _expected(m) -> tuple:
    return (
        m.total,
        m.target_ac,
        m.facing,
        AREA_CODES.index(Area(m.own_area)),
        AREA_CODES.index(Area(m.defender_area)),
        m.sneak_attack,
        m.concealment,
    )


def _compare(  # noqa: C901  (one assertion per term of the attack roll, side by side)
    battles: list[Battle],
    kinds: tuple[str, ...] = ENGINE_KINDS,
    *,
    both_ranged: bool = False,
    seen: dict[str, int] | None = None,
) -> int:
    """Compare the kernels with the reference on every ordered pair of living creatures of
    ``battles`` (one grid kind and rule set); the number of breakdowns compared. ``seen``
    counts the terms met (for coverage)."""
    s = allocate_for(battles)
    for i, b in enumerate(battles):
        load(s, i, b)
    t = tables_of(s)
    n = 0
    for i, b in enumerate(battles):
        creatures = list(b.creatures.values())
        for ka, a in enumerate(creatures):
            if a.hp <= 0:
                continue
            for kd, d in enumerate(creatures):
                if kd == ka or d.hp <= 0:
                    continue
                where = (i, a.id, d.id, b.to_spec())
                want = ref_flanking.flanks(b, a, d)
                assert fast_flanking.flanks(s, i, ka, kd) == want, where
                ready = rules.can_ready_against(b, a, d)
                assert fast_attack.can_ready_against(t, s, i, I32(ka), I32(kd)) == ready, where
                for ranged in (False, True):
                    sneak = rules.sneak_attack_applies(b, a, d, ranged=ranged)
                    assert fast_attack.sneak_attack_applies(t, s, i, ka, kd, ranged) == sneak
                for spell in (False, True):
                    covers = rules.shield_applies(b, d, a, "shield_spell" if spell else "shield")
                    assert fast_attack.shield_applies(t, s, i, kd, ka, spell) == covers, where
                miss = rules.concealment_miss_chance(b, a, d)
                assert fast_attack.concealment(t, s, i, I32(ka), I32(kd)) == miss, where
                if seen is not None:
                    seen["flanks"] += want
                    seen["cannot_ready"] += not ready
                for x, attack in enumerate(a.attacks):
                    for ranged in (attack.ranged, True) if both_ranged else (attack.ranged,):
                        for kind in kinds:
                            try:
                                m = rules.attack_breakdown(
                                    b, a, d, kind=kind, attack=attack.name, ranged=ranged
                                )
                            except KeyError:  # SR-12's shift of the area "none": see below
                                assert seen is not None
                                seen["chieftain_none"] += 1
                                continue
                            got = fast_attack.breakdown(
                                t, s, i, I32(ka), kd, x, fast_attack.KIND_CODES.index(kind), ranged
                            )
                            assert tuple(got) == _expected(m), (*where, attack.name, kind, ranged)
                            n += 1
                            if seen is not None:
                                for name, value in {**m.terms, **m.ac_terms}.items():
                                    seen[name] = seen.get(name, 0) + (value != 0)
                                seen["sneak_attack"] += m.sneak_attack
                                seen["concealment"] += m.concealment != 0
    return n


# -- states of every scenario ---------------------------------------------------------------


def _random_states(scenario: str, seed: int, count: int) -> list[Battle]:
    from tests.env_play import walk

    seen: list[Battle] = []
    walk(scenario, seed, 30 * count, visit=lambda env: seen.append(env.battle.copy()))
    return seen[:: max(len(seen) // count, 1)][:count]


def _agent_states(scenario: str, name: str, seed: int, count: int) -> list[Battle]:
    """States of one episode where ``name`` plays every creature (masked random play fills
    in for an agent that returns nothing legal)."""
    env = facing_env.raw_env(scenario=scenario)
    env.reset(seed=seed)
    agent, rng = make_agent(name), np.random.default_rng(seed)
    seen: list[Battle] = []
    for _ in env.agent_iter(max_iter=2000):
        obs, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        seen.append(env.battle.copy())
        action = agent.act(obs["observation"], obs["action_mask"], rng)
        if not obs["action_mask"][action]:
            action = masked_choice(rng, obs["action_mask"])
        env.step(int(action))
    return seen[:: max(len(seen) // count, 1)][:count]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_breakdown_matches_on_scenario_states(scenario: str) -> None:
    """Random masked play (two seeds) and the three scripted agents: 40 states."""
    battles = _random_states(scenario, 3, 10) + _random_states(scenario, 11, 10)
    for k, name in enumerate(("aggressive", "flanker", "defensive")):
        battles += _agent_states(scenario, name, 5 + k, 7)
    assert len(battles) >= 35
    assert _compare(battles) > 0


# -- random hand-made battles ---------------------------------------------------------------

_SIZES = ("Tiny", "Small", "Medium", "Medium", "Medium", "Large", "Large", "Huge", "Gargantuan")
_ATTACKS = (
    {"name": "sword", "bonus": 3},
    {"name": "longspear", "bonus": 1, "reach": 10},
    {"name": "bow", "kind": "ranged", "range": 60, "bonus": 2},
    {"name": "ray", "kind": "ranged", "range": 30, "touch": True},
    {"name": "touch", "touch": True, "bonus": 1},
    {"name": "tail", "zones": ["flank", "rear"], "reach": 10},
    {"name": "kick", "zones": ["rear"]},
    {"name": "slam", "zones": ["side", "rear"], "bonus": 4},
    {"name": "sword", "bonus": -2, "reach": 10},  # a second attack named "sword"
    {"name": "tiny bite", "reach": 0},
)


def _creature(rng: np.random.Generator, kind: GridKind, ruleset: str, k: int, side: int) -> dict:
    size = Size.parse(str(rng.choice(_SIZES)))
    shape = geometry.default_shape(kind, size)
    spec: dict = {
        "id": f"c{k}",
        "team": str(rng.choice(["red", "blue"])),
        "size": size.label,
        "pos": [int(rng.integers(0, side)), int(rng.integers(0, side))],
        "hp": int(rng.choice([10, 10, 10, 10, 0])),
        "ac": int(rng.integers(10, 20)),
        "dex": int(rng.integers(4, 20)),
        "attacks": [
            _ATTACKS[j] for j in rng.choice(len(_ATTACKS), int(rng.integers(1, 4)), replace=False)
        ],
    }
    if kind is GridKind.HEX and spec["pos"][0] + spec["pos"][1] // 2 >= side:
        spec["pos"][0] -= spec["pos"][1] // 2  # odd-r layout: keep the anchor on the board
    flags = {
        "flat_footed": 0.2,
        "uncanny_dodge": 0.15,
        "immune_to_sneak_attack": 0.1,
        "all_around_vision": 0.1,
        "improved_chieftain": 0.2,
        "faceless": 0.1,
        "squeezing": 0.15,
    }
    for name, p in flags.items():
        if rng.random() < p:
            spec[name] = True
    if rng.random() < 0.08:
        spec["threatens"] = False
    if rng.random() < 0.4:
        spec["sneak_attack"] = "2d6"
        spec["rogue_level"] = int(rng.integers(0, 12))
    if rng.random() < 0.2:
        spec["improved_uncanny_dodge"] = int(rng.integers(1, 8))
    if rng.random() < 0.2:
        spec["pack_fighter_bonus"] = int(rng.integers(1, 5))
    if rng.random() < 0.35:
        spec["shield"] = {
            "side": str(rng.choice(["left", "right"])),
            "bonus": int(rng.integers(1, 4)),
        }
    if rng.random() < 0.2:
        spec["spells"] = ["shield"]
    if rng.random() < 0.3:
        top = spec["ac"] - (spec["shield"]["bonus"] if "shield" in spec else 0)
        spec["touch_ac"] = int(rng.integers(top - 6, top + 1))
    feats = [f for f in ("Whirlwind Attack", "Combat Reflexes", "Cleave") if rng.random() < 0.2]
    if feats:
        spec["feats"] = feats
    if kind is GridKind.HEX and size in geometry.HEX_TRIANGLE_DOWN and rng.random() < 0.4:
        shape = geometry.HEX_TRIANGLE_DOWN[size]
        spec["hexes"] = [list(c) for c in shape.cells(tuple(spec["pos"]))]
        spec["pos"] = spec["hexes"][0]
    allowed = geometry.allowed_facings(kind, ruleset, shape)
    spec["facing"] = geometry.facing_names(kind)[int(rng.choice(allowed))]
    return spec


def _random_battle(rng: np.random.Generator, kind: GridKind, ruleset: str) -> Battle:
    """A battle of 2 to 5 creatures on a 6x6 or 7x7 board, every creature placed where the
    spec allows (shared squares only two size categories apart)."""
    side = int(rng.integers(6, 8))
    specs: list[dict] = []
    for k in range(int(rng.integers(2, 6))):
        for _ in range(30):
            spec = _creature(rng, kind, ruleset, k, side)
            try:
                battle = Battle.from_spec(
                    {
                        "ruleset": ruleset,
                        "grid": {"kind": kind.value, "width": side, "height": side},
                        "creatures": [*specs, spec],
                    }
                )
            except ScenarioError:
                continue
            specs.append(spec)
            break
    for c in battle.creatures.values():
        c.charging = bool(rng.random() < 0.15)
    return battle


_COVERED = (
    "attack_bonus", "size", "squeezing", "charge", "facing_own_area", "facing_opponent_area",
    "flanked", "flanking", "pack_fighter", "shield", "shield_spell", "touch", "flat_footed",
    "squeezing_ac", "charging", "sneak_attack", "concealment", "flanks", "cannot_ready",
)  # fmt: skip


@pytest.mark.parametrize("kind", list(GridKind))
def test_breakdown_matches_on_random_battles(kind: GridKind) -> None:
    """Every rule set, 70 battles each, every attack kind, ranged or not; every term of
    ``Modifiers`` is met (nonzero) somewhere."""
    seen: dict[str, int] = dict.fromkeys(_COVERED, 0) | {"chieftain_none": 0}
    rng = np.random.default_rng(2024 + (kind is GridKind.HEX))
    n = 0
    for ruleset in ("ua35", "side_rear", "standard"):
        battles = [_random_battle(rng, kind, ruleset) for _ in range(70)]
        n += _compare(battles, tuple(k.value for k in AttackKind), both_ranged=True, seen=seen)
    assert n > 5000
    assert all(seen[name] > 0 for name in _COVERED), seen


# -- standard flanking: the line rule and EP-FLANK-06..08 -----------------------------------


def _flank_board(cells: dict, ruleset: str = "standard", grid: str = "square", side: int = 6):
    """A battle from ``{id: spec fields}`` on an empty ``side`` x ``side`` board."""
    return Battle.from_spec(
        {
            "ruleset": ruleset,
            "grid": {"kind": grid, "width": side, "height": side},
            "creatures": [{"id": k, "size": "Medium", **v} for k, v in cells.items()],
        }
    )


_REACH_ATTACKS = (
    [{"name": "sword"}],
    [{"name": "spear", "reach": 10}],
    [{"name": "whip", "reach": 15}],
)


@settings(max_examples=300, deadline=None)
@given(
    grid=st.sampled_from(["square", "hex"]),
    d_size=st.sampled_from(["Small", "Medium", "Large", "Huge"]),
    places=st.lists(
        st.tuples(st.integers(0, 6), st.integers(0, 6), st.integers(0, 2), st.booleans()),
        min_size=3,
        max_size=5,
    ),
)
def test_line_rule_on_random_placements(grid, d_size, places) -> None:
    """Standard flanking on 7x7 boards: a defender of any size at the centre and two to
    four attackers with reach 5, 10 or 15 feet at random (legal) places."""
    creatures = {"D": {"team": "foe", "size": d_size, "pos": [2, 2]}}
    for k, (x, y, reach, large) in enumerate(places[:-1]):
        creatures[f"A{k}"] = {
            "team": "pc",
            "size": "Large" if large else "Medium",
            "pos": [x - (y // 2 if grid == "hex" else 0), y],
            "attacks": _REACH_ATTACKS[reach],
        }
    try:
        battle = _flank_board(creatures, grid=grid, side=7)
    except ScenarioError:
        return
    _compare([battle], ("attack",))


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.integers(-4, 12).map(lambda v: v / 2), min_size=4, max_size=4),
    st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(1, 3), st.integers(1, 3)),
)
def test_line_flanks_on_random_segments(ends, box) -> None:
    """``line_flanks`` on segments between half-square points and boxes of whole squares."""
    px, py, qx, qy = ends
    x0, y0, w, h = box
    want = ref_flanking.line_flanks((px, py), (qx, qy), (x0, y0, x0 + w + 0.0, y0 + h + 0.0))
    got = fast_flanking.line_flanks(
        px, py, qx, qy, float(x0), float(y0), x0 + w + 0.0, y0 + h + 0.0
    )
    assert got == want


HUGE_WITH_CORNER_ALLY = """
    F . . . .
    . H H H .
    . H H H .
    . H H H .
    . . . . .
"""


def test_flanking_rule_boards() -> None:
    """The boards of the EP-FLANK rules, and their flanks checked to be the interesting
    ones (so the comparison exercises each rule)."""
    rogue = {"sneak_attack": "2d6", "rogue_level": 4}
    cases = [
        # EP-FLANK-02/-03: opposite sides; opposite corners; adjacent corners (no flank)
        (
            board(". A .\n. D .\n. B .", "standard", A={"team": "pc", **rogue}, B={"team": "pc"}),
            "A",
            "D",
            True,
        ),
        (
            board("A . .\n. D .\n. . B", "standard", A={"team": "pc"}, B={"team": "pc"}),
            "A",
            "D",
            True,
        ),
        (
            board("A . B\n. D .\n. . .", "standard", A={"team": "pc"}, B={"team": "pc"}),
            "A",
            "D",
            False,
        ),
        # EP-FLANK-05: a Large attacker picks any of its squares
        (
            board(
                ". A A . .\n. A A . .\n. . D . .\n. . . B .",
                "standard",
                A={"team": "pc"},
                B={"team": "pc"},
            ),
            "A",
            "D",
            True,
        ),
        # EP-FLANK-06: reach corner lines, the reach creature away from the defender
        (
            board(
                "A . . . .\n. . . . .\n. . D . .\n. . . B .\n. . . . .",
                "standard",
                A={"team": "pc", "attacks": [{"name": "spear", "reach": 10}]},
                B={"team": "pc"},
            ),
            "B",
            "D",
            True,
        ),
        # EP-FLANK-07: a Medium creature inside a Huge one flanks it with any ally
        (
            board(
                HUGE_WITH_CORNER_ALLY,
                "standard",
                H={"team": "foe"},
                M={"team": "pc", "pos": [2, 2], **rogue},
                F={"team": "pc"},
            ),
            "M",
            "H",
            True,
        ),
        (
            board(
                HUGE_WITH_CORNER_ALLY,
                "standard",
                H={"team": "foe"},
                M={"team": "pc", "pos": [2, 2]},
                F={"team": "pc"},
            ),
            "F",
            "H",
            False,
        ),
        # the converse: the Huge creature and an ally that threatens the inside square
        (
            board(
                HUGE_WITH_CORNER_ALLY,
                "standard",
                H={"team": "pc"},
                M={"team": "foe", "pos": [2, 2]},
                F={"team": "pc", "attacks": [{"name": "spear", "reach": 10}]},
            ),
            "H",
            "M",
            True,
        ),
        # improved uncanny dodge: only a rogue four levels higher flanks
        (
            board(
                ". A .\n. D .\n. B .",
                "standard",
                A={"team": "pc", "rogue_level": 9},
                B={"team": "pc"},
                D={"improved_uncanny_dodge": 5},
            ),
            "A",
            "D",
            True,
        ),
        (
            board(
                ". A .\n. D .\n. B .",
                "standard",
                A={"team": "pc", "rogue_level": 8},
                B={"team": "pc"},
                D={"improved_uncanny_dodge": 5},
            ),
            "A",
            "D",
            False,
        ),
        (
            board(
                ". A .\n. D .\n. B .",
                "standard",
                A={"team": "pc"},
                B={"team": "pc"},
                D={"all_around_vision": True},
            ),
            "A",
            "D",
            False,
        ),
        # an ally that does not threaten (flat-footed) does not flank
        (
            board(
                ". A .\n. D .\n. B .",
                "standard",
                A={"team": "pc"},
                B={"team": "pc", "flat_footed": True},
            ),
            "A",
            "D",
            False,
        ),
    ]
    # EP-FLANK-08: a flank to a square shared by a Huge creature and a Medium one inside it,
    # B inside the Huge one too: the line misses the Huge creature's box, not the square
    shared = _flank_board(
        {
            "H": {"team": "foe", "size": "Huge", "pos": [1, 1]},
            "M": {"team": "foe", "pos": [1, 1]},
            "A": {"team": "pc", "pos": [0, 1]},
            "B": {"team": "pc", "pos": [2, 1]},
        }
    )
    h, a, b = (shared.creatures[k] for k in "HAB")
    assert not ref_flanking._opposite(shared, a, b, shared.cells_of(h), (2.5, 2.5))
    cases += [(shared, "A", "H", True), (shared, "A", "M", True)]
    # hexes: opposite neighbours flank, neighbours 120 degrees apart do not
    hexes = {"team": "pc"}
    cases.append(
        (
            _flank_board(
                {
                    "D": {"team": "foe", "pos": [2, 2]},
                    "A": {**hexes, "pos": [1, 2]},
                    "B": {**hexes, "pos": [3, 2]},
                },
                grid="hex",
            ),
            "A",
            "D",
            True,
        )
    )
    cases.append(
        (
            _flank_board(
                {
                    "D": {"team": "foe", "pos": [2, 2]},
                    "A": {**hexes, "pos": [1, 2]},
                    "B": {**hexes, "pos": [3, 1]},
                },
                grid="hex",
            ),
            "A",
            "D",
            False,
        )
    )
    cases.append(
        (
            _flank_board(
                {
                    "D": {"team": "foe", "size": "Large", "pos": [2, 3]},
                    "A": {**hexes, "pos": [1, 3]},
                    "B": {**hexes, "pos": [4, 2]},
                },
                grid="hex",
            ),
            "A",
            "D",
            None,
        )
    )
    for battle, a, d, flanked in cases:
        if flanked is not None:
            assert rules.flanks(battle, a, d) is flanked, (a, d, battle.to_spec())
        _compare([battle], tuple(k.value for k in AttackKind), both_ranged=True)


def test_side_rear_chieftain_inside_the_defender() -> None:
    """SR-12 shifts front to side and side to rear; the area of a square inside the
    defender's own space ("none") is not in ``IMPROVED_CHIEFTAIN_SHIFT`` and the reference
    raises KeyError there; the kernel leaves it "none" (no bonus, no sneak attack)."""
    battle = board(
        ". . . . .\n. H H H .\n. H H H .\n. H H H .\n. . . . .",
        "side_rear",
        H={"team": "foe"},
        M={"team": "pc", "pos": [2, 2], "improved_chieftain": True, "sneak_attack": "2d6"},
    )
    with pytest.raises(KeyError):
        rules.attack_breakdown(battle, "M", "H")
    s = allocate_for([battle])
    load(s, 0, battle)
    got = fast_attack.breakdown(tables_of(s), s, 0, 1, 0, 0, fast_attack.ATTACK, False)
    assert got[2] == 0 and got[4] == AREA_CODES.index(Area.NONE) and not got[5]
