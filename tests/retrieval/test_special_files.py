"""FIFOs, sockets and other special files in a collection: reported as skipped, never read."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from retrieval.config import CollectionConfig
from retrieval.files import Skipped, find_files, read_source

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs POSIX named pipes")


def test_find_files_reports_a_fifo_with_its_reason(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.md")
    (tmp_path / "real.md").write_text("# Real\n\ntext\n", encoding="utf-8")
    found = find_files(CollectionConfig(name="d", path=tmp_path))
    assert found.paths == ("real.md",)
    (skipped,) = found.skipped
    assert (skipped.collection, skipped.path) == ("d", "pipe.md")
    assert "named pipe (FIFO)" in skipped.reason and "not read" in skipped.reason


def test_find_files_reports_a_socket(tmp_path: Path) -> None:
    folder = Path(os.path.relpath(tmp_path))  # a short path: socket names are length-limited
    with socket.socket(socket.AF_UNIX) as server:
        try:
            server.bind(str(folder / "s.md"))
        except OSError as exc:
            pytest.skip(f"cannot create a unix socket here: {exc}")
        found = find_files(CollectionConfig(name="d", path=tmp_path))
    assert [(s.path, s.reason) for s in found.skipped] == [
        ("s.md", "not a regular file but a socket: not read")
    ]


def test_find_files_leaves_out_special_files_the_patterns_leave_out(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.log")  # not included
    (tmp_path / "private").mkdir()
    os.mkfifo(tmp_path / "private" / "pipe.md")  # excluded
    collection = CollectionConfig(name="d", path=tmp_path, exclude=("private/**",))
    assert find_files(collection).skipped == ()


def test_read_source_of_a_fifo_returns_at_once(tmp_path: Path) -> None:
    """No writer ever opens the pipe: a blocking open or read would hang here."""
    os.mkfifo(tmp_path / "pipe.md")
    source = read_source(CollectionConfig(name="d", path=tmp_path), "pipe.md", 10_000)
    assert isinstance(source, Skipped) and "named pipe (FIFO)" in source.reason
