"""The Retriever seam, declared here by its consumer; `retrieval.index.Index` conforms to it.

`search_all` is how an answer searches: the question and its rewrites, in one scope, fused.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

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
