"""A number the question states is not a rare name the evidence lacks.

The reader's `missing_rare` counts the tokenizer pieces of the rarest question word no unit
holds: one piece is a common word, several a rare name such as `kubernetes`, a strong sign
the packet does not cover the question. The tokenizer cuts digits one by one, so "5000" or
"503s" took as many pieces as the rarest name although a question's own numbers ("exactly 3
queries", "503s", "httpx 0.28") say nothing about what the docs cover.
"""

from __future__ import annotations

from grounding.generators.extractive import shared_embedder
from grounding.generators.reading import read
from tests.grounding.test_reader import chunk, packet

RETRIES = """\
## Retries

The transport retries a request that failed to connect, up to the number of retries you set.
Responses with an error status are returned as they are, never retried.
"""


def missing_rare(question: str) -> float:
    return read(
        packet(question, chunk(RETRIES, "retries.md", "Retries")), shared_embedder()
    ).missing_rare


def test_numbers_the_packet_lacks_are_not_rare_names() -> None:
    for question in (
        "does the transport retry responses with 503s?",
        "does it retry a request 5000 times",
        "retries in version 0.28 or 1.2.3 of the transport",
    ):
        assert missing_rare(question) == 0.0, question


def test_a_rare_name_the_packet_lacks_still_counts() -> None:
    assert missing_rare("does the transport retry on kubernetes?") > 0.0
    # A name with digits in it is still a name.
    assert missing_rare("does the transport retry 4xx/5xx responses?") > 0.0
