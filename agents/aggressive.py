"""The ``aggressive`` agent: charge the closest enemy and hit it.

Its logic is the ``_aggressive`` kernel of :mod:`facing_env.agents.batch`."""

from __future__ import annotations

from facing_env.agents.base import ScriptedAgent

FAR = 1e6
"""The cost limit of its walks (squares): the whole window."""


class AggressiveAgent(ScriptedAgent):
    """Targets the closest enemy (ties: lowest hp fraction, then slot). Attacks it whenever
    ATTACK is legal (another enemy in reach if it is not), turning to face it first; else
    charges it when CHARGE is legal (the closest enemy it can charge if not: EP-CHG-01);
    else walks toward it with MOVE, ignoring attacks of opportunity (the first step of the
    shortest walk into its reach, or toward the reachable spot nearest to it); ends the
    turn when nothing helps."""

    name = "aggressive"
