"""What the best play can win in a one-on-one fight: exact ceilings for the training targets.

``python -m facing_env.ceiling [--scenario duel]`` answers "can any policy win X against
agent Y here?" with two exact tools, both on the object engine and the scenario's own
creatures:

- :func:`turn_attacks` searches every sequence of walking, 5-foot steps and turns the acting
  creature can take this turn (up to ``max_actions`` of them) and lists every attack it can
  reach: the attack's facing modifier (UA-ATK-01..02 plus UA-OPP-01..02) and the attacks of
  opportunity it provoked on the way (SRD-AOO-02, SRD-AOO-04). With the foe adjacent and
  facing it, no attack better than +2 is reachable without provoking: a 5-foot step moves
  one area round the foe (front to flank, flank to rear; UA-MOVE-05, UA-MOVE-06) and the foe
  turns to face its attacker every turn (UA-MOVE-02).
- :func:`race` is the exact probability (forward dynamic programming over both creatures'
  hit points, no sampling) that a fight in which every attack of each side carries a fixed
  facing modifier ends in the first creature's victory, with the opening as the engine plays
  it: the first mover strikes a flat-footed foe (SRD-FF-01), by a charge (+2 to hit, -2 AC
  until its next turn) or a plain attack; a battle still going after ``rounds`` rounds is a
  draw (not won).

Together they bound a duel: against ``aggressive``, which never steps and always turns to
face its foe, the learner's attacks carry at most +2 and its own 0, so
``race(..., modifier=2, foe_modifier=0)`` is the ceiling of any policy (docs/training.md).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from facing_env import engine
from facing_env.battle import Battle, Creature
from facing_env.dice import Dice, parse_dice, roll_hits
from facing_env.rules.attacks import facing_modifier
from facing_env.tables import CHARGE_AC_PENALTY, CHARGE_ATTACK_BONUS

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
    damage, exactly as :func:`facing_env.engine.resolve_attack` rolls it (a natural 20 hits
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
    return RaceResult(won_first=won_a, won_second=won_b, lost_first=lost_a, lost_second=lost_b)


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
    steady_a = damage_distribution(
        a.attack_bonus + mod_a, b.ac, a.damage, a.threat_range, a.crit_multiplier
    )
    steady_b = damage_distribution(
        b.attack_bonus + mod_b, a.ac, b.damage, b.threat_range, b.crit_multiplier
    )
    open_a = damage_distribution(
        a.attack_bonus + open_mod + bonus,
        b.flat_footed_ac,
        a.damage,
        a.threat_range,
        a.crit_multiplier,
    )
    reply_b = damage_distribution(
        b.attack_bonus + mod_b,
        a.ac + (CHARGE_AC_PENALTY if charge else 0),
        b.damage,
        b.threat_range,
        b.crit_multiplier,
    )
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
class AttackOption:
    """One attack the acting creature can reach this turn: against whom, ``kind``
    (``attack`` or ``charge``), the facing modifier of the attack (for a charge: of the
    attack at its end) and the attacks of opportunity it drew getting there."""

    target: str
    kind: str
    facing_modifier: int
    provoked: int


def turn_attacks(battle: Battle, *, max_actions: int = 4) -> set[AttackOption]:
    """Every attack the acting creature can reach this turn through at most
    ``max_actions`` moves, 5-foot steps and turns (depth-first on copies of ``battle``; a
    state reached twice is searched once). ``battle`` is not changed; the attacks of
    opportunity drawn on the way are rolled from a fixed stream, and a way on which the
    actor drops is left out. A state is searched again when reached with fewer attacks of
    opportunity drawn or fewer actions spent than before, so neither the order of the
    search nor its depth limit hides a cheaper way."""
    if battle.turn is None:
        raise ValueError("turn_attacks needs a battle in progress (engine.start)")
    me = battle.turn.actor
    found: set[AttackOption] = set()
    shallowest: dict[tuple[tuple, int], int] = {}  # (state, provoked) -> fewest actions
    stack: list[tuple[Battle, int, int]] = [(battle, 0, 0)]
    while stack:
        b, provoked, depth = stack.pop()
        key = (engine.state_key(b), provoked)
        if any(shallowest.get((key[0], p), max_actions + 1) <= depth for p in range(provoked + 1)):
            continue
        shallowest[key] = depth
        for action in engine.legal_actions(b):
            if action.kind == engine.ATTACK:
                target = str(action.arg)
                found.add(AttackOption(target, "attack", facing_modifier(b, me, target), provoked))
            elif action.kind == engine.CHARGE:
                after = b.copy()
                events = engine.apply(after, action, Dice(0))
                drawn = sum(1 for e in events if e.kind == "attack" and e.target == me)
                charged = next(e for e in events if e.kind == "attack" and e.actor == me)
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
                drawn = sum(1 for e in events if e.kind == "attack" and e.target == me)
                stack.append((after, provoked + drawn, depth + 1))
    return found


def best_free_modifier(options: set[AttackOption]) -> int | None:
    """The best facing modifier among the plain attacks that provoke nothing (None if
    there is none)."""
    free = [o.facing_modifier for o in options if o.kind == "attack" and o.provoked == 0]
    return max(free) if free else None


def duel_fighters(scenario: str) -> tuple[Fighter, Fighter]:
    """The two creatures of a one-on-one scenario, in file order."""
    from facing_env.scenario import load_scenario

    battle = load_scenario(scenario).build(np.random.default_rng(0))
    creatures = list(battle.creatures.values())
    if len(creatures) != 2 or creatures[0].team == creatures[1].team:
        raise ValueError(
            f"scenario {scenario!r}: a race needs exactly two creatures on two teams, "
            f"it has {len(creatures)}"
        )
    return Fighter.of(creatures[0]), Fighter.of(creatures[1])


_TABLE: tuple[tuple[str, dict[str, int | str]], ...] = (
    (
        "against aggressive (the ceiling): the learner always from the flank (+2), "
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
        "against flanker (the ceiling): both from the flank, flanker opening from the "
        "front, the learner from the flank",
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
"""The races of ``python -m facing_env.ceiling``: what each stands for, and its keywords."""


def main(argv: Sequence[str] | None = None) -> list[tuple[str, RaceResult]]:
    """``python -m facing_env.ceiling``: the race table of a one-on-one scenario."""
    parser = argparse.ArgumentParser(
        prog="python -m facing_env.ceiling",
        description=(
            "Exact win chances of a one-on-one scenario's damage race for fixed facing "
            "modifiers (the ceilings of docs/training.md)."
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
        parser.error(str(exc))
    rounds = args.rounds if args.rounds is not None else loaded.max_rounds
    if rounds < 1:
        parser.error(f"--rounds must be at least 1, got {rounds}")
    print(f"{args.scenario}: {first}\n  against {second}; {rounds} rounds; draws count as not won")
    print(f"{'won':>6} {'first':>6} {'second':>6} {'drawn':>6}  race")
    rows = []
    for text, keywords in _TABLE:
        result = race(first, second, rounds=rounds, **keywords)  # type: ignore[arg-type]
        rows.append((text, result))
        print(
            f"{result.won:6.3f} {result.won_first:6.3f} {result.won_second:6.3f} "
            f"{result.drawn:6.3f}  {text}"
        )
    return rows


if __name__ == "__main__":
    main()
