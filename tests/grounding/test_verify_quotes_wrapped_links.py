"""A quote of a sentence whose Markdown or reST link text wraps onto the next line occurs.

Docs wrap long link texts ("[because retries can hide slow\\nservers](https://...)"); a claim
quotes that sentence on one line. Links are read as their text on both sides, so the line break
inside the link must not keep the evidence's link whole while the quote's is reduced.
"""

from __future__ import annotations

from grounding.evidence import PackPolicy, pack
from grounding.verification import quote_form
from grounding.verification.quotes import occurs
from tests.grounding.fakes import WordCounter, hits_of, make_chunk, make_scope

WRAPPED = make_chunk(
    "## Retries\n\n"
    "We do not retry by default [because retries can hide slow\n"
    "servers](https://example.org/why). See `the retry guide\n"
    "<https://example.org/retries>`_ for more.\n",
    path="retries.md",
    heading_path=("Retries",),
)


def test_a_link_whose_text_wraps_reads_as_its_text() -> None:
    assert quote_form("[because retries can hide slow\nservers](https://example.org/why)") == (
        "because retries can hide slow servers"
    )
    assert quote_form("`the retry guide\n<https://example.org/retries>`_") == "the retry guide"


def test_a_one_line_quote_of_a_wrapped_link_occurs_in_the_evidence() -> None:
    item = pack(
        "q",
        make_scope("handbook"),
        "g",
        hits_of(WRAPPED),
        PackPolicy(neighbours=False),
        WordCounter(),
    ).items[0]
    quote = (
        "We do not retry by default [because retries can hide slow servers]"
        "(https://example.org/why)."
    )
    assert occurs(quote, item)
    assert occurs("See `the retry guide <https://example.org/retries>`_ for more.", item)
