"""The turn engine: initiative, the d20 action economy, attacks and their outcomes.

The conductor of the readable engine: :func:`start` and :func:`state_key` live here, and
the engine's vocabulary is importable by one name (``engine.apply``, ``engine.why_illegal``,
``engine.actor``...) from the modules that hold it: :mod:`facing_env.rules.turns` (action
kinds, the turn state, whose turn it is), :mod:`facing_env.rules.legality` (what may be
done now) and :mod:`facing_env.rules.resolve` (doing it).

``why_illegal(battle, action)`` is the single source of truth: ``legal_actions(battle)``
lists every candidate for which it finds nothing wrong, and ``apply`` raises
:class:`IllegalActionError` with its reason for anything else. This is the readable
reference; the env's masks come from the batched engine's scan (:mod:`facing_env.fast.legality`),
which the tests compare with it. All rules come from :mod:`facing_env.rules`; the
engine only sequences them (docs/design.md, turns and actions):

- a turn is a move action plus a standard action, or a full-round action (a full attack
  with iterative attacks, a double move, a run at x4 / x3 in heavy armour that leaves the
  runner flat-footed until its next turn, EP-RUN-01, IC-13);
- one 5-foot step when there is no other movement (EP-5FT-01, UA-MOVE-05, UA-MOVE-06);
- facing: free while moving and at the end of a move (UA-MOVE-01), once as a free action
  when not moving or only stepping, else as a move action (UA-MOVE-02); under ``side_rear``
  once as a reaction at any time in the turn (SR-04, IC-20) and automatically toward the
  target of every attack (SR-03);
- attacks of opportunity resolve automatically for every enemy that may take one when the
  mover leaves a threatened square (``rules.provokers``; one per enemy per turn, one per
  round per enemy or more with Combat Reflexes, SRD-AOO-05, UA-FEAT-CR);
- Cleave / Great Cleave: after dropping a foe, one extra attack (UA-FEAT-CLV);
- charge (EP-CHG-01, EP-CHG-02; :mod:`facing_env.rules.maneuvers`): a full-round action
  against a chosen enemy, straight to the first of ``rules.charge_destinations``, one
  attack at +2, -2 AC until the charger's next turn, no attack of opportunity from the
  target; withdraw (EP-WDR-01): a full-round action naming a primary target that threatens
  the mover, then up to ``movement_allowance(..., "withdraw")`` squares, each further from
  that target, which makes no attack of opportunity; no 5-foot step in that turn;
- ready (UA-PER-02): a standard action that readies one melee attack against the first
  enemy whose step ends within reach and outside the readier's rear area; it interrupts
  that movement and lapses at the readier's next turn;
- a player character in a full attack may trade its worst attack left for a 5-foot step
  once its free 5-foot step is used (EP-5FT-02);
- every creature is flat-footed until its first turn (SRD-FF-01); initiative is d20 + Dex
  modifier, ties by Dex, then the seeded generator (SRD-INIT-01).

Steps always end in a free space: moving through an ally's space (EP-WALK-01) would leave
two creatures in one space between atomic actions, so the engine does not offer it.
"""

from __future__ import annotations

from facing_env.events import Event
from facing_env.rules.battle import CHANGING, Battle
from facing_env.rules.dice import Dice
from facing_env.rules.legality import (
    legal_actions,
    reference_legal_actions,
    slot_reaches,
    why_illegal,
)
from facing_env.rules.perception import look, roll_spot
from facing_env.rules.resolve import (
    apply,
    begin_turn,
    resolve_attack,
)
from facing_env.rules.turns import (
    ACTION_KINDS,
    ATTACK,
    BUMP,
    CHARGE,
    END_TURN,
    FIVE_FOOT_STEP,
    ITERATIVE_STEP,
    MAX_ACTIONS_PER_TURN,
    MAX_ITERATIVES,
    MOVE,
    READY,
    RUN,
    STEP_KEEP_FACING,
    TRIGGER,
    TURN,
    TURNS_WHILE_MOVING,
    WITHDRAW,
    Action,
    AttackSlot,
    Initiative,
    TurnState,
    actor,
    attack_sequence,
    is_over,
    living_teams,
    movement_capacity,
    toward_creature,
    toward_direction,
    winner,
)

__all__ = [
    "ACTION_KINDS",
    "ATTACK",
    "BUMP",
    "CHARGE",
    "END_TURN",
    "FIVE_FOOT_STEP",
    "ITERATIVE_STEP",
    "MAX_ACTIONS_PER_TURN",
    "MAX_ITERATIVES",
    "MOVE",
    "READY",
    "RUN",
    "STEP_KEEP_FACING",
    "TRIGGER",
    "TURN",
    "TURNS_WHILE_MOVING",
    "WITHDRAW",
    "Action",
    "AttackSlot",
    "Initiative",
    "TurnState",
    "actor",
    "apply",
    "attack_sequence",
    "begin_turn",
    "is_over",
    "legal_actions",
    "living_teams",
    "movement_capacity",
    "reference_legal_actions",
    "resolve_attack",
    "slot_reaches",
    "start",
    "state_key",
    "toward_creature",
    "toward_direction",
    "why_illegal",
    "winner",
]


def start(battle: Battle, dice: Dice, *, flat_footed_start: bool = True) -> list[Event]:
    """Roll initiative and begin the first turn (SRD-INIT-01, SRD-FF-01)."""
    keyed = []
    for c in battle.living():
        bonus = c.dex_modifier + (4 if c.has_feat("Improved Initiative") else 0)
        keyed.append((-(dice.d20() + bonus), -c.dex, dice.uniform(), c.id))
        if flat_footed_start:
            c.flat_footed = True
    order = [k[3] for k in sorted(keyed)]
    battle.initiative = Initiative(order, aoo_used={cid: 0 for cid in order})
    events = [Event("initiative", cid, round=1) for cid in order]
    if not is_over(battle):
        events += begin_turn(battle)
    roll_spot(battle, dice, start=True)  # perception="spot": everyone's first checks
    look(battle)  # where each creature first perceives each foe (issue 36)
    return events


def state_key(battle: Battle) -> tuple:
    """A fingerprint of everything legality depends on: every creature's changing fields
    (:data:`~facing_env.rules.battle.CHANGING`) and the acting creature's turn state (the
    tests use it to check that a refused action changes nothing)."""
    ts = battle.turn
    return (
        tuple(tuple(getattr(c, name) for name in CHANGING) for c in battle.creatures.values()),
        None
        if ts is None
        else (
            ts.actor,
            ts.move_available,
            ts.standard_available,
            ts.moving,
            ts.moved,
            ts.running,
            ts.movement_left,
            ts.diagonals,
            ts.five_foot_step_taken,
            ts.free_turn_used,
            ts.withdrawing,
            ts.traded_steps,
            ts.attacks_made,
            ts.full_attack,
            tuple(ts.remaining),
            ts.cleave,
            ts.declaring,
            ts.turned_after_step,
            ts.actions_taken >= MAX_ACTIONS_PER_TURN,
        ),
    )
