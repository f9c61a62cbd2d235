"""Line patterns the chunker and the answer-unit splitter share, so both read a document alike."""

from __future__ import annotations

from grounding.generators.segmentation import Markup, UnitKind, split_units
from retrieval.text.markup import ATX_HEADING, LIST_MARKER, REST_DIRECTIVE, fence_end


def test_fence_end_finds_the_matching_close_or_runs_to_the_last_content() -> None:
    lines = ["````", "```", "code", "`````", "after"]
    assert fence_end(lines, 0, "````") == 3  # a shorter run inside does not close it
    assert fence_end(["~~~", "code", "", ""], 0, "~~~") == 1


def test_the_splitter_reads_atx_headings_as_the_chunker_does() -> None:
    # CommonMark: `#` then a space or tab. A no-break space does not make a heading, for the
    # splitter as for the chunker.
    assert ATX_HEADING.match("## Timeouts") and ATX_HEADING.match("#")
    assert not ATX_HEADING.match("#\u00a0not a heading") and not ATX_HEADING.match("#hashtag")
    units = split_units("#\u00a0not a heading, but a sentence of prose.", Markup.MARKDOWN)
    assert [u.kind for u in units] == [UnitKind.SENTENCE]


def test_rest_directive_names_include_domains() -> None:
    match = REST_DIRECTIVE.match(".. c++:function:: int f()")
    assert match is not None and match.group(1) == "c++:function"
    assert REST_DIRECTIVE.match(".. note::") and not REST_DIRECTIVE.match(".. note::x")


def test_list_marker_takes_bullets_and_numbers_as_markdown_and_rest_write_them() -> None:
    for line in ("- a", "* a", "• a", "3. a", "3) a", "(3) a", "#. a"):
        assert LIST_MARKER.sub("", line) == "a", line
    assert LIST_MARKER.match("3.11 is out") is None
