"""Exceptions with messages that name the problem (file, creature, field, value)."""

from __future__ import annotations

from facing_env.limits import short_repr


class FacingEnvError(Exception):
    """Base class of the package's errors."""


class ScenarioError(FacingEnvError, ValueError):
    """A battle spec or scenario file is invalid.

    The message names the file (when known), the creature and the field, e.g.
    ``configs/duel.yaml: creature 'fighter': field 'size': unknown size 'Mediun'``.
    """

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        creature: str | None = None,
        field: str | None = None,
    ) -> None:
        self.file, self.creature, self.field, self.reason = file, creature, field, message
        parts = []
        if file:
            parts.append(str(file))
        if creature is not None:
            parts.append(f"creature {short_repr(creature)}")
        if field:
            parts.append(f"field {field!r}")
        super().__init__(": ".join([*parts, message]))

    def with_file(self, file: str) -> ScenarioError:
        """The same error, naming the file it came from."""
        return ScenarioError(self.reason, file=file, creature=self.creature, field=self.field)


class RulesQueryError(FacingEnvError, ValueError):
    """A rules query was asked about something that does not exist (unknown id, bad name)."""


class IllegalActionError(FacingEnvError, ValueError):
    """The engine was asked to apply an action the rules do not allow; says which and why."""


class EnvStateError(FacingEnvError, RuntimeError):
    """The env was asked to step before ``reset()`` or after its episode ended."""
