"""Quotes through the pipeline: an invented quote earns the one regeneration, with the quote
named; the kept claims carry their quotes into the Answer; the extractive generator quotes."""

from __future__ import annotations

import asyncio

from grounding.answer import Answer, AnswerStatus
from grounding.evidence import PackPolicy
from grounding.generators.extractive import ExtractiveGenerator
from grounding.pipeline import AnswerPipeline
from grounding.prompt import correction_note
from tests.grounding.fakes import (
    FakeRetriever,
    RecordingGenerator,
    Script,
    WordCounter,
    make_chunk,
    make_scope,
    response,
)

ROTATE = make_chunk(
    "Rotate the payments API key every 90 days with the rotate-key job.",
    collection="payments",
    path="keys.md",
    heading_path=("Keys", "Rotation"),
)
SCOPE = make_scope("payments")
QUESTION = "how often do we rotate the payments key?"
CLAIM = "You rotate the payments API key every 90 days."
GOOD = response((CLAIM, ["E1"], ["Rotate the payments API key every 90 days"]))


def _answer(script: list[Script]) -> tuple[Answer, RecordingGenerator]:
    generator = RecordingGenerator(script)
    pipeline = AnswerPipeline(
        FakeRetriever((ROTATE,)), generator, WordCounter(), PackPolicy(), str, k=5
    )
    return asyncio.run(pipeline.answer(QUESTION, SCOPE)), generator


def test_invented_quote_regenerates_once_naming_the_quote() -> None:
    invented = response((CLAIM, ["E1"], ["Keys are rotated every 90 days."]))
    answer, generator = _answer([invented, GOOD])
    assert len(generator.requests) == 2
    correction = generator.requests[1].correction
    assert correction is not None and "'Keys are rotated every 90 days.'" in correction
    assert "do not exist" not in correction  # every id was known
    assert answer.status is AnswerStatus.ANSWERED


def test_quote_still_invented_after_regeneration_drops_the_claim_as_unquoted() -> None:
    invented = response((CLAIM, ["E1"], ["Keys are rotated every 90 days."]))
    answer, generator = _answer([invented, invented])
    assert len(generator.requests) == 2
    assert [d.reason for d in answer.dropped_claims] == ["unquoted"]


def test_missing_quotes_do_not_regenerate_and_are_dropped() -> None:
    # Answers replayed from before quotes existed: nothing anchors them, so they are not shown.
    answer, generator = _answer([response((CLAIM, ["E1"], []))])
    assert len(generator.requests) == 1
    assert answer.status is AnswerStatus.NOT_FOUND
    assert [d.reason for d in answer.dropped_claims] == ["unquoted"]


def test_answer_dict_claims_carry_their_quotes() -> None:
    answer, _ = _answer([GOOD])
    (claim,) = answer.to_dict()["claims"]
    assert claim == {
        "text": CLAIM,
        "citations": [1],
        "quotes": ["Rotate the payments API key every 90 days"],
        "other_language": False,
    }


def test_correction_note_names_unknown_ids_and_quotes_together() -> None:
    note = correction_note(["E7"], ["E1"], ["x" * 300])
    assert "'E7'" in note and "E1" in note
    assert "occur in no evidence item" in note and len(note) < 600


def test_extractive_claims_quote_themselves_and_pass_verification() -> None:
    generator = ExtractiveGenerator()
    pipeline = AnswerPipeline(
        FakeRetriever((ROTATE,)), generator, WordCounter(), PackPolicy(), str, k=5
    )
    answer = asyncio.run(pipeline.answer(QUESTION, SCOPE))
    assert answer.status is AnswerStatus.ANSWERED
    assert all(claim.quotes == (claim.text,) for claim in answer.claims)
    assert answer.dropped_claims == ()
