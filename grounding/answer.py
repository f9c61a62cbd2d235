"""The Answer: what the pipeline returns, `docbot ask --json` prints and the bot renders."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from retrieval.scopes import Scope


class NoAnswer(StrEnum):
    """Why an answer has no claims, as a code: the bot words it (bot/render), not grounding."""

    UNVERIFIED_CHANNEL = "unverified_channel"  # refused: Slack could not say what it is
    NO_ACCESS = "no_access"  # refused: the conversation may read no collection
    NOT_IN_DOCS = "not_in_docs"  # not found: nothing near, or the evidence does not answer it
    NO_CLAIMS = "no_claims"  # not found: the answer made no statement citing the evidence
    UNVERIFIED = "unverified"  # not found: every statement failed verification (see dropped)
    # error: the language model failed (its GenerationError kind and message are in error_detail)
    MODEL_RATE_LIMITED = "model_rate_limited"
    MODEL_TIMEOUT = "model_timeout"
    MODEL_UNAVAILABLE = "model_unavailable"  # down, or failing: it may work again soon
    MODEL_SETUP = "model_setup"  # refused docbot's key, account or request: an admin must act
    MODEL_REFUSED = "model_refused"  # it declined this question
    MODEL_INCOMPLETE = "model_incomplete"  # its reply was cut off
    MODEL_INVALID = "model_invalid"  # its reply was not an answer of the schema


class AnswerStatus(StrEnum):
    ANSWERED = "answered"
    NOT_FOUND = "not_found"
    REFUSED = "refused"  # policy: the conversation may read nothing
    ERROR = "error"


@dataclass(frozen=True, slots=True)
class Claim:
    text: str
    citations: tuple[int, ...]  # source numbers `n`
    quotes: tuple[str, ...] = ()  # the verbatim excerpts of its sources it was checked against
    # Written in another language than its sources: only its quotes, numbers and identifiers
    # could be checked, so the reply shows its quotes for the reader to check the rest.
    other_language: bool = False


@dataclass(frozen=True, slots=True)
class Source:
    n: int
    collection: str
    path: str
    heading: str
    start_line: int
    end_line: int
    url: str | None
    chunk_id: str
    updated: str


@dataclass(frozen=True, slots=True)
class DroppedClaim:
    text: str
    reason: str  # unsupported | unquoted | unknown_citation | no_citation
    detail: str = ""


@dataclass(frozen=True, slots=True)
class Retrieved:
    chunk_id: str
    path: str
    score: float
    collection: str = ""


@dataclass(frozen=True, slots=True)
class Omitted:
    chunk_id: str
    reason: str
    detail: str = ""  # e.g. the chunk id this one has the same text as


@dataclass(frozen=True, slots=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        """The tokens of two model calls, as one answer spent them."""
        return Usage(
            self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens
        )


@dataclass(frozen=True, slots=True)
class GateVerdict:
    """What the gate before the generator decided (grounding/gate.py)."""

    near: bool  # False: answered not_found without calling the generator
    nearness: float
    threshold: float


@dataclass(frozen=True, slots=True)
class Answer:
    status: AnswerStatus
    question: str
    scope: Scope
    claims: tuple[Claim, ...] = ()
    sources: tuple[Source, ...] = ()
    message: str = ""
    reason: NoAnswer | None = None  # a refusal's cause; the bot renders the words for it
    dropped_claims: tuple[DroppedClaim, ...] = ()
    retrieved: tuple[Retrieved, ...] = ()
    omitted: tuple[Omitted, ...] = ()
    generator: str = ""
    usage: Usage = Usage()
    timings_ms: dict[str, float] = field(default_factory=dict)
    # The model's search queries searched beside the question (grounding/rewrite.py); () when
    # there was no rewrite. For admins: what was searched, when an answer is reported wrong.
    rewrites: tuple[str, ...] = ()
    # For admins (log, stored answer, `docbot ask --json`), never shown in Slack: on an `error`
    # answer, "<kind>: <the generator's message>", which may name the server's reply.
    error_detail: str = ""
    gate: GateVerdict | None = None  # None: no gate ran (no hits, or no gate configured)

    def to_dict(self) -> dict[str, Any]:
        """The answer object of design.md."""
        return {
            "status": self.status.value,
            "question": self.question,
            "scope": self.scope.to_dict(),
            "claims": [
                {
                    "text": c.text,
                    "citations": list(c.citations),
                    "quotes": list(c.quotes),
                    "other_language": c.other_language,
                }
                for c in self.claims
            ],
            "sources": [
                {
                    "n": s.n,
                    "collection": s.collection,
                    "path": s.path,
                    "heading": s.heading,
                    "start_line": s.start_line,
                    "end_line": s.end_line,
                    "url": s.url,
                    "chunk_id": s.chunk_id,
                    "updated": s.updated,
                }
                for s in self.sources
            ],
            "message": self.message,
            "reason": self.reason.value if self.reason else None,
            "dropped_claims": [
                {"text": d.text, "reason": d.reason, "detail": d.detail}
                for d in self.dropped_claims
            ],
            "retrieved": [
                {
                    "chunk_id": r.chunk_id,
                    "collection": r.collection,
                    "path": r.path,
                    "score": round(r.score, 4),
                }
                for r in self.retrieved
            ],
            "omitted": [
                {"chunk_id": o.chunk_id, "reason": o.reason, "detail": o.detail}
                for o in self.omitted
            ],
            "generator": self.generator,
            "usage": {
                "input_tokens": self.usage.input_tokens,
                "output_tokens": self.usage.output_tokens,
            },
            "timings_ms": {k: round(v, 3) for k, v in self.timings_ms.items()},
            "rewrites": list(self.rewrites),
            "error_detail": self.error_detail,
            "gate": None
            if self.gate is None
            else {
                "near": self.gate.near,
                "nearness": round(self.gate.nearness, 4),
                "threshold": self.gate.threshold,
            },
        }
