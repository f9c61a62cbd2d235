"""A streamed answer that shows no claim ends with the batch verdict's not-found reason, whatever
the last response was: insufficient, without claims, or with every claim dropped."""

from __future__ import annotations

import pytest

from grounding.answer import AnswerStatus
from grounding.evidence import PackPolicy, pack
from grounding.progress import AnswerEvent
from grounding.schema import GroundedResponse
from grounding.streamed import StreamedClaims
from grounding.verification import verify
from tests.grounding.fakes import (
    WordCounter,
    hits_of,
    insufficient,
    make_chunk,
    make_scope,
    response,
)

KEYS = make_chunk("Rotate the payments API key every 90 days.", path="keys.md")
PACKET = pack("how often?", make_scope("handbook"), "g", hits_of(KEYS), PackPolicy(), WordCounter())
# Each quotes E1 but says what it does not: dropped as unsupported.
WRONG = (
    ("Rotate the payments API key every 30 days.", ["E1"], ["Rotate the payments API key"]),
    ("Never rotate the payments API key.", ["E1"], ["Rotate the payments API key"]),
)


@pytest.mark.parametrize(
    "last",
    [insufficient(), GroundedResponse(status="answered", claims=[], message=""), response(*WRONG)],
    ids=["insufficient", "no_claims", "all_dropped"],
)
def test_streamed_not_found_gives_the_reason_verify_gives(last: GroundedResponse) -> None:
    events: list[AnswerEvent] = []
    claims = StreamedClaims(PACKET, str, events.append)
    feed = claims.feed()
    feed(last.model_dump_json())
    feed.finish(last)
    result = claims.result(last)
    batch = verify(last, PACKET, str)
    assert result.status is batch.status is AnswerStatus.NOT_FOUND
    assert result.reason is batch.reason and result.reason is not None
    assert result.dropped == batch.dropped and len(result.dropped) == len(last.claims)
