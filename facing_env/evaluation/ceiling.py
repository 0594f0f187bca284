"""Exact win chances of fixed-modifier damage races in a one-on-one fight: a calculator.

``python -m facing_env ceiling [--scenario duel]`` answers "what does a fight win in which
every attack of each side carries a fixed facing modifier?" with two exact tools, both on
the object engine and the scenario's own creatures:

- :func:`turn_attacks` searches every sequence of walking, 5-foot steps and turns the acting
  creature can take this turn (up to ``max_actions`` of them) and lists every attack it can
  reach: the attack's facing modifier (UA-ATK-01..02 plus UA-OPP-01..02) and the attacks of
  opportunity it provoked on the way (SRD-AOO-02, SRD-AOO-04). It looks at one turn from
  one position: what the turns before set up (a cornered foe, a foe left facing a
  diagonal, a readied attack) is outside it.
- :func:`race` is the exact probability (forward dynamic programming over both creatures'
  hit points, no sampling) that a fight in which every attack of each side carries a fixed
  facing modifier ends in the first creature's victory, with the opening as the engine plays
  it: the first mover strikes a flat-footed foe (SRD-FF-01), by a charge (+2 to hit, -2 AC
  until its next turn) or a plain attack; a battle still going after ``rounds`` rounds is a
  draw (not won). :func:`best_race` lets the first creature choose, on each of its turns
  and for both hit-point totals, the best of several exchanges (an attack's modifier and
  the modifier it leaves the foe's next attack), by backward dynamic programming.

**What a race bounds is a race, not a policy.** A race fixes the modifiers each side's
attacks carry; a policy can change them over the fight (a 5-foot step into the rear of a
foe that turns only when it must, flanking a cornered foe turn after turn, a readied
attack that lands in the rear of a foe walking in, an opening that makes the foe waste its
first turn). An earlier version of this module called the duel's races (0.660 against
``aggressive``, 0.521 against ``flanker``) ceilings of any policy; the ``expert`` search
agent wins more than both (docs/training.md, "What the races do not bound").
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from facing_env import cli
from facing_env.limits import MAX_ROUNDS
from facing_env.rules import engine
from facing_env.rules.attacks import facing_modifier
from facing_env.rules.battle import Battle, Creature
from facing_env.rules.dice import Dice, parse_dice, roll_hits
from facing_env.tables import CHARGE_AC_PENALTY, CHARGE_ATTACK_BONUS

DUEL_CREATURES = 2
"""A race is between two creatures of two teams."""

OPENINGS = ("attack", "charge")
"""How the first mover opens a :func:`race`: a plain attack, or a charge."""

_WALKS = frozenset({engine.MOVE, engine.FIVE_FOOT_STEP, engine.TURN, engine.STEP_KEEP_FACING})


@dataclass(frozen=True)
class Fighter:
    """The numbers of one creature that a :func:`race` needs (its first attack only)."""

    hp: int
    ac: int
    flat_footed_ac: int
    attack_bonus: int
    damage: str
    threat_range: int = 20
    crit_multiplier: int = 2

    @classmethod
    def of(cls, creature: Creature) -> Fighter:
        """The creature's hit points, AC (flat-footed: without its Dexterity bonus) and
        first attack."""
        attack = creature.attacks[0]
        return cls(
            hp=int(creature.hp),
            ac=creature.ac,
            flat_footed_ac=creature.ac - max(0, creature.dex_modifier),
            attack_bonus=attack.bonus,
            damage=attack.damage,
            threat_range=attack.threat_range,
            crit_multiplier=attack.crit_multiplier,
        )

    def strikes(self, modifier: int, ac: int) -> np.ndarray:
        """:func:`damage_distribution` of its attack with ``modifier`` more against ``ac``."""
        return damage_distribution(
            self.attack_bonus + modifier, ac, self.damage, self.threat_range, self.crit_multiplier
        )


@dataclass(frozen=True)
class RaceResult:
    """Chances of a :func:`race` for the first creature: by who has the initiative, and the
    mean over an even initiative."""

    won_first: float
    won_second: float
    lost_first: float
    lost_second: float

    @property
    def won(self) -> float:
        """The first creature's chance to win, initiative even."""
        return (self.won_first + self.won_second) / 2

    @property
    def drawn(self) -> float:
        """The chance of a draw (the round limit), initiative even."""
        return 1.0 - self.won - (self.lost_first + self.lost_second) / 2


def damage_distribution(
    bonus: int, ac: int, damage: str, threat_range: int = 20, crit_multiplier: int = 2
) -> np.ndarray:
    """``p[k]``: the chance that one attack with total ``bonus`` against ``ac`` deals ``k``
    damage, exactly as :func:`facing_env.rules.engine.resolve_attack` rolls it (a natural 20 hits
    and a 1 misses; a threat is confirmed by a second roll; a critical rolls the damage
    ``crit_multiplier`` times; at least 1 on a hit)."""
    n, sides, flat = parse_dice(damage)
    one = np.ones(1)
    dice = one
    for _ in range(n):
        dice = np.convolve(dice, np.full(sides, 1.0 / sides))  # index: sum of faces - n
    lowest = n + flat

    def spread(times: int) -> np.ndarray:
        total = one
        for _ in range(times):
            total = np.convolve(total, dice)
        out = np.zeros(max(1, times * (sides * n + flat)) + 1)
        for i, p in enumerate(total):
            out[max(1, i + times * lowest)] += p
        return out

    hit_faces = [r for r in range(1, 21) if roll_hits(r, bonus, ac)]
    p_hit = len(hit_faces) / 20.0
    p_threat = sum(1 for r in hit_faces if r >= threat_range) / 20.0
    p_crit = p_threat * p_hit  # the confirmation roll hits as the attack roll does
    normal, critical = spread(1), spread(crit_multiplier)
    out = np.zeros(len(critical))
    out[0] = 1.0 - p_hit
    out[: len(normal)] += (p_hit - p_crit) * normal
    out += p_crit * critical
    return out


def race(
    first: Fighter,
    second: Fighter,
    *,
    modifier: int,
    foe_modifier: int,
    opening: str = "attack",
    foe_opening: str = "attack",
    opening_modifier: int | None = None,
    foe_opening_modifier: int | None = None,
    rounds: int = 30,
) -> RaceResult:
    """The exact chances of a fight of ``first`` against ``second`` in which each makes one
    attack per turn, ``first``'s always with facing modifier ``modifier`` and ``second``'s
    with ``foe_modifier``, both sides starting flat-footed; the initiative winner opens
    with ``opening`` (``first``) or ``foe_opening`` (``second``): ``"attack"``, or
    ``"charge"`` (+2 to hit, -2 AC until its next turn), its opening attack carrying
    ``opening_modifier`` / ``foe_opening_modifier`` (default: its usual modifier; a walk
    straight at a foe that faces you ends in its front, 0). Draws after ``rounds``
    rounds."""
    for name, value in (("opening", opening), ("foe_opening", foe_opening)):
        if value not in OPENINGS:
            raise ValueError(f"{name} must be one of {OPENINGS}, got {value!r}")
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, got {rounds}")
    open_mod = modifier if opening_modifier is None else opening_modifier
    foe_open_mod = foe_modifier if foe_opening_modifier is None else foe_opening_modifier
    won_a, lost_a = _fight(first, second, (open_mod, modifier, foe_modifier), opening, rounds)
    lost_b, won_b = _fight(
        second, first, (foe_open_mod, foe_modifier, modifier), foe_opening, rounds
    )
    return RaceResult(
        won_first=float(won_a),
        won_second=float(won_b),
        lost_first=float(lost_a),
        lost_second=float(lost_b),
    )


def _fight(
    a: Fighter, b: Fighter, mods: tuple[int, int, int], opening: str, rounds: int
) -> tuple[float, float]:
    """(P(a wins), P(b wins)) when ``a`` acts first; ``mods``: a's opening and usual facing
    modifiers, b's usual one. The joint distribution of both hit points is carried forward
    attack by attack; a drop ends the fight."""
    open_mod, mod_a, mod_b = mods
    state = np.zeros((a.hp + 1, b.hp + 1))
    state[a.hp, b.hp] = 1.0
    charge = opening == "charge"
    bonus = CHARGE_ATTACK_BONUS if charge else 0
    steady_a = a.strikes(mod_a, b.ac)
    steady_b = b.strikes(mod_b, a.ac)
    open_a = a.strikes(open_mod + bonus, b.flat_footed_ac)
    reply_b = b.strikes(mod_b, a.ac + (CHARGE_AC_PENALTY if charge else 0))
    won = lost = 0.0
    for r in range(rounds):
        state, dropped = _strike(state, open_a if r == 0 else steady_a, axis=1)
        won += dropped
        state, dropped = _strike(state, reply_b if r == 0 else steady_b, axis=0)
        lost += dropped
    return won, lost


def _strike(state: np.ndarray, dist: np.ndarray, axis: int) -> tuple[np.ndarray, float]:
    """One attack on the hit points along ``axis`` (0: the first creature's, 1: the
    second's): (the distribution after it without the dropped, the chance of a drop)."""
    s = state if axis == 1 else state.T
    out = np.zeros_like(s)
    dropped = 0.0
    hp = s.shape[1] - 1
    for k, p in enumerate(dist):
        if p == 0.0:
            continue
        if k == 0:
            out += p * s
            continue
        if k < hp + 1:
            out[:, 1 : hp + 1 - k] += p * s[:, k + 1 :]
        dropped += p * float(s[:, 1 : min(k, hp) + 1].sum())
    out[:, 0] = 0.0
    return (out if axis == 1 else out.T), dropped


@dataclass(frozen=True)
class BestRace:
    """The first creature's chance to win under its best choice of exchanges
    (:func:`best_race`): with the initiative, without it, and the mean."""

    won_first: float
    won_second: float

    @property
    def won(self) -> float:
        """The chance to win, initiative even."""
        return (self.won_first + self.won_second) / 2


def best_race(
    first: Fighter,
    second: Fighter,
    exchanges: Sequence[tuple[int, int]],
    *,
    opening_exchanges: Sequence[tuple[int, int]] | None = None,
    foe_opening_modifier: int = 0,
    foe_opening: str = "attack",
    rounds: int = 30,
) -> BestRace:
    """The exact chance that ``first`` wins when, on each of its turns, it picks the best of
    ``exchanges`` for the hit points of both: an exchange ``(m, f)`` is an attack with
    facing modifier ``m`` that leaves the foe's next attack with ``f`` (against `flanker`:
    +2 from its flank leaves you in reach of its flank step, ``(2, 2)``; 0 from its front
    diagonal leaves it only your front, ``(0, 0)``). With the initiative, ``first`` opens
    on the flat-footed foe with the best of ``opening_exchanges`` (default: ``exchanges``);
    without it, the foe opens with ``foe_opening`` and ``foe_opening_modifier`` as in
    :func:`race`. Any exchange may follow any other, so where the board allows fewer
    (from a diagonal you cannot take +2 at once) this is an upper bound of the race with
    these exchanges (not of a policy, which can make other exchanges). Backward dynamic
    programming over both hit-point totals, attack by attack; draws after ``rounds``
    rounds (not won)."""
    if not exchanges:
        raise ValueError("best_race needs at least one exchange")
    if foe_opening not in OPENINGS:
        raise ValueError(f"foe_opening must be one of {OPENINGS}, got {foe_opening!r}")
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, got {rounds}")

    openers = list(exchanges if opening_exchanges is None else opening_exchanges)
    if not openers:
        raise ValueError("best_race needs at least one opening exchange")
    charge = foe_opening == "charge"
    mine = [first.strikes(m, second.ac) for m, _ in exchanges]
    mine_after_charge = [first.strikes(m, second.ac + CHARGE_AC_PENALTY) for m, _ in exchanges]
    theirs = [second.strikes(f, first.ac) for _, f in exchanges]
    opening = [first.strikes(m, second.flat_footed_ac) for m, _ in openers]
    opening_replies = [second.strikes(f, first.ac) for _, f in openers]
    foe_open = second.strikes(
        foe_opening_modifier + (CHARGE_ATTACK_BONUS if charge else 0), first.flat_footed_ac
    )
    zero = np.zeros((first.hp + 1, second.hp + 1))

    def turn(
        after: np.ndarray, attack: list[np.ndarray], replies: list[np.ndarray], last: bool
    ) -> np.ndarray:
        """The value before the learner's turn, given the value after the foe's reply."""
        best = zero
        for k, (hit, reply) in enumerate(zip(attack, replies, strict=True)):
            then = zero if last else _expect(after, reply, axis=0, on_drop=0.0)
            value = _expect(then, hit, axis=1, on_drop=1.0)
            best = value if k == 0 else np.maximum(best, value)
        return best

    # The learner first: its turns k = R-1 .. 0, each followed by the foe's reply.
    value = zero
    for k in reversed(range(rounds)):
        if k == 0:
            value = turn(value, opening, opening_replies, last=False)
        else:
            value = turn(value, mine, theirs, last=False)
    won_first = float(value[first.hp, second.hp])
    # The foe first: its opening, then the learner's turns, the last one unanswered.
    value = zero
    for k in reversed(range(rounds)):
        attack = mine_after_charge if (k == 0 and charge) else mine
        value = turn(value, attack, theirs, last=k == rounds - 1)
    won_second = float(_expect(value, foe_open, axis=0, on_drop=0.0)[first.hp, second.hp])
    return BestRace(won_first=won_first, won_second=won_second)


def _expect(value: np.ndarray, dist: np.ndarray, axis: int, on_drop: float) -> np.ndarray:
    """``E[value after one attack]`` on the hit points along ``axis`` (0: the first
    creature's, 1: the second's), ``on_drop`` where the attack drops its target."""
    v = value if axis == 1 else value.T
    hp = v.shape[1] - 1
    out = np.zeros_like(v)
    for k, p in enumerate(dist):
        if p == 0.0:
            continue
        if k == 0:
            out[:, 1:] += p * v[:, 1:]
            continue
        if k < hp:
            out[:, k + 1 :] += p * v[:, 1 : hp + 1 - k]
        out[:, 1 : min(k, hp) + 1] += p * on_drop
    return out if axis == 1 else out.T


@dataclass(frozen=True)
class AttackOption:
    """One attack the acting creature can reach this turn: against whom, ``kind``
    (``attack`` or ``charge``), the facing modifier of the attack (for a charge: of the
    attack at its end) and the attacks it drew getting there (attacks of opportunity, and a
    readied attack if one went off)."""

    target: str
    kind: str
    facing_modifier: int
    provoked: int


def turn_attacks(battle: Battle, *, max_actions: int = 4) -> set[AttackOption]:
    """Every attack the acting creature can reach this turn through at most
    ``max_actions`` moves, 5-foot steps and turns (depth-first on copies of ``battle``).
    ``battle`` is not changed; the attacks of opportunity drawn on the way are rolled from a
    fixed stream, and a way on which the actor drops is left out. A state is searched again
    when reached with fewer attacks of opportunity drawn or fewer actions spent than before,
    so neither the order of the search nor its depth limit hides a cheaper way."""
    if battle.turn is None:
        raise ValueError("turn_attacks needs a battle in progress (engine.start)")
    me = battle.turn.actor
    found: set[AttackOption] = set()
    shallowest: dict[tuple[tuple, int], int] = {}  # (state, provoked) -> fewest actions
    stack: list[tuple[Battle, int, int]] = [(battle, 0, 0)]
    while stack:
        b, provoked, depth = stack.pop()
        state = _search_key(b)
        if any(shallowest.get((state, p), max_actions + 1) <= depth for p in range(provoked + 1)):
            continue
        shallowest[(state, provoked)] = depth
        for action in engine.legal_actions(b):
            if action.kind == engine.ATTACK:
                target = str(action.arg)
                found.add(AttackOption(target, "attack", facing_modifier(b, me, target), provoked))
            elif action.kind == engine.CHARGE:
                after = b.copy()
                events = engine.apply(after, action, Dice(0))
                drawn = _drawn(events, me)
                charged = next((e for e in events if e.kind == "attack" and e.actor == me), None)
                if charged is None or after.creature(me).hp <= 0:
                    continue  # dropped by an attack of opportunity on the way
                found.add(
                    AttackOption(
                        str(action.arg), "charge", charged.facing_modifier, provoked + drawn
                    )
                )
            elif action.kind in _WALKS and depth < max_actions:
                after = b.copy()
                events = engine.apply(after, action, Dice(0))
                if after.turn is None or after.turn.actor != me or after.creature(me).hp <= 0:
                    continue
                drawn = _drawn(events, me)
                stack.append((after, provoked + drawn, depth + 1))
    return found


def _drawn(events: list, me: str) -> int:
    """Attacks made on ``me`` among ``events`` (of opportunity, or a readied one)."""
    return sum(1 for e in events if e.kind == "attack" and e.target == me)


def _search_key(battle: Battle) -> tuple:
    """``engine.state_key`` plus what it leaves out that decides later attacks of
    opportunity: whom the actor has provoked this move and how many each foe has made."""
    turn, init = battle.turn, battle.initiative
    provoked = frozenset(turn.provoked) if turn is not None else frozenset()
    used = tuple(sorted(init.aoo_used.items())) if init is not None else ()
    return engine.state_key(battle), provoked, used


def best_free_modifier(options: set[AttackOption]) -> int | None:
    """The best facing modifier among the plain attacks that provoke nothing (None if
    there is none)."""
    free = [o.facing_modifier for o in options if o.kind == "attack" and o.provoked == 0]
    return max(free) if free else None


MAX_WORK = 10**7
"""Hit-point states times rounds a command-line race sweeps, at most (the duel's: about
84,000; each takes a few seconds per million)."""


def duel_fighters(scenario: str) -> tuple[Fighter, Fighter]:
    """The two creatures of a one-on-one scenario, in file order."""
    from facing_env.scenario import load_scenario

    battle = load_scenario(scenario).build(np.random.default_rng(0))
    creatures = list(battle.creatures.values())
    if len(creatures) != DUEL_CREATURES or creatures[0].team == creatures[1].team:
        raise ValueError(
            f"scenario {scenario!r}: a race needs exactly two creatures on two teams, "
            f"it has {len(creatures)}"
        )
    for c in creatures:
        problem = _unmodelled(c)
        if problem:
            raise ValueError(
                f"scenario {scenario!r}: creature {c.id!r} has {problem}, which the races do "
                "not model (one melee attack a round with a fixed facing modifier)"
            )
    a, b = creatures
    if (a.dex_modifier, a.has_feat("Improved Initiative")) != (
        b.dex_modifier,
        b.has_feat("Improved Initiative"),
    ):
        raise ValueError(
            f"scenario {scenario!r}: the creatures' initiative bonuses differ, so the "
            "initiative is not even, which the races' mean assumes"
        )
    if a.size != b.size:
        raise ValueError(f"scenario {scenario!r}: the creatures' sizes differ ({a.size}, {b.size})")
    return Fighter.of(a), Fighter.of(b)


def _unmodelled(c: Creature) -> str | None:
    """What of a creature a :func:`race` does not model, if anything."""
    if len(c.attacks) != 1 or c.attacks[0].ranged:
        return "other than one melee attack"
    if c.base_attack_bonus - engine.ITERATIVE_STEP >= 1:
        return "iterative attacks (base attack bonus 6 or more)"
    if c.sneak_attack:
        return "sneak attack"
    if c.uncanny_dodge or c.improved_uncanny_dodge is not None:
        return "uncanny dodge"
    if c.shield is not None:
        return "a shield"
    if c.faceless or not c.has_facing:
        return "no facing"
    return None


_TABLE: tuple[tuple[str, dict[str, int | str]], ...] = (
    (
        "against aggressive: the learner always from the flank (+2), "
        "opening in the flank of the flat-footed foe; aggressive from the front, "
        "charging when it has the initiative",
        {"modifier": 2, "foe_modifier": 0, "foe_opening": "charge"},
    ),
    (
        "the same, the learner charging when it has the initiative",
        {"modifier": 2, "foe_modifier": 0, "opening": "charge", "foe_opening": "charge"},
    ),
    (
        "the same, the learner opening from the front (as flanker walks in)",
        {"modifier": 2, "foe_modifier": 0, "opening_modifier": 0, "foe_opening": "charge"},
    ),
    (
        "against flanker, the best fixed race: both from the flank, flanker opening from "
        "the front, the learner from the flank",
        {"modifier": 2, "foe_modifier": 2, "foe_opening_modifier": 0},
    ),
    ("a mirror: both always from the flank", {"modifier": 2, "foe_modifier": 2}),
    ("a mirror: both always from the front", {"modifier": 0, "foe_modifier": 0}),
    (
        "unreachable without provoking: the learner always from the rear (+4), "
        "the foe from the front",
        {"modifier": 4, "foe_modifier": 0, "foe_opening": "charge"},
    ),
)
"""The races of ``python -m facing_env ceiling``: what each stands for, and its keywords."""


_BEST: tuple[tuple[str, tuple[tuple[int, int], ...], dict[str, int | str]], ...] = (
    (
        "against flanker's exchanges: each turn the best of +2 for +2 and 0 for 0, "
        "flanker opening from the front",
        ((2, 2), (0, 0)),
        {"foe_opening_modifier": 0},
    ),
    (
        "against aggressive, each turn the best of +2 for 0 and 0 for 0",
        ((2, 0), (0, 0)),
        {"foe_opening": "charge"},
    ),
)
"""The adaptive races of ``python -m facing_env ceiling`` (:func:`best_race`)."""


PROG = "python -m facing_env ceiling"
"""The command's name in its messages."""


def main(argv: Sequence[str] | None = None) -> list[tuple[str, RaceResult | BestRace]]:
    """``python -m facing_env ceiling``: the race table of a one-on-one scenario."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        formatter_class=cli.HelpFormatter,
        description=(
            "Exact win chances of a one-on-one scenario's damage race for fixed facing "
            "modifiers. A race fixes the modifiers; a policy can change them over the fight, "
            "so these are not bounds on what a policy can win."
        ),
    )
    parser.add_argument("--scenario", default="duel", help="a one-on-one scenario (default duel)")
    parser.add_argument(
        "--rounds", type=int, default=None, help="round limit (default: the scenario's)"
    )
    args = parser.parse_args(argv)
    from facing_env.scenario import load_scenario

    try:
        loaded = load_scenario(args.scenario)
        first, second = duel_fighters(args.scenario)
    except (OSError, ValueError) as exc:
        cli.fail(PROG, str(exc))
    rounds = args.rounds if args.rounds is not None else loaded.max_rounds
    if not 1 <= rounds <= MAX_ROUNDS:
        cli.fail(PROG, f"--rounds must be from 1 to {MAX_ROUNDS}, got {rounds}")
    work = (first.hp + 1) * (second.hp + 1) * rounds
    if work > MAX_WORK:
        cli.fail(
            PROG,
            f"a race of {first.hp} against {second.hp} hit points over {rounds} rounds is "
            f"{work:,} states to sweep, more than {MAX_WORK:,}: fewer hit points or --rounds",
        )
    print(f"{args.scenario}: {first}\n  against {second}; {rounds} rounds; draws count as not won")
    print(f"{'won':>6} {'first':>6} {'second':>6} {'drawn':>6}  race")
    rows: list[tuple[str, RaceResult | BestRace]] = []
    for text, keywords in _TABLE:
        result = race(first, second, rounds=rounds, **keywords)  # type: ignore[arg-type]
        rows.append((text, result))
        print(
            f"{result.won:6.3f} {result.won_first:6.3f} {result.won_second:6.3f} "
            f"{result.drawn:6.3f}  {text}"
        )
    for text, exchanges, foe in _BEST:
        best = best_race(first, second, exchanges, rounds=rounds, **foe)  # type: ignore[arg-type]
        rows.append((text, best))
        print(f"{best.won:6.3f} {best.won_first:6.3f} {best.won_second:6.3f} {'-':>6}  {text}")
    print(
        "These are races with fixed modifiers, not bounds on a policy: play that changes the "
        "modifiers over the fight (the expert agent) wins more (docs/training.md)."
    )
    return rows


if __name__ == "__main__":
    cli.run_main(main)
