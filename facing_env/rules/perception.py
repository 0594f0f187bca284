"""Perception under facing: Spot penalties, readied triggers, concealment from behind,
and what a creature perceives of its foes.

UA-PER-01, UA-PER-02, UA-FEAT-CA, SR-11.

What a creature perceives (:func:`perceives`) follows the battle's ``perception``
(:class:`~facing_env.types.Perception`; issue 36). ``full``: every creature. ``facing``
(UA-PER-01 read without the dice): every creature but a foe standing wholly in its rear
area (or beyond), unless the creature has no facing (faceless, Tiny or smaller, or a rule
set without facing) or all-around vision, or it heard that foe: an attack roll between the
two, either way (attacks of opportunity and readied attacks included), since the end of
its own last turn (:func:`hear`, :func:`forget`). ``spot`` (UA-PER-01 with the dice): a
foe in its front is perceived; elsewhere, when the creature's opposed Spot check against it
(:func:`spot_checks`, rolled at the battle's start and when the creature's turn begins)
plus the Spot penalty of where the foe stands now (-5 flank, -10 rear; Combat Awareness
0 / -5; none in other rule sets) is 0 or more, or it heard it.

What a creature does not perceive leaks nowhere (issue 36): its legal actions are listed as
if such a foe were not there (:func:`unseen`: steps, 5-foot steps and charge lanes pass
through its squares), and a step or charge that meets it stops there (:func:`bumped`: the
mover stays where it was, the rest of its movement is lost, and the two hear each other).
:func:`look` keeps where each creature last perceived each foe (``Battle.last_seen``),
after the start and after every action.
"""

from __future__ import annotations

from facing_env.rules._common import Target, cell_area, target_cells
from facing_env.rules.areas import visible_area
from facing_env.rules.battle import Battle, Creature
from facing_env.rules.dice import Dice
from facing_env.tables import CONCEALMENT_MISS_CHANCE, SPOT_PENALTY, SPOT_PENALTY_COMBAT_AWARENESS
from facing_env.types import Area, Perception, Pos


def spot_modifier(battle: Battle, observer: str | Creature, target: Target) -> int:
    """Spot check modifier from facing: -5 in or beyond the flank, -10 in or beyond the rear.

    UA-PER-01 (ua35 only); Combat Awareness gives 0 / -5 (UA-FEAT-CA); faceless creatures,
    Tiny or smaller ones and those with all-around vision take no penalty. A creature is
    seen by its least exposed square.
    """
    c = battle.creature(observer)
    if not battle.rules.facing_penalties or c.all_around_vision:
        return 0
    area = Area(visible_area(battle, c, target))
    table = SPOT_PENALTY_COMBAT_AWARENESS if c.has_feat("Combat Awareness") else SPOT_PENALTY
    return table[area]


def can_ready_against(
    battle: Battle, creature: str | Creature, trigger: Target, *, sound: bool = False
) -> bool:
    """Whether a readied action can respond to a trigger there (UA-PER-02).

    A trigger that must be seen cannot lie in (or beyond) the rear area; a sound-based
    trigger can. Creatures without facing and all-around vision see everywhere.
    """
    c = battle.creature(creature)
    if sound or not battle.rules.facing_penalties or c.all_around_vision:
        return True
    return visible_area(battle, c, trigger) != Area.REAR.value


def concealment_miss_chance(battle: Battle, attacker: str | Creature, defender: Target) -> int:
    """Miss chance of ``attacker``'s attacks on a defender standing behind it (SR-11).

    Under ``side_rear`` "being behind a creature grants concealment from that creature":
    20% (the SRD concealment value) when every square of the defender is in the attacker's
    rear area. Creatures with all-around vision or no facing are never fooled.
    """
    a = battle.creature(attacker)
    if not battle.rules.concealment_from_behind or a.all_around_vision:
        return 0
    found = [cell_area(battle, a, x) for x in target_cells(battle, defender)]
    if found and all(f is not None and f.area is Area.REAR for f in found):
        return CONCEALMENT_MISS_CHANCE
    return 0


def perceives(battle: Battle, observer: str | Creature, other: str | Creature) -> bool:
    """Whether ``observer`` perceives ``other`` under the battle's ``perception`` (the
    module docstring): itself and its allies always; a foe it heard; under ``facing`` a
    foe unless it stands in (or beyond) the observer's rear area; under ``spot`` a foe in
    its front, or elsewhere when its last opposed check against that foe
    (:func:`spot_checks`) plus the UA-PER-01 penalty of where the foe stands now is 0 or
    more."""
    if battle.perception is Perception.FULL:
        return True  # before any lookup: the readable engine asks this of every target
    o, c = battle.creature(observer), battle.creature(other)
    if o.team == c.team:
        return True
    if c.id in battle.heard.get(o.id, ()):
        return True
    if o.all_around_vision or battle.table(o) is None:
        return True  # UA-PER-01's exemptions: all-around vision, no facing
    area = visible_area(battle, o, c)
    if battle.perception is Perception.FACING:
        return area != Area.REAR.value
    if area in (Area.FRONT.value, Area.NONE.value):
        return True  # in plain view
    margin = battle.spot_rolls.get(o.id, {}).get(c.id, 0.0)
    return margin + spot_modifier(battle, o, c) >= 0


def spot_checks(battle: Battle, observer: str | Creature, dice: Dice) -> None:
    """Under ``spot``: ``observer`` makes an opposed check against each living foe in spec
    order, d20 + its Spot against d20 + the foe's Hide (two draws each), and keeps the
    margin (``Battle.spot_rolls``) until its next check; :func:`perceives` adds the
    UA-PER-01 penalty of where the foe stands when it asks."""
    o = battle.creature(observer)
    rolls = battle.spot_rolls.get(o.id, {})
    for c in battle.creatures.values():
        if c.hp > 0 and c.team != o.team:
            mine = dice.d20() + o.spot
            rolls[c.id] = mine - (dice.d20() + c.hide)
    if rolls:
        battle.spot_rolls[o.id] = rolls


def roll_spot(battle: Battle, dice: Dice, *, start: bool) -> bool:
    """The checks of a ``spot`` battle: at its start every living creature's, in spec order
    (``start``); after an action, the acting creature's when its turn has just begun.
    Whether any were rolled (the legal actions are then listed again)."""
    if battle.perception is not Perception.SPOT or battle.turn is None:
        return False
    if len({c.team for c in battle.creatures.values() if c.hp > 0}) <= 1:
        return False  # the battle is over
    if start:
        for c in battle.creatures.values():
            if c.hp > 0:
                spot_checks(battle, c, dice)
        return True
    if battle.turn.actions_taken == 0 and battle.creatures[battle.turn.actor].hp > 0:
        spot_checks(battle, battle.turn.actor, dice)
        return True
    return False


def hear(battle: Battle, attacker: str | Creature, defender: str | Creature) -> None:
    """An attack roll between two creatures: each hears the other (module docstring)."""
    if battle.perception is Perception.FULL:
        return
    a, d = battle.creature(attacker), battle.creature(defender)
    battle.heard.setdefault(a.id, set()).add(d.id)
    battle.heard.setdefault(d.id, set()).add(a.id)


def forget(battle: Battle, creature: str | Creature) -> None:
    """The end of a creature's turn: what it heard since its last turn is forgotten."""
    if battle.heard:
        battle.heard.pop(battle.creature(creature).id, None)


def unseen(battle: Battle, observer: str | Creature) -> frozenset[str]:
    """The living foes ``observer`` does not perceive (empty under ``full``): what its
    legal actions and its observation treat as absent."""
    if battle.perception is Perception.FULL:
        return frozenset()
    o = battle.creature(observer)
    return frozenset(
        c.id
        for c in battle.creatures.values()
        if c.hp > 0 and c.team != o.team and not perceives(battle, o, c)
    )


def bumped(
    battle: Battle, mover: Creature, cells: tuple[Pos, ...], hidden: frozenset[str]
) -> Creature | None:
    """The first creature (spec order) among ``hidden`` (what :func:`unseen` gave when the
    mover's action began) standing in ``cells``, the space a step or charge of ``mover``
    enters; None when nothing unseen is there."""
    if not hidden:
        return None
    wanted = set(cells)
    for c in battle.creatures.values():
        if c.id in hidden and c.hp > 0 and not wanted.isdisjoint(c.shape.cells(c.pos)):
            return c
    return None


def look(battle: Battle) -> None:
    """Each living creature notes where it perceives each living foe now
    (``Battle.last_seen``); a foe it perceives dead is dropped (one it does not perceive
    keeps its last-known place, dead or alive: its death is not seen). Nothing under
    ``full``."""
    if battle.perception is Perception.FULL:
        return
    for o in battle.creatures.values():
        if o.hp <= 0:
            continue
        seen = battle.last_seen.get(o.id, {})
        for c in battle.creatures.values():
            if c.team == o.team or not perceives(battle, o, c):
                continue  # a foe it does not perceive: dead or alive, as it last saw it
            if c.hp <= 0:
                seen.pop(c.id, None)
            else:
                seen[c.id] = c.pos
        if seen:
            battle.last_seen[o.id] = seen
        else:
            battle.last_seen.pop(o.id, None)
