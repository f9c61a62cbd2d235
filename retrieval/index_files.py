"""What `Index.load` reads, each file checked against the manifest: which collections a load
reads, their snapshots, the engines of the sets they make, and their dense vectors."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from retrieval import dense
from retrieval.collections import chunking_key, selection_key
from retrieval.config import Config
from retrieval.dense import DenseScorer
from retrieval.durable import verify_folder
from retrieval.embeddings import Embedder
from retrieval.engines import Engine, open_engine
from retrieval.errors import IndexNotBuiltError, IndexOutdatedError
from retrieval.manifest import open_snapshot, run_index
from retrieval.scopes import readers
from retrieval.snapshot_file import StoredSnapshot
from retrieval.vectors_file import VectorsFileError


def to_read(config: Config, wanted: frozenset[str] | None) -> frozenset[str]:
    """The collections a load reads: `wanted` (all when None), and any other collection whose
    folder nests in or holds a wanted one's with other readers, so that the check that no file
    is indexed by two collections with different readers still sees both sides."""
    everything = frozenset(collection.name for collection in config.collections)
    if wanted is None:
        return everything
    mine = [c for c in config.collections if c.name in wanted]
    overlapping = {
        other.name
        for other in config.collections
        for collection in mine
        if other.name not in wanted
        and readers(other) != readers(collection)
        and _nested(other.folder, collection.folder)
    }
    return (wanted & everything) | overlapping


def _nested(a: Path, b: Path) -> bool:
    return a == b or a in b.parents or b in a.parents


def load_snapshots(
    root: Path,
    config: Config,
    entries: Mapping[str, Mapping[str, Any]],
    names: frozenset[str],
    *,
    whole: bool,
) -> dict[str, StoredSnapshot]:
    expected = chunking_key(config.search)
    snapshots = {}
    for collection in config.collections:
        if collection.name not in names:
            continue
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
        # A whole load (serve, ask) checks whole files; a scope's (one search), what it reads.
        snapshots[collection.name] = open_snapshot(root, entry, whole=whole)
    return snapshots


def open_engines(
    root: Path, sets: Sequence[Mapping[str, Any]], snapshots: Mapping[str, StoredSnapshot]
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
            except IndexOutdatedError as exc:  # not damage: the next build writes a new one
                raise IndexOutdatedError(
                    f"the search engine for {', '.join(names)} needs rebuilding: {exc}: "
                    f"{run_index('again')}"
                ) from exc
            except IndexNotBuiltError as exc:
                raise IndexNotBuiltError(
                    f"the search engine for {', '.join(names)} is damaged ({exc}): "
                    f"{run_index('again')}"
                ) from exc
    return engines


def open_vectors(
    root: Path,
    entries: Mapping[str, Mapping[str, Any]],
    snapshots: Mapping[str, StoredSnapshot],
    embedder: Embedder,
    *,
    whole: bool,
) -> DenseScorer:
    """Every loaded collection's vectors, checked against the manifest and the model: whole
    files if `whole` (a long-lived load), else what a search reads (retrieval/vectors_file.py)."""
    blocks = {}
    for name, snapshot in snapshots.items():
        entry = entries[name].get("vectors")
        if not isinstance(entry, dict):
            raise IndexNotBuiltError(
                f"the index has no dense vectors for collection {name!r} (it was built with "
                f"`retrieval: {{dense: false}}`): {run_index('to add them')}, or set "
                "`retrieval: {dense: false}` in the config to search with BM25 alone"
            )
        if entry["model"] != embedder.name:
            raise IndexNotBuiltError(
                f"the vectors of collection {name!r} were made by the embedding model "
                f"{entry['model']!r}, not {embedder.name!r}, which this docbot uses: "
                f"{run_index('again')}"
            )
        if (entry["rows"], entry["dim"]) != (snapshot.chunk_count, embedder.dim):
            raise IndexNotBuiltError(
                f"the vectors of collection {name!r} do not fit its chunks "
                f"({entry['rows']}x{entry['dim']} for {snapshot.chunk_count} chunks of "
                f"{embedder.dim} dimensions): {run_index('again')}"
            )
        try:
            blocks[name] = dense.open_vectors(root, entry, whole=whole, fix=run_index("again"))
        except VectorsFileError:
            raise  # says which file, what is wrong and the fix
        except IndexNotBuiltError as exc:
            raise IndexNotBuiltError(
                f"the dense vectors of collection {name!r} are damaged ({exc}): "
                f"{run_index('again')}"
            ) from exc
    return DenseScorer(embedder, blocks)
