"""A claim that says the opposite verb of its quote ("ignores" for "respects") is dropped though
it shares every other word; a negated opposite ("does not ignore") and a word the quote itself
uses are not opposites. Made-up sentences, no benchmark item."""

from __future__ import annotations

from grounding.verification.anchors import terms
from grounding.verification.antonyms import comparison_problem, opposite_problem
from tests.grounding.support_checks import dropped, kept

EVIDENCE = "The agent respects the `HTTP_PROXY` variable and enables compression by default."


def test_the_opposite_verb_of_the_quote_is_dropped() -> None:
    assert "ignor" in dropped("The agent ignores the `HTTP_PROXY` variable.", EVIDENCE)
    assert "disabl" in dropped("The agent disables compression by default.", EVIDENCE)


def test_a_negated_opposite_says_what_the_quote_says() -> None:
    # "does not ignore" is no opposite (the negation rules read the "not" on their own).
    said = terms("The agent does not ignore the `HTTP_PROXY` variable.")
    assert opposite_problem(said, terms(EVIDENCE)) is None
    kept("The agent respects the `HTTP_PROXY` variable.", EVIDENCE)


def test_an_opposite_about_other_words_is_no_contradiction() -> None:
    evidence = "The agent respects `HTTP_PROXY`. Old releases ignore the proxy list of the file."
    claim = "The agent respects `HTTP_PROXY`; old releases ignore the proxy list of the file."
    kept(claim, evidence)


def test_an_opposite_made_by_a_prefix_is_dropped() -> None:
    evidence = "Hooks run outside the lock, and the cache keeps encrypted pages."
    assert "insid" in dropped("Hooks run inside the lock.", evidence)
    assert "unencrypt" in dropped("The cache keeps unencrypted pages.", evidence)
    kept("Hooks run outside the lock.", evidence)


def test_a_prefix_on_a_short_word_makes_no_opposite() -> None:
    # "unless" is not the opposite of "less": the stem left after "un" is too short a word.
    evidence = "The pool keeps fewer connections unless you raise its limit."
    said = terms("The pool keeps less connections unless you raise its limit.")
    assert opposite_problem(said, terms(evidence)) is None


COMPARED = "Without a lock the queue is lighter and quicker than a locked `deque` of the same size."


def test_a_comparison_the_quote_makes_in_other_words_is_dropped() -> None:
    problem = dropped("The queue is heavier than a locked `deque` of the same size.", COMPARED)
    assert "heavier" in problem


def test_the_quotes_own_comparison_and_comparisons_of_other_things_are_kept() -> None:
    kept("The queue is quicker than a locked `deque` of the same size.", COMPARED)
    # "rather than" compares nothing; a comparison of something the quote does not compare
    # is left to the other checks.
    said = terms("Use the queue rather than a locked `deque`.")
    assert comparison_problem(said, terms(COMPARED)) is None
    said = terms("Without a lock the queue is lighter, and slower than the network.")
    assert comparison_problem(said, terms(COMPARED)) is None


def test_always_where_the_quote_hedges_is_dropped() -> None:
    evidence = "A worker usually holds one open socket, but under load it may hold more."
    assert "usually" in dropped("A worker always holds one open socket.", evidence)
    kept("A worker usually holds one open socket.", evidence)
    # "not always" hedges too.
    said = terms("A worker does not always hold one open socket.")
    assert opposite_problem(said, terms(evidence)) is None


def test_a_state_denied_by_in_or_im_is_dropped() -> None:
    # "is incompatible" / "is compatible": the prefix of a state after a "be" denies it; a
    # word whose "in" is its own ("installed", "inline") makes no opposite of its stem.
    evidence = "The pump is incompatible with brine, and the key is invalid after a restart."
    assert "incompatibl" in dropped("The pump is compatible with brine.", evidence)
    assert "invalid" in dropped("The key is valid after a restart.", evidence)
    kept("The pump is not compatible with brine.", evidence)
    said = terms("The pump sits on one line in the sump.")
    assert opposite_problem(said, terms("The pump is installed inline in the sump.")) is None
