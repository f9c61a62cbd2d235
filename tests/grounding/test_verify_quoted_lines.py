"""A quote of one line of a reST literal block or of a field list stands in that line alone:
the numbers of the block's other lines are not the quote's. Made-up sentences, no benchmark
item: a benchmark output quoted by its line must not lend a claim the figure of the line
above it, nor a header field the number of another field."""

from __future__ import annotations

from grounding.verification import Verification
from grounding.verification.blocks import blocks
from tests.grounding.support_checks import one_item_packet, verify_quoting

BENCH = (
    "Two runs of the same loader compare as follows::\n\n"
    "   $ loader --cold\n"
    "   400 files, best of 3: 41.7 ms per file\n"
    "   $ loader --warm\n"
    "   400 files, best of 3: 12.9 ms per file\n\n"
    "The warm run reads from the page cache.\n"
)
HEADER = (
    "Spec: 12\n"
    "Title: Loader caching\n"
    "Owner: Ana Reyes\n"
    "Created: 07-Mar-2019\n\n"
    "Abstract\n"
    "========\n\n"
    "This spec describes how the loader caches pages.\n"
)


def _kept(result: Verification) -> list[str]:
    return [claim.text for claim in result.claims]


def test_a_quoted_output_line_does_not_lend_the_number_of_the_line_before_it() -> None:
    packet = one_item_packet(BENCH, path="loader.rst")
    line = "400 files, best of 3: 12.9 ms per file"
    right = "With `--warm` the loader takes 12.9 ms per file."
    wrong = "With `--warm` the loader takes 41.7 ms per file."
    assert _kept(verify_quoting(packet, right, "$ loader --warm", line)) == [right]
    result = verify_quoting(packet, wrong, "$ loader --warm", line)
    assert _kept(result) == [] and "41.7" in result.dropped[0].detail


def test_a_quoted_header_field_does_not_lend_the_number_of_another_field() -> None:
    packet = one_item_packet(HEADER, path="spec-12.rst")
    right = "The loader caching spec is spec 12."
    wrong = "The loader caching spec is spec 7."
    assert _kept(verify_quoting(packet, right, "Spec: 12", "Title: Loader caching")) == [right]
    result = verify_quoting(packet, wrong, "Spec: 12", "Title: Loader caching")
    assert _kept(result) == [] and "7" in result.dropped[0].detail


def test_a_directive_body_stays_one_paragraph_and_a_code_directive_is_lines() -> None:
    text = (
        ".. note::\n\n   The cache is\n   per process.\n\n"
        ".. code-block:: shell\n\n   $ loader --warm\n   done\n"
        "Back to the text\nof the page.\n"
    )
    assert blocks(text) == [
        (".. note::", False),
        ("   The cache is\n   per process.", False),
        (".. code-block:: shell", False),
        ("   $ loader --warm", True),
        ("   done", True),
        ("Back to the text\nof the page.", False),
    ]
