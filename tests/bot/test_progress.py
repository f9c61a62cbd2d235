"""The `docbot index` progress bar: drawn on a terminal, silent anywhere else."""

from __future__ import annotations

import io

from bot.progress import TerminalProgress, terminal_progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_draws_only_on_a_terminal() -> None:
    assert terminal_progress(io.StringIO()) is None
    assert isinstance(terminal_progress(_Terminal()), TerminalProgress)


def test_progress_redraws_one_line_per_percent_and_ends_it() -> None:
    stream = _Terminal()
    progress = TerminalProgress(stream)
    for done in range(0, 1001):
        progress("embedding", done, 1000)
    text = stream.getvalue()
    assert text.count("\r") == 101  # 0% .. 100%, not one per call
    assert text.endswith("[" + "#" * 30 + "] 100%  1,000/1,000 chunks\n")
    assert "\n" not in text[:-1]


def test_progress_ignores_an_empty_stage() -> None:
    stream = _Terminal()
    TerminalProgress(stream)("embedding", 0, 0)
    assert stream.getvalue() == ""
