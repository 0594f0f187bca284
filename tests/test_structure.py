"""Structure rules of the step path (the speed issue): state is owned by one object.

The step path is one pipeline over arrays (:mod:`facing_env.fast`); the object engine is
the readable reference (legality is ``why_illegal`` alone); caches live in attributes
their owner declares (``ObservationView.memo`` of the scripted agents' view); no module
writes into another object's ``__dict__`` and no module is loaded by name at run time.
The package never imports the tests (their reference code lives in ``tests/reference/``),
the agents' modules import one another one way and none is over 800 lines.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted(
    [*ROOT.joinpath("facing_env").rglob("*.py"), *ROOT.joinpath("agents").rglob("*.py")]
)
TESTS = sorted(ROOT.joinpath("tests").rglob("*.py"))


def test_sources_are_found():
    names = {p.name for p in SOURCES}
    assert {"engine.py", "actions.py", "batch.py", "legality.py", "flanker.py"} <= names
    assert {"spec.py", "view.py", "geometry.py", "tactics.py", "paths.py", "runner.py"} <= {
        p.name for p in ROOT.joinpath("agents", "kernels").glob("*.py")
    }


def _imports(path: Path, module_level: bool = False) -> set[str]:
    """The modules an ``import`` statement anywhere in ``path`` names (``from a.b import c``
    names ``a.b.c`` and ``a.b``); with ``module_level``, only the statements Python runs
    when the module loads (those inside functions run later)."""
    tree = ast.parse(path.read_text(), str(path))
    names: set[str] = set()
    for node in tree.body if module_level else ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
    return names


def _import_graph(modules: dict[str, Path], module_level: bool) -> dict[str, set[str]]:
    """Module name -> the other modules of ``modules`` it imports (:func:`_imports`)."""
    return {
        name: {o for o in _imports(path, module_level) if o in modules and o != name}
        for name, path in modules.items()
    }


def _assert_acyclic(graph: dict[str, set[str]]) -> None:
    """Fail naming the first import cycle found (depth first, in name order)."""
    done: set[str] = set()

    def visit(name: str, trail: tuple[str, ...]) -> None:
        assert name not in trail, " -> ".join((*trail[trail.index(name) :], name))
        if name not in done:
            for other in sorted(graph[name]):
                visit(other, (*trail, name))
            done.add(name)

    for name in sorted(graph):
        visit(name, ())


def test_the_package_never_imports_the_tests():
    """Test-only code (the reference agents, env and observation, the arena) lives in
    ``tests/``; nothing the package or its scripts run imports from there."""
    scripts = [ROOT / "train.py", ROOT / "train_rllib.py"]
    offenders = [
        f"{path.relative_to(ROOT)}: {name}"
        for path in [*SOURCES, *scripts]
        for name in sorted(_imports(path))
        if name.split(".")[0] == "tests"
    ]
    assert offenders == []


def test_the_agents_modules_import_one_way():
    """No import cycle among the modules of ``agents/`` (imports inside functions
    included): the catalogue (``__init__``) imports the agents, an agent imports the shared
    kernels (``agents/kernels/``) and ``base``, and the kernels know no agent."""
    agents = ROOT / "agents"
    modules = {}
    for path in sorted(agents.rglob("*.py")):
        parts = path.relative_to(agents).with_suffix("").parts
        parts = parts[:-1] if parts[-1] == "__init__" else parts
        modules[".".join(("facing_env", "agents", *parts))] = path
    graph = _import_graph(modules, module_level=False)
    _assert_acyclic(graph)
    agent_modules = {f"facing_env.agents.{n}" for n in ("aggressive", "flanker", "defensive")}
    assert graph["facing_env.agents"] >= agent_modules
    assert all(not graph[k] & agent_modules for k in graph if ".kernels" in k)


def test_no_agents_module_is_over_800_lines():
    """The scripted agents' modules and their kernels stay readable (one agent, or one
    concern of the shared kernels, per module)."""
    sources = sorted(ROOT.joinpath("agents").rglob("*.py"))
    long = {
        str(p.relative_to(ROOT)): n for p in sources if (n := len(p.read_text().splitlines())) > 800
    }
    assert long == {}


def test_one_fast_step_path():
    """The Cython twins (``_obs_kernel``, ``_scan_kernel``), their build (``setup.py``)
    and their loader (``_accel``) are gone, no module of the package is loaded by name
    (``importlib``), and the object engine has no scan of its own beside ``why_illegal``
    (nor its memo)."""
    gone = {"_accel.py", "_obs_kernel.py", "_scan_kernel.py", "setup.py"}
    assert gone.isdisjoint({p.name for p in SOURCES} | {p.name for p in ROOT.iterdir()})
    from facing_env.rules import engine
    from facing_env.rules.battle import Battle

    for name in ("_legal_actions", "legal_tuple", "scan_cost", "scanned"):
        assert not hasattr(engine, name), f"engine.{name}: a second scan of legal actions"
    assert "legal_memo" not in {f.name for f in dataclasses.fields(Battle)}
    loaders = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in SOURCES
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if "import_module(" in line
    ]
    assert loaders == []


def test_no_module_reaches_into_another_objects_dict():
    """Every ``__dict__`` in the package and its tests is an object's own
    (``self.__dict__``): a test that clears a cache by its old ``__dict__`` key would
    silently test the cache instead."""
    offenders = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in [*SOURCES, *TESTS]
        if path.name != "test_structure.py"
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if re.search(r"(?<!self)\.__dict__|\b(?<!\.)__dict__\[", line)
    ]
    assert offenders == []


def test_observation_parts_are_indexed_by_name():
    """The named indices of the observation (``observation.Channel``, ``Column``,
    ``Scalar``, ``Tactic``, ``TacticScalar``) are the layout's names in order, and a gap
    or a reordering is refused."""
    import pytest

    from facing_env import observation as o

    assert (o.Column.DISTANCE, o.Column.SNEAK_ATTACK_DICE, len(o.FEATURES)) == (21, 32, 33)
    assert (o.Scalar.ROUND_FRACTION, o.Tactic.CAN_CHARGE) == (8, 3)
    assert (o.Channel.THREATENED_BY_ENEMIES, len(o.CHANNELS)) == (10, 18)

    class Gap:
        A = 0
        B = 2

    with pytest.raises(ValueError, match=r"Gap: indices must be 0\.\.n-1 in order"):
        o._names(Gap)


def test_the_observation_layout_is_pinned():
    """The names and order of every part of the observation, written out here (not
    derived from the code under test): a reordering changes what saved policies read and
    must bump the env version."""
    from facing_env import observation as o

    channels = """blocked difficult impeded self ally enemy size facing_x facing_y hp
        threatened_by_enemies threatened_by_allies own_front own_flank own_rear
        enemy_front enemy_flank enemy_rear"""
    features = """present is_self ally enemy dx dy size has_facing facing_x facing_y
        hp_fraction hp ac in_my_front in_my_flank in_my_rear in_my_none me_in_its_front
        me_in_its_flank me_in_its_rear me_in_its_none distance flat_footed threatens_me
        i_threaten_it my_facing_modifier its_facing_modifier my_sneak_attack attackable
        attacks_of_opportunity_left speed reach sneak_attack_dice"""
    scalars = """movement_left move_available standard_available five_foot_step_available
        free_turn_available moving running attacks_made round_fraction cleave hex_grid
        ua35_rules side_rear_rules"""
    assert tuple(channels.split()) == o.CHANNELS
    assert tuple(features.split()) == o.FEATURES
    assert tuple(scalars.split()) == o.SCALARS
    assert o.TACTICS == ("readied", "charging", "player_character", "can_charge")
    assert o.TACTIC_SCALARS == ("withdrawing", "trade_steps_left")
    for namespace, names in (
        (o.Channel, channels),
        (o.Column, features),
        (o.Scalar, scalars),
        (o.Tactic, "readied charging player_character can_charge"),
        (o.TacticScalar, "withdrawing trade_steps_left"),
    ):
        indices = [getattr(namespace, n.upper()) for n in names.split()]
        assert indices == list(range(len(indices)))


def test_the_table_read_by_name_on_the_duel_start():
    """The duel's opening observation, read by name: the foe 6 squares south of the red
    fighter (window 11: dy 6/11, distance 6/11), in its front, both unhurt."""
    import pytest

    import facing_env
    from facing_env import observation as o

    env = facing_env.raw_env(scenario="duel")
    env.reset(seed=0)
    obs = env.observe("red_0")["observation"]
    _, table, scalars = env.layout.split(obs)
    foe = table[1]
    assert foe[o.Column.ENEMY] == 1.0 and foe[o.Column.PRESENT] == 1.0
    assert foe[o.Column.DY] * 11 == pytest.approx(6.0)
    assert foe[o.Column.DISTANCE] * 11 == pytest.approx(6.0)
    assert foe[o.Column.IN_MY_FRONT] == 1.0 and foe[o.Column.ME_IN_ITS_FRONT] == 1.0
    assert foe[o.Column.HP_FRACTION] == 1.0
    assert scalars[o.Scalar.UA35_RULES] == 1.0 and scalars[o.Scalar.HEX_GRID] == 0.0


def test_no_import_cycle_between_the_package_modules():
    """Issue 32: imports flow one way (the packages' ``__init__`` catalogues aside)."""
    modules: dict[str, Path] = {}
    roots = ((ROOT / "facing_env", ("facing_env",)), (ROOT / "agents", ("facing_env", "agents")))
    for base, prefix in roots:
        for path in base.rglob("*.py"):
            parts = path.relative_to(base).with_suffix("").parts
            if parts[-1] != "__init__":
                modules[".".join((*prefix, *parts))] = path
    assert len(modules) > 80
    _assert_acyclic(_import_graph(modules, module_level=True))


def test_no_source_file_is_over_800_lines():
    """Issue 32: the package, the agents, the scripts and the tests."""
    scripts = [ROOT / "train.py", ROOT / "train_rllib.py"]
    long = {
        str(p.relative_to(ROOT)): n
        for p in [*SOURCES, *TESTS, *scripts]
        if (n := len(p.read_text().splitlines())) > 800
    }
    assert long == {}


def test_at_most_20_modules_at_the_top_of_the_package():
    """Issue 32: the top level keeps the vocabulary, the layouts and the faces; the rest
    lives in rules/, fast/, render/, evaluation/ and train/."""
    top = sorted(p.name for p in ROOT.joinpath("facing_env").glob("*.py"))
    assert "env.py" in top and len(top) <= 20, top
