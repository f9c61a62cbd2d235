"""Test helper: the files the code under test opened (`opened()`: Python's `open` audit event,
so io.open, os.open and every hash of a file) or memory-mapped (`mapped()`: `mmap.__new__`),
seen through one audit hook instead of by patching the index.

Audit hooks cannot be removed, so the one hook is added when this module is first imported and
records only inside a `with opened()` or `with mapped()` block (the innermost of its event)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

# Per audit event: one list per block in progress, the innermost last.
_RECORDING: dict[str, list[list[Path]]] = {"open": [], "mmap.__new__": []}


def _opened_path(args: tuple[object, ...]) -> Path | None:
    name = args[0]
    if isinstance(name, str | bytes | os.PathLike):  # not a descriptor
        return Path(os.fsdecode(name)).resolve()
    return None


def _mapped_path(args: tuple[object, ...]) -> Path | None:
    descriptor = args[0]
    if isinstance(descriptor, int) and descriptor >= 0:  # -1: anonymous memory, no file
        return Path(os.readlink(f"/proc/self/fd/{descriptor}")).resolve()
    return None


_PATH_OF: dict[str, Callable[[tuple[object, ...]], Path | None]] = {
    "open": _opened_path,
    "mmap.__new__": _mapped_path,
}


def _audit(event: str, args: tuple[object, ...]) -> None:
    blocks = _RECORDING.get(event)
    if blocks:
        path = _PATH_OF[event](args)
        if path is not None:
            blocks[-1].append(path)


sys.addaudithook(_audit)


@contextmanager
def _recording(event: str) -> Iterator[list[Path]]:
    found: list[Path] = []
    _RECORDING[event].append(found)
    try:
        yield found
    finally:
        _RECORDING[event].pop()


def opened() -> AbstractContextManager[list[Path]]:
    """The files opened meanwhile, once per opening."""
    return _recording("open")


def mapped() -> AbstractContextManager[list[Path]]:
    """The files memory-mapped meanwhile."""
    return _recording("mmap.__new__")
