"""The compiled kernels do exactly what the Python code they replace does.

- :mod:`facing_env._obs_kernel` writes, bit for bit, the observation the numpy reference in
  :mod:`facing_env.observation` writes, and the same action mask;
- :mod:`facing_env._scan_kernel` lists the same legal actions, in the same order and with
  the same movement costs, as the engine's own scan.

Each pair runs in one process on random reachable states of every scenario (every
agent's observation: actor, waiting allies and enemies, the dead). The whole-trajectory
comparison of the compiled and pure builds is in ``tests/test_compiled.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

import facing_env
from facing_env import actions, engine, observation
from tests.env_play import SCENARIOS, masked_choice

pytestmark = pytest.mark.skipif(
    observation._KERNEL is None or engine._SCAN is engine._legal_actions,
    reason="the compiled build is not installed",
)


def _both(raw, agent: str, monkeypatch) -> tuple[np.ndarray, np.ndarray]:
    """(the env's observation of ``agent``, the reference's) with the same mask. The
    reference draws on a fresh board and memo: the kernel fills the shared memo, so a
    wrong memoised row would otherwise show up on both sides."""
    raw.invalidate_observations()
    fast = raw.observe(agent)
    with monkeypatch.context() as m:
        m.setattr(observation, "_KERNEL", None)
        m.setattr(actions, "_KERNEL", None)
        battle = raw.battle
        cid = raw.agent_to_id[agent]
        slots = raw.slots[cid]
        key = engine.state_key(battle)
        actor = engine.actor(battle)
        legal = engine.legal_tuple(battle, key) if actor is not None and actor.id == cid else None
        board = observation.Board(battle, raw.layout.window, observation.PairMemo())
        reference = observation.build(battle, slots, raw.layout, raw.max_rounds, board, key, legal)
        if legal is not None:
            raw.codec._memo.mask = None
            mask = raw.codec.mask(battle, slots, legal)
            raw.codec._memo.mask = None
            assert fast["action_mask"].tolist() == mask.tolist()
    raw.invalidate_observations()
    return fast["observation"], reference


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_kernel_writes_what_the_reference_writes(scenario, monkeypatch):
    env = facing_env.env(scenario=scenario)
    compared = 0
    for seed in (0, 1):
        env.reset(seed=seed)
        raw = env.unwrapped
        rng = np.random.default_rng(seed)
        for _agent in env.agent_iter(max_iter=300):
            for a in raw.agents:
                fast, reference = _both(raw, a, monkeypatch)
                # bit for bit: -0.0 against 0.0 or one rounding apart would show
                assert fast.dtype == reference.dtype == np.float32
                assert fast.view(np.uint32).tolist() == reference.view(np.uint32).tolist(), (
                    scenario,
                    a,
                    np.flatnonzero(fast != reference)[:10].tolist(),
                )
                compared += 1
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else masked_choice(rng, obs["action_mask"]))
    assert compared > 300


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_scan_kernel_lists_what_the_engine_scan_lists(scenario):
    env = facing_env.env(scenario=scenario)
    scanned = 0
    for seed in (0, 1, 2):
        env.reset(seed=seed)
        battle = env.unwrapped.battle
        rng = np.random.default_rng(seed)
        for _agent in env.agent_iter(max_iter=400):
            fast_costs: dict = {}
            slow_costs: dict = {}
            fast = engine._SCAN(battle, fast_costs)
            slow = engine._legal_actions(battle, slow_costs)
            assert fast == slow
            assert list(fast_costs.items()) == list(slow_costs.items())
            scanned += 1
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else masked_choice(rng, obs["action_mask"]))
    assert scanned > 300


def test_the_kernel_is_in_use_when_compiled():
    """The env's observations come from the kernel in a compiled install (a wiring check:
    without it the comparison above would compare the reference with itself)."""
    calls = []
    kernel = observation._KERNEL
    original = kernel.build

    class Spy:
        def __getattr__(self, name):
            return getattr(kernel, name)

        def build(self, *args):
            calls.append(args[1].id)
            return original(*args)

    env = facing_env.env()
    env.reset(seed=0)
    saved, observation._KERNEL = observation._KERNEL, Spy()
    try:
        env.last()
    finally:
        observation._KERNEL = saved
    assert calls == [env.unwrapped.agent_to_id[env.agent_selection]]


def test_the_mask_kernel_uses_the_action_blocks():
    from facing_env import _obs_kernel

    assert _obs_kernel.BLOCKS == (
        actions.MOVE_BASE,
        actions.STEP_BASE,
        actions.FIVE_FOOT_BASE,
    )


def test_the_kernels_read_named_tuples_in_this_field_order():
    """The kernels read Action and DirectionRow as plain tuples, by position."""
    from facing_env.rules.movement import DirectionRow

    assert engine.Action._fields == ("kind", "arg")
    assert DirectionRow._fields == ("d", "open", "difficult", "impeded", "cells", "diagonal")


def _both_masks(env, legal):
    """(kernel mask, reference mask) of ``legal``, or the exception type each raised."""
    slots = env.slots[env.agent_to_id[env.agent_selection]]
    results = []
    for kernel in (actions._KERNEL, None):
        saved, actions._KERNEL = actions._KERNEL, kernel
        env.codec._memo.mask = None
        try:
            results.append(env.codec.mask(env.battle, slots, legal).tolist())
        except Exception as error:  # compared by type below
            results.append(type(error))
        finally:
            actions._KERNEL = saved
    return results


@pytest.mark.parametrize(
    "legal",
    [
        (7,),
        (("move",),),
        [engine.Action(engine.MOVE, 99)],
        (engine.Action(engine.MOVE, 1.0), engine.Action(engine.STEP_KEEP_FACING, True)),
        (engine.Action(engine.END_TURN), engine.Action(engine.FIVE_FOOT_STEP, 7)),
        ("end_turn", None),
    ],
)
def test_the_mask_kernel_answers_odd_input_as_the_reference_does(legal):
    """Whatever a caller passes as ``legal``: the same mask or the same error, never a
    read past a tuple (the kernel reads only exact Actions as plain tuples)."""
    env = facing_env.raw_env()
    env.reset(seed=0)
    fast, reference = _both_masks(env, legal)
    assert fast == reference


def test_attack_targets_do_not_depend_on_the_order_of_legal(monkeypatch):
    env = facing_env.raw_env()
    env.reset(seed=0)
    battle = env.battle
    cid = env.agent_to_id[env.agent_selection]
    slots = env.slots[cid]
    enemy = slots[-1]
    legal = (engine.Action(engine.ATTACK, enemy), engine.Action(engine.END_TURN))
    column = observation.ObservationLayout(env.layout.window, env.layout.n_slots)
    fast = observation.build(battle, slots, env.layout, env.max_rounds, env._board, None, legal)
    monkeypatch.setattr(observation, "_KERNEL", None)
    board = observation.Board(battle, env.layout.window, observation.PairMemo())
    reference = observation.build(battle, slots, env.layout, env.max_rounds, board, None, legal)
    attackable = observation.FEATURES.index("attackable")
    assert column.split(fast)[1][-1][attackable] == 1.0
    assert fast.tolist() == reference.tolist()


def test_a_board_of_another_window_is_refused():
    env = facing_env.raw_env()
    env.reset(seed=0)
    battle = env.battle
    slots = env.slots[env.agent_to_id[env.agent_selection]]
    wide = observation.Board(battle, 31)
    with pytest.raises(ValueError, match="31-wide window"):
        observation.build(battle, slots, env.layout, env.max_rounds, wide)


def test_the_index_table_follows_slots_reordered_in_place():
    env = facing_env.raw_env(scenario="skirmish")
    env.reset(seed=0)
    slots = list(env.slots[env.agent_to_id[env.agent_selection]])
    first = dict(env.codec._index_table(env.battle, slots))
    slots[-1], slots[-2] = slots[-2], slots[-1]
    second = env.codec._index_table(env.battle, slots)
    for target in slots[-2:]:
        action = engine.Action(engine.ATTACK, target)
        assert second[action] == env.codec.encode(env.battle, slots, action) != first[action]


def test_an_observer_off_the_board_is_an_error_not_a_stray_read():
    env = facing_env.raw_env()
    env.reset(seed=0)
    cid = env.agent_to_id[env.agent_selection]
    env.battle.creatures[cid].pos = (40, 40)  # by hand, past the board's padding
    env.invalidate_observations()
    with pytest.raises(ValueError, match=f"creature '{cid}' at \\(40, 40\\) is off the board"):
        env.observe(env.agent_selection)
