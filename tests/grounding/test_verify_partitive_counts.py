"""A count the evidence restricts to a part ("12 checks, only 9 of which run on every push")
said of the whole ("All twelve checks run on every push") is a changed count though every
number of the claim is in the quote; the claim giving the part's number is kept. Made-up
sentences, no benchmark item."""

from __future__ import annotations

from tests.grounding.support_checks import dropped, kept

QUOTE = "The pipeline defines 12 checks, only 9 of which run on every push."


def test_the_whole_said_to_do_what_only_a_part_does_is_dropped() -> None:
    problem = dropped("All twelve checks run on every push.", QUOTE)
    assert "only 9" in problem


def test_the_part_with_its_number_is_kept() -> None:
    kept("The pipeline has twelve checks; only nine of them run on every push.", QUOTE)
    kept("Nine of the 12 checks run on every push.", QUOTE)
