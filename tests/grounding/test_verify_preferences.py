"""A quote's "X in preference to Y" (or "rather than Y", "instead of Y") passes Y over: a claim
that prefers or recommends Y turns the preference around; one preferring X, or not preferring
Y, is kept. Made-up sentences, no benchmark item."""

from __future__ import annotations

from tests.grounding.support_checks import dropped, kept

QUOTE = "Glass lids should be used in preference to using a tin lid for the kettle."


def test_preferring_what_the_quote_passes_over_is_dropped() -> None:
    for claim in (
        "The guide prefers a tin lid over glass lids for the kettle.",
        "Glass lids are fine, but the guide recommends a tin lid for the kettle.",
    ):
        assert "passes over" in dropped(claim, QUOTE), claim


def test_preferring_what_the_quote_prefers_is_kept() -> None:
    for claim in (
        "The guide prefers glass lids to a tin lid for the kettle.",
        "Use glass lids in preference to a tin lid for the kettle.",
    ):
        kept(claim, QUOTE)
