"""Scripted and learned agents for facing_env (DESIGN.md section 8).

Every agent follows one protocol, :class:`Agent`: ``act(observation, action_mask, rng)``
gets the flat observation vector and the int8 mask of one PettingZoo step and returns an
action index the mask allows. Agents see nothing else; :class:`ObservationView` names the
parts of the vector (the layout is inferred from the two lengths).

This is a subpackage, ``facing_env.agents``, rather than a top-level ``agents`` package:
that name is generic enough to collide with other installed distributions.

>>> from facing_env.agents import make_agent
>>> agent = make_agent("flanker")  # "random", "aggressive", "flanker", "defensive", "model:PATH"

The observation carries no grid-kind flag, no speed and no reach, so the agents infer the
grid (square or hex) from the mask, facings and distances, read their reach off the
threatened-by-allies channel and assume a speed of 30 feet when planning a move.
"""

from __future__ import annotations

from facing_env.agents.aggressive import AggressiveAgent
from facing_env.agents.base import Agent
from facing_env.agents.defensive import DefensiveAgent
from facing_env.agents.flanker import FlankerAgent
from facing_env.agents.random_agent import RandomAgent
from facing_env.agents.view import ObservationView

AGENT_NAMES: tuple[str, ...] = ("random", "aggressive", "flanker", "defensive")
"""Names :func:`make_agent` accepts, besides ``model:PATH`` for a learned policy."""

_SCRIPTED = {
    "random": RandomAgent,
    "aggressive": AggressiveAgent,
    "flanker": FlankerAgent,
    "defensive": DefensiveAgent,
}


def make_agent(name: str) -> Agent:
    """An agent by name: one of :data:`AGENT_NAMES`, or ``model:PATH`` for a saved
    sb3-contrib MaskablePPO policy (needs the ``train`` extra)."""
    if name.startswith("model:"):
        from facing_env.agents.learned import LearnedAgent

        path = name.removeprefix("model:")
        if not path:
            raise ValueError("model: needs a path, e.g. model:runs/policy.zip")
        return LearnedAgent(path)
    factory = _SCRIPTED.get(name)
    if factory is None:
        valid = ", ".join([*AGENT_NAMES, "model:PATH"])
        raise ValueError(f"unknown agent {name!r}; expected one of {valid}")
    return factory()


__all__ = [
    "AGENT_NAMES",
    "Agent",
    "AggressiveAgent",
    "DefensiveAgent",
    "FlankerAgent",
    "ObservationView",
    "RandomAgent",
    "make_agent",
]
