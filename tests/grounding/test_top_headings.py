"""top_headings: what a scope's documents are about, for the messages tab's suggested prompts:
distinct top-level headings, each readable collection in turn, in index order, never a heading
of a collection outside the scope."""

from __future__ import annotations

from grounding.retriever import top_headings
from retrieval.chunks import Chunk, Hit
from retrieval.scopes import ConversationKind, Scope


def _chunk(collection: str, n: int, *headings: str) -> Chunk:
    return Chunk(
        chunk_id=f"{collection}-{n}", collection=collection, path=f"{n}.md",
        heading_path=tuple(headings), start_line=1, end_line=2, text="text", digest="d",
        updated="2026-01-01",
    )  # fmt: skip


CHUNKS = (
    _chunk("alpha", 1, "Deploying", "Steps"),
    _chunk("alpha", 2, "Deploying", "Rollback"),
    _chunk("alpha", 3, "On-call"),
    _chunk("alpha", 4),  # no heading: skipped
    _chunk("alpha", 5, "Runbooks"),
    _chunk("beta", 1, "Payments API keys"),
    _chunk("beta", 2, "Refunds"),
)


class ListingRetriever:
    """A retriever over CHUNKS that can list a scope's chunks, as the index does."""

    generation = "test"

    def search(self, query: str, scope: Scope, k: int) -> tuple[Hit, ...]:
        return ()

    def adjacent(self, chunk: Chunk) -> tuple[Chunk | None, Chunk | None]:
        return None, None

    def chunks(self, scope: Scope) -> tuple[Chunk, ...]:
        return tuple(c for c in CHUNKS if c.collection in scope.collections)


class SearchOnly:
    generation = "test"

    def search(self, query: str, scope: Scope, k: int) -> tuple[Hit, ...]:
        return ()

    def adjacent(self, chunk: Chunk) -> tuple[Chunk | None, Chunk | None]:
        return None, None


def _scope(*collections: str) -> Scope:
    return Scope("T0", "D0", ConversationKind.DM, tuple(sorted(collections)))


def test_top_headings_take_each_collection_in_turn_up_to_the_limit() -> None:
    both = top_headings(ListingRetriever(), _scope("alpha", "beta"), 4)
    assert both == ("Deploying", "Payments API keys", "On-call", "Refunds")
    assert top_headings(ListingRetriever(), _scope("alpha", "beta"), 10)[-1] == "Runbooks"


def test_top_headings_read_only_the_scope() -> None:
    assert top_headings(ListingRetriever(), _scope("alpha"), 4) == (
        "Deploying", "On-call", "Runbooks",
    )  # fmt: skip
    assert top_headings(ListingRetriever(), _scope(), 4) == ()


def test_top_headings_of_a_retriever_that_cannot_list_chunks_are_none() -> None:
    assert top_headings(SearchOnly(), _scope("alpha"), 4) == ()
