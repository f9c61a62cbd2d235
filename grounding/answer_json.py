"""An `Answer` read back from the answer object `Answer.to_dict` writes (design.md), as the answer
store keeps it: the same type comes back, not a free dict.

Keys that an earlier docbot did not write yet (`quotes`, `other_language`, `omitted`, ...) read as
their defaults, so answers stored by any earlier version still load; a value of the wrong shape
raises AnswerFormatError, naming the key.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from grounding.answer import (
    Answer,
    AnswerStatus,
    Claim,
    DroppedClaim,
    GateVerdict,
    NoAnswer,
    Omitted,
    Retrieved,
    Source,
    Usage,
)
from retrieval.scopes import ConversationKind, Scope

T = TypeVar("T")


class AnswerFormatError(ValueError):
    """A stored answer object is not one `Answer.to_dict` could have written."""


def answer_from_dict(data: Mapping[str, Any]) -> Answer:
    try:
        return _answer(data)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise AnswerFormatError(f"not an answer object ({type(exc).__name__}: {exc})") from None


# A reason code this docbot does not know (a newer replica wrote it, sharing the store in a
# rolling upgrade) reads as the nearest one it knows for the answer's status.
_NEAREST_REASON: Mapping[AnswerStatus, NoAnswer] = {
    AnswerStatus.ERROR: NoAnswer.MODEL_UNAVAILABLE,
    AnswerStatus.NOT_FOUND: NoAnswer.NOT_IN_DOCS,
}


def _reason(value: object, status: AnswerStatus) -> NoAnswer | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise TypeError(f"reason {value!r} is not a string")
    try:
        return NoAnswer(value)
    except ValueError:
        return _NEAREST_REASON.get(status)


def _answer(data: Mapping[str, Any]) -> Answer:
    scope = data["scope"]
    usage = data.get("usage") or {}
    return Answer(
        status=AnswerStatus(data["status"]),
        question=str(data["question"]),
        scope=Scope(
            str(scope["team"]),
            str(scope["channel"]),
            ConversationKind(scope["kind"]),
            tuple(str(name) for name in scope["collections"]),
        ),
        claims=_each(data, "claims", _claim),
        sources=_each(data, "sources", _source),
        message=str(data.get("message", "")),
        reason=_reason(data.get("reason"), AnswerStatus(data["status"])),
        dropped_claims=_each(
            data,
            "dropped_claims",
            lambda d: DroppedClaim(str(d["text"]), str(d["reason"]), str(d.get("detail", ""))),
        ),
        retrieved=_each(
            data,
            "retrieved",
            lambda r: Retrieved(
                str(r["chunk_id"]), str(r["path"]), float(r["score"]), str(r.get("collection", ""))
            ),
        ),
        omitted=_each(
            data,
            "omitted",
            lambda o: Omitted(str(o["chunk_id"]), str(o["reason"]), str(o.get("detail", ""))),
        ),
        generator=str(data.get("generator", "")),
        usage=Usage(int(usage.get("input_tokens", 0)), int(usage.get("output_tokens", 0))),
        timings_ms={str(k): float(v) for k, v in (data.get("timings_ms") or {}).items()},
        rewrites=tuple(str(query) for query in data.get("rewrites") or ()),
        error_detail=str(data.get("error_detail", "")),
        gate=None if data.get("gate") is None else _gate(data["gate"]),
    )


def _each(data: Mapping[str, Any], key: str, read: Callable[[Any], T]) -> tuple[T, ...]:
    items = data.get(key) or ()
    if not isinstance(items, list | tuple):
        raise TypeError(f"{key} is {type(items).__name__}, not a list")
    return tuple(read(item) for item in items)


def _claim(c: Mapping[str, Any]) -> Claim:
    return Claim(
        str(c["text"]), tuple(int(n) for n in c["citations"]),
        tuple(str(q) for q in c.get("quotes") or ()), bool(c.get("other_language", False)),
    )  # fmt: skip


def _source(s: Mapping[str, Any]) -> Source:
    url = s.get("url")
    return Source(
        n=int(s["n"]), collection=str(s["collection"]), path=str(s["path"]),
        heading=str(s.get("heading", "")), start_line=int(s["start_line"]),
        end_line=int(s["end_line"]), url=None if url is None else str(url),
        chunk_id=str(s["chunk_id"]), updated=str(s.get("updated", "")),
    )  # fmt: skip


def _gate(g: Mapping[str, Any]) -> GateVerdict:
    return GateVerdict(bool(g["near"]), float(g["nearness"]), float(g["threshold"]))
