"""An "also" adds to an earlier kept claim of the answer that quotes the same document, though
another of its items (a section cut in two chunks): what it adds to is in the answer. With no
earlier claim of that document it is still an addition the quotes lack. Made-up sentences, no
benchmark item."""

from __future__ import annotations

from grounding.evidence import PackPolicy, pack
from grounding.verification import verify
from tests.grounding.fakes import WordCounter, hits_of, make_chunk, make_scope, response

FIRST = "The kettle boils water in two minutes."
SECOND = "The kettle keeps the water warm for an hour."


def _kept(first_path: str, *claims: tuple[str, int, str]) -> list[str]:
    chunks = (
        make_chunk(FIRST, path=first_path, start_line=1),
        make_chunk(SECOND, path="kettle.md", start_line=40),
    )
    packet = pack(
        "q",
        make_scope("handbook"),
        "g",
        hits_of(*chunks),
        PackPolicy(neighbours=False),
        WordCounter(),
    )
    labels = [item.label for item in packet.items]
    specs = [(text, [labels[n]], [quote]) for text, n, quote in claims]
    return [c.text for c in verify(response(*specs), packet, str).claims]


def test_also_after_a_kept_claim_of_another_item_of_the_same_document() -> None:
    claims = (
        ("The kettle boils water in two minutes.", 0, FIRST),
        ("It also keeps the water warm for an hour.", 1, SECOND),
    )
    assert len(_kept("kettle.md", *claims)) == 2
    # The earlier claim quotes another document: the "also" adds to nothing of this one.
    assert _kept("teapot.md", *claims) == ["The kettle boils water in two minutes."]
