"""Scripted and learned agents for facing_env (docs/design.md, agents).

Every agent follows one protocol, :class:`Agent`: ``act(observation, action_mask, rng)``
gets the flat observation vector and the int8 mask of one PettingZoo step and returns an
action index the mask allows. Agents see nothing else; :class:`ObservationView` names the
parts of the vector (the layout is inferred from the two lengths).

This is a subpackage, ``facing_env.agents``, rather than a top-level ``agents`` package:
that name is generic enough to collide with other installed distributions.

>>> from facing_env.agents import make_agent
>>> agent = make_agent("flanker")  # "random", "aggressive", "flanker", "defensive", "expert",
>>> # "model:PATH"

``expert`` (:mod:`facing_env.agents.expert`) is a search agent: it plans with the engine
as its forward model, so it chooses from the battle (``act_battle``), which the game
loops of :mod:`facing_env.evaluation.match` and ``train.py`` give it (:func:`choose`).

``model:PATH`` plays a saved policy's most likely action; ``model:PATH@T`` samples it at
temperature ``T`` (``@1``: as trained).

``rllib:PATH`` or ``rllib:PATH#MODULE_ID`` loads a module of an RLlib checkpoint (the
``rllib`` extra; see :mod:`facing_env.train.rllib`).

The scripted agents also act on batches: ``make_agent(name).act_batch(observations,
masks, rng)`` or :func:`make_batch_agent` (a :class:`BatchAgent`,
:mod:`facing_env.agents.kernels.runner`) take ``(N, D)`` float32 observations and
``(N, A)`` int8 masks and return ``(N,)`` int64 actions, row ``i`` the action ``act``
gives for row ``i``. The logic of ``aggressive``, ``flanker`` and ``defensive`` is one
numba kernel each, in the module of its name (what they share:
:mod:`facing_env.agents.kernels`), which ``act`` runs on a batch of one. This module is the
catalogue of names: the kernels know no agent by name.

The agents read the grid kind and rule set from the turn scalars and speed and reach from
the creature table; a foe's speed is assumed to be 30 feet when judging its strike range.
"""

from __future__ import annotations

from facing_env.agents.aggressive import AggressiveAgent
from facing_env.agents.base import Agent, ScriptedAgent, choose, fork
from facing_env.agents.defensive import DefensiveAgent
from facing_env.agents.expert import ExpertAgent
from facing_env.agents.flanker import FlankerAgent
from facing_env.agents.kernels.runner import BatchAgent
from facing_env.agents.random_agent import RandomAgent
from facing_env.agents.view import ObservationView

AGENT_NAMES: tuple[str, ...] = ("random", "aggressive", "flanker", "defensive", "expert")
"""Names :func:`make_agent` accepts, besides ``model:PATH`` and ``rllib:PATH[#MODULE_ID]``."""

BATCH_AGENT_NAMES: tuple[str, ...] = ("random", "aggressive", "flanker", "defensive")
"""Names :func:`make_batch_agent` accepts (the scripted names of ``make_agent``)."""

_SCRIPTED = {
    "random": RandomAgent,
    "aggressive": AggressiveAgent,
    "flanker": FlankerAgent,
    "defensive": DefensiveAgent,
    "expert": ExpertAgent,
}
_BATCH = {name: _SCRIPTED[name] for name in BATCH_AGENT_NAMES}  # each has a ``batch``


def make_agent(name: str) -> Agent:
    """An agent by name: one of :data:`AGENT_NAMES`, ``model:PATH`` for a saved
    sb3-contrib MaskablePPO policy (needs the ``train`` extra), or ``rllib:PATH[#MODULE_ID]``
    for a module of an RLlib checkpoint (needs the ``rllib`` extra).

    ``model:PATH`` plays the policy's most likely action (as stable-baselines3 evaluates);
    ``model:PATH@T`` samples it at temperature ``T`` (probabilities ``p ** (1/T)``,
    renormalised): ``@1`` is the trained distribution, values between sharpen it."""
    if not isinstance(name, str):
        raise TypeError(f"an agent is named by a string, got {type(name).__name__} {name!r}")
    if name.startswith("model:"):
        from facing_env.agents.learned import LearnedAgent

        path, temperature = _model_spec(name.removeprefix("model:"))
        if not path:
            raise ValueError("model: needs a path, e.g. model:runs/policy.zip")
        return LearnedAgent(path, temperature=temperature)
    if name.startswith("rllib:"):
        from facing_env.train.rllib import load_agent

        return load_agent(name.removeprefix("rllib:"))
    factory = _SCRIPTED.get(name)
    if factory is None:
        valid = ", ".join([*AGENT_NAMES, "model:PATH[@T]", "rllib:PATH[#MODULE_ID]"])
        raise ValueError(f"unknown agent {name!r}; expected one of {valid}")
    return factory()


def make_batch_agent(name: str) -> BatchAgent:
    """The batch version of a scripted agent by name (:data:`BATCH_AGENT_NAMES`): its batch
    kernel with its parameters (the ``batch`` of its class)."""
    if name not in BATCH_AGENT_NAMES:
        valid = ", ".join(BATCH_AGENT_NAMES)
        raise ValueError(f"unknown batch agent {name!r}; expected one of {valid}")
    return _BATCH[name].batch


def _model_spec(spec: str) -> tuple[str, float]:
    """``PATH`` or ``PATH@TEMPERATURE`` -> (path, temperature); an existing file named
    with an ``@`` (with or without its ``.zip``) is taken whole. A model file followed by
    an ``@`` and anything but a number is refused (not loaded at temperature 0)."""
    from pathlib import Path

    head, at, tail = spec.rpartition("@")
    if not at or Path(spec).exists() or Path(spec + ".zip").exists():
        return spec, 0.0
    try:
        temperature = float(tail)
    except ValueError:
        if head and (Path(head).is_file() or Path(head + ".zip").is_file()):
            raise ValueError(
                f"model:{spec}: the temperature after '@' must be a number, got {tail!r}"
            ) from None
        return spec, 0.0
    if not temperature >= 0.0:
        raise ValueError(f"model:{spec}: the temperature after '@' must be >= 0, got {tail}")
    return head, temperature


__all__ = [
    "AGENT_NAMES",
    "BATCH_AGENT_NAMES",
    "Agent",
    "AggressiveAgent",
    "BatchAgent",
    "DefensiveAgent",
    "ExpertAgent",
    "FlankerAgent",
    "ObservationView",
    "RandomAgent",
    "ScriptedAgent",
    "choose",
    "fork",
    "make_agent",
    "make_batch_agent",
]
