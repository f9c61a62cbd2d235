"""The extractive generator: a reader that answers by quoting the evidence units that answer.

It reads the question (its kind and language, reading.py), scores every answer unit of the
packet with a small trained ranker, decides answered / insufficient with a calibrated model
(reader_model.py, weights from training/train_reader.py), and quotes the chosen units
verbatim (claims.py). No network, no language model; deterministic.
"""

from __future__ import annotations

import asyncio
import functools
from dataclasses import dataclass

from grounding.evidence import EvidencePacket, PacketSize
from grounding.generators.base import Generation, GenerationRequest
from grounding.generators.claims import Ranked, claim_texts, select_spans
from grounding.generators.question import Kind
from grounding.generators.reader_model import ReaderModel, load_model, sigmoid, softmax
from grounding.generators.reading import ReaderEmbedder, Reading, question_features, read
from grounding.schema import GroundedClaim, GroundedResponse
from retrieval.config import AnswerConfig
from retrieval.embeddings import load_embedder

INSUFFICIENT_MESSAGE = (
    "The documents this conversation can read do not seem to answer this question."
)


# The packet the reader reads (at least; a larger `answer:` setting wins). training/packet_sweep.py
# refits the reader on each setting's packets and scores the train split: wider packets hold the
# gold more often but the reader answers fewer right; 3 chunks per file scored best on train
# (+4) but not on test (equal) and turned a demo answer wrong, so it reads what a model is sent
# (docs/performance-answerer.md "The reader's packet (h5)"): the `answer:` defaults.
_ANSWER_DEFAULTS = AnswerConfig()
PACKET_SIZE = PacketSize(
    evidence_tokens=_ANSWER_DEFAULTS.evidence_tokens,
    per_source_limit=_ANSWER_DEFAULTS.per_source_limit,
    k=_ANSWER_DEFAULTS.k,
)


@functools.cache
def shared_embedder() -> ReaderEmbedder:
    """One embedding model per process: loading it takes most of a second."""
    return load_embedder()


@dataclass(frozen=True, slots=True)
class Judged:
    """A packet read and judged: the units best first and the probability it answers."""

    reading: Reading
    ranked: tuple[Ranked, ...]
    answerable: float


def judge(packet: EvidencePacket, model: ReaderModel, embedder: ReaderEmbedder) -> Judged:
    return judge_reading(read(packet, embedder), model)


def judge_reading(reading: Reading, model: ReaderModel) -> Judged:
    """A packet already read, ranked and judged by `model` (training scores its readings so)."""
    if not reading.pool:
        return Judged(reading, (), 0.0)
    logits = model.ranker.logits(reading.units)
    features = question_features(reading, logits)
    answerable = float(sigmoid(model.answerer.logits(features[None, :]))[0])
    probabilities = softmax(logits)
    pool = reading.pool
    order = sorted(
        range(len(pool)), key=lambda i: (-logits[i], pool[i].item_index, pool[i].unit_index)
    )
    ranked = tuple(Ranked(pool[i], float(probabilities[i])) for i in order)
    return Judged(reading, ranked, answerable)


def extract(
    packet: EvidencePacket,
    max_claims: int,
    threshold: float,
    model: ReaderModel,
    embedder: ReaderEmbedder,
) -> GroundedResponse:
    """The pure core of the generator: packet in, grounded response out."""
    judged = judge(packet, model, embedder)
    if not judged.ranked or judged.answerable < threshold:
        return GroundedResponse(
            status="insufficient_context", claims=[], message=INSUFFICIENT_MESSAGE
        )
    howto = Kind.HOWTO in judged.reading.asked.kinds
    spans = select_spans(judged.ranked, howto, max_claims, model.extra_ratio)
    claims = [
        # The reader's claims are verbatim passages: each is its own quote.
        GroundedClaim(text=text, citations=[span.candidate.item.label], quotes=[text])
        for span in spans
        for text in claim_texts(span)
    ]
    return GroundedResponse(status="answered", claims=claims, message="")


class ExtractiveGenerator:
    """Quotes the evidence units the reader judges to answer, so every claim passes
    verification.

    `max_claims` caps the passages quoted (a code block shown with its prose is a claim of its
    own); `threshold` is the answerer's probability cutoff, by default the one the training
    script chose; `packet_size` is the packet it asks the pipeline for. The model and the embedder
    are shared by every generator of the process.
    """

    def __init__(
        self,
        max_claims: int = 3,
        threshold: float | None = None,
        *,
        model: ReaderModel | None = None,
        embedder: ReaderEmbedder | None = None,
        packet_size: PacketSize = PACKET_SIZE,
    ) -> None:
        if max_claims < 1:
            raise ValueError(f"max_claims is {max_claims}: an answer needs at least one claim")
        if threshold is not None and not 0.0 <= threshold <= 1.0:
            raise ValueError(f"threshold is {threshold}: it is a probability, in [0, 1]")
        self._max_claims = max_claims
        self._model = model
        self._threshold = threshold
        self._embedder = embedder
        self._packet_size = packet_size

    @property
    def name(self) -> str:
        return "extractive"

    @property
    def packet_size(self) -> PacketSize:
        """The packet it reads: wider than a model's prompt (see PACKET_SIZE)."""
        return self._packet_size

    @property
    def model(self) -> ReaderModel:
        return self._model or load_model()

    @property
    def threshold(self) -> float:
        return self.model.threshold if self._threshold is None else self._threshold

    async def generate(self, request: GenerationRequest) -> Generation:
        model, embedder = self.model, self._embedder or shared_embedder()
        # Pure CPU work: off the event loop so a large packet never stalls Slack handling.
        response = await asyncio.to_thread(
            extract, request.packet, self._max_claims, self.threshold, model, embedder
        )
        return Generation(response=response)


__all__ = [
    "INSUFFICIENT_MESSAGE",
    "PACKET_SIZE",
    "ExtractiveGenerator",
    "Judged",
    "extract",
    "judge",
    "judge_reading",
]
