"""The ``defensive`` agent: hold the line, keep enemies in front, strike what comes.

Its logic is the ``_defensive`` kernel of :mod:`facing_env.agents.batch`."""

from __future__ import annotations

from facing_env.agents.base import ScriptedAgent


class DefensiveAgent(ScriptedAgent):
    """Withdraws when flanked (two or more enemies threaten it; from the most dangerous,
    EP-WDR-01) and then walks out of every threat (the legal step to the least threatened
    free square, then the one furthest from the enemies); otherwise attacks whatever is in
    reach (best facing modifier, then the most wounded), turning to face it first;
    otherwise takes a 5-foot step that brings a foe into its reach without entering any
    foe's threat (reach), or that puts more walls in its flank or rear when it faces the
    nearest enemy, turns to face the nearest enemy and readies an attack against whoever
    comes (UA-PER-02), else turns to lower its exposure (``tactics.guard``). It never walks
    toward the enemy."""

    name = "defensive"
