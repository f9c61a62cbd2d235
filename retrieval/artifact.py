"""A published index: immutable, checksummed versions in one folder and a pointer to the current
one, built once and loaded read-only by every `docbot serve` replica.

Layout of the folder (`index_dir:` in docbot.yml, or `docbot index --publish DIR`):

    versions/<generation>/   manifest.json and every file it names, copied from the builder's
                             state_dir/index and checked against the manifest's sha256s
    CURRENT                  {"version": ..., "manifest_sha256": ...}, replaced atomically, last
    build.lock               held (flock) by the one `docbot index` building and publishing

A version folder appears under its final name only once whole (copied into a temporary name,
checked, fsynced, renamed), so a reader that follows CURRENT never finds half a version; a
replica then checks every file again as it loads (retrieval/index.py), before it swaps.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from retrieval.config import Config
from retrieval.durable import fsync, verify_file, write_atomically
from retrieval.errors import DocbotError, IndexNotBuiltError
from retrieval.manifest import MANIFEST, index_root

POINTER = "CURRENT"
LOCK = "build.lock"
VERSIONS = "versions"
# Versions kept: the current one and the two before it, so a replica that read CURRENT a moment
# before a publish still finds the version it is loading.
KEEP = 3


@dataclass(frozen=True, slots=True)
class Published:
    version: str
    folder: Path
    reused: bool  # the version was already published whole: only the pointer was written


def load_root(config: Config) -> Path:
    """Where `Index.load` reads: the current published version, or state_dir/index."""
    return index_root(config) if config.index_dir is None else current_version(config.index_dir)


def watched_file(config: Config) -> Path:
    """The file replaced last when a new index is in place: what a running docbot watches."""
    if config.index_dir is None:
        return index_root(config) / MANIFEST
    return config.index_dir / POINTER


def publish_fix(dest: Path) -> str:
    return f"run `docbot index --publish {dest}` (or `docbot index` with index_dir set)"


def current_version(dest: Path) -> Path:
    """The version folder CURRENT names, once its manifest is the one CURRENT recorded."""
    fix = publish_fix(dest)
    try:
        pointer = json.loads((dest / POINTER).read_text(encoding="utf-8"))
        version, digest = str(pointer["version"]), str(pointer["manifest_sha256"])
    except FileNotFoundError:
        raise IndexNotBuiltError(f"nothing is published in {dest} yet: {fix}") from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise IndexNotBuiltError(f"{dest / POINTER} is unreadable ({exc!r}): {fix}") from exc
    folder = dest / VERSIONS / version
    if os.sep in version or version.startswith("."):
        raise IndexNotBuiltError(f"{dest / POINTER} names no version folder ({version!r}): {fix}")
    try:
        found = hashlib.sha256((folder / MANIFEST).read_bytes()).hexdigest()
    except OSError as exc:
        raise IndexNotBuiltError(
            f"the published version {folder} is unreadable ({exc.strerror or exc}): {fix}"
        ) from exc
    if found != digest:
        raise IndexNotBuiltError(f"the manifest of {folder} has changed since it was published: "
                                 f"{fix}")  # fmt: skip
    return folder


def publish(config: Config, dest: Path) -> Published:
    """Copy the index built in state_dir into a new version under `dest` and point CURRENT at
    it. The caller holds `builder_lock(dest)` across the build and this (bot/cli.py)."""
    source = index_root(config)
    manifest_bytes = (source / MANIFEST).read_bytes()
    manifest = json.loads(manifest_bytes)
    version = str(manifest["generation"])
    folder = dest / VERSIONS / version
    try:
        (dest / VERSIONS).mkdir(parents=True, exist_ok=True)
        reused = _whole(folder, manifest, manifest_bytes)
        if reused:
            os.utime(folder)  # published again: the newest, as far as pruning goes
        else:
            _copy_version(source, folder, manifest, manifest_bytes)
        digest = hashlib.sha256(manifest_bytes).hexdigest()
        pointer = {"version": version, "manifest_sha256": digest}
        write_atomically(dest / POINTER, json.dumps(pointer, indent=1).encode("utf-8"))
        _prune(dest / VERSIONS, keep=version)
    except OSError as exc:
        raise DocbotError(
            f"cannot publish the index to {dest} ({exc}): check that the folder is writable "
            "and the disk has room"
        ) from exc
    return Published(version, folder, reused)


@contextmanager
def builder_lock(folder: Path, waiting: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold `folder`/build.lock (the published folder, or state_dir/index): one `docbot index`
    builds there at a time. A second one waits (told through `waiting`) until the first is
    done, then builds on its work."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle = (folder / LOCK).open("a+")
    except OSError as exc:
        raise DocbotError(
            f"cannot write the index in {folder} ({exc.strerror or exc}): make the folder "
            "writable for this user, or point docbot at one that is: `state_dir` in "
            "docbot.yml (in a container, a volume), or the --publish / `index_dir` folder"
        ) from exc
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            if waiting is not None:
                waiting(f"waiting for {holder}, which is building in {folder}")
            fcntl.flock(handle, fcntl.LOCK_EX)
        handle.seek(0)
        handle.truncate()
        handle.write(f"docbot index (pid {os.getpid()})\n")
        handle.flush()
        try:
            yield
        finally:
            handle.truncate(0)
            fcntl.flock(handle, fcntl.LOCK_UN)


def named_files(manifest: Mapping[str, Any]) -> list[tuple[str, int, str]]:
    """(path under the index root, size, sha256) of every file the manifest names."""
    files = []
    for entry in manifest["collections"]:
        files.append((str(entry["snapshot"]), int(entry["bytes"]), str(entry["sha256"])))
        if "vectors" in entry:
            vectors = entry["vectors"]
            files.append((str(vectors["file"]), int(vectors["bytes"]), str(vectors["sha256"])))
    for entry in manifest["sets"]:
        for name, (size, digest) in entry["files"].items():
            files.append((f"engines/{entry['key']}/{name}", int(size), str(digest)))
    if "query_tokens" in manifest:
        tokens = manifest["query_tokens"]
        files.append((str(tokens["file"]), int(tokens["bytes"]), str(tokens["sha256"])))
    return files


def _whole(folder: Path, manifest: Mapping[str, Any], manifest_bytes: bytes) -> bool:
    """Whether `folder` already holds this version, every file as the manifest says."""
    try:
        if (folder / MANIFEST).read_bytes() != manifest_bytes:
            return False
        for name, size, digest in named_files(manifest):
            verify_file(folder / name, size, digest)
    except (OSError, IndexNotBuiltError):
        return False
    return True


def _copy_version(
    source: Path, folder: Path, manifest: Mapping[str, Any], manifest_bytes: bytes
) -> None:
    """Copy into a temporary folder, check each copy, flush, then rename into place."""
    temporary = folder.with_name(f".tmp-{folder.name}-{os.getpid()}")
    shutil.rmtree(temporary, ignore_errors=True)
    for name, size, digest in named_files(manifest):
        target = temporary / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source / name, target)
        verify_file(target, size, digest)  # a damaged build file is never published
        fsync(target)
    (temporary / MANIFEST).write_bytes(manifest_bytes)
    fsync(temporary / MANIFEST)
    for sub in sorted({p.parent for p in temporary.rglob("*") if p.is_file()}, reverse=True):
        fsync(sub)
    aside = folder.with_name(f".damaged-{folder.name}-{os.getpid()}")
    if folder.exists():  # a version left damaged (a disk error, a hand edit): replaced whole
        os.rename(folder, aside)
    os.rename(temporary, folder)
    fsync(folder.parent)
    shutil.rmtree(aside, ignore_errors=True)


def _prune(versions: Path, keep: str) -> None:
    """Remove all but the KEEP most recently published versions (never `keep`), and what a
    crashed publish left (the lock is held: no other publish is under way)."""
    found = [p for p in versions.iterdir() if p.is_dir()]
    published = sorted(
        (p for p in found if not p.name.startswith(".")), key=lambda p: p.stat().st_mtime_ns
    )
    stale = [p for p in published[:-KEEP] if p.name != keep]
    stale += [p for p in found if p.name.startswith(".")]
    for folder in stale:
        shutil.rmtree(folder, ignore_errors=True)
