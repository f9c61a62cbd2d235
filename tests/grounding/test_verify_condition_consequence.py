"""A claim that keeps its quote's condition and changes what happens then: the words after an
opening "If ...," must be the quote's on their own, as the whole claim's must, since the
condition's words alone can carry a claim past the share. Made-up sentences, no benchmark
item."""

from __future__ import annotations

from tests.grounding.support_checks import dropped, kept

EVIDENCE = (
    "If you call `flush()` while the buffer of the writer is empty, the writer returns at once."
)


def test_a_changed_consequence_of_the_quotes_condition_is_dropped() -> None:
    claim = "If the buffer of the writer is empty, `flush()` raises an exception."
    assert "after its condition" in dropped(claim, EVIDENCE)


def test_the_quotes_consequence_in_other_words_is_kept() -> None:
    kept("If the buffer of the writer is empty, `flush()` returns at once.", EVIDENCE)
    kept("When the writer's buffer is empty, the writer returns at once from `flush()`.", EVIDENCE)
