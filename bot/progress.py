"""A progress bar for long `docbot index` steps: on a terminal only, on stderr, never in logs."""

from __future__ import annotations

from typing import TextIO

from retrieval.index import Progress

_WIDTH = 30


class TerminalProgress:
    """Redraws one line per whole percent; ends the line when a stage completes."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._shown: tuple[str, int] | None = None

    def __call__(self, stage: str, done: int, total: int) -> None:
        if total <= 0:
            return
        percent = min(100, 100 * done // total)
        if self._shown == (stage, percent):
            return
        self._shown = (stage, percent)
        filled = _WIDTH * percent // 100
        bar = "#" * filled + "." * (_WIDTH - filled)
        line = f"\r{stage} [{bar}] {percent:3d}%  {done:,}/{total:,} chunks"
        self._stream.write(line + ("\n" if done >= total else ""))
        self._stream.flush()


def terminal_progress(stream: TextIO) -> Progress | None:
    """A progress callback drawing on `stream` if it is a terminal, else None (draw nothing)."""
    isatty = getattr(stream, "isatty", None)
    return TerminalProgress(stream) if isatty is not None and isatty() else None
