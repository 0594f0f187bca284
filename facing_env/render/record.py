"""The replay file format (``facing_env.replay/1``): its pydantic schema, the parsed record
and the per-step snapshots a replay yields.

A record (written by ``python -m facing_env.evaluate --record DIR`` through
:func:`facing_env.evaluation.match.replay_record`) holds the scenario, the seed, the env's
keyword arguments, the actions ``[agent, action]`` and the events. Files are validated
with pydantic and read as plain JSON: nothing in them is executed; files larger than
:data:`~facing_env.limits.MAX_REPLAY_BYTES`, nested deeper than
:data:`~facing_env.limits.MAX_NESTING` or not regular files are refused before parsing.
:mod:`facing_env.render.replay` plays records; :mod:`facing_env.render.export` draws them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Optional, get_type_hints

from pydantic import ConfigDict, Field, ValidationError, create_model, field_validator

from facing_env.errors import FacingEnvError
from facing_env.evaluation.match import REPLAY_FORMAT
from facing_env.events import Event
from facing_env.limits import (
    MAX_NESTING,
    MAX_REPLAY_BYTES,
    MAX_ROUNDS,
    MAX_TEXT,
    json_depth,
    read_bounded,
    short_repr,
)
from facing_env.spec import StrictModel
from facing_env.types import Pos


class ReplayError(FacingEnvError, ValueError):
    """A replay file is unreadable or malformed; the message names the file and field."""


class ReplayDivergence(ReplayError):
    """Re-running the recorded actions did not give the recorded game."""


class _Strict(StrictModel):
    """A record's models: strict in every field (JSON types as written)."""

    model_config = ConfigDict(strict=True)


class EnvKwargs(_Strict):
    """The keyword arguments of ``raw_env`` a record may carry."""

    max_rounds: Optional[int] = Field(default=None, ge=1, le=MAX_ROUNDS)
    dice: Optional[Literal["roll", "expected", "deck", "mean"]] = None
    window: Optional[int] = Field(default=None, ge=3, le=63)
    flat_footed_start: Optional[bool] = None
    perception: Optional[Literal["full", "facing", "spot"]] = None

    @field_validator("window")
    @classmethod
    def _odd(cls, v: Optional[int]) -> Optional[int]:
        if v is not None and v % 2 == 0:
            raise ValueError(f"the window is centred on the acting creature: an odd side, got {v}")
        return v


_HINTS = get_type_hints(Event)
_EVENT_FIELDS: dict[str, Any] = {
    name: (_HINTS[name], Event._field_defaults.get(name, ...)) for name in Event._fields
}
EventModel: type[_Strict] = create_model("EventModel", __base__=_Strict, **_EVENT_FIELDS)
"""An event as recorded: the fields of :class:`~facing_env.events.Event`, kept in step."""


class ReplayModel(_Strict):
    """The schema of a ``facing_env.replay/1`` file."""

    format: Literal["facing_env.replay/1"]
    scenario: str = Field(min_length=1, max_length=MAX_TEXT)
    seed: int = Field(ge=0, lt=2**63)
    env_version: int = Field(default=1, ge=0, le=1000)  # absent before env v2: v1
    env_kwargs: EnvKwargs = EnvKwargs()
    agents: dict[str, str] = Field(default_factory=dict)
    winner: Optional[str] = None
    rounds: Optional[int] = Field(default=None, ge=0, le=MAX_ROUNDS + 1)
    actions: list[tuple[str, Optional[int]]]
    events: list[EventModel]  # type: ignore[valid-type]


@dataclass(frozen=True)
class ReplayRecord:
    """A validated record; ``events`` are the recorded event dicts as in the file."""

    source: str
    scenario: str
    seed: int
    env_version: int
    env_kwargs: dict[str, Any]
    agents: dict[str, str]
    actions: list[tuple[str, int | None]]
    events: list[dict[str, Any]]
    outcome: dict[str, Any]
    """``winner`` and ``rounds``, when the file gives them."""


@dataclass(frozen=True)
class CreatureState:
    """Where a creature is, where it faces and its hit points."""

    pos: Pos
    facing: int
    hp: float  # whole hit points except with mean dice


@dataclass(frozen=True)
class ReplayStep:
    """The battle after one recorded action (step 0: after the reset)."""

    index: int
    agent: str | None
    action: int | None
    events: tuple[Event, ...]
    creatures: dict[str, CreatureState]
    active: str | None
    round: int
    attack: Event | None


class _DuplicateKey(Exception):
    """A JSON object that names a key twice (the YAML loader refuses them too)."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key[:64])
        out[key] = value
    return out


def parse_record(data: Mapping[str, Any] | str, source: str = "<record>") -> ReplayRecord:
    """Validate a record given as a dict or JSON text; raise :class:`ReplayError`."""
    if isinstance(data, str):
        if json_depth(data) > MAX_NESTING:
            raise ReplayError(f"{source}: nested deeper than {MAX_NESTING} levels")
        try:
            raw = json.loads(data, object_pairs_hook=_unique_keys)
        except _DuplicateKey as exc:
            raise ReplayError(f"{source}: duplicate key {exc.args[0]!r} in one object") from None
        except (ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
            raise ReplayError(f"{source}: not valid JSON: {exc}") from None
    else:
        raw = json.loads(json.dumps(data))  # plain JSON types, as if read from a file
    try:
        model = ReplayModel.model_validate_json(json.dumps(raw))
    except ValidationError as exc:
        raise ReplayError(_describe(exc, source)) from None
    return ReplayRecord(
        source=source,
        scenario=model.scenario,
        seed=model.seed,
        env_version=model.env_version,
        env_kwargs=model.env_kwargs.model_dump(exclude_none=True),
        agents=dict(model.agents),
        actions=[(a, x) for a, x in model.actions],
        events=list(raw["events"]),
        outcome={k: getattr(model, k) for k in ("winner", "rounds") if k in model.model_fields_set},
    )


def _describe(exc: ValidationError, source: str) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"])
    msg = "unknown field" if err["type"] == "extra_forbidden" else err["msg"]
    if err["type"] == "literal_error" and err["loc"] == ("format",):
        msg = f"not a replay file: format must be {REPLAY_FORMAT!r}"
    if err["type"] not in ("missing", "extra_forbidden") and "input" in err:
        msg += f" (got {short_repr(err['input'])})"
    more = len(exc.errors()) - 1
    if more:
        msg += f" (and {more} more error{'s' if more > 1 else ''})"
    return f"{source}: " + (f"field {where!r}: " if where else "") + msg


def load_replay(path: str | Path) -> ReplayRecord:
    """Read and validate a replay file; raise :class:`ReplayError` naming file and field."""
    try:
        text = read_bounded(path, MAX_REPLAY_BYTES).decode("utf-8")
    except ValueError as exc:  # no file, not a regular file, too large, not UTF-8
        raise ReplayError(f"{path}: cannot read the replay: {exc}") from None
    return parse_record(text, str(path))
