"""The Retriever seam, declared here by its consumer; `retrieval.index.Index` conforms to it."""

from __future__ import annotations

from typing import Protocol

from retrieval.chunks import Chunk, Hit
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
