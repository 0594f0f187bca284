"""The step pipeline of the batched engine: decode, apply, rewards, (reset), observe.

:class:`BatchEngine` holds N battles of one scenario as a :class:`State` with its
:class:`Tables`, the event buffers, the masks and step costs of the legal scan, and the
observation buffers. :meth:`BatchEngine.step` runs one compiled call over every battle
(:func:`step_all`: decode the action, apply it, end empty turns, add the step's rewards);
battles that ended are then started again in Python (the object engine builds and
starts them, :func:`~facing_env.fast.state.load` writes them in), and one compiled call
writes every actor's observation. :class:`~facing_env.vector.VectorEnv` is its user.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from itertools import pairwise
from typing import Any

import numpy as np

from facing_env.fast import cache
from facing_env.fast import observation as fobserve
from facing_env.fast.codec import decode
from facing_env.fast.events import Events, allocate_events, append_events, to_events
from facing_env.fast.jit import bind, kernel
from facing_env.fast.legality import mask_batch
from facing_env.fast.lookup import Tables, charge_tables, radius_for, tables_for
from facing_env.fast.resolve import apply, auto_end
from facing_env.fast.rewards import step_rewards, weight_array
from facing_env.fast.state import State, allocate, allocate_for, load, shape_index, store
from facing_env.fast.turns import id_ranks, restart
from facing_env.observation import ObservationLayout
from facing_env.rules import engine
from facing_env.rules.battle import Battle, agent_names
from facing_env.rules.dice import DICE_MODES, Dice
from facing_env.scenario import Scenario
from facing_env.tables import FEET_PER_SQUARE


@kernel
def step_all(
    t,
    s,
    ev,
    actions,
    active,
    mask,
    cost,
    modes,
    n_slots,
    w,
    max_rounds,
    gone,
    agent_of,
    out,
    ends,
    acc,
    killer,
    lo,
    hi,
):
    """One action per battle of the rows ``lo <= i < hi`` where ``active`` is true:
    decode, apply (with the automatic end of turns and the scan of the state left), and
    the step's rewards into ``out`` (zeroed here, for every row of the range) with the
    dice of the row's ``modes`` entry. Writes, per battle, 1 into ``gone`` for every
    creature down (its agent leaves, as after the AEC env's dead steps) and
    ``(terminated, truncated)`` into ``ends`` (``(N, 2)`` bool); ``acc`` (float64) and
    ``killer`` (int64), ``(K,)``, are scratch. An inactive row is left as it is (no
    events, no rewards, not ended). Rows are independent: concurrent threads may step
    disjoint ranges, each with its own scratch (the kernel releases the GIL)."""
    for i in range(lo, hi):
        ends[i, 0] = False
        ends[i, 1] = False
        ev.count[i] = 0
        for a in range(out.shape[1]):
            out[i, a] = 0.0
    for i in range(lo, hi):
        if not active[i]:
            continue
        index = actions[i]
        kind, arg = decode(t, s, i, index, n_slots)
        apply(t, s, i, ev, kind, arg, cost[i, index], mask, cost, modes[i])
        over, late = step_rewards(s, i, ev, w, max_rounds, gone, agent_of, out, acc, killer)
        ends[i, 0] = over
        ends[i, 1] = late
        for k in range(s.n_creatures[i]):
            if s.hp[i, k] <= 0:
                gone[i, k] = True


class BatchEngine:
    """N battles of one scenario stepped by the kernels (see the module docstring).

    ``agent_names`` are the env's ``possible_agents``; ``layout`` its observation layout.
    """

    def __init__(
        self,
        scenario: Scenario,
        num_envs: int,
        *,
        agent_names: list[str],
        layout: ObservationLayout,
        n_actions: int,
        dice_mode: str,
        max_rounds: int,
        flat_footed_start: bool,
        record_events: bool = False,
        reward_dtype: type = np.float32,
        threads: int = 1,
    ) -> None:
        cache.announce_compile()
        self.scenario = scenario
        self.num_envs = num_envs
        self.threads = max(1, min(int(threads), num_envs))
        """Threads that step and observe the battles, each a contiguous range of rows."""
        bounds = np.linspace(0, num_envs, self.threads + 1).astype(np.int64)
        self._ranges = [(int(a), int(b)) for a, b in pairwise(bounds)]
        self._pool: ThreadPoolExecutor | None = None
        self.layout = layout
        self.n_actions = n_actions
        self.modes = np.full(num_envs, DICE_MODES.index(dice_mode), dtype=np.int64)
        """Each row's dice (an index into ``DICE_MODES``) from its next start on."""
        self.max_rounds = max_rounds
        self.flat_footed_start = flat_footed_start
        self.record_events = record_events
        self.weights = weight_array(scenario.rewards)
        self._agent_index = {a: k for k, a in enumerate(agent_names)}
        self.templates: list[Battle | None] = [None] * num_envs
        self.events: list[list[Any]] = [[] for _ in range(num_envs)]
        self._ids: list[list[str]] = [[] for _ in range(num_envs)]
        self.team_names: list[list[str]] = [[] for _ in range(num_envs)]
        """Battle ``i``'s teams in order of first appearance (``state.team`` indexes it)."""
        self._attack_names: list[list[list[str]]] = [[] for _ in range(num_envs)]
        self.state: State | None = None
        self._profile: dict[int, int] = {}
        self.tables: Tables | None = None
        self.view: fobserve.View | None = None
        self.ev: Events = allocate_events(num_envs)
        self.mask = np.zeros((num_envs, n_actions), dtype=np.int8)
        self.cost = np.zeros((num_envs, n_actions), dtype=np.int32)
        self.gone = np.zeros((num_envs, layout.n_slots), dtype=np.bool_)
        self.agent_of = np.zeros((num_envs, layout.n_slots), dtype=np.int64)
        self._rewards = np.zeros((num_envs, len(agent_names)), dtype=np.float64)
        """What the step kernel writes: always float64, so that one compiled step kernel
        serves every engine (a float32 output array would be a second signature of the
        largest kernel, minutes more of compiling on a cold cache)."""
        self.rewards = (
            self._rewards
            if np.dtype(reward_dtype) == np.float64
            else np.zeros((num_envs, len(agent_names)), dtype=reward_dtype)
        )
        """The last step's rewards per battle and agent, in ``reward_dtype`` (a copy of
        the kernel's float64 ones, rounded as a store into it would round them)."""
        self.observations = np.zeros((num_envs, layout.size), dtype=np.float32)
        self._ends = np.zeros((num_envs, 2), dtype=np.bool_)
        self._everyone = np.ones(num_envs, dtype=np.bool_)
        self._slots = np.zeros(num_envs, dtype=np.int32)  # the type of state.actor
        self._viewer = np.zeros(1, dtype=np.int32)  # as _slots: one observe_batch signature
        self._one = np.zeros(1, dtype=np.int64)  # step_one's action
        self._row = np.zeros((1, layout.size), dtype=np.float32)
        self._calls: dict[str, Any] = {}  # bound entry points (fast.jit.bind), by kernel,
        # and the one-battle calls with their arguments applied (_ready), by method
        self._opening: Battle | None = None  # a fixed scenario's battle as built
        self._loaded = np.zeros(num_envs, dtype=np.bool_)  # rows holding that scenario

    # -- battles ----------------------------------------------------------------------------

    def start(self, i: int, rng: np.random.Generator) -> tuple[Battle, Dice, list[Any]]:
        """Start battle ``i`` as the AEC env's ``reset`` does with this generator.

        A row that held this fixed scenario before restarts in the arrays
        (:func:`~facing_env.fast.turns.restart`: the opening's changing fields, a new
        dice seed, initiative and the first turn, as the object engine's ``start``);
        otherwise the object engine builds and starts the battle and ``load`` writes it
        in. Returns the battle as built (the opening, for a restart: the same creatures
        and ids; :meth:`battle` writes the row's state into a copy when asked), the dice
        and the start's events (the events of a restart are in row ``i`` of ``ev``, for
        :meth:`append_log` and ``record_events``; the list is then empty)."""
        opening = self._opening
        if opening is not None and self._loaded[i]:
            dice = Dice(rng, DICE_MODES[self.modes[i]])  # the generator's draw after the build
            assert self.state is not None and self.tables is not None
            args = self._restart_args(i, np.uint64(dice.seed))
            self._call("restart", restart, args)
            self.templates[i] = None
            self.gone[i] = False
            if self.record_events:
                self.events[i] = to_events(self.ev, i, self._ids[i], self._attack_names[i])
            return opening, dice, []
        battle = self.scenario.build(rng)
        dice = Dice(rng, DICE_MODES[self.modes[i]])
        events = engine.start(battle, dice, flat_footed_start=self.flat_footed_start)
        self._fit(battle)
        assert self.state is not None and self.tables is not None
        load(self.state, i, battle, dice)
        self.templates[i] = battle
        creatures = list(battle.creatures.values())
        self._ids[i] = [c.id for c in creatures]
        self._attack_names[i] = [[a.name for a in c.attacks] for c in creatures]
        self.team_names[i] = list(dict.fromkeys(c.team for c in creatures))
        names = agent_names(creatures)
        self.agent_of[i] = 0
        self.agent_of[i, : len(names)] = [self._agent_index[a] for a in names]
        self.gone[i] = False
        self.events[i] = list(events) if self.record_events else []
        self.ev.count[i] = 0
        self._call(  # the first scan
            "auto_end", auto_end, (self.tables, self.state, i, self.ev, self.mask, self.cost)
        )
        if self.scenario.generator is None:
            self._loaded[i] = True
            if self._opening is None:
                self._set_opening()
        self._prepare()
        return battle, dice, events

    def _restart_args(self, i: int, seed: np.uint64) -> tuple:
        assert self.state is not None and self.tables is not None
        return (
            self.tables,
            self.state,
            i,
            self.ev,
            self.mask,
            self.cost,
            self._tpl,
            seed,
            self.modes[i],
            self.flat_footed_start,
            self._id_rank,
            self._keys,
            self._rows,
        )

    def _set_opening(self) -> None:
        """Keep the fixed scenario's opening (as built, before the start) for restarts."""
        opening = self.scenario.build(np.random.default_rng(0))  # a fixed build: no draw
        self._opening = opening
        self._tpl = allocate_for([opening], n=1)
        load(self._tpl, 0, opening)
        self._id_rank = id_ranks(list(opening.creatures))
        k = len(opening.creatures)
        self._keys = np.zeros((k, 3), dtype=np.float64)
        self._rows = np.zeros(k, dtype=np.int64)

    def _fit(self, battle: Battle) -> None:
        """Grow the arrays when a battle does not fit them, and rebuild the tables when it
        brings a footprint, a reach or a speed they do not cover (procedural scenarios)."""
        s = self.state
        need = (
            battle.terrain.shape[0],
            battle.terrain.shape[1],
            max(len(battle.creatures), self.layout.n_slots),
            max(len(c.attacks) for c in battle.creatures.values()),
        )
        have = (0, 0, 0, 0) if s is None else _dims(s)
        if any(n > h for n, h in zip(need, have, strict=True)):
            dims = tuple(max(n, h) for n, h in zip(need, have, strict=True))
            new = allocate(self.num_envs, *dims, dims[3] + engine.MAX_ITERATIVES)
            if s is not None:
                _copy_rows(s, new)
            self.state = new
            self.tables = None
            self._calls = {}
            self._scratch = [  # step_all's scratch (acc, killer), one pair per thread
                (np.zeros(dims[2]), np.zeros(dims[2], dtype=np.int64)) for _ in range(self.threads)
            ]
        profile = dict(self._profile)  # tables.charge_profile of every battle seen
        for c in battle.creatures.values():
            row = shape_index(c.shape)
            melee = [a.reach for a in c.attacks if not a.ranged]
            profile[row] = max(profile.get(row, 0), max(melee, default=0) // FEET_PER_SQUARE)
        if self.tables is not None and profile == self._profile:
            return
        self._profile = profile
        assert self.state is not None
        kind, ruleset = battle.kind, battle.ruleset
        height, width = self.state.terrain.shape[1:]
        footprints = tuple(sorted(profile))
        base = tables_for(kind, ruleset, radius_for(kind, height, width), footprints)
        charges = tuple(sorted(profile.items()))
        self.tables = base._replace(**charge_tables(kind, base.radius, charges))
        self._calls = {}
        self.view = fobserve._view(
            kind,
            ruleset,
            frozenset(footprints),
            self.layout.window,
            self.layout.n_slots,
            self.max_rounds,
        )

    # -- steps -------------------------------------------------------------------------------

    def set_dice_mode(self, mode: str, rows: np.ndarray | slice = slice(None)) -> None:
        """Roll these rows' dice in ``mode`` (one of ``DICE_MODES``) from their next start
        on (a battle under way keeps the dice it started with)."""
        self.modes[rows] = DICE_MODES.index(mode)

    def dice_mode(self, i: int) -> str:
        """The dice mode row ``i``'s next battle starts with."""
        return DICE_MODES[self.modes[i]]

    def step(
        self, actions: np.ndarray, active: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Apply one action per battle (only where ``active``, a ``(N,)`` bool array, is
        true; every battle when it is None); returns ``(terminated, truncated)`` per battle
        (the battles that ended are still in the arrays: the caller restarts them)."""
        args = self._step_args(actions, active)
        call = self._entry("step_all", step_all, *args, *self._scratch[0], 0, self.num_envs)
        self._over_rows(call, args, self._scratch)
        self._publish_rewards()
        terminated, truncated = self._ends[:, 0], self._ends[:, 1]
        if self.ev.overflow.any():
            raise RuntimeError("a step made more events than the batched engine holds")
        if self.record_events:
            for i in range(self.num_envs):
                self.events[i].extend(to_events(self.ev, i, self._ids[i], self._attack_names[i]))
        return terminated, truncated

    def step_one(self, action: int) -> np.ndarray:
        """Battle 0 of a one-battle engine (the AEC env): :meth:`step` with ``action``.
        Returns the reused ``(2,)`` bool row ``(terminated, truncated)``.

        Its arguments are the same arrays every step, so the bound kernel is kept with
        them applied (:meth:`_ready`): a step costs the kernel and little else."""
        ready = self._calls.get("step_one")
        if ready is None:
            args = (*self._step_args(self._one, None), *self._scratch[0], 0, 1)
            ready = self._ready("step_one", "step_all", step_all, args)
        self._one[0] = action
        ready()
        self._publish_rewards()
        if self.ev.overflow[0]:
            raise RuntimeError("a step made more events than the batched engine holds")
        return self._ends[0]

    def _publish_rewards(self) -> None:
        """Round the kernel's float64 rewards into :attr:`rewards` when that is another
        dtype (it is the same array otherwise)."""
        if self.rewards is not self._rewards:
            np.copyto(self.rewards, self._rewards, casting="same_kind")

    def _step_args(self, actions: np.ndarray, active: np.ndarray | None) -> tuple:
        assert self.state is not None and self.tables is not None
        return (
            self.tables,
            self.state,
            self.ev,
            actions,
            self._everyone if active is None else active,
            self.mask,
            self.cost,
            self.modes,
            self.layout.n_slots,
            self.weights,
            self.max_rounds,
            self.gone,
            self.agent_of,
            self._rewards,
            self._ends,
        )

    def _prepare(self) -> None:
        """Bind the kernels a step calls now, at the start of the first battle: the first
        binding of each in a process loads it from numba's cache (tens of milliseconds),
        a cost of setting up, not of the steps."""
        assert self.state is not None and self.tables is not None and self.view is not None
        t, s, v, n = self.tables, self.state, self.view, self.num_envs
        args = self._step_args(np.zeros(n, np.int64), None)
        self._entry("step_all", step_all, *args, *self._scratch[0], 0, n)
        if n == 1:  # the AEC env: one creature's observation, the event log
            self._entry(
                "observe_one", fobserve.observe_batch, t, s, v, self._viewer, self._row, 0, 1
            )
            self._entry("append_events", append_events, self.ev, 0, allocate_events(1))
        else:
            self._entry(
                "observe_batch",
                fobserve.observe_batch,
                t,
                s,
                v,
                self._slots,
                self.observations,
                0,
                n,
            )
        if self._opening is not None:
            self._entry("restart", restart, *self._restart_args(0, np.uint64(0)))

    def observe(self, rows: np.ndarray | None = None) -> np.ndarray:
        """Every battle's acting creature's observation (the ``observations`` buffer);
        with ``rows`` (``(N,)`` bool) only those rows are written, the others keep theirs."""
        assert self.state is not None
        if rows is None:
            return self.observe_slots(self.state.actor, self.observations)
        self._slots[:] = fobserve.KEEP  # no temporary array: this runs every partial step
        np.copyto(self._slots, self.state.actor, where=rows)
        return self.observe_slots(self._slots, self.observations)

    def observe_slots(self, slots: np.ndarray, out: np.ndarray) -> np.ndarray:
        """``out[i]``: creature slot ``slots[i]``'s observation of battle ``i``.

        ``slots`` is ``(N,)`` int32, as ``state.actor``; a slot of
        :data:`~facing_env.fast.observation.KEEP` leaves row ``i`` as it is. ``out`` is a
        C-contiguous ``(N, D)`` float32 array, returned."""
        assert self.state is not None and self.tables is not None and self.view is not None
        args = (self.tables, self.state, self.view, slots, out)
        call = self._entry("observe_batch", fobserve.observe_batch, *args, 0, self.num_envs)
        self._over_rows(call, args)
        return out

    def observe_one(self, k: int) -> np.ndarray:
        """Creature slot ``k``'s observation of battle 0 (a reused ``(1, D)`` buffer's
        row): any creature's, not only the actor's (the AEC env's ``observe``)."""
        ready = self._calls.get("observe_one()")
        if ready is None:
            assert self.state is not None and self.tables is not None and self.view is not None
            args = (self.tables, self.state, self.view, self._viewer, self._row, 0, 1)
            ready = self._ready("observe_one()", "observe_one", fobserve.observe_batch, args)
        self._viewer[0] = k
        ready()
        return self._row[0]

    def rescan(self) -> None:
        """Scan every battle's legal actions again (after a row was written by hand)."""
        assert self.state is not None and self.tables is not None
        self._call("rescan", mask_batch, (self.tables, self.state, self.mask, self.cost))

    def __getstate__(self) -> dict[str, Any]:
        """Pickle and deepcopy without the bound entry points (bound again on use) and
        the thread pool (made again on use)."""
        state = self.__dict__.copy()
        state["_calls"] = {}
        state["_pool"] = None
        return state

    def close(self) -> None:
        """Stop the worker threads (made again if the engine steps after this)."""
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None

    def _entry(self, name: str, dispatcher: Any, *args: Any) -> Any:
        """A kernel's entry point bound to these arguments' types (``fast.jit.bind``),
        bound on first use and again after the arrays or tables change (``_calls`` is
        emptied then). A row-range kernel is bound with its scratch and ``lo, hi``."""
        call = self._calls.get(name)
        if call is None:
            call = self._calls[name] = bind(dispatcher, *args)
        return call

    def _over_rows(self, call: Any, args: tuple, scratch: list[tuple] | None = None) -> None:
        """Run a row-range kernel over every row: on this thread alone, or with
        ``threads`` threads over contiguous ranges at once (the kernels release the GIL
        and write only their rows; ``scratch[j]``, when given, holds thread ``j``'s
        scratch arguments, passed before the range)."""
        own = () if scratch is None else scratch[0]
        if self.threads == 1:
            call(*args, *own, 0, self.num_envs)
            return
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.threads - 1, thread_name_prefix="facing_env")
        futures = [
            self._pool.submit(call, *args, *(() if scratch is None else scratch[j]), lo, hi)
            for j, (lo, hi) in enumerate(self._ranges[1:], start=1)
        ]
        lo, hi = self._ranges[0]
        call(*args, *own, lo, hi)
        for future in futures:
            future.result()

    def _call(self, name: str, dispatcher: Any, args: tuple) -> None:
        """Call a kernel through its bound entry point (:meth:`_entry`)."""
        self._entry(name, dispatcher, *args)(*args)

    def _ready(self, key: str, name: str, dispatcher: Any, args: tuple) -> Callable[[], Any]:
        """Kernel ``name``'s bound entry point with ``args`` applied, kept in ``_calls``
        under ``key``: the one-battle methods call the same arrays every step, and the
        applied call goes with the entry points whenever the arrays or tables change."""
        ready = self._calls[key] = partial(self._entry(name, dispatcher, *args), *args)
        return ready

    def append_log(self, i: int, log: Events) -> None:
        """Append battle ``i``'s events of the last step to ``log`` (see
        :func:`~facing_env.fast.events.append_events`)."""
        ready = self._calls.get("append_log()")
        if ready is None or ready.args[1] != i or ready.args[2] is not log:
            args = (self.ev, i, log)
            ready = self._ready("append_log()", "append_events", append_events, args)
        ready()
        if log.overflow[0]:
            raise RuntimeError("the event log is full: read it (log_events) more often")

    def log_events(self, i: int, log: Events) -> list[Any]:
        """The events gathered in ``log`` for battle ``i`` as ``Event`` records."""
        return to_events(log, 0, self._ids[i], self._attack_names[i])

    def battle(self, i: int) -> Battle:
        """Battle ``i`` as a :class:`Battle` (its state written into the battle it started
        from, or into a copy of the opening after a restart)."""
        assert self.state is not None
        template = self.templates[i]
        if template is None:
            assert self._opening is not None
            template = self.templates[i] = self._opening.clone()
        store(self.state, i, template)
        return template


def _dims(s: State) -> tuple[int, int, int, int]:
    """(height, width, creature slots, attacks) the arrays hold."""
    return (s.terrain.shape[1], s.terrain.shape[2], s.present.shape[1], s.attack_bonus.shape[2])


def _copy_rows(old: State, new: State) -> None:
    """Copy every battle of ``old`` into the larger arrays of ``new``."""
    for name in State._fields:
        a, b = getattr(old, name), getattr(new, name)
        b[tuple(slice(0, n) for n in a.shape)] = a
