"""The names a section's headings write as code (":mod:`kettle` --- Boiling water") are the
subject its text documents: a claim may name it ("It has been in `kettle` since 3.4") though the
quoted sentence does not; the headings' other words are not the quote's. Made-up sentences, no
benchmark item."""

from __future__ import annotations

from grounding.evidence import PackPolicy, pack
from grounding.verification import verify
from tests.grounding.fakes import WordCounter, hits_of, make_chunk, make_scope, response

TEXT = ".. function:: boil(water)\n\n   Boil the water, then pour it.\n\n   .. versionadded:: 3.4\n"


def _kept(claim: str, *quotes: str) -> bool:
    chunk = make_chunk(
        TEXT,
        path="library/kettle.rst",
        heading_path=(":mod:`kettle` --- Boiling water in tea rooms", "Functions"),
    )
    packet = pack(
        "q",
        make_scope("handbook"),
        "g",
        hits_of(chunk),
        PackPolicy(neighbours=False),
        WordCounter(),
    )
    return bool(
        verify(response((claim, [packet.items[0].label], list(quotes))), packet, str).claims
    )


def test_a_module_a_heading_names_as_code_is_the_quotes_subject() -> None:
    assert _kept("It has been in `kettle` since 3.4.", ".. versionadded:: 3.4")


def test_a_headings_other_words_are_not_quoted() -> None:
    assert not _kept("Tea rooms have had it since 3.4.", ".. versionadded:: 3.4")
