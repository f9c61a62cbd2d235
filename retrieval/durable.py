"""Files the index relies on: written so a crash leaves the old file or the new one, never half
of either, and checked against the size and sha256 recorded when they were written."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import BinaryIO, TypeVar

from retrieval.errors import IndexNotBuiltError

# Lock files tantivy keeps in its folder: empty, and not part of the engine's content.
UNRECORDED_SUFFIX = ".lock"
T = TypeVar("T")


def write_atomically(path: Path, data: bytes) -> None:
    """Write to a temporary name, flush it to disk, rename over `path`, flush the folder."""
    write_atomically_from(path, lambda handle: handle.write(data))


def write_atomically_from(path: Path, write: Callable[[BinaryIO], T]) -> T:
    """`write_atomically` for content streamed by `write(handle)`, never held whole in memory;
    what `write` returned."""
    temporary = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    with temporary.open("wb") as handle:
        written = write(handle)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)
    fsync(path.parent)
    return written


def fsync(path: Path) -> None:
    """Flush a file's or a folder's entries to disk (a folder: so a rename in it survives)."""
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def sha256_file(path: Path) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def folder_files(
    folder: Path, known: Mapping[str, list[int | str]] | None = None
) -> dict[str, list[int | str]]:
    """name -> [size, sha256] of each file in a folder, as the manifest records it. A file named
    in `known` (a link to a file recorded already) takes its record from there, unhashed."""
    known = known or {}
    return {
        path.name: list(known[path.name]) if path.name in known else _record(path)
        for path in sorted(folder.iterdir())
        if path.is_file() and not path.name.endswith(UNRECORDED_SUFFIX)
    }


def _record(path: Path) -> list[int | str]:
    return [path.stat().st_size, sha256_file(path)]


def verify_folder(folder: Path, files: Mapping[str, Sequence[int | str]]) -> None:
    """IndexNotBuiltError unless every recorded file is there with its size and sha256."""
    if not files:
        raise IndexNotBuiltError(f"{folder}: the manifest records no files for this engine")
    for name, (size, digest) in files.items():
        verify_file(folder / name, int(size), str(digest))


def verify_file(path: Path, size: int, digest: str) -> None:
    try:
        found = path.stat().st_size
        if found == size and sha256_file(path) == digest:
            return
    except OSError as exc:
        raise IndexNotBuiltError(f"{path} is unreadable ({exc.strerror or exc})") from exc
    raise IndexNotBuiltError(changed_message(path, found, size))


def changed_message(path: Path, found: int, size: int) -> str:
    if found != size:
        return f"{path} is {found} bytes, not the {size} docbot index wrote"
    return f"{path} has changed since docbot index wrote it"
