"""Test-wide settings.

The tests step the compiled engine unless they say otherwise: the AEC env's default
``engine="auto"`` would play on the readable engine (and start a background compile)
whenever the kernel cache is not complete, as in a checkout where ``python -m facing_env
warm`` has not run since the last edit. Tests of ``"auto"`` and ``"readable"`` pass
``engine=`` themselves; the differential tests compare the two engines explicitly. No test
starts a real background compile.
"""

from __future__ import annotations

import os

import pytest

pytest.register_assert_rewrite("tests.engine_boards", "tests.attack_boards", "tests.reference")

from facing_env import warm  # noqa: E402  (after the assert rewrite of the helper modules)

os.environ[warm.ENGINE_VARIABLE] = "compiled"


@pytest.fixture(autouse=True)
def _no_background_compile(monkeypatch):
    """A test that reaches the background compile's :func:`facing_env.warm.spawn`
    unpatched fails."""

    def refuse(*args, **kwargs):
        raise AssertionError("a test started a real background compile")

    monkeypatch.setattr(warm, "spawn", refuse)
