"""Ray RLlib adapter (new API stack: RLModule, ConnectorV2, EnvRunner); needs the ``rllib`` extra.

:class:`FacingRLlibEnv` is RLlib's ``PettingZooEnv`` around :class:`MaskedObservations`, an
AEC wrapper that renames the observation for RLlib's action-masking module
(``{"observations": Box(float32), "action_mask": Box(0, 1, float32)}``) and turns illegal
actions into END_TURN with a penalty (or raises). Only the acting creature observes; rewards
earned between its turns reach it with its next observation; a creature that dies gets a
final observation, its last reward and ``terminated`` (the PettingZoo dead step), and
``__all__`` is set when the battle is over. Policies: one per team (``red_0`` -> ``red``,
:func:`team_policy`) or one :data:`SHARED` policy for self-play (:func:`shared_policy`).
:class:`ModuleAgent` puts a trained module behind the agent protocol of
:mod:`facing_env.evaluation.match`. This is the only module that imports ray.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import BaseWrapper
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModule, RLModuleSpec
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

from facing_env.actions import END_TURN_INDEX
from facing_env.env import raw_env
from facing_env.errors import IllegalActionError
from facing_env.rules import engine
from facing_env.scenario import DEFAULT_SCENARIO, load_scenario

OBS_KEY = "observations"
"""Key of the observation vector, as ``ActionMaskingTorchRLModule`` expects it."""
MASK_KEY = "action_mask"
"""Key of the action mask (float32 0/1), as ``ActionMaskingTorchRLModule`` expects it."""
SHARED = "shared"
"""Module id of the one policy every creature shares (self-play)."""
ADAPTER_KEYS = ("illegal_action", "illegal_penalty")
"""``env_config`` keys the adapter reads; all others go to :class:`facing_env.env.raw_env`."""


class MaskedObservations(BaseWrapper):
    """AEC wrapper: RLlib's observation keys, a float mask, and a policy for illegal actions.

    ``illegal_action="end_turn"`` (default) plays END_TURN instead and adds
    ``illegal_penalty`` to the offender's next reward (RLlib's env checker sends random
    actions); ``"raise"`` raises :class:`~facing_env.errors.IllegalActionError`.
    """

    def __init__(
        self, env: AECEnv, illegal_action: str = "end_turn", illegal_penalty: float = -0.1
    ) -> None:
        if illegal_action not in ("end_turn", "raise"):
            raise ValueError(
                f"illegal_action must be 'end_turn' or 'raise', not {illegal_action!r}"
            )
        super().__init__(env)
        self.illegal_action = illegal_action
        self.illegal_penalty = illegal_penalty
        self.illegal_actions = 0
        self._penalties: dict[str, float] = {}
        inner = env.observation_space(env.possible_agents[0])
        self._space = spaces.Dict(
            {
                OBS_KEY: inner["observation"],
                MASK_KEY: spaces.Box(0.0, 1.0, inner["action_mask"].shape, np.float32),
            }
        )

    def observation_space(self, agent: str) -> spaces.Dict:
        """``{"observations": Box, "action_mask": Box(0, 1, float32)}`` for every agent."""
        return self._space

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The agent's observation under RLlib's keys."""
        obs = self.env.observe(agent)
        return {OBS_KEY: obs["observation"], MASK_KEY: obs["action_mask"].astype(np.float32)}

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Reset the battle and forget pending penalties."""
        self._penalties = {}
        self.env.reset(seed=seed, options=options)

    def step(self, action: int | None) -> None:
        """Step, replacing an illegal action as configured."""
        agent = self.agent_selection
        live = not (self.terminations[agent] or self.truncations[agent])
        if live and action is not None:
            mask = self.env.observe(agent)["action_mask"]
            if not (0 <= int(action) < len(mask) and mask[int(action)]):
                if self.illegal_action == "raise":
                    raise IllegalActionError(f"{agent}: action {action} is not allowed")
                self.illegal_actions += 1
                self._penalties[agent] = self._penalties.get(agent, 0.0) + self.illegal_penalty
                action = END_TURN_INDEX
        self.env.step(action)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """PettingZoo's ``last()`` plus any illegal-action penalty still owed to the agent."""
        obs, reward, terminated, truncated, info = super().last(observe)
        penalty = self._penalties.pop(self.agent_selection, 0.0)
        return obs, float(reward) + penalty, terminated, truncated, info


class FacingRLlibEnv(PettingZooEnv):
    """A facing_env battle as an RLlib ``MultiAgentEnv`` (via ``PettingZooEnv``).

    ``config`` (RLlib's ``env_config``) holds :class:`~facing_env.env.raw_env` keywords
    (``scenario``, ``max_rounds``, ``dice``, ``window``) and :data:`ADAPTER_KEYS`.
    Changes to the base wrapper: spaces for every *possible* agent (procedural battles
    vary their creatures), ``__all__`` also when the last creatures end mixed (some
    terminated, some truncated), and ``render()`` without arguments.
    """

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        config = dict(config or {})
        adapter = {k: config.pop(k) for k in ADAPTER_KEYS if k in config}
        config.setdefault("scenario", DEFAULT_SCENARIO)
        config.setdefault("engine", "compiled")  # training needs the kernels' speed
        super().__init__(MaskedObservations(raw_env(**config), **adapter))
        self.possible_agents = list(self.env.possible_agents)
        self.agents = list(self.possible_agents)
        self._agent_ids = set(self.possible_agents)
        self.observation_spaces = {a: self.env.observation_space(a) for a in self.agents}
        self.action_spaces = {a: self.env.action_space(a) for a in self.agents}
        self.observation_space = spaces.Dict(self.observation_spaces)
        self.action_space = spaces.Dict(self.action_spaces)

    def step(self, action: dict[str, int]) -> tuple[dict, dict, dict, dict, dict]:
        """One action of the acting creature; then dead steps until someone must act."""
        obs, rewards, terminateds, truncateds, infos = super().step(action)
        if not self.env.agents and not (terminateds["__all__"] or truncateds["__all__"]):
            terminateds["__all__"] = True  # mixed ending: RLlib counts it as terminated
        return obs, rewards, terminateds, truncateds, infos

    @property
    def battle_over(self) -> bool:
        """Whether one team is left (not a timeout)."""
        return engine.is_over(self.env.unwrapped.battle)

    def render(self) -> Any:
        """What the battle renders (``render_mode`` in the config, e.g. ``"ansi"``)."""
        return self.env.render()


def team_policy(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    """Policy mapping: a creature's team (``red_0`` -> ``red``)."""
    return agent_id.rsplit("_", 1)[0]


def shared_policy(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    """Policy mapping: every creature uses :data:`SHARED`."""
    return SHARED


def policy_ids(scenario: str, policies: str) -> list[str]:
    """Module ids: the scenario's teams (``policies="team"``) or ``["shared"]``."""
    if policies == "shared":
        return [SHARED]
    if policies == "team":
        return list(load_scenario(scenario).teams)
    raise ValueError(f"policies must be 'shared' or 'team', not {policies!r}")


def module_spec(ids: Iterable[str], hiddens: Sequence[int] = (256, 256)) -> MultiRLModuleSpec:
    """One action-masking PPO module per id (separate policy and value networks)."""
    config = {
        "fcnet_hiddens": list(hiddens),
        "fcnet_activation": "tanh",
        "head_fcnet_hiddens": [],
        "vf_share_layers": False,
    }
    return MultiRLModuleSpec(
        rl_module_specs={
            i: RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config=config)
            for i in ids
        }
    )


class ModuleAgent:
    """A trained RLlib module behind the agent protocol (``act(observation, mask, rng)``)."""

    def __init__(self, module: RLModule, deterministic: bool = True) -> None:
        self.module = module
        self.deterministic = deterministic

    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        """The most likely masked action (or one sampled with ``rng``)."""
        batch = {
            Columns.OBS: {
                OBS_KEY: torch.as_tensor(observation, dtype=torch.float32)[None],
                MASK_KEY: torch.as_tensor(action_mask, dtype=torch.float32)[None],
            }
        }
        with torch.no_grad():
            out = self.module.forward_inference(batch)
        logits = out[Columns.ACTION_DIST_INPUTS][0].double().numpy()
        logits[np.asarray(action_mask) == 0] = -np.inf
        if self.deterministic:
            return int(np.argmax(logits))
        probs = np.exp(logits - logits.max())
        return int(rng.choice(len(probs), p=probs / probs.sum()))


def load_module(path: str | Path, module_id: str | None = None) -> RLModule:
    """An RLModule from an algorithm checkpoint (``module_id`` picks one when it holds
    several) or from a single module's checkpoint folder. RLlib's loader unpickles the
    checkpoint: load only checkpoints you trust (``model:PATH`` files need no such trust).
    A relative path is taken from the current folder."""
    path = Path(path).expanduser().resolve()  # RLlib reads a relative path as a URI
    if not path.is_dir():
        raise ValueError(f"no RLlib checkpoint folder at {path}")
    modules = path / "learner_group" / "learner" / "rl_module"
    if not modules.is_dir():
        return RLModule.from_checkpoint(path)
    ids = sorted(p.name for p in modules.iterdir() if p.is_dir())
    if module_id is None:
        if len(ids) != 1:
            raise ValueError(f"{path} holds modules {ids}: name one (rllib:PATH#ID)")
        module_id = ids[0]
    if module_id not in ids:
        raise ValueError(f"{path} has no module {module_id!r}; it holds {ids}")
    return RLModule.from_checkpoint(modules / module_id)


def load_agent(spec: str) -> ModuleAgent:
    """A :class:`ModuleAgent` from ``PATH`` or ``PATH#MODULE_ID`` (what ``rllib:`` names)."""
    path, _, module_id = spec.partition("#")
    if not path:
        raise ValueError("rllib: needs a checkpoint path, e.g. rllib:runs/x/checkpoint#shared")
    return ModuleAgent(load_module(path, module_id or None))
