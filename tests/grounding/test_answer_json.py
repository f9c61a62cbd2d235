"""An answer written by `Answer.to_dict` reads back as the same `Answer` (the answer store keeps
it so); older answer objects without later keys still read; a malformed one is refused."""

from __future__ import annotations

from dataclasses import MISSING, fields
from typing import Any

import pytest

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
from grounding.answer_json import AnswerFormatError, answer_from_dict
from retrieval.scopes import ConversationKind, Scope

FULL = Answer(
    status=AnswerStatus.ANSWERED,
    question="how do I roll back?",
    scope=Scope("T1", "C1", ConversationKind.PRIVATE, ("handbook", "payments")),
    claims=(Claim("Run `make rollback`.", (1, 2), ("make rollback",), other_language=True),),
    sources=(
        Source(
            1,
            "handbook",
            "deploy.md",
            "Rollback",
            40,
            52,
            "https://x/deploy.md#L40",
            "chunk-a",
            "2026-10-02",
        ),
        Source(2, "payments", "keys.md", "", 1, 3, None, "chunk-b", ""),
    ),
    message="a note",
    reason=NoAnswer.NO_ACCESS,
    dropped_claims=(DroppedClaim("Maybe reboot.", "unsupported", "no overlap"),),
    retrieved=(Retrieved("chunk-a", "deploy.md", 7.25, "handbook"),),
    omitted=(Omitted("chunk-c", "duplicate", "chunk-a"),),
    generator="openai:gpt",
    usage=Usage(120, 30),
    timings_ms={"retrieve": 1.5, "generate": 250.125},
    rewrites=("rollback procedure",),
    error_detail="generation: HTTP 500",
    gate=GateVerdict(True, 0.8125, 0.5),
)


def _unset(value: Any) -> list[str]:
    """The dataclass fields of `value` still at their default (required fields never are)."""
    unset = []
    for f in fields(value):
        if f.default is not MISSING:
            default: object = f.default
        elif f.default_factory is not MISSING:
            default = f.default_factory()
        else:
            continue
        if getattr(value, f.name) == default:
            unset.append(f.name)
    return unset


def test_answer_json_full_answer_sets_every_field() -> None:
    """A field Answer or Claim gains must be set here, so the round trip below checks that
    answer_json reads it back (else a stored answer silently loses it)."""
    assert _unset(FULL) == [] and _unset(FULL.claims[0]) == []


def test_answer_json_round_trips_every_field() -> None:
    assert answer_from_dict(FULL.to_dict()) == FULL
    # Guard: a key to_dict gains must be read back too, or this differs.
    assert answer_from_dict(FULL.to_dict()).to_dict() == FULL.to_dict()


def test_answer_json_reads_an_answer_object_from_before_later_keys() -> None:
    old = FULL.to_dict()
    for key in (
        "omitted",
        "error_detail",
        "dropped_claims",
        "timings_ms",
        "usage",
        "reason",
        "rewrites",
        "gate",
    ):
        del old[key]
    del old["claims"][0]["quotes"], old["claims"][0]["other_language"]
    read = answer_from_dict(old)
    assert read.omitted == () and read.error_detail == "" and read.usage == Usage()
    assert read.reason is None and read.rewrites == () and read.gate is None
    assert read.claims == (Claim("Run `make rollback`.", (1, 2)),)


@pytest.mark.parametrize(
    "broken",
    [{}, {**FULL.to_dict(), "status": "maybe"}, {**FULL.to_dict(), "sources": "deploy.md"},
     {**FULL.to_dict(), "claims": [{"text": "x"}]}],
)  # fmt: skip
def test_answer_json_refuses_what_to_dict_cannot_have_written(broken: dict[str, object]) -> None:
    with pytest.raises(AnswerFormatError, match="not an answer object"):
        answer_from_dict(broken)


@pytest.mark.parametrize(
    ("status", "nearest"),
    [
        (AnswerStatus.ERROR, NoAnswer.MODEL_UNAVAILABLE),
        (AnswerStatus.NOT_FOUND, NoAnswer.NOT_IN_DOCS),
        (AnswerStatus.REFUSED, None),
    ],
)
def test_answer_json_reads_a_reason_code_of_a_newer_docbot_as_the_nearest_it_knows(
    status: AnswerStatus, nearest: NoAnswer | None
) -> None:
    """Replicas of two versions share a store during a rolling upgrade: a reason code added
    later is read, not refused as a damaged store."""
    data = {**FULL.to_dict(), "status": status.value, "reason": "model_something_new"}
    assert answer_from_dict(data).reason is nearest
