"""Hand-written fakes for the grounding seams: a recording Generator and an in-memory Retriever.

Both are checked against the Protocols at the bottom of this module (mypy runs on tests too).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from grounding.answer import Usage
from grounding.evidence import TokenCounter
from grounding.generators.base import Generation, GenerationError, GenerationRequest, Generator
from grounding.retriever import Retriever
from grounding.schema import GroundedClaim, GroundedResponse
from retrieval.chunks import Chunk, Hit, make_chunk_id, text_digest
from retrieval.scopes import ConversationKind, Scope


def make_chunk(
    text: str,
    *,
    collection: str = "handbook",
    path: str = "deploy.md",
    heading_path: tuple[str, ...] = ("Deploy",),
    start_line: int = 1,
    occurrence: int = 0,
    updated: str = "2026-10-02",
) -> Chunk:
    digest = text_digest(text)
    return Chunk(
        chunk_id=make_chunk_id(collection, path, digest, occurrence),
        collection=collection,
        path=path,
        heading_path=heading_path,
        start_line=start_line,
        end_line=start_line + text.count("\n"),
        text=text,
        digest=digest,
        updated=updated,
    )


def make_scope(*collections: str, channel: str = "C1") -> Scope:
    return Scope("T1", channel, ConversationKind.CHANNEL, tuple(sorted(collections)))


def hits_of(*chunks: Chunk, scores: Sequence[float] | None = None) -> tuple[Hit, ...]:
    values = scores if scores is not None else [10.0 - i for i in range(len(chunks))]
    return tuple(Hit(c, s, i + 1) for i, (c, s) in enumerate(zip(chunks, values, strict=True)))


class WordCounter:
    """Counts whitespace-separated words: predictable budgets without a tokenizer."""

    def count(self, text: str) -> int:
        return len(text.split())


ClaimSpec = tuple[str, Sequence[str]] | tuple[str, Sequence[str], Sequence[str]]


def response(*claims: ClaimSpec, message: str = "") -> GroundedResponse:
    """An answered response; each claim is (text, citations) or (text, citations, quotes). A
    claim given without quotes quotes itself, as the extractive generator's do."""
    return GroundedResponse(status="answered", claims=[_claim(c) for c in claims], message=message)


def _claim(spec: ClaimSpec) -> GroundedClaim:
    text, citations = spec[0], list(spec[1])
    quotes = list(spec[2]) if len(spec) == 3 else [text]
    return GroundedClaim(text=text, citations=citations, quotes=quotes)


def insufficient(message: str = "The evidence does not say.") -> GroundedResponse:
    return GroundedResponse(status="insufficient_context", claims=[], message=message)


Script = GroundedResponse | GenerationError | Callable[[GenerationRequest], GroundedResponse]


@dataclass
class RecordingGenerator:
    """Replies from a script, one entry per call (the last one repeats); records every request."""

    script: list[Script]
    usage: Usage = Usage(input_tokens=100, output_tokens=20)
    requests: list[GenerationRequest] = field(default_factory=list)

    @property
    def name(self) -> str:
        return "fake"

    async def generate(self, request: GenerationRequest) -> Generation:
        self.requests.append(request)
        step = self.script[min(len(self.requests), len(self.script)) - 1]
        if isinstance(step, GenerationError):
            raise step
        result = step if isinstance(step, GroundedResponse) else step(request)
        return Generation(result, self.usage)


@dataclass
class FakeRetriever:
    """Scores chunks by shared words with the query; only the scope's collections are looked at."""

    chunks: Sequence[Chunk]
    generation: str = "gen-1"
    queries: list[str] = field(default_factory=list)
    scopes: list[Scope] = field(default_factory=list)  # the scope of each search, in order

    def search(self, query: str, scope: Scope, k: int) -> tuple[Hit, ...]:
        self.queries.append(query)
        self.scopes.append(scope)
        words = set(_words(query))
        scored = []
        for position, chunk in enumerate(self.chunks):
            if chunk.collection not in scope.collections:
                continue
            score = float(len(words & set(_words(chunk.text))))
            if score > 0:
                scored.append((-score, position, chunk))
        scored.sort(key=lambda item: (item[0], item[1]))
        return tuple(Hit(c, -s, rank) for rank, (s, _, c) in enumerate(scored[:k], start=1))

    def adjacent(self, chunk: Chunk) -> tuple[Chunk | None, Chunk | None]:
        same_file = [
            c for c in self.chunks if (c.collection, c.path) == (chunk.collection, chunk.path)
        ]
        same_file.sort(key=lambda c: c.start_line)
        index = next(i for i, c in enumerate(same_file) if c.chunk_id == chunk.chunk_id)
        before = same_file[index - 1] if index > 0 else None
        after = same_file[index + 1] if index + 1 < len(same_file) else None
        return before, after


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.casefold())


# Structural conformance, checked by mypy.
_generator: Generator = RecordingGenerator([insufficient()])
_retriever: Retriever = FakeRetriever(())
_counter: TokenCounter = WordCounter()
