"""Learned priors: policy networks that ship with the package for one scenario each, which
the ``expert`` plays where its search is the weaker player (:mod:`facing_env.agents.expert`,
module docstring, 6; docs/expert.md, "The skirmish's prior").

A prior is a NumPy archive in ``agents/priors/`` (``np.load`` with ``allow_pickle=False``:
nothing in it is unpickled or run), written by ``python -m facing_env.train.prior`` from a
trained MaskablePPO model: the actor's layers (``weight_0``, ``bias_0``, ... in float16; tanh
between them, as stable-baselines3's MLP policy) and what it was trained on:

- ``fingerprint``: the battle's rule set, grid, perception, action count and fixed fields
  (stat blocks, board: :attr:`~facing_env.agents.lookahead.Lookahead.fixed`), hashed
  (:func:`fingerprint`): the expert plays a prior only on a battle with the same fingerprint,
  the same scenario whatever the seed;
- ``window``, ``n_slots``, ``max_rounds``: the observation layout and round limit it reads;
- ``scenario`` and ``source``: the scenario's name and the command that trained it.

The prior plays its most likely legal action (:meth:`Prior.actions`), as
``model:PATH`` does; the expert runs it on its search rows (mean dice) to get a whole turn
(:func:`prior_turn`), then follows that plan while the battle goes as planned.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from facing_env.agents.lookahead import Lookahead
from facing_env.fast import observation as fobs
from facing_env.limits import MAX_MODEL_WEIGHTS_BYTES
from facing_env.observation import ObservationLayout
from facing_env.rules.battle import Battle

PRIORS_DIR = Path(__file__).with_name("priors")
"""Where the shipped priors are (``*.npz``)."""
FORMAT = "facing_env-prior-1"
"""The ``format`` entry every prior carries."""
MAX_LAYERS = 8
"""Layers a prior may have, at most."""
MAX_TURN_ACTIONS = 40
"""Actions of one turn a prior plays out, at most (a turn ends long before)."""
_TEXT_FIELDS = ("format", "fingerprint", "scenario", "source")
_INT_FIELDS = ("window", "n_slots", "max_rounds", "n_actions")


class PriorFileError(ValueError):
    """A prior archive that cannot be used; the message names the file and the problem."""


@dataclass(frozen=True)
class Prior:
    """A policy network read from a prior archive (module docstring)."""

    path: Path
    scenario: str
    source: str
    fingerprint: str
    layout: ObservationLayout
    max_rounds: int
    n_actions: int
    layers: tuple[tuple[np.ndarray, np.ndarray], ...]  # (weight (out, in), bias (out,)) float32

    def logits(self, observations: np.ndarray) -> np.ndarray:
        """The network's action logits: ``(N, D)`` observations -> ``(N, A)`` float32."""
        h = np.asarray(observations, dtype=np.float32)
        for j, (weight, bias) in enumerate(self.layers):
            h = h @ weight.T + bias
            if j < len(self.layers) - 1:
                h = np.tanh(h)
        return h

    def actions(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The most likely legal action of each row: ``(N, D)`` float32 observations and
        ``(N, A)`` masks -> ``(N,)`` int64 (ties: the lowest index)."""
        legal = np.asarray(masks).astype(bool)
        logits = np.where(legal, self.logits(observations), -np.inf)
        return np.argmax(logits, axis=1).astype(np.int64)


def fingerprint(look: Lookahead, battle: Battle) -> str:
    """What a prior must have been trained on to play ``battle`` (16 hex digits): its rule
    set, grid, perception, action count and fixed fields, from ``look`` with ``battle``
    loaded (:meth:`~facing_env.agents.lookahead.Lookahead.load`)."""
    digest = hashlib.sha256()
    for part in (battle.ruleset.value, battle.kind.value, battle.perception.value):
        digest.update(str(part).encode() + b"\0")
    digest.update(str(look.n_actions).encode() + b"\0")
    digest.update(look.fixed)
    return digest.hexdigest()[:16]


def load_prior(path: str | Path) -> Prior:
    """The prior in ``path``; raises :class:`PriorFileError` naming the file and the
    problem (not an archive, a missing or malformed entry, layers that do not chain, values
    that are not finite)."""
    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as archive:
            total = sum(info.file_size for info in archive.zip.infolist())
            if total > MAX_MODEL_WEIGHTS_BYTES:
                raise PriorFileError(
                    f"{path}: {total} bytes uncompressed, over the limit of "
                    f"{MAX_MODEL_WEIGHTS_BYTES} (facing_env.limits.MAX_MODEL_WEIGHTS_BYTES)"
                )
            data = {name: archive[name] for name in archive.files}
    except PriorFileError:
        raise
    except Exception as error:  # a missing file, not a zip, an object array, ...
        raise PriorFileError(f"{path}: not a prior archive ({error})") from None
    text = {name: _text(path, data, name) for name in _TEXT_FIELDS}
    if text["format"] != FORMAT:
        raise PriorFileError(f"{path}: format {text['format']!r}, expected {FORMAT!r}")
    ints = {name: _int(path, data, name) for name in _INT_FIELDS}
    if ints["window"] % 2 == 0:
        raise PriorFileError(f"{path}: entry 'window' is {ints['window']}, not odd")
    layers = _layers(path, data)
    layout = ObservationLayout(ints["window"], ints["n_slots"])
    if layers[0][0].shape[1] != layout.size or layers[-1][0].shape[0] != ints["n_actions"]:
        raise PriorFileError(
            f"{path}: the layers take {layers[0][0].shape[1]} values and give "
            f"{layers[-1][0].shape[0]} actions; the layout says {layout.size} and "
            f"{ints['n_actions']}"
        )
    return Prior(
        path, text["scenario"], text["source"], text["fingerprint"], layout,
        ints["max_rounds"], ints["n_actions"], layers,
    )  # fmt: skip


def _text(path: Path, data: dict[str, np.ndarray], name: str) -> str:
    value = data.get(name)
    if value is None or value.dtype.kind != "U" or value.shape != ():
        raise PriorFileError(f"{path}: entry {name!r} is missing or not a string")
    return str(value)


def _int(path: Path, data: dict[str, np.ndarray], name: str) -> int:
    value = data.get(name)
    if value is None or value.dtype.kind not in "iu" or value.shape != () or not value > 0:
        raise PriorFileError(f"{path}: entry {name!r} is missing or not a positive integer")
    return int(value)


def _layers(path: Path, data: dict[str, np.ndarray]) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    layers = []
    for j in range(MAX_LAYERS + 1):
        weight, bias = data.get(f"weight_{j}"), data.get(f"bias_{j}")
        if weight is None and bias is None:
            break
        if j == MAX_LAYERS:
            raise PriorFileError(f"{path}: more than {MAX_LAYERS} layers")
        ok = (
            weight is not None
            and bias is not None
            and weight.dtype.kind == "f"
            and bias.dtype.kind == "f"
            and weight.ndim == 2  # noqa: PLR2004
            and bias.shape == weight.shape[:1]
            and (not layers or weight.shape[1] == layers[-1][0].shape[0])
        )
        if not ok:
            raise PriorFileError(f"{path}: layer {j} is missing a part or does not fit the last")
        weight, bias = weight.astype(np.float32), bias.astype(np.float32)
        if not (np.isfinite(weight).all() and np.isfinite(bias).all()):
            raise PriorFileError(f"{path}: layer {j} holds values that are not finite")
        layers.append((weight, bias))
    if not layers:
        raise PriorFileError(f"{path}: no layers (weight_0, bias_0, ...)")
    return tuple(layers)


@lru_cache(maxsize=1)
def shipped_priors() -> dict[str, Prior]:
    """The priors in :data:`PRIORS_DIR`, by fingerprint (read once)."""
    priors = [load_prior(p) for p in sorted(PRIORS_DIR.glob("*.npz"))]
    return {p.fingerprint: p for p in priors}


def prior_turn(look: Lookahead, prior: Prior) -> int:
    """The row where the acting creature's turn from row 0 ends when ``prior`` plays it
    (on the search rows: mean dice); -1 when the rows run out."""
    s = look.state
    assert s is not None and look.tables is not None
    if prior.layout.n_slots > s.present.shape[1]:
        raise PriorFileError(
            f"{prior.path}: {prior.layout.n_slots} creature slots, more than the battle's "
            f"{s.present.shape[1]} (a fingerprint that matches a battle it does not fit)"
        )
    view = fobs.view_for(look.tables, s, prior.layout, prior.max_rounds)
    out = np.zeros((1, prior.layout.size), dtype=np.float32)
    slots = np.full(1, fobs.KEEP, dtype=np.int32)
    start = (int(s.round[0]), int(s.index[0]))
    row = 0
    for _ in range(MAX_TURN_ACTIONS):
        if s.actor[row] < 0 or (int(s.round[row]), int(s.index[row])) != start:
            return row
        slots[0] = s.actor[row]
        fobs.observe_batch(look.tables, _one_row(s, row), view, slots, out, 0, 1)
        action = prior.actions(out, look.mask[row : row + 1])
        nxt = look.expand(np.array([row]), action)
        if nxt.size == 0:
            return -1
        row = int(nxt[0])
    return -1


def _one_row(s, row: int):
    """The search state seen from ``row`` as its first row (the observation kernel writes
    rows ``lo..hi`` of ``out`` from the same rows of the state)."""
    return type(s)(*(a[row : row + 1] for a in s))


__all__ = [
    "FORMAT",
    "PRIORS_DIR",
    "Prior",
    "PriorFileError",
    "fingerprint",
    "load_prior",
    "prior_turn",
    "shipped_priors",
]
