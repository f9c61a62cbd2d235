"""`docbot index`: scan the collections, then write snapshots, vectors and engines.

What is on disk and how it is kept whole: retrieval/manifest.py. What is reused: an unchanged
snapshot, an engine whose collection set did not change, a tantivy part (one collection's
engine, retrieval/engine_parts.py) whose collection did not change, the stored search tokens
of every unchanged file, a vectors file whose collection and model did not change, and any
chunk's vector whose text the previous build embedded. The previous snapshots are read with
their chunks left as stored (snapshot_file.decode_lazily): only changed files' chunks are
built, and an unchanged file's stored records are copied into its collection's next file.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from retrieval.collections import CollectionSnapshot, scan_collection
from retrieval.config import Config
from retrieval.corpus import collection_sets
from retrieval.dense import (
    VectorCache,
    fill,
    model_tag,
    plan_vectors,
    read_entry,
    write_vectors,
)
from retrieval.embeddings import Embedder, Vectors, load_embedder
from retrieval.engine_parts import Parts
from retrieval.engines import EngineKind, build_engine, choose_engine
from retrieval.errors import DocbotError, IndexNotBuiltError
from retrieval.files import Skipped
from retrieval.manifest import (
    FOLDERS,
    FORMAT,
    TOKENIZER_VERSION,
    FillEngine,
    Previous,
    SnapshotCache,
    build_engine_dir,
    collect_garbage,
    engine_key,
    fingerprint,
    generation_of,
    index_root,
    read_previous,
    replace_manifest,
    reusable_engine,
    write_snapshot,
)
from retrieval.query_tokens import write_query_tokens
from retrieval.scopes import check_exclusive_files
from retrieval.sources import SyncOutcome, sync_sources
from retrieval.tantivy_engine import compose
from retrieval.token_store import TokenCache
from retrieval.tokens import TiktokenCounter, TokenCounter

# (stage, done, total): how far a long build step is; only "embedding" reports today.
Progress = Callable[[str, int, int], None]
# Brings the collections' folders up to date from their sources (retrieval/sources.py).
Sync = Callable[[Config], tuple[SyncOutcome, ...]]


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
    embedded: int = 0  # chunks the embedding model ran on (new or changed text)
    tokenized: int = 0  # chunks tokenized for the engines (the others' tokens were stored)
    parts_built: int = 0  # collections whose tantivy part was indexed again (engine_parts.py)
    # One per collection with a remote source (git): what it was synced to, or why not.
    synced: tuple[SyncOutcome, ...] = ()


def build_index(
    config: Config,
    counter: TokenCounter | None = None,
    embedder: Embedder | None = None,
    progress: Progress | None = None,
    sync: Sync = sync_sources,
    cache: SnapshotCache | None = None,
) -> BuildReport:
    """Sync the collections' sources, scan every collection (re-reading changed files only)
    and refresh the changed engines.

    `embedder` (default: `load_embedder()`, loaded only if `retrieval.dense`) makes the vectors.
    A source that cannot be reached is indexed as its last good sync left it. A builder that
    builds again and again in one process passes one `cache` to every build (SnapshotCache).
    """
    started = time.perf_counter()
    synced = sync(config)
    revisions = {outcome.collection: outcome.revision for outcome in synced}
    root = index_root(config)
    previous = read_previous(root, cache)
    counter = counter if counter is not None else TiktokenCounter()
    snapshots: dict[str, CollectionSnapshot] = {}
    reports = []
    scan_notes: list[tuple[str, str, str]] = []
    for collection in config.collections:
        snapshot, changes = scan_collection(
            collection,
            config.search,
            counter,
            previous.snapshots.get(collection.name),
            revisions.get(collection.name, ""),
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
    check_exclusive(config, snapshots)
    written = write_index(config, snapshots, previous, embedder, progress)
    if cache is not None:
        cache.keep({digest: snapshots[name] for name, digest in written.digests.items()})
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
        embedded=written.embedded,
        tokenized=written.tokenized,
        parts_built=written.parts,
        synced=synced,
    )


def check_exclusive(config: Config, snapshots: Mapping[str, CollectionSnapshot]) -> None:
    files = {name: [record.path for record in snap.files] for name, snap in snapshots.items()}
    check_exclusive_files(config, files)


@dataclass(frozen=True, slots=True)
class Written:
    generation: str
    built: int
    reused: int
    embedded: int = 0
    tokenized: int = 0
    parts: int = 0
    digests: dict[str, str] = field(default_factory=dict)  # collection -> its snapshot's sha256


def write_index(
    config: Config,
    snapshots: Mapping[str, CollectionSnapshot],
    previous: Previous | None = None,
    embedder: Embedder | None = None,
    progress: Progress | None = None,
) -> Written:
    """Persist `snapshots`, their vectors and an engine per collection set, then switch the
    manifest to them.

    What `previous` holds (the last build's verified snapshots, recorded engine and vectors
    files) is reused when unchanged and still intact on disk; everything else is written anew.
    """
    root = index_root(config)
    if config.retrieval.dense and embedder is None:
        embedder = load_embedder()
    try:
        for folder in FOLDERS:
            (root / folder).mkdir(parents=True, exist_ok=True)
        return _write(
            root,
            config,
            snapshots,
            previous or Previous.empty(),
            embedder if config.retrieval.dense else None,
            progress,
        )
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
    embedder: Embedder | None,
    progress: Progress | None,
) -> Written:
    entries = []
    for name, snapshot in snapshots.items():
        file = f"snapshots/{name}-{fingerprint(snapshot, with_dates=True)}.pickle"
        kept = previous.stored.get(file)
        if kept is not None and kept[0] == snapshot:
            stored = kept[1]  # verified when `previous` was read, and equal to this snapshot
        else:
            stored = write_snapshot(root / file, snapshot)
        entries.append(_collection_entry(snapshot, file, stored))
    embedded = 0
    if embedder is not None:
        vectors, embedded = _write_vectors(root, snapshots, previous, embedder, progress)
        for entry in entries:
            entry["vectors"] = vectors[entry["name"]]
    tokens = TokenCache(root, snapshots, previous.tokens, TOKENIZER_VERSION)
    parts = Parts(root, snapshots, previous.parts, tokens.documents)
    sets, built = [], 0
    for names in collection_sets(config):
        kind = choose_engine(config.search, sum(snapshots[n].chunk_count for n in names))
        key = engine_key(kind, names, snapshots)
        target = root / "engines" / key
        files = reusable_engine(target, previous.sets.get(key))
        if files is None:
            files = build_engine_dir(target, _engine_writer(kind, names, tokens, parts))
            built += 1
        sets.append({"collections": list(names), "engine": kind, "key": key, "files": files})
    for entry in entries:
        name = entry["name"]
        stored_tokens = tokens.entry(name, fingerprint(snapshots[name], with_dates=False))
        if stored_tokens is not None:
            entry["tokens"] = stored_tokens
    generation = generation_of(snapshots, None if embedder is None else embedder.name)
    manifest = {"format": FORMAT, "tokenizer": TOKENIZER_VERSION, "generation": generation}
    manifest |= {"collections": entries, "sets": sets, "parts": parts.entries()}
    query_tokens = None if embedder is None else write_query_tokens(root, embedder)
    if query_tokens is not None:  # a cold search tokenizes its question with these
        manifest["query_tokens"] = query_tokens
    replace_manifest(root, manifest)
    collect_garbage(root, manifest)
    return Written(
        generation,
        built,
        len(sets) - built,
        embedded,
        tokens.tokenized,
        parts.built,
        digests={entry["name"]: entry["sha256"] for entry in entries},
    )


def _engine_writer(
    kind: EngineKind, names: Sequence[str], tokens: TokenCache, parts: Parts
) -> FillEngine:
    """What writes a set's engine into an empty folder: a tantivy set is composed of its
    collections' parts (only a changed collection's part is indexed again); a bm25 set, small
    by choice, is built whole from its token lists."""
    if kind == "tantivy":
        folders = [parts.folder(name) for name in sorted(names)]
        # A linked segment file is its part's: hashed when the part was built or checked.
        recorded = {file: kept for name in names for file, kept in parts.files(name).items()}
        return lambda folder: {
            file: recorded[file] for file in compose(folder, folders) if file in recorded
        }
    corpus = tokens.corpus(names)

    def build(folder: Path) -> dict[str, list[int | str]]:
        build_engine(kind, corpus, folder)
        return {}

    return build


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


def _write_vectors(
    root: Path,
    snapshots: Mapping[str, CollectionSnapshot],
    previous: Previous,
    embedder: Embedder,
    progress: Progress | None,
) -> tuple[dict[str, dict[str, Any]], int]:
    """Each collection's vectors entry; a file whose content and model are unchanged is kept,
    the others are made from the previous rows (by vector key) plus the embedder."""
    tag = model_tag(embedder)
    entries: dict[str, dict[str, Any]] = {}
    checked: dict[str, Vectors] = {}  # file -> its rows, read whole (sha256 checked) here
    todo = []
    for name, snapshot in snapshots.items():
        file = f"vectors/{name}-{fingerprint(snapshot, with_dates=False)}-{tag}.vectors"
        kept = previous.vectors.get(file)
        rows = None if kept is None else _intact(root, file, kept[1], embedder, snapshot)
        if kept is not None and rows is not None:
            entries[name] = dict(kept[1])
            checked[file] = rows
        else:
            todo.append((name, file))
    if not todo:
        return entries, 0
    cache = _previous_rows(root, previous, embedder, snapshots, checked)
    plans = {name: plan_vectors(snapshots[name], embedder.dim, cache) for name, _ in todo}
    total, done = sum(len(plan.missing) for plan in plans.values()), 0

    def step(count: int) -> None:
        nonlocal done
        done += count
        if progress is not None:
            progress("embedding", done, total)

    if progress is not None:
        progress("embedding", 0, total)
    for name, file in todo:
        matrix = fill(plans[name], embedder, step)
        size, digest = write_vectors(root / file, matrix)
        rows, dim = matrix.shape
        entries[name] = {"file": file, "bytes": size, "sha256": digest, "model": embedder.name}
        entries[name] |= {"rows": rows, "dim": dim}
        del plans[name]  # its matrix is on disk: free it before the next collection's
    return entries, total


def _intact(
    root: Path,
    file: str,
    entry: Mapping[str, Any],
    embedder: Embedder,
    snapshot: CollectionSnapshot,
) -> Vectors | None:
    """The rows of a previous vectors file still whole and of this model and snapshot, or None."""
    try:
        expected = (embedder.name, snapshot.chunk_count, embedder.dim)
        if (entry["model"], entry["rows"], entry["dim"]) != expected:
            return None
        return read_entry(root, file, entry)
    except (IndexNotBuiltError, KeyError, TypeError, ValueError):
        return None


def _previous_rows(
    root: Path,
    previous: Previous,
    embedder: Embedder,
    snapshots: Mapping[str, CollectionSnapshot],
    checked: Mapping[str, Vectors],
) -> VectorCache:
    """The rows of the last build's intact vectors files made by this embedder (`checked`:
    those read whole already, not hashed again)."""
    found = []
    for file, (snapshot, entry) in previous.vectors.items():
        try:
            if entry.get("model") != embedder.name:
                continue
            rows = checked.get(file)
            found.append((snapshot, read_entry(root, file, entry) if rows is None else rows))
        except (IndexNotBuiltError, KeyError, TypeError, ValueError):
            continue  # damaged or foreign: its chunks are embedded again
    return VectorCache(found, list(snapshots.values()))
