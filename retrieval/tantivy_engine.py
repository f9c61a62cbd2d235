"""tantivy's BM25 for one collection set, made of one part per collection.

A *part* is a tantivy index of one collection's chunks (`build_part`). Each document is a
chunk's search tokens joined by spaces (a token never holds whitespace: `tokenize` makes them
of word characters, dots and CJK) in a `whitespace`-tokenized field, queried with term queries,
so tantivy never re-tokenizes our tokens nor parses user text as syntax; two fast fields say
which chunk it is: `pos`, its position in its collection, and `part`, its collection's id.

A set's engine (`compose`) is its collections' parts side by side: their segment files linked
into the set's folder and one `meta.json` listing every part's segments. tantivy computes
BM25's statistics (document count, average length, document frequencies) over all the
segments a searcher holds, so a set's scores are those of one index built over exactly the
set's chunks: no chunk of a collection outside the set moves them (design.md, Scope rule 2).
A one-file edit therefore re-indexes one collection's part, and every set holding that
collection is composed again from parts, without adding the other collections' chunks again.

`engine.json` lists the parts as [id, offset, documents]: a hit's position in the set is its
part's offset (the chunks of the collections before it, in `set_chunks` order) plus its `pos`.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import tantivy

from retrieval.durable import UNRECORDED_SUFFIX
from retrieval.engine_meta import META, best_first, meta_count, read_meta, write_meta
from retrieval.errors import IndexNotBuiltError

NAME = "tantivy"
_HEAP = 256_000_000  # enough for one segment per part at 100k chunks
# What tantivy keeps in a folder besides segment files: its own, never shared between folders.
_TANTIVY_META = "meta.json"
_UNSHARED = (META, _TANTIVY_META, ".managed.json")


def part_id(collection: str) -> int:
    """A collection's id in the `part` field: 64 bits of its name's sha256."""
    return int.from_bytes(hashlib.sha256(collection.encode()).digest()[:8], "big")


def build_part(directory: Path, part: int, documents: Iterable[str]) -> None:
    """Write a part into the empty folder `directory`: `documents` are one collection's chunks
    in position order, each its tokens joined by single spaces."""
    _write_part(directory, part, documents)


def compose(directory: Path, parts: Sequence[Path]) -> frozenset[str]:
    """Write into the empty folder `directory` the engine of a set made of `parts` (folders
    written by `build_part`, in the set's position order); returns the names it linked.

    Segment files are hardlinked (copied where the file system cannot link): tantivy never
    changes a segment file once written, so the parts' folders and every set sharing them
    stay as they were, and removing a part's folder later leaves the set's files in place.
    """
    linked: set[str] = set()
    listed: list[list[int]] = []
    segments: list[object] = []
    stamps: list[int] = []
    first: dict[str, Any] | None = None
    for folder in parts:
        part, documents = _single_part(folder)
        own = json.loads((folder / _TANTIVY_META).read_text(encoding="utf-8"))
        if first is None:
            first = own
        elif (own["schema"], own["index_settings"]) != (first["schema"], first["index_settings"]):
            raise IndexNotBuiltError(f"{folder}: a part with another schema than {parts[0]}")
        segments += own["segments"]
        stamps.append(int(own["opstamp"]))
        listed.append([part, sum(count for _, _, count in listed), documents])
        for path in folder.iterdir():
            shared = path.name not in _UNSHARED and not path.name.endswith(UNRECORDED_SUFFIX)
            if shared and _link(path, directory / path.name):
                linked.add(path.name)
    if first is None:
        raise ValueError("a set's engine needs at least one part")
    if len({part for part, _, _ in listed}) != len(listed):
        raise IndexNotBuiltError(f"{directory}: two collections of the set share a part id")
    meta = first | {"segments": segments, "opstamp": max(stamps)}
    (directory / _TANTIVY_META).write_text(json.dumps(meta), encoding="utf-8")
    write_meta(directory, NAME, sum(count for _, _, count in listed), parts=listed)
    return frozenset(linked)


def _single_part(folder: Path) -> tuple[int, int]:
    meta = read_meta(folder)
    parts = _parts(meta, meta_count(meta, "documents", folder), folder)
    if len(parts) != 1:
        raise IndexNotBuiltError(f"{folder}: not a part ({len(parts)} parts in its {META})")
    ((part, (_, documents)),) = parts.items()
    return part, documents


def _link(source: Path, target: Path) -> bool:
    """Hardlink `source` as `target` (True), or copy it where links are not possible (False)."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)
        return False
    return True


def _schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("body", stored=False, tokenizer_name="whitespace", index_option="freq")
    builder.add_unsigned_field("pos", stored=False, indexed=False, fast=True)
    builder.add_unsigned_field("part", stored=False, indexed=False, fast=True)
    return builder.build()


def _write_part(
    directory: Path | None, part: int, documents: Iterable[str]
) -> tuple[tantivy.Index, int]:
    """One part's tantivy index (in memory without `directory`), and its document count."""
    index = tantivy.Index(_schema(), path=None if directory is None else str(directory))
    writer = index.writer(_HEAP, 1)
    count = 0
    for position, body in enumerate(documents):
        document = tantivy.Document()
        document.add_text("body", body)
        document.add_unsigned("pos", position)
        document.add_unsigned("part", part)
        writer.add_document(document)
        count += 1
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    if directory is not None:
        write_meta(directory, NAME, count, parts=[[part, 0, count]])
    return index, count


def _parts(meta: dict[str, object], documents: int, directory: Path) -> dict[int, tuple[int, int]]:
    """part id -> (offset, documents) from engine.json, checked to tile 0..documents."""
    listed = meta.get("parts")
    found: dict[int, tuple[int, int]] = {}
    offset = 0
    for item in listed if isinstance(listed, list) else [None]:
        if (
            not isinstance(item, list)
            or len(item) != 3
            or not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in item)
            or item[1] != offset
            or item[0] in found
        ):
            raise IndexNotBuiltError(f"{directory}: {META} lists no readable parts ({listed!r})")
        found[item[0]] = (offset, item[2])
        offset += item[2]
    if offset != documents:
        raise IndexNotBuiltError(
            f"{directory}: {META} says {documents} documents, its parts hold {offset}"
        )
    return found


class TantivyEngine:
    """tantivy's BM25 (Lucene's: k1=1.2, b=0.75, idf ln(1+(N-df+.5)/(df+.5)))."""

    name = NAME

    def __init__(self, index: tantivy.Index, documents: int, offsets: dict[int, int]) -> None:
        self._index = index
        self._schema = index.schema
        self._searcher = index.searcher()
        self._documents = documents
        self._offsets = offsets  # part id -> position of its first chunk in the set

    @classmethod
    def build(cls, corpus: Sequence[Sequence[str]], directory: Path | None = None) -> TantivyEngine:
        """One part over `corpus` (doc position = list position), in `directory` if given."""
        documents = (" ".join(tokens) for tokens in corpus)
        index, count = _write_part(directory, 0, documents)
        return cls(index, count, {0: 0})

    @classmethod
    def open(cls, directory: Path, meta: dict[str, object]) -> TantivyEngine:
        documents = meta_count(meta, "documents", directory)
        offsets = {part: offset for part, (offset, _) in _parts(meta, documents, directory).items()}
        try:
            engine = cls(tantivy.Index.open(str(directory)), documents, offsets)
        except (OSError, ValueError) as exc:
            raise IndexNotBuiltError(f"{directory}: cannot open the tantivy index ({exc})") from exc
        found = engine._searcher.num_docs
        if found != documents:
            raise IndexNotBuiltError(
                f"{directory}: damaged tantivy index ({found} documents, {META} says {documents})"
            )
        return engine

    def frequencies(self, terms: Sequence[str]) -> tuple[int, list[int]]:
        return self._documents, [self._searcher.doc_freq("body", term) for term in terms]

    def top_k(self, query_tokens: Sequence[str], k: int) -> list[tuple[int, float]]:
        if not query_tokens or k <= 0:
            return []
        should = tantivy.Occur.Should
        query = tantivy.Query.boolean_query(
            [(should, tantivy.Query.term_query(self._schema, "body", t)) for t in query_tokens]
        )
        limit = k + 1
        while True:
            hits = self._searcher.search(query, limit, count=False).hits
            # Done once every match is in, or the last hit scores strictly below the k-th:
            # then every document tied with the k-th is among the hits, and best_first
            # can break the tie by position whatever order tantivy collected them in.
            if len(hits) < limit or hits[-1][0] < hits[k - 1][0]:
                break
            limit *= 4
        if not hits:
            return []
        addresses = [address for _, address in hits]
        positions = np.array(self._searcher.fast_field_values("pos", addresses), dtype=np.int64)
        parts = np.array(self._searcher.fast_field_values("part", addresses), dtype=np.uint64)
        positions += np.array([self._offsets[int(part)] for part in parts], dtype=np.int64)
        return best_first(positions, np.array([score for score, _ in hits]), k)
