"""The Retriever seam, declared here by its consumer; `retrieval.index.Index` conforms to it.

`search_all` is how an answer searches: the question and its rewrites, in one scope, fused.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from retrieval.chunks import Chunk, Hit
from retrieval.fusion import fuse_queries
from retrieval.scopes import Scope


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
    retriever: Retriever, queries: Sequence[str], scope: Scope, k: int
) -> tuple[Hit, ...]:
    """Each query searched in the same `scope`, the hit lists fused; one query ranks as alone."""
    return fuse_queries([retriever.search(query, scope, k) for query in queries], k)


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
