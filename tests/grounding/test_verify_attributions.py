"""A claim about one name must say of it what its quote says of that name, not what the quote
says of another name in another clause: "`Lenient` is the usual mode" of "`Strict` is the usual
mode to use, but `Lenient` may be used in special cases" is dropped, though it holds every word
of the quote. Made-up sentences, no benchmark item."""

from __future__ import annotations

from grounding.verification.attributions import attribution_problem
from tests.grounding.support_checks import dropped, kept

EVIDENCE = (
    "``StrictMode`` is the usual parser mode to pick, but ``LenientMode`` may be picked for "
    "old files whose headers were written by hand."
)


def test_what_the_quote_says_of_another_name_is_dropped() -> None:
    problem = dropped("`LenientMode` is the usual parser mode to pick.", EVIDENCE)
    assert "StrictMode" in problem


def test_what_the_quote_says_of_the_name_itself_is_kept() -> None:
    kept("`StrictMode` is the usual parser mode to pick.", EVIDENCE)
    kept("`LenientMode` may be picked for old files with hand-written headers.", EVIDENCE)


def test_a_claim_naming_both_names_is_left_to_the_other_checks() -> None:
    claim = "`StrictMode` is the usual parser mode, and `LenientMode` is for old files."
    assert attribution_problem(claim, EVIDENCE) is None
