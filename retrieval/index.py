"""The persisted search index: collection snapshots and one BM25 engine per collection set.

Scope-local statistics (design.md, Scope rule 2). BM25's idf and average length are computed
over a whole engine, so an engine shared by two scopes would let one scope's documents move
the other's scores. Each engine therefore serves exactly one *collection set*: the public
collections, or the public ones plus the private collections one channel may read. A scope's
results then depend on its own documents only, to the bit. `collection_sets` enumerates the
sets the config can produce (usually few: one per distinct channel grant); a set not built
(the config changed since indexing) is built in memory on first use and kept.
The cost: public chunks are indexed again in every set, so the engines take about
(1 + number of private grants) times the space and build time of a single shared index.

Layout under `state_dir/index`: `snapshots/` (one pickle per collection and content) and
`engines/` (one folder per set and content) are content-addressed; `manifest.json` names the
ones in use, with the size and sha256 of every file in them, and is replaced atomically, last,
once everything it names is on disk (fsynced). A crashed build leaves the previous manifest,
and so the previous index, whole. Load checks every file against the manifest, and a build
reuses a snapshot or engine only if it still matches: a damaged one is refused at load
("run `docbot index` again") and rewritten by the next build, never kept.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import shutil
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from pathlib import Path, PurePosixPath
from typing import Any

from retrieval.chunks import Chunk, Hit
from retrieval.collections import (
    CollectionSnapshot,
    chunking_key,
    scan_collection,
    selection_key,
)
from retrieval.config import Config
from retrieval.durable import (
    changed_message,
    folder_files,
    fsync,
    verify_folder,
    write_atomically,
)
from retrieval.engines import (
    SCORING_VERSION,
    Engine,
    EngineKind,
    build_engine,
    choose_engine,
    open_engine,
)
from retrieval.errors import DocbotError, IndexNotBuiltError
from retrieval.files import Skipped
from retrieval.scopes import Scope, check_exclusive_files
from retrieval.text import tokenize
from retrieval.tokens import TiktokenCounter, TokenCounter

# 2: the manifest records each file's size and sha256, and engine.json the bm25 counts.
FORMAT = 3
# Bump when tokenize() or index_text() change what is indexed: engines are then rebuilt.
TOKENIZER_VERSION = "2"
_MANIFEST = "manifest.json"


def run_index(when: str) -> str:
    """The fix every index error ends with: `when` is "first", "again", "to add it", ..."""
    return f"run `docbot index` {when} (with the same --config as this command)"


@dataclass(frozen=True, slots=True)
class CollectionReport:
    name: str
    documents: int
    chunks: int
    new: int
    changed: int
    deleted: int
    unchanged: int


@dataclass(frozen=True, slots=True)
class BuildReport:
    generation: str
    collections: tuple[CollectionReport, ...]
    skipped: tuple[Skipped, ...]
    # (collection, path, note); path "" when the note is about the whole collection.
    notes: tuple[tuple[str, str, str], ...]
    seconds: float
    engines_built: int = 0  # collection sets whose content changed since the last build
    engines_reused: int = 0


def collection_sets(config: Config) -> tuple[tuple[str, ...], ...]:
    """Every collection set a scope can have under `config` (besides the empty one), sorted."""
    public = [c.name for c in config.collections if c.access == "public"]
    found = {tuple(sorted(public))} if public else set()
    for channel in {ch for c in config.collections for ch in c.channels}:
        private = [c.name for c in config.collections if channel in c.channels]
        found.add(tuple(sorted(public + private)))
    return tuple(sorted(found))


def index_text(chunk: Chunk) -> str:
    """What BM25 sees of a chunk: its file's path (no suffix), its headings and its text."""
    path = str(PurePosixPath(chunk.path).with_suffix(""))
    return "\n".join((path, " / ".join(chunk.heading_path), chunk.text))


def set_chunks(
    snapshots: Mapping[str, CollectionSnapshot], names: Sequence[str]
) -> tuple[Chunk, ...]:
    """The chunks of a set in engine position order: collections by name, files by path."""
    return tuple(
        chunk
        for name in sorted(names)
        for record in snapshots[name].files
        for chunk in record.chunks
    )


def build_index(config: Config, counter: TokenCounter | None = None) -> BuildReport:
    """Scan every collection (re-reading changed files only) and refresh the changed engines."""
    started = time.perf_counter()
    root = index_root(config)
    previous = _previous(root)
    counter = counter if counter is not None else TiktokenCounter()
    snapshots: dict[str, CollectionSnapshot] = {}
    reports = []
    scan_notes: list[tuple[str, str, str]] = []
    for collection in config.collections:
        snapshot, changes = scan_collection(
            collection, config.search, counter, previous.snapshots.get(collection.name)
        )
        snapshots[collection.name] = snapshot
        scan_notes += [(collection.name, "", note) for note in changes.notes]
        reports.append(
            CollectionReport(
                collection.name,
                len(snapshot.files),
                snapshot.chunk_count,
                len(changes.new),
                len(changes.changed),
                len(changes.deleted),
                changes.unchanged,
            )
        )
    _check_exclusive(config, snapshots)
    written = write_index(config, snapshots, previous)
    return BuildReport(
        generation=written.generation,
        collections=tuple(reports),
        skipped=tuple(s for snap in snapshots.values() for s in snap.skipped),
        notes=(
            *scan_notes,
            *(
                (snap.name, record.path, record.note)
                for snap in snapshots.values()
                for record in snap.files
                if record.note
            ),
        ),
        seconds=time.perf_counter() - started,
        engines_built=written.built,
        engines_reused=written.reused,
    )


def _check_exclusive(config: Config, snapshots: Mapping[str, CollectionSnapshot]) -> None:
    files = {name: [record.path for record in snap.files] for name, snap in snapshots.items()}
    check_exclusive_files(config, files)


@dataclass(frozen=True, slots=True)
class Written:
    generation: str
    built: int
    reused: int


def index_root(config: Config) -> Path:
    return Path(config.state_dir) / "index"


def write_index(
    config: Config,
    snapshots: Mapping[str, CollectionSnapshot],
    previous: Previous | None = None,
) -> Written:
    """Persist `snapshots` and an engine per collection set, then switch the manifest to them.

    What `previous` holds (the last build's verified snapshots and recorded engine files) is
    reused when unchanged and still intact on disk; everything else is written anew.
    """
    root = index_root(config)
    try:
        for folder in (root / "snapshots", root / "engines"):
            folder.mkdir(parents=True, exist_ok=True)
        return _write(root, config, snapshots, previous or Previous({}, {}, {}))
    except OSError as exc:
        raise DocbotError(
            f"cannot write the index under {root} ({exc}): check that the folder is writable "
            "and the disk has room (state_dir in the config file sets where it goes)"
        ) from exc


def _write(
    root: Path,
    config: Config,
    snapshots: Mapping[str, CollectionSnapshot],
    previous: Previous,
) -> Written:
    tokens = _TokenCache(snapshots)
    entries, sets, built = [], [], 0
    for name, snapshot in snapshots.items():
        file = f"snapshots/{name}-{_fingerprint(snapshot, with_dates=True)}.pickle"
        kept = previous.stored.get(file)
        if kept is not None and kept[0] == snapshot:
            stored = kept[1]  # verified when `previous` was read, and equal to this snapshot
        else:
            stored = _write_snapshot(root / file, snapshot)
        entries.append(_collection_entry(snapshot, file, stored))
    for names in collection_sets(config):
        kind = choose_engine(config.search, sum(snapshots[n].chunk_count for n in names))
        key = _engine_key(kind, names, snapshots)
        target = root / "engines" / key
        files = _reusable(target, previous.sets.get(key))
        if files is None:
            files = _build_engine_dir(target, kind, tokens.corpus(names))
            built += 1
        sets.append({"collections": list(names), "engine": kind, "key": key, "files": files})
    generation = _generation(snapshots)
    manifest = {"format": FORMAT, "tokenizer": TOKENIZER_VERSION, "generation": generation}
    manifest |= {"collections": entries, "sets": sets}
    _replace_json(root / _MANIFEST, manifest)
    _collect_garbage(root, manifest)
    return Written(generation, built, len(sets) - built)


def _collection_entry(
    snapshot: CollectionSnapshot, file: str, stored: tuple[int, str]
) -> dict[str, Any]:
    return {
        "name": snapshot.name,
        "snapshot": file,
        "bytes": stored[0],
        "sha256": stored[1],
        "chunking": snapshot.chunking,
        "selection": snapshot.selection,
        "documents": len(snapshot.files),
        "chunks": snapshot.chunk_count,
    }


class _TokenCache:
    """Tokenizes each collection at most once per build, however many sets include it."""

    def __init__(self, snapshots: Mapping[str, CollectionSnapshot]) -> None:
        self._snapshots = snapshots
        self._tokens: dict[str, list[list[str]]] = {}

    def corpus(self, names: Sequence[str]) -> list[list[str]]:
        for name in names:
            if name not in self._tokens:
                chunks = set_chunks(self._snapshots, [name])
                self._tokens[name] = [tokenize(index_text(chunk)) for chunk in chunks]
        return list(chain.from_iterable(self._tokens[name] for name in sorted(names)))


def _fingerprint(snapshot: CollectionSnapshot, with_dates: bool) -> str:
    """Content of one collection: engines depend on paths and bytes, answers also on dates."""
    digest = hashlib.sha256(f"{snapshot.name}\0{snapshot.chunking}\0{snapshot.selection}".encode())
    for record in snapshot.files:
        dated = f"\0{record.updated}" if with_dates else ""
        digest.update(f"\0{record.path}\0{record.sha256}{dated}".encode())
    return digest.hexdigest()[:24]


def _engine_key(kind: str, names: Sequence[str], snaps: Mapping[str, CollectionSnapshot]) -> str:
    parts = [f"{FORMAT}", TOKENIZER_VERSION, SCORING_VERSION, kind]
    parts += [f"{name}={_fingerprint(snaps[name], with_dates=False)}" for name in names]
    return f"{kind}-{hashlib.sha256(chr(0).join(parts).encode()).hexdigest()[:24]}"


def _generation(snapshots: Mapping[str, CollectionSnapshot]) -> str:
    parts = [f"{FORMAT}", TOKENIZER_VERSION]
    parts += [
        f"{name}={_fingerprint(snapshots[name], with_dates=True)}" for name in sorted(snapshots)
    ]
    return hashlib.sha256(chr(0).join(parts).encode()).hexdigest()[:16]


def _build_engine_dir(
    target: Path, kind: EngineKind, corpus: Sequence[Sequence[str]]
) -> dict[str, list[int | str]]:
    """Build into a temporary folder, make it durable, then rename: whole or absent.

    A damaged folder already at `target` is moved aside and removed only once the new one is
    in place, so a reader never finds the name empty. Returns the folder's recorded files.
    """
    temporary = target.with_name(f"{target.name}.tmp-{os.getpid()}")
    shutil.rmtree(temporary, ignore_errors=True)
    temporary.mkdir()
    build_engine(kind, corpus, temporary)
    files = folder_files(temporary)
    for name in files:
        fsync(temporary / name)
    fsync(temporary)
    damaged = target.with_name(f"{target.name}.damaged-{os.getpid()}")
    if target.exists():
        os.rename(target, damaged)
    os.rename(temporary, target)
    fsync(target.parent)
    shutil.rmtree(damaged, ignore_errors=True)
    return files


def _reusable(
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


def _write_snapshot(path: Path, snapshot: CollectionSnapshot) -> tuple[int, str]:
    """Store the snapshot durably (replacing whatever is there); return its size and sha256."""
    data = pickle.dumps(snapshot, protocol=pickle.HIGHEST_PROTOCOL)
    write_atomically(path, data)
    return len(data), hashlib.sha256(data).hexdigest()


def _replace_json(path: Path, value: Mapping[str, Any]) -> None:
    write_atomically(path, json.dumps(value, indent=1).encode("utf-8"))


def _collect_garbage(root: Path, manifest: Mapping[str, Any]) -> None:
    """Remove snapshots and engines the new manifest no longer names (and crashed leftovers)."""
    keep = {entry["snapshot"] for entry in manifest["collections"]}
    keep |= {f"engines/{entry['key']}" for entry in manifest["sets"]}
    for folder in ("snapshots", "engines"):
        for item in (root / folder).iterdir():
            if f"{folder}/{item.name}" in keep:
                continue
            if item.is_dir():
                shutil.rmtree(item, ignore_errors=True)
            else:
                item.unlink(missing_ok=True)


def _read_manifest(root: Path) -> dict[str, Any]:
    fix = run_index("first")
    try:
        manifest = json.loads((root / _MANIFEST).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise IndexNotBuiltError(f"no search index in {root}: {fix}") from None
    except (OSError, ValueError) as exc:
        raise IndexNotBuiltError(f"the index in {root} is unreadable ({exc}): {fix}") from exc
    if not isinstance(manifest, dict) or (manifest.get("format"), manifest.get("tokenizer")) != (
        FORMAT,
        TOKENIZER_VERSION,
    ):
        raise IndexNotBuiltError(
            f"the index in {root} was built by an incompatible docbot version: {fix}"
        )
    return manifest


def _read_snapshot(root: Path, entry: Mapping[str, Any]) -> CollectionSnapshot:
    """The snapshot a manifest entry names, if its bytes are the ones the build wrote."""
    path = root / entry["snapshot"]
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise IndexNotBuiltError(
            f"{path} is unreadable ({exc.strerror or exc}): {run_index('again')}"
        ) from exc
    if len(data) != entry["bytes"] or hashlib.sha256(data).hexdigest() != entry["sha256"]:
        raise IndexNotBuiltError(
            f"the collection snapshot is damaged "
            f"({changed_message(path, len(data), entry['bytes'])}): {run_index('again')}"
        )
    try:
        snapshot = pickle.loads(data)
    except (pickle.UnpicklingError, EOFError, AttributeError, TypeError, ImportError) as exc:
        # Bytes as written but unloadable: a docbot version whose classes differ wrote them.
        raise IndexNotBuiltError(f"{path} is unreadable ({exc}): {run_index('again')}") from exc
    if not isinstance(snapshot, CollectionSnapshot):
        raise IndexNotBuiltError(f"{path} is not a collection snapshot: {run_index('again')}")
    return snapshot


@dataclass(frozen=True, slots=True)
class Previous:
    """What the last build left that is still intact, for the next build to reuse."""

    snapshots: dict[str, CollectionSnapshot]  # by collection: its unchanged files are not read
    stored: dict[str, tuple[CollectionSnapshot, tuple[int, str]]]  # snapshot file -> (it, size/sha)
    sets: dict[str, Mapping[str, Any]]  # engine key -> manifest entry (files checked on reuse)


def _previous(root: Path) -> Previous:
    """The last manifest's snapshots that still match it; a damaged one is left out, so its
    collection is read again and its file rewritten."""
    try:
        manifest = _read_manifest(root)
        entries, sets = list(manifest["collections"]), list(manifest["sets"])
    except (IndexNotBuiltError, KeyError, TypeError):
        return Previous({}, {}, {})
    found = Previous({}, {}, {})
    for entry in entries:
        try:
            snapshot = _read_snapshot(root, entry)
            found.stored[entry["snapshot"]] = (snapshot, (int(entry["bytes"]), entry["sha256"]))
        except (IndexNotBuiltError, KeyError, TypeError, ValueError):
            continue
        found.snapshots[snapshot.name] = snapshot
    for entry in sets:
        if isinstance(entry, dict) and "key" in entry:
            found.sets[str(entry["key"])] = entry
    return found


class Index:
    """The loaded index; conforms to grounding.retriever.Retriever. Safe to share by threads."""

    def __init__(
        self,
        config: Config,
        generation: str,
        snapshots: Mapping[str, CollectionSnapshot],
        engines: Mapping[tuple[str, ...], Engine],
    ) -> None:
        self._config = config
        self._generation = generation
        self._snapshots = dict(snapshots)
        self._engines = dict(engines)
        self._chunks: dict[tuple[str, ...], tuple[Chunk, ...]] = {}
        self._lock = threading.Lock()
        self._neighbours = {
            chunk.chunk_id: (record.chunks, i)
            for snapshot in self._snapshots.values()
            for record in snapshot.files
            for i, chunk in enumerate(record.chunks)
        }

    @classmethod
    def load(cls, config: Config) -> Index:
        """Open what `build_index` wrote for this config; IndexNotBuiltError if absent or stale."""
        root = index_root(config)
        manifest = _read_manifest(root)
        try:
            entries = {entry["name"]: entry for entry in manifest["collections"]}
            snapshots = _load_snapshots(root, config, entries)
            # Again at load: the config may have changed readers since the index was built.
            _check_exclusive(config, snapshots)
            engines = _open_engines(root, manifest["sets"], snapshots)
            return cls(config, str(manifest["generation"]), snapshots, engines)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise IndexNotBuiltError(
                f"the index in {root} is damaged ({exc!r}): {run_index('again')}"
            ) from exc

    @property
    def generation(self) -> str:
        return self._generation

    def search(self, query: str, scope: Scope, k: int) -> tuple[Hit, ...]:
        """The top `k` chunks of the scope; only the chunks of `scope.collections` are scored."""
        if scope.is_empty or k <= 0:
            return ()
        engine, chunks = self._engine_for(scope.collections)
        ranked = engine.top_k(tokenize(query), k)
        return tuple(
            Hit(chunks[position], score, rank) for rank, (position, score) in enumerate(ranked, 1)
        )

    def adjacent(self, chunk: Chunk) -> tuple[Chunk | None, Chunk | None]:
        found = self._neighbours.get(chunk.chunk_id)
        if found is None:
            return None, None
        chunks, i = found
        return (chunks[i - 1] if i > 0 else None), (chunks[i + 1] if i + 1 < len(chunks) else None)

    def collections(self) -> dict[str, tuple[int, int]]:
        return {
            name: (len(snapshot.files), snapshot.chunk_count)
            for name, snapshot in self._snapshots.items()
        }

    def engine_name(self, scope: Scope) -> str:
        if scope.is_empty:
            return "none"
        return self._engine_for(scope.collections)[0].name

    def _engine_for(self, names: tuple[str, ...]) -> tuple[Engine, tuple[Chunk, ...]]:
        missing = [name for name in names if name not in self._snapshots]
        if missing:
            raise IndexNotBuiltError(
                f"collection(s) {', '.join(missing)} are not in the index: "
                f"{run_index('to add them')}"
            )
        key = tuple(sorted(set(names)))
        with self._lock:
            if key not in self._engines:
                self._engines[key] = self._build_in_memory(key)
            if key not in self._chunks:
                self._chunks[key] = set_chunks(self._snapshots, key)
            return self._engines[key], self._chunks[key]

    def _build_in_memory(self, names: tuple[str, ...]) -> Engine:
        """A set the build did not enumerate (the config changed since): built once, kept."""
        chunks = set_chunks(self._snapshots, names)
        kind = choose_engine(self._config.search, len(chunks))
        return build_engine(kind, [tokenize(index_text(chunk)) for chunk in chunks])


def _load_snapshots(
    root: Path, config: Config, entries: Mapping[str, Mapping[str, Any]]
) -> dict[str, CollectionSnapshot]:
    expected = chunking_key(config.search)
    snapshots = {}
    for collection in config.collections:
        entry = entries.get(collection.name)
        if entry is None:
            raise IndexNotBuiltError(
                f"collection {collection.name!r} is configured but not in the index: "
                f"{run_index('to add it')}"
            )
        if entry["chunking"] != expected:
            raise IndexNotBuiltError(
                f"the chunking settings changed since the index was built ({entry['chunking']} "
                f"-> {expected}): {run_index('to rebuild')}"
            )
        if entry.get("selection") != selection_key(collection):
            # The index may hold files the config now excludes, or miss ones it now includes.
            raise IndexNotBuiltError(
                f"collection {collection.name!r} selects other files than when the index was "
                f"built (its path, include or exclude changed): {run_index('to rebuild')}"
            )
        snapshots[collection.name] = _read_snapshot(root, entry)
    return snapshots


def _open_engines(
    root: Path, sets: Sequence[Mapping[str, Any]], snapshots: Mapping[str, CollectionSnapshot]
) -> dict[tuple[str, ...], Engine]:
    """The built engines of the sets whose collections are all still configured."""
    engines = {}
    for entry in sets:
        names = tuple(entry["collections"])
        if all(name in snapshots for name in names):
            folder = root / "engines" / entry["key"]
            try:
                verify_folder(folder, entry["files"])
                engines[names] = open_engine(folder)
            except IndexNotBuiltError as exc:
                raise IndexNotBuiltError(
                    f"the search engine for {', '.join(names)} is damaged ({exc}): "
                    f"{run_index('again')}"
                ) from exc
    return engines
