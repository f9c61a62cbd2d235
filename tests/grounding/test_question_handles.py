"""An @name the evidence holds stays in the question, however the evidence punctuates it."""

from __future__ import annotations

from grounding.generators.extractive import shared_embedder
from grounding.generators.question import handles
from grounding.generators.reading import read
from tests.grounding.test_reader import chunk, packet

DECORATOR = """\
## Caching

To compute an attribute once per instance, decorate the method with @cached_property.
"""


def test_a_decorator_ending_a_sentence_of_the_evidence_stays_in_the_question() -> None:
    reading = read(packet("Should I use @cached_property?", chunk(DECORATOR)), shared_embedder())
    assert "@cached_property" in reading.asked.text


def test_evidence_handles_skip_email_domains_and_a_last_dot() -> None:
    assert handles("Mail ops@example.com or ask @alice.") == {"@alice"}
