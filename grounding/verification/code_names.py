"""Negation words inside code are names: `Facets.NEVER`, `--no-cache`, `cannot_retry` name an
option, they deny nothing. A claim's name adds no negation to it, and keeps the negation of a
quote describing that option in prose ("Never show facets."); a quote's writing of the claim's
name holds no negation of the quote (negation.py reads what is left)."""

from __future__ import annotations

import re

from grounding.verification.anchors import terms
from retrieval.text import NEGATIONS
from retrieval.text.markup import CODE_SPAN, code_spans

# A negation word inside a code span of the claim (`Facets.NEVER`, `--no-cache`): the claim
# names the option a quote's negation describes ("Never show facets.").
_CODE = re.compile(CODE_SPAN)


_CODE_NEGATION = re.compile(r"\b(?:not|no|never|nor|without|cannot)\b", re.IGNORECASE)


def code_negations(text: str, quoted: str = "") -> frozenset[str]:
    """The negations written inside the code spans of `text`, but those of a span `quoted`
    writes itself: a quote's negation beside the name ("`Lid.NEVER` never closes the lid") is
    said of it, not the name's own."""
    return frozenset(
        term
        for span in code_spans(text)
        if not (quoted and span.strip() in quoted)
        for term in terms(span)
        if term in NEGATIONS
    )


def without_names(quoted: str, claim: str) -> str:
    """`quoted` without the code spans of `claim` it writes itself (`.ShowFacets.NEVER`): the
    negation words of a name are no negation of the quote; those beside it are."""
    for span in sorted({span.strip() for span in code_spans(claim)}, key=len, reverse=True):
        if span:
            quoted = quoted.replace(span, " ")
    return quoted


def without_code_negations(text: str) -> str:
    """`text` with each negation word inside a code span written as a name ("nevercode"): a
    name is checked verbatim as code (identifiers.py), it adds no negation to the claim."""
    return _CODE.sub(lambda span: _CODE_NEGATION.sub(_as_name, span.group()), text)


def _as_name(word: re.Match[str]) -> str:
    return f"{word.group()}code"
