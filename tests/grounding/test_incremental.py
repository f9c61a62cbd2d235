"""ResponseReader: status and claims found as soon as they are complete, however the text is cut."""

from __future__ import annotations

import json

import pytest

from grounding.incremental import ClaimSeen, ResponseReader, Seen, StatusSeen
from grounding.schema import GroundedClaim

CLAIMS = [
    {"text": 'Use "make deploy" {not} [this]', "citations": ["E1"], "quotes": ['a \\"q\\" }']},
    {"text": "Roll back: é, 中文, \\n done", "citations": ["E2", "E1"], "quotes": ["x"]},
]
RESPONSE = json.dumps({"status": "answered", "claims": CLAIMS, "message": "ok ] }"})


def _all(pieces: list[str]) -> list[Seen]:
    reader = ResponseReader()
    return [item for piece in pieces for item in reader.feed(piece)]


def _expected() -> list[Seen]:
    claims = [ClaimSeen(i, GroundedClaim.model_validate(c)) for i, c in enumerate(CLAIMS)]
    return [StatusSeen("answered"), *claims]


def test_reader_finds_status_then_each_claim_in_one_piece() -> None:
    assert _all([RESPONSE]) == _expected()


@pytest.mark.parametrize("cut", range(1, len(RESPONSE)))
def test_reader_gives_the_same_at_every_cut(cut: int) -> None:
    assert _all([RESPONSE[:cut], RESPONSE[cut:]]) == _expected()


def test_reader_character_by_character_reports_each_claim_when_its_brace_arrives() -> None:
    reader = ResponseReader()
    first_end = RESPONSE.index(json.dumps(CLAIMS[0])) + len(json.dumps(CLAIMS[0]))
    before = [item for ch in RESPONSE[: first_end - 1] for item in reader.feed(ch)]
    assert before == [StatusSeen("answered")]
    assert reader.feed(RESPONSE[first_end - 1]) == [_expected()[1]]


def test_reader_takes_keys_in_any_order_and_ignores_nested_lookalikes() -> None:
    text = json.dumps(
        {"message": "status", "claims": [CLAIMS[0]], "status": "insufficient_context"}
    )
    assert _all([text]) == [_expected()[1], StatusSeen("insufficient_context")]


def test_reader_marks_a_complete_object_that_is_not_a_claim() -> None:
    text = '{"status": "answered", "claims": [{"text": 3}, ' + json.dumps(CLAIMS[1]) + "]"
    seen = _all([text])
    assert seen[1] == ClaimSeen(0, None) and seen[2] == ClaimSeen(1, _expected()[2].claim)  # type: ignore[union-attr]
