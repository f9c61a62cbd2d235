"""The Retriever seam, declared here by its consumer; `retrieval.index.Index` conforms to it.

`search_all` is how an answer searches: the question and its rewrites, in one scope, fused.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from retrieval.chunks import Chunk, Hit, first_headings
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


@runtime_checkable
class Headed(Protocol):
    """A retriever that knows each collection's top-level headings without a walk over its
    chunks per call (the index works them out once per load)."""

    def top_level_headings(self, collection: str) -> tuple[str, ...]: ...


def top_headings(retriever: Retriever, scope: Scope, limit: int) -> tuple[str, ...]:
    """Up to `limit` distinct top-level headings of what `scope` may read, in index order, taken
    from each readable collection in turn (by name) so that every one is represented; () when
    the retriever can neither tell headings nor list chunks, or the scope reads nothing."""
    if scope.is_empty:
        return ()
    names = sorted(set(scope.collections))
    if isinstance(retriever, Headed):
        per_collection = [retriever.top_level_headings(name) for name in names]
    elif isinstance(retriever, Outlined):
        listed = retriever.chunks(scope)
        per_collection = [first_headings(c for c in listed if c.collection == n) for n in names]
    else:
        return ()
    picked: list[str] = []
    for round_ in itertools.zip_longest(*per_collection):
        for heading in round_:
            if heading is not None and heading not in picked and len(picked) < limit:
                picked.append(heading)
    return tuple(picked)
