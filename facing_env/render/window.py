"""A pygame window for ``render_mode="human"``; pygame is imported only when it opens."""

from __future__ import annotations

import os
from typing import Any

import numpy as np


class Window:
    """A pygame window showing frames (``render_mode="human"``); pygame is imported lazily."""

    def __init__(self, title: str = "facing_env", fps: float = 4) -> None:
        self.title, self.fps = title, fps
        self._screen: Any = None
        self._clock: Any = None

    def show(self, image: np.ndarray) -> None:
        """Draw one frame and keep the window responsive."""
        pg = _pygame()
        size = (image.shape[1], image.shape[0])
        try:
            if self._screen is None or self._screen.get_size() != size:
                pg.display.init()
                self._screen = pg.display.set_mode(size)
                pg.display.set_caption(self.title)
                self._clock = pg.time.Clock()
        except pg.error as exc:
            raise RuntimeError(
                f"render_mode='human' needs a display ({exc}); use render_mode='rgb_array', "
                "or set SDL_VIDEODRIVER=dummy to run without one"
            ) from None
        self._screen.blit(pg.surfarray.make_surface(image.swapaxes(0, 1)), (0, 0))
        pg.event.pump()
        pg.display.flip()
        self._clock.tick(self.fps)

    def close(self) -> None:
        """Close the window (if it was opened)."""
        if self._screen is not None:
            _pygame().display.quit()
            self._screen = None


def _pygame() -> Any:
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    try:
        import pygame
    except ImportError:
        raise ImportError(
            "render_mode='human' needs pygame: pip install 'facing-env[render]' "
            "(or pip install pygame)"
        ) from None
    return pygame
