"""The ``expert`` agent: a search over its own turn and the foes' replies, with the
batched engine as its forward model (:mod:`facing_env.agents.lookahead`).

At the start of each of its creatures' turns (and again whenever the battle is not where
its plan said it would be, as after a roll that differed from its mean) the expert:

1. **lists its turns** (:func:`turn_tree`): a breadth-first search over the acting
   creature's legal actions, each state once, down to every way the turn can end. The
   search walks with ``MOVE`` (facing is free while moving, UA-MOVE-01, so a step without
   turning never costs less) and keeps, of the walks that reach the same place, the one
   with the most movement left; it turns only where it stops (toward its nearest foe or
   the facings either side; far from every foe, toward the nearest only), walks before
   it attacks or readies, walks at most
   :data:`ENGAGED_WALK` squares when a foe is within reach at the start (leaving it draws
   attacks of opportunity), and does not run;
2. **scores each ending** (:func:`evaluate`): expected damage dealt minus taken since the
   plan began (past 0 hit points too: a killing blow's mean past death is its chance to
   kill), :data:`KILL` per creature down and :data:`WIN` for the battle, and where everyone
   stands: each creature's best attack after at most a 5-foot step
   (:func:`~facing_env.agents.lookahead.attack_potential`), counted fully for the side
   that acts next and at :data:`OTHER_SIDE` for the other;
3. **plays out the foes' replies** to its :data:`REPLIES` best endings and its
   :data:`READY_REPLIES` best endings that ready an attack. **The one assumption it makes
   of every foe**: a foe takes, among the endings of its own turn, the one worst for the
   expert under the expert's score (minimax), except that
   - it turns only toward its nearest enemy and only when that enemy has left its front,
     and its turn ends with its attack (and a turn);
   - it walks only toward a fight (or round it, within a square of its reach), and a foe
     with no enemy within its reach ends its turn as near one as it can (a foe that cannot
     strike this turn walks in);
   - a foe with an enemy within its reach stays in its square (no 5-foot step, no
     withdrawal) until the expert has seen it leave a square with an enemy within its
     reach (:class:`Sightings`, per game: what the foe has done, never which agent it is);
   - it does not see readied attacks coming (it chooses as if no one were readied; the
     chosen reply is then played with the readied attacks going off);
   - a foe out of every enemy's reach that the expert has seen holding a readied attack
     there, and never seen come to a fight (walk more than a square, or step into an
     enemy's reach: :class:`~facing_env.agents.belief.Sightings`), stays where it is:
     it turns, readies or ends its turn, and nothing it can strike from a walk counts
     in the expert's score. Against such a foe the expert plays the search in a
     one-on-one melee too (not the table of 5, which has no turn that leaves the fight):
     it finds the strike and the 5-foot step back out of reach, and next turn the walk
     round the foe into its rear (UA-PER-02: no readied attack goes off there; UA-OPP-02:
     +4) (:data:`WAITERS`).

   The expert never reads which agent it faces;
4. plays the first action of the plan whose score after the replies (plus
   :data:`BEFORE_REPLIES` of its score before them) is best, and the next ones while the
   battle stays where the plan predicted;
5. in a one-on-one melee (two creatures left, next to each other, one square and one
   attack of reach 1 each, a square grid under ``ua35``) it plays instead the turn of a
   table of the melee solved ahead (:mod:`facing_env.agents.melee`: the same model of the
   foe, a foe seen stepping taking the step that strikes from the best area), which
   sees the whole melee where the search sees one turn: the corner trap, and the step
   that baits a stepping foe into a corner;
6. on a scenario for which a learned prior ships (:mod:`facing_env.agents.prior`: the
   skirmish), while more than two creatures stand, it plays instead the prior's turn (a
   trained policy's most likely actions, on the search rows): there the search is the
   weaker player, in every variant measured (docs/expert.md, "The skirmish's prior").
   ``ExpertAgent(priors=False)`` is the search alone.

Every attack in the search deals its expected damage (the engine's ``mean`` dice): the
expert never reads the dice stream, and given a battle it always chooses the same action
(ties go to the shorter plan, then the lower action index), so it is deterministic and
needs no generator.

It reads the battle, not the observation vector: the positions, facings, hit points,
stat blocks and turn state the observation encodes, in the engine's own form (a
:class:`~facing_env.rules.battle.Battle` holds no dice). Game loops give it the battle through
:meth:`ExpertAgent.act_battle` (:func:`facing_env.agents.base.choose`); games played side
by side each keep their own plan (``game``, :meth:`ExpertAgent.fork`). Under
facing-limited perception (``perception="facing"``, issue 36) it plans on the battle as the
acting creature knows it (:func:`perceived`): a foe it does not perceive stands where it
last perceived it, or, never seen, in the free space farthest from it.

Tactics it finds this way (tested on ASCII positions in ``tests/test_expert.py``): the
5-foot step into the rear of a foe left facing diagonally (+4 without provoking), the
corner trap (a cornered foe flanked again and again by alternating 5-foot steps), the
step that leaves a foe that holds its square one 5-foot step from its rear, and with the
initiative the readied opening: out of the foe's move and reach and off its charge lanes,
turned toward it and readied, so that it walks into a readied attack with no attack of its
own left that round.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from facing_env.actions import (
    ATTACK_BASE,
    FIVE_FOOT_BASE,
    MOVE_BASE,
    READY_INDEX,
    RUN_INDEX,
    SLOT_KINDS,
    STEP_BASE,
    TURN_BASE,
)
from facing_env.agents.belief import Sightings, perceived
from facing_env.agents.lookahead import (
    _AREA_VALUE,
    Lookahead,
    attack_potential,
    foe_distances,
    toward_slots,
)
from facing_env.agents.melee import melee_turn
from facing_env.agents.prior import Prior, fingerprint, prior_turn, shipped_priors
from facing_env.fast.lookup import FRONT_CODE
from facing_env.rules import engine
from facing_env.rules.battle import Battle
from facing_env.types import Perception

REPLIES = 10
"""How many of its best turn endings the expert plays the foes' replies to."""
CHUNK = 16
"""Endings whose following turns are searched together (module docstring, 3)."""
KILL = 25.0
"""Value of a foe down (in hit points), besides the damage that took it down."""
DEATH_SPREAD = 6.0
"""Hit points over which a creature's chance of being down runs from 0 to 1 (half at 0
hit points): the search deals mean damage, the dice do not, so a creature a few hit
points from death is counted partly down (:data:`KILL` times that chance)."""
AOO_RISK = 2.0
"""Hit points counted against each attack of opportunity a side draws, beyond its mean
damage (a draw of the dice the search does not see)."""
WIN = 1000.0
"""Value of the battle won (lost: minus this)."""
BEFORE_REPLIES = 0.25
"""Share of an ending's score before the foes' replies added to its score after them: the
replies are a model of the foes, what the turn itself gains is sure (ties after the
replies go to the better turn)."""
OTHER_SIDE = 0.5
"""Weight of the attack potential of the side that does not act next."""
APPROACH = 0.01
"""Per square between the expert's creatures and their nearest foe: the tie-break that
walks toward the fight when nothing else differs."""
ENGAGED_WALK = 3
"""Squares a search walks, at most, when a foe is within reach at the turn's start (walking
away draws attacks of opportunity: a few squares reach any side of the foe)."""
PATIENCE = 7
"""Rounds the expert may wait for its foes (a battle that reaches its round limit counts
against both sides): long enough for a foe that waits out of reach through its first
rounds to come to the expert's readied corner (the duel's 30 rounds leave 23 to fight; 3
let the expert walk out of its corner to a foe that waits, docs/expert.md)."""
FIRST_WAIT = 2
"""The first round whose turns may be replayed (:meth:`ExpertAgent._plan_or_repeat`): in
the first, creatures that have not acted are flat-footed."""
LATE_APPROACH = 0.5
"""Per square to the nearest foe and per round past :data:`PATIENCE`: after a few rounds
the expert closes in even on a foe that waits readied (a draw is no better than a loss)."""
MAX_DEPTH = 24
"""Actions in one turn the search looks at, at most."""
PER_ROOT_NDIM = 2
"""An ``allow`` array with a row per search root (not one row for all)."""
FAR = 1e6
"""A distance standing for "no living foe"."""
READY_REPLIES = 12
"""How many of its best endings that ready an attack the expert plays the foes' replies
to, besides its :data:`REPLIES` best endings (a readied attack is worth what the foe's
reply walks into, which the score before the replies cannot see; 12 rather than 6 found
the readied corner that a foe waiting out of reach walks into, docs/expert.md)."""
MAX_REPLY_ROUNDS = 4
"""Turns played out after the expert's creature's turn, at most (foes' replies and allies'
turns, until that creature acts again)."""
WAITERS = True
"""Whether the expert models a foe seen waiting as staying where it is (module docstring,
3); ``False`` is the model before 2026-11-28 (every foe out of reach walks in)."""
MEMO_SIZE = 65536
"""Searches the expert remembers (:meth:`ExpertAgent._search`), oldest forgotten first."""


class ExpertAgent:
    """The search agent (see the module docstring)."""

    name: ClassVar[str] = "expert"
    deterministic: ClassVar[bool] = True
    plans: ClassVar[bool] = True
    """Chooses from the battle (:meth:`act_battle`), not from the observation alone."""

    def __init__(self, replies: int = REPLIES, capacity: int = 32768, priors: bool = True) -> None:
        self.replies = replies
        self.priors = priors
        self.prior: Prior | None = None
        self._priors: dict[tuple, Prior | None] = {}
        self.look = Lookahead(capacity)
        self._plans: dict[int, list[tuple[int, np.uint64]]] = {}
        self._seen: dict[int, Sightings] = {}
        self._waits: dict[int, tuple[tuple[int, bytes], list[int]]] = {}
        self._memo: dict[tuple, tuple[tuple[int, np.uint64], ...]] = {}
        self.steppers = np.zeros(0, dtype=bool)
        self.waiters = np.zeros(0, dtype=bool)

    def fork(self) -> ExpertAgent:
        """An expert for another game: its own plan, the same search rows (games played
        side by side each get one, so a plan never crosses from one game to another)."""
        other = object.__new__(ExpertAgent)
        other.replies = self.replies
        other.priors = self.priors
        other.prior = None
        other._priors = self._priors
        other.look = self.look
        other._plans = {}
        other._seen = {}
        other._waits = {}
        other._memo = self._memo
        other.steppers = np.zeros(0, dtype=bool)
        other.waiters = np.zeros(0, dtype=bool)
        return other

    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: object) -> int:
        """Not available: the expert plans with the battle (:meth:`act_battle`)."""
        raise TypeError(
            "the expert agent plans with the engine and needs the battle: call "
            "act_battle(battle, action_mask), or play it through facing_env.evaluation.match"
        )

    def act_battle(
        self, battle: Battle, action_mask: np.ndarray, rng: object = None, game: int = 0
    ) -> int:
        """The action to take now in ``battle`` (its acting creature's), one the mask
        allows. ``game`` names the battle among those this agent plays side by side: each
        keeps its own plan."""
        mask = np.asarray(action_mask)
        if battle.perception is not Perception.FULL and battle.turn is not None:
            battle = perceived(battle, battle.turn.actor)
        seen = self._seen.setdefault(game, Sightings())
        self.steppers = seen.update(battle)
        self.waiters = seen.waiting(battle) if WAITERS else np.zeros(0, dtype=bool)
        plan = self._plans.get(game)
        if plan and self.look.fits(battle, mask.shape[0]):
            self.look.load_root(battle)
            key = self.look.hashes(np.zeros(1, dtype=np.int64))[0]
            action, expected = plan[0]
            if key == expected and 0 <= action < mask.shape[0] and mask[action]:
                plan.pop(0)
                return action
        plan = self._plans[game] = self._plan_or_repeat(battle, mask.shape[0], game)
        action = plan.pop(0)[0] if plan else 0
        return action if 0 <= action < mask.shape[0] and mask[action] else 0

    def _plan_or_repeat(
        self, battle: Battle, n_actions: int, game: int
    ) -> list[tuple[int, np.uint64]]:
        """:meth:`plan`, or while the expert waits (rounds 2 to :data:`PATIENCE` - 1, where
        no score it computes depends on the round) the turn it planned last time the
        battle stood exactly as now but for the round, replayed: the same plan, without
        the search (a foe that waits out of reach makes the same turn come back)."""
        round_ = battle.initiative.round
        if not FIRST_WAIT <= round_ < PATIENCE:
            return self.plan(battle, n_actions)
        look = self.look
        self._load(battle, n_actions)
        if self._prior_plays():  # the prior's turn is no search: nothing to replay
            return self._search(n_actions)
        s = look.state
        kept = int(s.round[0])
        s.round[0] = 0  # the root's key without its round (state_hash keys every field)
        key = (
            int(look.hashes(np.zeros(1, dtype=np.int64))[0]),
            self._sighted(),
        )
        s.round[0] = kept
        last = self._waits.get(game)
        if last is not None and last[0] == key:
            leaf = replay(look, 0, last[1])
            if leaf > 0:
                return plan_steps(look, leaf)
        steps = self._search(n_actions)
        self._waits[game] = (key, [a for a, _ in steps])
        return steps

    # -- the search -----------------------------------------------------------------------

    def plan(self, battle: Battle, n_actions: int) -> list[tuple[int, np.uint64]]:
        """The best turn from here: its actions, each with the key of the state it is
        taken in."""
        self._load(battle, n_actions)
        return self._search(n_actions)

    def _load(self, battle: Battle, n_actions: int) -> None:
        """Load ``battle`` into the search's row 0, and find the prior that plays it."""
        look = self.look
        look.load(battle, n_actions)
        key = (self.priors, battle.ruleset, battle.kind, battle.perception, n_actions, look.fixed)
        if key not in self._priors:
            found = shipped_priors().get(fingerprint(look, battle)) if self.priors else None
            self._priors[key] = found
        self.prior = self._priors[key]

    def _sighted(self) -> tuple[bytes, bytes]:
        """What the expert has seen its foes do, as a key (its plans depend on it)."""
        return self.steppers.tobytes(), self.waiters.tobytes()

    def _waiting_foe_stands(self) -> bool:
        """Whether a living foe of the acting creature seen waiting stands in the battle
        loaded (then the search, not the melee table, plays a one-on-one melee)."""
        s = self.look.state
        k = s.n_creatures[0]
        foes = (s.team[0, :k] != s.team[0, s.actor[0]]) & (s.hp[0, :k] > 0)
        return bool((_flags_of(self.waiters, np.arange(k)) & foes).any())

    def _prior_plays(self) -> bool:
        """Whether the prior plays the battle loaded (module docstring, 6)."""
        s = self.look.state
        return self.prior is not None and (s.hp[0, : s.n_creatures[0]] > 0).sum() > 2  # noqa: PLR2004

    def _search(self, n_actions: int) -> list[tuple[int, np.uint64]]:
        """:meth:`plan` from the battle already loaded in the search's row 0: in a
        one-on-one melee the turn of :mod:`~facing_env.agents.melee`'s table (module
        docstring, 5), else the search.

        The search is a function of the battle (its fixed fields and the key of its
        moving ones) and of what the expert has seen its foes do, so it is remembered
        under those (:data:`MEMO_SIZE` of them, shared by the forks of one expert): a
        battle that comes back, as the moves before the first roll of dice do in every
        game with the same initiative order, is not searched again. The plans are the
        same with or without the memory; only the time differs."""
        look = self.look
        key = (
            look.fixed,
            int(look.hashes(np.zeros(1, dtype=np.int64))[0]),
            self._sighted(),
            n_actions,
            self.replies,
            self.prior.fingerprint if self.prior is not None else "",
        )
        known = self._memo.get(key)
        if known is not None:
            return list(known)
        steps = self._searched(n_actions)
        if len(self._memo) >= MEMO_SIZE:
            del self._memo[next(iter(self._memo))]
        self._memo[key] = tuple(steps)
        return steps

    def _searched(self, n_actions: int) -> list[tuple[int, np.uint64]]:
        """:meth:`_search` without the memory."""
        look = self.look
        leaf = -1 if self._waiting_foe_stands() else melee_turn(look, self.steppers)
        if leaf > 0:
            return plan_steps(look, leaf)
        s = look.state
        if self._prior_plays():
            leaf = prior_turn(look, self.prior)
            if leaf > 0:
                return plan_steps(look, leaf)
        team = int(s.team[0, s.actor[0]])
        allow = np.ones(n_actions, dtype=np.int8)
        allow[RUN_INDEX] = 0
        leaves = turn_tree(look, np.zeros(1, dtype=np.int64), allow)
        if leaves.size == 0:
            return []
        first = evaluate(look, leaves, team, self.waiters)
        order = np.lexsort((leaves, -first))
        pick = order[: self.replies]
        ready = order[look.action[leaves[order]] == READY_INDEX]
        ready = ready[~np.isin(ready, pick)][:READY_REPLIES]
        pick = np.concatenate([pick, ready])
        top = leaves[pick]
        before = first[pick]
        final = self.replies_value(top, team, n_actions) + BEFORE_REPLIES * before
        final = np.round(final, 6)  # sums of mean damage: equal plans, equal scores
        best = top[np.lexsort((np.arange(top.size), -before, -final))[0]]
        return plan_steps(look, int(best))

    def replies_value(self, rows: np.ndarray, team: int, n_actions: int) -> np.ndarray:
        """The score of each of ``rows`` after the turns that follow it until the acting
        creature's next turn (module docstring, 3): each foe's reply, and each ally's turn
        (the ally takes the ending best for its side, searched as the expert's own).
        The endings are played :data:`CHUNK` at a time, each chunk's search rows given
        back once its chosen endings are kept, so a wide search never runs out of rows."""
        look = self.look
        s = look.state
        start = s.actor[0]
        cur = rows.copy()
        for _ in range(MAX_REPLY_ROUNDS):
            actor = s.actor[cur]
            going = np.flatnonzero((actor >= 0) & (actor != start))
            if going.size == 0:
                break
            for lo in range(0, going.size, CHUNK):
                groups = going[lo : lo + CHUNK]
                mark = look.used
                ends = self._side_turn_rows(cur[groups], team, n_actions)
                look.used = mark  # the chunk's search rows go back; its endings stay
                kept = look.copy_rows(ends)
                if kept.size < groups.size:
                    return evaluate(look, cur, team, self.waiters)
                cur[groups] = kept
        return evaluate(look, cur, team, self.waiters)

    def _side_turn_rows(self, starts: np.ndarray, team: int, n_actions: int) -> np.ndarray:
        """The row each of ``starts`` reaches after its actor's turn (``starts`` itself
        when the search finds nothing)."""
        look = self.look
        s = look.state
        roots = look.copy_rows(starts)
        if roots.size < starts.size:
            return starts
        foe = s.team[roots, s.actor[roots]] != team
        mine = s.team[roots] == team
        readied = foe & (s.readied[roots] & mine).any(axis=1)
        hide = np.outer(foe, np.ones(mine.shape[1], dtype=bool)) & mine
        s.readied[roots] = s.readied[roots] & ~hide  # a foe does not see them coming
        look.parent[roots] = -1
        look.action[roots] = -1  # a new turn: nothing done in it yet
        chosen = self._side_turns(roots, team, n_actions, foe)
        out = starts.copy()
        for g, (root, leaf) in enumerate(zip(roots, chosen, strict=True)):
            if leaf < 0:
                continue
            if readied[g]:
                leaf = replay(look, int(starts[g]), look.path(int(leaf), stop=int(root)))
                if leaf < 0:
                    continue
            out[g] = leaf
        return out

    def _side_turns(
        self, roots: np.ndarray, team: int, n_actions: int, foe: np.ndarray
    ) -> np.ndarray:
        """The ending each root's actor takes: a foe's reply, the ending worst for
        ``team``; an ally's, the best (the expert's own search)."""
        look = self.look
        allow = np.ones((roots.size, n_actions), dtype=np.int8)
        allow[:, RUN_INDEX] = 0
        engaged = _engaged(look, roots)
        walk = np.arange(MOVE_BASE, FIVE_FOOT_BASE)
        allow[np.ix_(engaged | ~foe, walk)] = 0  # a foe in reach, an ally: no walking
        actors = look.state.actor[roots]
        stepped = _flags_of(self.steppers, actors)
        still = engaged & foe & ~stepped  # never seen leaving a fight: it stays in this one
        allow[np.ix_(still, np.arange(FIVE_FOOT_BASE, TURN_BASE))] = 0
        slots = (n_actions - ATTACK_BASE) // len(SLOT_KINDS)
        withdraw = ATTACK_BASE + SLOT_KINDS.index(engine.WITHDRAW) * slots
        allow[still, withdraw : withdraw + slots] = 0
        waiting = _flags_of(self.waiters, actors) & foe & ~engaged  # it does not come
        allow[np.ix_(waiting, np.arange(MOVE_BASE, TURN_BASE))] = 0
        group = np.full(look.capacity, -1, dtype=np.int64)
        group[roots] = np.arange(roots.size)
        leaves = turn_tree(look, roots, allow, group, approach=~engaged, reply=foe)
        chosen = np.full(roots.size, -1, dtype=np.int64)
        if leaves.size == 0:
            return chosen
        value = np.round(evaluate(look, leaves, team, self.waiters), 6)
        value = np.where(foe[group[leaves]], value, -value)
        # a foe out of every enemy's reach ends its turn as near one as it can
        gap = np.zeros(leaves.size, dtype=np.int64)
        closing = (foe & ~engaged)[group[leaves]]
        if closing.any():
            who = look.state.actor[roots][group[leaves[closing]]]
            gap[closing] = _gaps(look, leaves[closing], who)
        order = np.lexsort((leaves, value, gap, group[leaves]))
        g = group[leaves[order]]
        firsts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
        chosen[g[firsts]] = leaves[order[firsts]]
        return chosen


def _flags_of(flags: np.ndarray, creatures: np.ndarray) -> np.ndarray:
    """``flags`` (by creature index, possibly shorter) read for each of ``creatures``."""
    return np.array([c < flags.size and flags[c] for c in creatures], dtype=bool)


def _gaps(look: Lookahead, rows: np.ndarray, who: np.ndarray) -> np.ndarray:
    """Cells between creature ``who[j]`` of row ``rows[j]`` and its nearest living enemy:
    :func:`~facing_env.agents.lookahead.foe_distances` with ``who`` standing in for each
    row's actor (the rows are turn endings, where someone else acts next)."""
    s = look.state
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    actor = s.actor[rows].copy()
    out = np.empty((rows.size, 1 + look.tables.vectors.shape[0]), dtype=np.int64)
    s.actor[rows] = who
    try:
        foe_distances(look.tables, s, rows, out)
    finally:
        s.actor[rows] = actor
    return out[:, 0]


def _engaged(look: Lookahead, rows: np.ndarray) -> np.ndarray:
    """Whether each row's actor has a foe within its reach now (then a foe's reply is
    searched with 5-foot steps but no walking: walking away from a foe provokes, and the
    expert's own walks stop after :data:`ENGAGED_WALK` squares)."""
    s = look.state
    out = np.zeros(rows.size, dtype=bool)
    for j, i in enumerate(rows):
        a = s.actor[i]
        reach = s.reach[i, a] // 5
        for f in range(s.n_creatures[i]):
            if s.team[i, f] == s.team[i, a] or not s.present[i, f] or s.hp[i, f] <= 0:
                continue
            dist = max(abs(int(s.x[i, f]) - int(s.x[i, a])), abs(int(s.y[i, f]) - int(s.y[i, a])))
            if dist <= max(reach, 1):
                out[j] = True
    return out


def turn_tree(
    look: Lookahead,
    roots: np.ndarray,
    allow: np.ndarray,
    group: np.ndarray | None = None,
    approach: np.ndarray | None = None,
    reply: np.ndarray | None = None,
) -> np.ndarray:
    """Every way the acting creature's turn can end from each root row, breadth first:
    the rows where the turn has ended (or the battle), each ending once per root.

    ``allow`` masks the actions searched (``(A,)``, or ``(len(roots), A)`` per root,
    carried down by ``group``, which maps a row to its root's index). The search walks
    with ``MOVE`` (it turns toward each step: facing is free during a move, UA-MOVE-01, so
    a step without turning never costs less), turns only where it stops, and keeps of the
    walks that reach the same place the one with the most movement left. Roots flagged in
    ``approach`` walk only toward their nearest foe."""
    s = look.state
    per_root = allow.ndim == PER_ROOT_NDIM
    slots = (look.n_actions - ATTACK_BASE) // 3
    per_group = group is not None
    engaged = _engaged(look, roots)
    best: dict[int, int] = {}
    frontier = _admit(look, roots, group, best)
    leaves = []
    for _ in range(MAX_DEPTH):
        if frontier.size == 0:
            break
        legal = look.mask[frontier] & (allow[group[frontier]] if per_root else allow[None, :])
        legal[:, STEP_BASE:FIVE_FOOT_BASE] = 0
        last = look.action[frontier]
        turned = (last >= TURN_BASE) & (last < RUN_INDEX)
        legal[np.ix_(turned, np.arange(MOVE_BASE, RUN_INDEX))] = 0  # turn, then act
        acted = (last == READY_INDEX) | ((last >= ATTACK_BASE) & (last < ATTACK_BASE + slots))
        legal[np.ix_(acted, np.arange(MOVE_BASE, STEP_BASE))] = 0  # walk, then act
        lazy = (
            reply[group[frontier]]
            if reply is not None and group is not None
            else np.zeros(frontier.size, dtype=bool)
        )
        # a foe's reply ends with its attack (module docstring, 3)
        legal[np.ix_(acted & lazy, np.arange(FIVE_FOOT_BASE, TURN_BASE))] = 0
        flags = (
            approach[group[frontier]]
            if approach is not None and group is not None
            else np.zeros(frontier.size, dtype=bool)
        )
        near = engaged[group[frontier]] if per_group else np.full(frontier.size, engaged[0])
        _restrict(look, frontier, legal, flags, near, lazy)
        pr, actions = np.nonzero(legal)
        parents = frontier[pr]
        children = look.expand(parents, actions)
        parents = parents[: children.size]
        if group is not None:
            group[children] = group[parents]
        ended = (
            (s.index[children] != s.index[parents])
            | (s.round[children] != s.round[parents])
            | (s.actor[children] < 0)
        )
        done = children[ended]
        if done.size:
            keys = _keys(look, done, group)
            _, first = np.unique(keys, return_index=True)
            leaves.append(done[np.sort(first)])
        if look.room(1) == 0:
            break
        frontier = _admit(look, children[~ended], group, best)
    if not leaves:
        return np.zeros(0, dtype=np.int64)
    out = np.concatenate(leaves)
    keys = _keys(look, out, group)
    _, first = np.unique(keys, return_index=True)
    return out[np.sort(first)]


def _admit(
    look: Lookahead, rows: np.ndarray, group: np.ndarray | None, best: dict[int, int]
) -> np.ndarray:
    """The rows worth searching on: of those that stand alike (:func:`state_hash` with
    ``walking``), the one with the most movement left, unless one seen before had as much."""
    if rows.size == 0:
        return rows
    keys = _keys(look, rows, group, walking=True)
    left = look.state.turn_movement_left[rows].astype(np.int64)
    order = np.lexsort((-left, keys))
    keep = []
    previous = None
    for j in order:
        k = int(keys[j])
        if k == previous:
            continue
        previous = k
        m = int(left[j])
        if k in best:
            continue
        best[k] = m
        keep.append(j)
    return rows[np.sort(np.array(keep, dtype=np.int64))]


def _restrict(
    look: Lookahead,
    rows: np.ndarray,
    legal: np.ndarray,
    approach: np.ndarray,
    engaged: np.ndarray,
    lazy: np.ndarray,
) -> None:
    """What a turn's search leaves out (:func:`turn_tree`): turning with no foe within two
    squares of its reach, a 5-foot step with none within one, and for ``approach`` rows
    every walking step that does not near the nearest foe."""
    s, t = look.state, look.tables
    actor = np.maximum(s.actor[rows], 0)
    reach = s.reach[rows, actor].astype(np.int64) // 5
    dist = np.empty((rows.size, 1 + t.vectors.shape[0]), dtype=np.int64)
    foe_distances(t, s, np.ascontiguousarray(rows, dtype=np.int64), dist)
    near = dist[:, 0]
    walked = s.speed[rows, actor] // 5 - s.turn_movement_left[rows]
    engaged_walk = s.turn_moving[rows] & (walked >= ENGAGED_WALK) & engaged
    legal[np.ix_(engaged_walk, np.arange(MOVE_BASE, STEP_BASE))] = 0
    far = near > reach + 2  # far from every foe: only the facing toward the nearest
    legal[:, TURN_BASE:RUN_INDEX] &= _toward_foe(look, rows, lazy | far)
    legal[np.ix_(near > reach + 1, np.arange(FIVE_FOOT_BASE, TURN_BASE))] = 0
    if not approach.any():
        return
    then = dist[:, 1:]
    away = (then >= near[:, None]) & (then > reach[:, None] + 1) & approach[:, None]
    sub = legal[:, MOVE_BASE : MOVE_BASE + then.shape[1]]
    sub[away] = 0
    legal[:, MOVE_BASE : MOVE_BASE + then.shape[1]] = sub


def _toward_foe(look: Lookahead, rows: np.ndarray, lazy: np.ndarray) -> np.ndarray:
    """``(len(rows), 8)`` int8: the TURN slots searched, the facing toward the actor's
    nearest living foe and the allowed facings either side of it (a creature that turns
    its back on every foe is never what a turn's end wants). ``lazy`` rows (the foes'
    replies) turn only toward that foe, and only when it stands outside their front
    (:func:`~facing_env.agents.lookahead.toward_slots`)."""
    out = np.zeros((rows.size, RUN_INDEX - TURN_BASE), dtype=np.int8)
    toward_slots(look.tables, look.state, rows, lazy, FRONT_CODE, out)
    return out


_GROUP_KEY = np.uint64(0x9E3779B97F4A7C15)


def _keys(
    look: Lookahead, rows: np.ndarray, group: np.ndarray | None, walking: bool = False
) -> np.ndarray:
    """State keys of rows, distinct per root when the search has several (``group``)."""
    keys = look.hashes(rows, walking)
    if group is None:
        return keys
    with np.errstate(over="ignore"):
        return keys + group[rows].astype(np.uint64) * _GROUP_KEY


def evaluate(
    look: Lookahead, rows: np.ndarray, team: int, waiting: np.ndarray | None = None
) -> np.ndarray:
    """The expert's score of each row for ``team`` (module docstring, 2), in hit points.
    ``waiting[k]``: creature ``k`` is a foe seen waiting (module docstring, 3), whose
    attack potential counts only what it can strike from where it stands."""
    s = look.state
    k = s.n_creatures[0]
    present = s.present[0, :k]
    mine = (s.team[0, :k] == team) & present
    foes = (s.team[0, :k] != team) & present
    hp0 = np.maximum(s.hp[0, :k], 0.0)
    hp = s.hp[rows, :k]
    lost = hp0[None, :] - hp  # below 0 too: a blow's mean past death is its chance to kill
    risk = np.clip(0.5 - hp / (2.0 * DEATH_SPREAD), 0.0, 1.0) * (hp0[None, :] > 0)
    value = lost[:, foes].sum(axis=1) - lost[:, mine].sum(axis=1)
    value += KILL * (risk[:, foes].sum(axis=1) - risk[:, mine].sum(axis=1))
    made = np.maximum(s.aoo_used[rows, :k] - s.aoo_used[0, :k][None, :], 0)
    value += AOO_RISK * (made[:, mine].sum(axis=1) - made[:, foes].sum(axis=1))
    alive = hp > 0
    won = ~(alive[:, foes].any(axis=1))
    lost_all = ~(alive[:, mine].any(axis=1))
    value += WIN * (won.astype(float) - lost_all.astype(float))
    actor = s.actor[rows]
    mine_next = (actor >= 0) & (s.team[rows, np.maximum(actor, 0)] == team)
    # the side that acts next may walk before it strikes, unless a foe is in its reach
    # (walking away draws attacks of opportunity); the other side, a 5-foot step
    next_side = np.where(mine_next[:, None], mine[None, :], foes[None, :])
    walk = np.maximum(s.speed[0, :k].astype(np.int64) // 5, 1)
    free = ~_in_reach(s, rows, k)
    moves = np.zeros((rows.size, s.present.shape[1]), dtype=np.int64)
    moves[:, :k] = np.where(next_side & free, walk[None, :], 1)
    if waiting is not None and waiting.size:
        still = np.zeros(k, dtype=bool)
        still[: min(k, waiting.size)] = waiting[:k]
        still &= foes
        moves[:, :k] = np.where(still[None, :] & free, 0, moves[:, :k])
    pot = np.zeros((rows.size, s.present.shape[1]))
    attack_potential(look.tables, s, np.ascontiguousarray(rows), _AREA_VALUE, moves, pot)
    pot = pot[:, :k]
    w_mine = np.where(mine_next, 1.0, OTHER_SIDE)
    w_foes = np.where(mine_next, OTHER_SIDE, 1.0)
    value += w_mine * (pot[:, mine] * alive[:, mine]).sum(axis=1)
    value -= w_foes * (pot[:, foes] * alive[:, foes]).sum(axis=1)
    late = np.maximum(s.round[rows].astype(float) - PATIENCE, 0.0)
    value -= (APPROACH + LATE_APPROACH * late) * _nearest(s, rows, mine, foes, alive)
    return value


def _in_reach(s, rows: np.ndarray, k: int) -> np.ndarray:
    """``(len(rows), k)``: whether a living enemy stands within each creature's reach
    (anchor to anchor: the one-square creatures of most scenarios)."""
    x = s.x[rows, :k].astype(np.int64)
    y = s.y[rows, :k].astype(np.int64)
    d = np.maximum(np.abs(x[:, :, None] - x[:, None, :]), np.abs(y[:, :, None] - y[:, None, :]))
    team = s.team[0, :k]
    enemy = (team[:, None] != team[None, :]) & (s.hp[rows, :k] > 0)[:, None, :]
    reach = np.maximum(s.reach[0, :k].astype(np.int64) // 5, 1)
    return ((d <= reach[None, :, None]) & enemy).any(axis=2)


def _nearest(s, rows: np.ndarray, mine: np.ndarray, foes: np.ndarray, alive: np.ndarray):
    """Sum over the team's living creatures of the squares to the nearest living foe."""
    k = mine.shape[0]
    x = s.x[rows, :k].astype(np.int64)
    y = s.y[rows, :k].astype(np.int64)
    mi, fi = np.flatnonzero(mine), np.flatnonzero(foes)
    if mi.size == 0 or fi.size == 0:
        return np.zeros(rows.size)
    d = np.maximum(
        np.abs(x[:, mi, None] - x[:, None, fi]), np.abs(y[:, mi, None] - y[:, None, fi])
    ).astype(float)
    d = np.where(alive[:, None, fi], d, FAR).min(axis=2)
    d = np.where(d >= FAR, 0.0, d)
    return (d * alive[:, mi]).sum(axis=1)


def replay(look: Lookahead, row: int, actions: list[int]) -> int:
    """Play ``actions`` from a copy of ``row`` (while each is legal and the same creature
    acts), then end the turn if it has not ended; returns the last row (-1: no room)."""
    s = look.state
    start = (int(s.round[row]), int(s.index[row]))
    cur = row
    for a in [*actions, 0]:
        if (int(s.round[cur]), int(s.index[cur])) != start or s.actor[cur] < 0:
            break
        if not look.mask[cur, a]:
            a = 0
        nxt = look.expand(np.array([cur]), np.array([a]))
        if nxt.size == 0:
            return -1
        cur = int(nxt[0])
    return cur


def plan_steps(look: Lookahead, leaf: int) -> list[tuple[int, np.uint64]]:
    """The actions from the root to ``leaf``, each with the key of the row it starts from."""
    rows = []
    row = leaf
    while row > 0:
        rows.append(row)
        row = int(look.parent[row])
    rows.reverse()
    starts = np.array([0, *rows[:-1]], dtype=np.int64)
    keys = look.hashes(starts)
    return [(int(look.action[r]), keys[j]) for j, r in enumerate(rows)]


__all__ = ["ExpertAgent", "evaluate", "perceived", "plan_steps", "replay", "turn_tree"]
