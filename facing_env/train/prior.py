"""Write a learned prior for the ``expert`` from a trained model
(:mod:`facing_env.agents.prior`)::

    python -m facing_env.train.prior runs/RUN/model.zip --scenario skirmish \\
        --source "python train.py --scenario skirmish --seed 2" --out agents/priors/skirmish.npz

The model must be a MaskablePPO MLP policy (``--policy mlp``, train.py's default) trained
on the scenario; its actor (the policy network's layers and the action head) is stored in
float16 with the scenario's fingerprint, observation layout and round limit, taken from
the scenario with the env's default options (full perception, its own round limit). Needs
the training extra (torch), to read the model file.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from facing_env.agents.lookahead import Lookahead
from facing_env.agents.prior import FORMAT, fingerprint, load_prior


def actor_layers(model_path: str | Path) -> list[tuple[np.ndarray, np.ndarray]]:
    """The actor's linear layers of a MaskablePPO MLP model, first to last (tanh between
    them): ``(weight (out, in), bias (out,))`` float32."""
    import torch

    from facing_env.agents.learned import load_model

    policy = load_model(model_path).policy
    if not isinstance(policy.mlp_extractor.policy_net, torch.nn.Sequential):
        raise ValueError(f"{model_path}: not an MLP policy (train.py --policy mlp)")
    for module in policy.mlp_extractor.policy_net:
        if not isinstance(module, torch.nn.Linear | torch.nn.Tanh):
            raise ValueError(f"{model_path}: the policy network has a {type(module).__name__}")
    linear = [m for m in policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
    linear.append(policy.action_net)
    return [(m.weight.detach().numpy().copy(), m.bias.detach().numpy().copy()) for m in linear]


def export_prior(model_path: str | Path, scenario: str, out: str | Path, source: str) -> Path:
    """Write the prior of ``model_path`` for ``scenario`` to ``out`` (checked by loading it
    back); returns ``out``."""
    from facing_env.env import raw_env

    env = raw_env(scenario=scenario)
    env.reset(seed=0)
    n_actions = int(env.action_space(env.agent_selection).n)
    look = Lookahead(64)
    look.load(env.battle, n_actions)
    layers = actor_layers(model_path)
    if layers[0][0].shape[1] != env.layout.size or layers[-1][0].shape[0] != n_actions:
        raise ValueError(
            f"{model_path}: the model takes {layers[0][0].shape[1]} values and gives "
            f"{layers[-1][0].shape[0]} actions; {scenario} has {env.layout.size} and {n_actions}"
        )
    entries: dict[str, np.ndarray] = {
        "format": np.array(FORMAT),
        "fingerprint": np.array(fingerprint(look, env.battle)),
        "scenario": np.array(scenario),
        "source": np.array(source),
        "window": np.array(env.layout.window, dtype=np.int64),
        "n_slots": np.array(env.layout.n_slots, dtype=np.int64),
        "max_rounds": np.array(env.max_rounds, dtype=np.int64),
        "n_actions": np.array(n_actions, dtype=np.int64),
    }
    for j, (weight, bias) in enumerate(layers):
        entries[f"weight_{j}"] = weight.astype(np.float16)
        entries[f"bias_{j}"] = bias.astype(np.float16)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    draft = out.with_name(out.name + ".part")
    try:
        with draft.open("wb") as handle:
            np.savez_compressed(handle, **entries)
        load_prior(draft)  # float16 overflow, say: nothing is left at ``out``
        draft.replace(out)
    finally:
        draft.unlink(missing_ok=True)
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m facing_env.train.prior", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("model", help="a MaskablePPO model.zip trained on the scenario")
    parser.add_argument("--scenario", required=True, help="the scenario it was trained on")
    parser.add_argument("--out", required=True, help="the archive to write (.npz)")
    parser.add_argument("--source", default="", help="the command that trained the model")
    args = parser.parse_args(argv)
    try:
        path = export_prior(args.model, args.scenario, args.out, args.source or args.model)
    except (OSError, ValueError) as error:
        parser.exit(2, f"python -m facing_env.train.prior: error: {error}\n")
    print(path)


if __name__ == "__main__":
    main()
