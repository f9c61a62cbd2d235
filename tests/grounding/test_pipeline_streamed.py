"""answer_live() with a streaming generator: each claim checked and reported as soon as its JSON
object is complete; dropped claims never reported; nothing reported is ever taken back."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

from grounding.answer import Answer, AnswerStatus, Usage
from grounding.evidence import PackPolicy
from grounding.generators.base import Generation, GenerationError, GenerationRequest
from grounding.pipeline import AnswerPipeline
from grounding.progress import AnswerEvent, Verified
from grounding.schema import GroundedResponse
from retrieval.chunks import Chunk
from tests.grounding.fakes import (
    FakeRetriever,
    WordCounter,
    insufficient,
    make_chunk,
    make_scope,
    response,
)

ROTATE = make_chunk(
    "Rotate the payments API key every 90 days with the rotate-key job.",
    collection="payments",
    path="keys.md",
    start_line=12,
)
DEPLOY = make_chunk("Deploys run from the main branch after review.", path="deploy.md")
QUESTION = "how often do we rotate the payments key and where do deploys run from?"
SCOPE = make_scope("handbook", "payments")
KEY = ("Rotate the payments API key every 90 days.", ["E1"])
MAIN = ("Deploys run from the main branch after review.", ["E2"])
# Quotes E1 faithfully, then says what E1 does not: dropped as unsupported, never regenerated.
INVENTED = ("Rotate the payments API key every 30 days.", ["E1"], ["Rotate the payments API key"])


@dataclass
class Step:
    response: GroundedResponse
    fail_after: int | None = None  # pieces handed over before a GenerationError


@dataclass
class StreamingFake:
    """Hands each scripted response over in pieces of `piece` characters, recording for every
    piece how many events the pipeline had reported by then."""

    script: list[Step]
    piece: int = 7
    requests: list[GenerationRequest] = field(default_factory=list)
    events: list[AnswerEvent] = field(default_factory=list)
    marks: list[tuple[int, int]] = field(default_factory=list)  # (characters sent, events seen)

    @property
    def name(self) -> str:
        return "fake-stream"

    async def generate(self, request: GenerationRequest) -> Generation:
        raise AssertionError("a watched answer must be streamed")

    async def stream(
        self, request: GenerationRequest, on_text: Callable[[str], None]
    ) -> Generation:
        self.requests.append(request)
        step = self.script[len(self.requests) - 1]
        text = step.response.model_dump_json()
        sent = 0
        for n, start in enumerate(range(0, len(text), self.piece)):
            if step.fail_after is not None and n >= step.fail_after:
                raise GenerationError("timeout", "the model stopped answering")
            on_text(text[start : start + self.piece])
            sent += len(text[start : start + self.piece])
            self.marks.append((sent, len(self.events)))
            await asyncio.sleep(0)
        return Generation(step.response, Usage(10, 5))


def _url(chunk: Chunk) -> str:
    return f"https://git.example/{chunk.path}"


def _answer(fake: StreamingFake) -> Answer:
    pipeline = AnswerPipeline(
        FakeRetriever((ROTATE, DEPLOY)), fake, WordCounter(), PackPolicy(), _url
    )
    return asyncio.run(pipeline.answer_live(QUESTION, SCOPE, report=fake.events.append))


def _verified(fake: StreamingFake) -> list[Verified]:
    return [e for e in fake.events if isinstance(e, Verified)]


def test_streamed_claim_is_reported_when_its_object_closes_before_the_rest_arrives() -> None:
    fake = StreamingFake([Step(response(KEY, MAIN))])
    answer = _answer(fake)
    shown = _verified(fake)
    assert [v.claim for v in shown] == list(answer.claims) and len(shown) == 2
    assert [s.n for v in shown for s in v.sources] == [1, 2]
    assert tuple(s for v in shown for s in v.sources) == answer.sources
    text = response(KEY, MAIN).model_dump_json()
    # The first claim was reported while the second one's text was still on its way.
    index_first = fake.events.index(shown[0])
    sent_by_then = next(sent for sent, seen in fake.marks if seen > index_first)
    assert sent_by_then < text.index(MAIN[0])
    assert answer.status is AnswerStatus.ANSWERED and answer.error_detail == ""


def test_streamed_dropped_claim_is_never_reported() -> None:
    fake = StreamingFake([Step(response(INVENTED, MAIN))])
    answer = _answer(fake)
    assert [v.claim.text for v in _verified(fake)] == [MAIN[0]]
    assert [d.text for d in answer.dropped_claims] == [INVENTED[0]]
    assert answer.claims[0].citations == (1,)  # numbered by what was shown


def test_streamed_insufficient_context_reports_no_claim_even_beside_claims() -> None:
    odd = GroundedResponse(status="insufficient_context", claims=response(KEY).claims, message="no")
    for step in (Step(insufficient()), Step(odd)):
        fake = StreamingFake([step])
        answer = _answer(fake)
        assert _verified(fake) == [] and answer.status is AnswerStatus.NOT_FOUND


def test_streamed_regeneration_keeps_what_was_shown_and_adds_only_new_claims() -> None:
    unknown = ("Deploys run from the main branch after review.", ["E9"])
    fake = StreamingFake([Step(response(KEY, unknown)), Step(response(KEY, MAIN))])
    answer = _answer(fake)
    assert len(fake.requests) == 2 and fake.requests[1].correction
    assert [v.claim.text for v in _verified(fake)] == [KEY[0], MAIN[0]]  # KEY once
    assert [c.text for c in answer.claims] == [KEY[0], MAIN[0]]
    assert [d.reason for d in answer.dropped_claims] == ["unknown_citation"]


def test_streamed_failure_after_a_claim_keeps_it_and_says_why_for_admins() -> None:
    fake = StreamingFake([Step(response(KEY, MAIN), fail_after=30)])
    answer = _answer(fake)
    assert [c.text for c in answer.claims] == [KEY[0]] == [v.claim.text for v in _verified(fake)]
    assert answer.status is AnswerStatus.ANSWERED and answer.error_detail.startswith("timeout")


def test_streamed_failure_before_any_claim_is_an_error_answer() -> None:
    fake = StreamingFake([Step(response(KEY), fail_after=2)])
    answer = _answer(fake)
    assert answer.status is AnswerStatus.ERROR and _verified(fake) == []


def test_unwatched_answer_is_not_streamed() -> None:
    """`answer()` (the CLI, benchmarks) takes the batch path: the same verdicts, no stream."""

    class Batch(StreamingFake):
        async def generate(self, request: GenerationRequest) -> Generation:
            return Generation(self.script[0].response)

    fake = Batch([Step(response(KEY, MAIN))])
    pipeline = AnswerPipeline(
        FakeRetriever((ROTATE, DEPLOY)), fake, WordCounter(), PackPolicy(), _url
    )
    answer = asyncio.run(pipeline.answer(QUESTION, SCOPE))
    assert fake.requests == [] and len(answer.claims) == 2
