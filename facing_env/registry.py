"""Registration of the built-in scenarios with PettingZoo's registry.

Each scenario file ``configs/<file>.yaml`` becomes ``facing_env/<Name>-v2``, the file name in
CamelCase (``side_rear_skirmish`` -> ``facing_env/SideRearSkirmish-v2``), for both the AEC
and the parallel API::

    import facing_env, pettingzoo
    env = pettingzoo.make("aec", "facing_env/Duel-v2")
    par = pettingzoo.make("parallel", "facing_env/Skirmish-v2", dice="expected")

PettingZoo before 1.27 has no registry: there the ids are not registered (nothing fails).
"""

from __future__ import annotations

import pettingzoo

from facing_env.scenario import scenario_names

ENV_NAMESPACE = "facing_env"
ENV_VERSION = 2


def env_id(scenario: str) -> str:
    """The registry id of a built-in scenario, e.g. ``facing_env/HexDuel-v2``."""
    camel = "".join(part.capitalize() for part in scenario.split("_"))
    return f"{ENV_NAMESPACE}/{camel}-v{ENV_VERSION}"


def registered_ids() -> dict[str, str]:
    """Registry id -> scenario name, for every built-in scenario."""
    return {env_id(name): name for name in scenario_names()}


def has_registry() -> bool:
    """Whether this PettingZoo has a registry (``pettingzoo.make``: 1.27 on; the package
    works with 1.24 on, where ``facing_env.env(...)`` is the way to make one)."""
    return hasattr(pettingzoo, "register") and hasattr(pettingzoo, "aec_registry")


def register_scenarios() -> None:
    """Register every built-in scenario (AEC and parallel) where PettingZoo has a registry;
    safe to call more than once."""
    if not has_registry():
        return
    for id_, name in registered_ids().items():
        if id_ in pettingzoo.aec_registry:
            continue
        pettingzoo.register("aec", id_, entry_point="facing_env.env:env", kwargs={"scenario": name})
        pettingzoo.register(
            "parallel", id_, entry_point="facing_env.env:parallel_env", kwargs={"scenario": name}
        )
