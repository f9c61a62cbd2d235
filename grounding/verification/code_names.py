"""Negation words inside code are names: `Facets.NEVER`, `--no-cache`, `cannot_retry` name an
option, they deny nothing. A claim's name adds no negation to it, and keeps the negation of a
quote describing that option in prose ("Never show facets."); a quote's writing of the claim's
name holds no negation of the quote (negation.py reads what is left)."""

from __future__ import annotations

import re

from retrieval.text import NEGATIONS
from retrieval.text.markup import CODE_SPAN, code_spans

_CODE = re.compile(CODE_SPAN)
# A negation word of code, one reading for every rule here: a word of NEGATIONS between
# anything but letters and digits (`Facets.NEVER`, `--no-cache`, `no_proxy`, `cannot_retry`;
# not `notify`). "none" is left out: `None` in code is a value (anchors.py), not a name.
_CODE_NEGATION = re.compile(
    rf"(?<![^\W_])(?:{'|'.join(sorted(NEGATIONS - {'none'}, key=len, reverse=True))})(?![^\W_])",
    re.IGNORECASE,
)


def code_negations(text: str, quoted: str = "") -> frozenset[str]:
    """The negations written inside the code spans of `text`, but those of a span `quoted`
    writes itself: a quote's negation beside the name ("`Lid.NEVER` never closes the lid") is
    said of it, not the name's own."""
    return frozenset(
        word.group().casefold()
        for span in code_spans(text)
        if not (quoted and span.strip() in quoted)
        for word in _CODE_NEGATION.finditer(span)
    )


def without_names(quoted: str, claim: str) -> str:
    """`quoted` without the code spans of `claim` holding a negation word that it writes itself
    (`.ShowFacets.NEVER`): the negation words of a name are no negation of the quote; those
    beside it are, and a name with none (`None`) stays a word of the quote."""
    spans = {span.strip() for span in code_spans(claim) if _CODE_NEGATION.search(span)}
    for span in sorted(spans, key=len, reverse=True):
        quoted = quoted.replace(span, " ")
    return quoted


def without_code_negations(text: str) -> str:
    """`text` with each negation word inside a code span written as a name ("nevercode"): a
    name is checked verbatim as code (identifiers.py), it adds no negation to the claim."""
    return _CODE.sub(lambda span: _CODE_NEGATION.sub(_as_name, span.group()), text)


def _as_name(word: re.Match[str]) -> str:
    return f"{word.group()}code"
