"""What a claim's "also" adds to, when no earlier claim of the answer said it: a quote that
adds the case itself in words of its own ("as well as", "in addition to", "besides"), or a
clause of the claim before it that the quote states too ("..., and it also ..."). Made-up
sentences, no benchmark item."""

from __future__ import annotations

from tests.grounding.support_checks import dropped, kept

TWO = "The pool retries refused connections. The pool retries resets."


def test_an_addition_the_quote_makes_in_its_own_words_is_kept() -> None:
    for quote in (
        "The pool retries refused connections as well as resets.",
        "In addition to refused connections, the pool retries resets.",
        "Besides refused connections, the pool retries resets.",
    ):
        kept("The pool also retries resets.", quote)


def test_an_addition_to_the_claims_own_first_clause_is_kept() -> None:
    kept("The pool retries refused connections, and it also retries resets.", TWO)
    kept("The pool retries refused connections. It also retries resets.", TWO)


def test_an_addition_with_nothing_to_add_to_is_still_dropped() -> None:
    assert "adds" in dropped("The pool also retries resets.", TWO)
    # The claim's own clause adds words the quote lacks.
    assert "adds" in dropped("The pool retries refused connections, and timeouts as well.", TWO)
    assert "adds" in dropped(
        "The pool retries refused connections, and it also retries timeouts.", TWO
    )
