"""Answer units: sentences, list items, table rows and code blocks, verbatim slices of a chunk.

(Moved from the old tests/grounding/test_extractive.py, unchanged: segmentation did not change.)
"""

from __future__ import annotations

from grounding.generators.claims import clean
from grounding.generators.segmentation import Markup, UnitKind, split_units

TIMEOUTS = """\
## Timeouts

HTTPX is careful to enforce timeouts everywhere by default. The default behavior is to
raise a `TimeoutException` after 5 seconds of network inactivity.

You can set a timeout on a client instance, which results in the given
`timeout` being used as the default for requests made with this client:

```python
client = httpx.Client(timeout=10.0)  # Use a default 10s timeout everywhere.
client = httpx.Client(timeout=None)  # Disable all timeouts by default.
```
"""


def test_segmentation_keeps_fenced_code_whole_and_splits_sentences() -> None:
    units = split_units(TIMEOUTS, Markup.MARKDOWN)
    kinds = [u.kind for u in units]
    assert kinds == [
        UnitKind.HEADING,
        UnitKind.SENTENCE,
        UnitKind.SENTENCE,
        UnitKind.SENTENCE,
        UnitKind.CODE,
    ]
    assert units[4].text.startswith("```python") and units[4].text.endswith("```")
    assert all(TIMEOUTS[u.start : u.end] == u.text for u in units)


def test_segmentation_reads_rest_literal_blocks_and_headings() -> None:
    text = "Sessions\n========\n\nEnable them like so::\n\n    MIDDLEWARE = ['a.b']\n\nDone."
    units = split_units(text, Markup.REST)
    assert [u.kind for u in units] == [
        UnitKind.HEADING,
        UnitKind.SENTENCE,
        UnitKind.CODE,
        UnitKind.SENTENCE,
    ]
    assert units[2].text == "    MIDDLEWARE = ['a.b']"  # verbatim; claims show it dedented
    assert clean(units[2]) == "MIDDLEWARE = ['a.b']"
    assert units[3].section == "Sessions"


def test_segmentation_does_not_split_inside_code_or_after_abbreviations() -> None:
    text = "Use `a. B` here, e.g. Foo is fine. Then stop."
    units = split_units(text, Markup.MARKDOWN)
    assert [u.text for u in units] == ["Use `a. B` here, e.g. Foo is fine.", "Then stop."]


def test_segmentation_closes_a_fence_only_on_a_bare_fence_line() -> None:
    # A line such as ```python inside a fence is content (CommonMark): the fence that opened
    # the block closes only on the same character, at least as many, and nothing after it.
    text = "```text\nOpen a Python block with:\n```python\n```\n\nAfter the block."
    units = split_units(text, Markup.MARKDOWN)
    assert [(u.kind, u.text) for u in units] == [
        (UnitKind.CODE, text.split("\n\n")[0]),
        (UnitKind.SENTENCE, "After the block."),
    ]


def test_segmentation_ends_cjk_sentences_without_a_space() -> None:
    units = split_units("第一句话在这里。第二句话在这里！第三句？", Markup.MARKDOWN)
    assert [u.text for u in units] == ["第一句话在这里。", "第二句话在这里！", "第三句？"]
    russian = split_units("Первое предложение. Второе предложение.", Markup.MARKDOWN)
    assert [u.text for u in russian] == ["Первое предложение.", "Второе предложение."]
