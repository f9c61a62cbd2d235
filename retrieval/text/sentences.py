"""Where the sentences of one paragraph start and end: the chunker cuts long paragraphs there,
and the extractive generator quotes them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

# Words whose trailing period does not end a sentence.
_ABBREVIATION_TEXT = "e.g i.e etc vs cf al approx mr mrs ms dr st jr sr no fig eq ca est inc ltd co"
_ABBREVIATIONS = frozenset(_ABBREVIATION_TEXT.split())
# A sentence end: Latin punctuation followed by a space and something that may start a sentence
# (checked in `_starts_sentence`), or CJK punctuation, which needs no space after it.
_BOUNDARY = re.compile(
    r"[.!?…]+[\"')\]*_»”’]*\s+(?=[\"'(\[*_«„“]*(\S))|[。！？]+[」』”’）)]*\s*(?=\S)"
)


def sentence_spans(paragraph: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each sentence of one paragraph; boundaries inside `code` are ignored."""
    start = 0
    for match in _BOUNDARY.finditer(paragraph):
        follower = match.group(1)
        if (
            (follower is not None and not _starts_sentence(follower))
            or _inside_backticks(paragraph, match.start())
            or _abbreviation_before(paragraph, match.start())
        ):
            continue
        end = match.end() - (len(match.group()) - len(match.group().rstrip()))
        yield start, end
        start = match.end()
    if paragraph[start:].strip():
        yield start, len(paragraph)


def _starts_sentence(char: str) -> bool:
    """A capital of any script, a digit, code, or a letter of a script without case (CJK)."""
    return (
        char.isupper() or char.isdigit() or char == "`" or (char.isalpha() and not char.islower())
    )


def _inside_backticks(text: str, position: int) -> bool:
    return text.count("`", 0, position) % 2 == 1


def _abbreviation_before(text: str, position: int) -> bool:
    word = text[:position].rsplit(None, 1)[-1] if text[:position].strip() else ""
    word = word.lstrip("(\"'[").lower()
    # A single capital letter followed by a period is an initial ("J. Smith").
    return word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha())
