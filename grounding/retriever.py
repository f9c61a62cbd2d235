"""The Retriever seam, declared here by its consumer; `retrieval.index.Index` conforms to it.

`search_all` is how an answer searches: the question and its rewrites, in one scope, fused,
with at most `RELEASE_NOTE_CAP` of the hits from release notes (retrieval.release_notes).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from retrieval.chunks import Chunk, Hit
from retrieval.fusion import fuse_queries
from retrieval.release_notes import chunk_is_release_note
from retrieval.scopes import Scope

# How many of one question's hits may come from release notes (a version-named file or
# section): old versions' notes name every setting and API the docs have, so without a cap they
# filled the packet for questions about how things are now. Fit by
# `python -m benchmarks.release_note_cap` (most answered right on the development sets' train
# split); numbers in docs/performance.md. None = no cap.
RELEASE_NOTE_CAP: int | None = None


class Retriever(Protocol):
    @property
    def generation(self) -> str:
        """Identifies the index build the hits come from."""
        ...

    def search(self, query: str, scope: Scope, k: int) -> tuple[Hit, ...]:
        """The top `k` chunks of `scope` for `query`; nothing outside `scope` is ever scored."""
        ...

    def adjacent(self, chunk: Chunk) -> tuple[Chunk | None, Chunk | None]:
        """The chunks just before and just after `chunk` in its file (None at either end)."""
        ...


def search_all(
    retriever: Retriever,
    queries: Sequence[str],
    scope: Scope,
    k: int,
    release_note_cap: int | None = RELEASE_NOTE_CAP,
) -> tuple[Hit, ...]:
    """Each query searched in the same `scope`, the hit lists fused; one query ranks as alone.

    With a `release_note_cap`, each query is searched twice as deep and, in rank order, a
    release-note hit past the cap gives its place to the next other hit: a question about a
    release still gets its best `release_note_cap` notes, ranked where they were.
    """
    if release_note_cap is None:
        return fuse_queries([retriever.search(query, scope, k) for query in queries], k)
    deep = fuse_queries([retriever.search(query, scope, 2 * k) for query in queries], 2 * k)
    return cap_release_notes(deep, k, release_note_cap)


def cap_release_notes(hits: Sequence[Hit], k: int, cap: int) -> tuple[Hit, ...]:
    """The first `k` of `hits` (in rank order) holding at most `cap` release-note chunks, ranked
    1..k again; notes past the cap come back, in rank order, only where no other hit is left."""
    kept: list[Hit] = []
    passed: list[Hit] = []
    notes = 0
    for hit in sorted(hits, key=lambda h: h.rank):
        if len(kept) == k:
            break
        if chunk_is_release_note(hit.chunk):
            if notes >= cap:
                passed.append(hit)
                continue
            notes += 1
        kept.append(hit)
    kept = sorted([*kept, *passed[: max(k - len(kept), 0)]], key=lambda h: h.rank)
    return tuple(Hit(hit.chunk, hit.score, rank) for rank, hit in enumerate(kept, 1))


def demote_release_notes(hits: Sequence[Hit], k: int, places: int) -> tuple[Hit, ...]:
    """The first `k` of `hits` once each release-note chunk ranks `places` places later (ties
    to the other hit), ranked 1..k again."""

    def key(hit: Hit) -> tuple[int, int]:
        note = chunk_is_release_note(hit.chunk)
        return (hit.rank + places if note else hit.rank, int(note))

    kept = sorted(hits, key=key)[:k]
    return tuple(Hit(hit.chunk, hit.score, rank) for rank, hit in enumerate(kept, 1))


@runtime_checkable
class Outlined(Protocol):
    """A retriever that can list the chunks of a scope (the index does)."""

    def chunks(self, scope: Scope) -> tuple[Chunk, ...]: ...


def top_headings(retriever: Retriever, scope: Scope, limit: int) -> tuple[str, ...]:
    """Up to `limit` distinct top-level headings of what `scope` may read, in index order, taken
    from each readable collection in turn so that every one is represented; () when the
    retriever cannot list chunks or the scope reads nothing."""
    if not isinstance(retriever, Outlined) or scope.is_empty:
        return ()
    per_collection: dict[str, list[str]] = {}
    for chunk in retriever.chunks(scope):
        if chunk.heading_path and chunk.heading_path[0].strip():
            found = per_collection.setdefault(chunk.collection, [])
            if chunk.heading_path[0] not in found:
                found.append(chunk.heading_path[0])
    picked: list[str] = []
    for round_ in itertools.zip_longest(*per_collection.values()):
        for heading in round_:
            if heading is not None and heading not in picked and len(picked) < limit:
                picked.append(heading)
    return tuple(picked)
