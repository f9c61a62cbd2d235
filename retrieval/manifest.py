"""The index on disk: the manifest, collection snapshots, engine folders and vectors files.

Layout under `state_dir/index`: `snapshots/` (one file per collection and content, see
retrieval/snapshot_file.py), `engines/` (one folder per collection set and content, and per
collection and content its tantivy part, whose segment files the sets' folders link),
`vectors/` (one file per collection, content and embedding model, see
retrieval/vectors_file.py) and `tokens/` are content-addressed; `manifest.json` names the
ones in use, with the size and sha256 of every file in them, and is replaced atomically,
last, once everything it names is on disk (fsynced). A crashed build leaves the previous
manifest, and so the previous index, whole. Load checks every file against the manifest (a
snapshot's chunks and a vectors file's rows as a search reads them), and a build reuses a
file only if it still matches: a damaged one is refused at load ("run `docbot index`
again") and rewritten by the next build, never kept.
"""

from __future__ import annotations

import hashlib
import json
import mmap
import os
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from retrieval import record_file, snapshot_file
from retrieval.collections import CollectionSnapshot
from retrieval.config import Config
from retrieval.durable import (
    folder_files,
    fsync,
    verify_folder,
    write_atomically,
    write_atomically_from,
)
from retrieval.engine_meta import ENGINE_FORMAT
from retrieval.engines import SCORING_VERSION
from retrieval.errors import IndexNotBuiltError, IndexOutdatedError, other_version

# 3: the manifest records each file's size and sha256, and engine.json the bm25 counts.
# 4: a collection may record its dense vectors file.
# 5: a collection snapshot records its source revision (a git source's commit).
# 6: a snapshot file's chunks are read one by one (retrieval/snapshot_file.py), not one pickle.
# 7: a vectors file holds its normalised prefixes and row checksums (retrieval/vectors_file.py).
# 8: the token stores and the query tokens are files of retrieval/record_file.py's container.
FORMAT = 8
# Bump when tokenize() or index_text() change what is indexed: engines are then rebuilt.
TOKENIZER_VERSION = "2"
MANIFEST = "manifest.json"
FOLDERS = ("snapshots", "engines", "vectors", "tokens")


def run_index(when: str) -> str:
    """The fix every index error ends with: `when` is "first", "again", "to add it", ..."""
    return f"run `docbot index` {when} (with the same --config as this command)"


def index_root(config: Config) -> Path:
    return Path(config.state_dir) / "index"


def fingerprint(snapshot: CollectionSnapshot, with_dates: bool) -> str:
    """Content of one collection: engines depend on paths and bytes, answers also on dates."""
    digest = hashlib.sha256(f"{snapshot.name}\0{snapshot.chunking}\0{snapshot.selection}".encode())
    for record in snapshot.files:
        dated = f"\0{record.updated}" if with_dates else ""
        digest.update(f"\0{record.path}\0{record.sha256}{dated}".encode())
    if with_dates and snapshot.revision:  # links name the revision, so answers depend on it
        digest.update(f"\0revision={snapshot.revision}".encode())
    return digest.hexdigest()[:24]


def engine_key(kind: str, names: Sequence[str], snaps: Mapping[str, CollectionSnapshot]) -> str:
    parts = [f"{FORMAT}", TOKENIZER_VERSION, SCORING_VERSION, f"{ENGINE_FORMAT}", kind]
    parts += [f"{name}={fingerprint(snaps[name], with_dates=False)}" for name in names]
    return f"{kind}-{hashlib.sha256(chr(0).join(parts).encode()).hexdigest()[:24]}"


def generation_of(snapshots: Mapping[str, CollectionSnapshot], model: str | None) -> str:
    """The build's identity: its content, dates and dense model (None: BM25 only)."""
    parts = [f"{FORMAT}", TOKENIZER_VERSION]
    parts += [
        f"{name}={fingerprint(snapshots[name], with_dates=True)}" for name in sorted(snapshots)
    ]
    if model is not None:
        parts.append(f"dense={model}")
    return hashlib.sha256(chr(0).join(parts).encode()).hexdigest()[:16]


# Writes an engine into the empty folder it is given; returns the record ([size, sha256]) of each
# file it linked to a file already recorded and flushed (a tantivy set's parts' segments): a
# linked file is neither flushed nor hashed again.
FillEngine = Callable[[Path], Mapping[str, list[int | str]]]


def build_engine_dir(target: Path, fill: FillEngine) -> dict[str, list[int | str]]:
    """Build an engine folder (`fill` writes it) under a temporary name, make it durable,
    then rename it to `target`: whole or absent.

    A damaged folder already at `target` is moved aside and removed only once the new one is
    in place, so a reader never finds the name empty. Returns the folder's recorded files.
    """
    temporary = target.with_name(f"{target.name}.tmp-{os.getpid()}")
    shutil.rmtree(temporary, ignore_errors=True)
    temporary.mkdir()
    linked = fill(temporary)
    files = folder_files(temporary, linked)
    for name in files:
        if name not in linked:
            fsync(temporary / name)
    fsync(temporary)  # the folder's entries, links included
    damaged = target.with_name(f"{target.name}.damaged-{os.getpid()}")
    if target.exists():
        os.rename(target, damaged)
    os.rename(temporary, target)
    fsync(target.parent)
    shutil.rmtree(damaged, ignore_errors=True)
    return files


def reusable_engine(
    target: Path, previous: Mapping[str, Any] | None
) -> dict[str, list[int | str]] | None:
    """The recorded files of an engine folder still on disk as the last manifest described it."""
    if previous is None or not target.is_dir():
        return None
    try:
        files: dict[str, list[int | str]] = {
            str(name): [int(size), str(digest)]
            for name, (size, digest) in previous["files"].items()
        }
        verify_folder(target, files)
    except (IndexNotBuiltError, KeyError, TypeError, ValueError, AttributeError):
        return None  # damaged, changed or never recorded: rebuilt
    return files


def write_snapshot(path: Path, snapshot: CollectionSnapshot) -> tuple[int, str]:
    """Store the snapshot durably (replacing whatever is there); return its size and sha256."""
    return write_atomically_from(path, lambda handle: snapshot_file.write(handle, snapshot))


def replace_manifest(root: Path, value: Mapping[str, Any]) -> None:
    write_atomically(root / MANIFEST, json.dumps(value, indent=1).encode("utf-8"))


def collect_garbage(root: Path, manifest: Mapping[str, Any]) -> None:
    """Remove files the new manifest no longer names (and crashed leftovers)."""
    keep = {entry["snapshot"] for entry in manifest["collections"]}
    keep |= {entry["vectors"]["file"] for entry in manifest["collections"] if "vectors" in entry}
    keep |= {entry["tokens"]["file"] for entry in manifest["collections"] if "tokens" in entry}
    keep |= {f"engines/{entry['key']}" for entry in (*manifest["sets"], *manifest["parts"])}
    if "query_tokens" in manifest:
        keep.add(manifest["query_tokens"]["file"])
    for folder in FOLDERS:
        for item in (root / folder).iterdir():
            if f"{folder}/{item.name}" in keep:
                continue
            if item.is_dir():
                shutil.rmtree(item, ignore_errors=True)
            else:
                item.unlink(missing_ok=True)


def read_manifest(root: Path) -> dict[str, Any]:
    fix = run_index("first")
    try:
        manifest = json.loads((root / MANIFEST).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise IndexNotBuiltError(f"no search index in {root}: {fix}") from None
    except (OSError, ValueError) as exc:
        raise IndexNotBuiltError(f"the index in {root} is unreadable ({exc}): {fix}") from exc
    if not isinstance(manifest, dict):
        raise IndexNotBuiltError(
            f"the index in {root} is unreadable (its manifest is no JSON object): {fix}"
        )
    found: object = manifest.get("format")
    current: int | str = FORMAT
    what = "index format"
    if found == FORMAT:  # same format, other tokenizer: the tokenizer's version tells
        found, current, what = manifest.get("tokenizer"), TOKENIZER_VERSION, "tokenizer"
    if found != current:
        raise IndexOutdatedError(outdated_index(root, what, found, current))
    return manifest


def outdated_index(root: Path, what: str, found: object, current: int | str) -> str:
    """Why an index of another format is refused, with both formats named (for a bug report)
    and the fix: rebuilding, and for a newer docbot's index first upgrading this one."""
    built_by = other_version(found, current)
    formats = f"({what} {found}; this docbot reads {current}: `docbot --version`)"
    rebuild = f"{run_index('again')}; it rebuilds the index where it is"
    if built_by == "a newer":
        rebuild = (
            f"upgrade this docbot to the version that built it, or {rebuild} (which replaces "
            "the newer index)"
        )
    return (
        f"the index in {root} was built by {built_by}, incompatible docbot version {formats}: "
        + rebuild
    )


class SnapshotCache:
    """The snapshots a long-lived builder (`docbot serve`'s sync loop) read or wrote last, by
    the sha256 of their file's bytes. Its next build still reads and checks every file against
    the manifest, but takes a matching snapshot from here instead of unpickling it again (at
    100k chunks, most of a one-file edit's reading). Snapshots are immutable, so sharing them
    is safe; only the last build's are kept."""

    def __init__(self) -> None:
        self._by_digest: dict[str, CollectionSnapshot] = {}

    def get(self, digest: str) -> CollectionSnapshot | None:
        return self._by_digest.get(digest)

    def keep(self, by_digest: Mapping[str, CollectionSnapshot]) -> None:
        """Remember exactly these (the snapshots the last build's manifest names)."""
        self._by_digest = dict(by_digest)


def read_snapshot(
    root: Path, entry: Mapping[str, Any], cache: SnapshotCache | None = None
) -> CollectionSnapshot:
    """The snapshot a manifest entry names, if its bytes are the ones the build wrote (taken
    from `cache` when it holds the snapshot of exactly those bytes)."""
    where, data = _snapshot_bytes(root, entry, whole=True)
    known = None if cache is None else cache.get(str(entry["sha256"]))
    if known is not None:
        return known
    # Bytes as written but unreadable: a docbot version whose classes differ wrote them.
    # Chunks are built when read: a rebuild reads only its changed files' (decode_lazily).
    return snapshot_file.decode_lazily(data, where, run_index("again"))


def open_snapshot(
    root: Path, entry: Mapping[str, Any], *, whole: bool
) -> snapshot_file.StoredSnapshot:
    """The snapshot a manifest entry names, opened to read its chunks by position.

    `whole`: its sha256 is checked now, as a long-lived load (`docbot serve`, a replica
    swapping in a new version) must refuse a damaged file before using it. Otherwise only the
    size, header and chunk table are checked now, and each chunk when first read
    (StoredSnapshot): a one-off search hashes its hits' chunks, not the whole file."""
    where, data = _snapshot_bytes(root, entry, whole=whole)
    return snapshot_file.StoredSnapshot(data, where, run_index("again"), verified=whole)


def _snapshot_bytes(
    root: Path, entry: Mapping[str, Any], *, whole: bool
) -> tuple[str, bytes | mmap.mmap]:
    """Where the file a manifest entry names is (for messages) and its bytes, refused unless of
    the recorded size and, if `whole`, sha256. Not `whole`, the file is memory-mapped: a search
    reads its header, table and hits' chunks, not the whole file (32 MB for 70k chunks)."""
    path = root / entry["snapshot"]
    where = f"the collection snapshot {path}"
    sha256 = str(entry["sha256"]) if whole else None
    data = record_file.read(
        path,
        snapshot_file.LAYOUT,
        where,
        run_index("again"),
        size=entry["bytes"],
        sha256=sha256,
        mapped=not whole,
    )
    return where, data


@dataclass(frozen=True, slots=True)
class Previous:
    """What the last build left that is still intact, for the next build to reuse."""

    snapshots: dict[str, CollectionSnapshot]  # by collection: its unchanged files are not read
    stored: dict[str, tuple[CollectionSnapshot, tuple[int, str]]]  # snapshot file -> (it, size/sha)
    sets: dict[str, Mapping[str, Any]]  # engine key -> manifest entry (files checked on reuse)
    # vectors file -> (the snapshot whose chunks its rows are, its manifest entry): checked
    # when read, which happens only if some collection's vectors cannot be reused whole.
    vectors: dict[str, tuple[CollectionSnapshot, Mapping[str, Any]]]
    # collection -> its tokens entry (retrieval/token_store.py checks the file when reading it)
    tokens: dict[str, Mapping[str, Any]]
    # part key -> manifest entry of a collection's tantivy part (files checked on reuse)
    parts: dict[str, Mapping[str, Any]]

    @classmethod
    def empty(cls) -> Previous:
        return cls({}, {}, {}, {}, {}, {})


def read_previous(root: Path, cache: SnapshotCache | None = None) -> Previous:
    """The last manifest's snapshots that still match it; a damaged one is left out, so its
    collection is read again and its file rewritten. `cache`: see SnapshotCache."""
    try:
        manifest = read_manifest(root)
        entries, sets = list(manifest["collections"]), list(manifest["sets"])
    except (IndexNotBuiltError, KeyError, TypeError):
        return Previous.empty()
    found = Previous.empty()
    for entry in entries:
        try:
            snapshot = read_snapshot(root, entry, cache)
            found.stored[entry["snapshot"]] = (snapshot, (int(entry["bytes"]), entry["sha256"]))
        except (IndexNotBuiltError, KeyError, TypeError, ValueError):
            continue
        found.snapshots[snapshot.name] = snapshot
        vectors = entry.get("vectors")
        if isinstance(vectors, dict) and isinstance(vectors.get("file"), str):
            found.vectors[vectors["file"]] = (snapshot, vectors)
        tokens = entry.get("tokens")
        if isinstance(tokens, dict) and isinstance(tokens.get("file"), str):
            found.tokens[snapshot.name] = tokens
    for entry in sets:
        if isinstance(entry, dict) and "key" in entry:
            found.sets[str(entry["key"])] = entry
    parts = manifest.get("parts")
    for entry in parts if isinstance(parts, list) else ():
        if isinstance(entry, dict) and "key" in entry:
            found.parts[str(entry["key"])] = entry
    return found
