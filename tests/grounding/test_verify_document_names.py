"""A claim may name the document it cites by its file name ("PEP 572" of pep-0572.rst, "the
5.1 notes" of releases/5.1.txt): the reader sees that path beside the claim. Another number
for the same document is still dropped. Made-up documents, no benchmark item."""

from __future__ import annotations

from tests.grounding.support_checks import one_item_packet, verify_quoting

QUOTE = "This proposal adds a lid to every kettle."
TEXT = f"# Lids\n\n{QUOTE} The lid is optional.\n"


def _kept(path: str, claim: str) -> bool:
    return bool(verify_quoting(one_item_packet(TEXT, path=path), claim, QUOTE).claims)


def test_the_documents_own_number_is_kept() -> None:
    assert _kept("kep-0042.rst", "KEP 42 adds a lid to every kettle.")
    assert _kept("releases/4.2.txt", "Release 4.2 adds a lid to every kettle.")


def test_another_number_is_dropped() -> None:
    assert not _kept("kep-0042.rst", "KEP 43 adds a lid to every kettle.")
    assert not _kept("guide.md", "KEP 42 adds a lid to every kettle.")
