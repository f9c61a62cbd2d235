"""The reader's words: stemmed content terms (retrieval.text's ANSWER_TERMS) and code-like names."""

from __future__ import annotations

import re

from retrieval.text import ANSWER_TERMS, CJK
from retrieval.text.markup import code_spans
from retrieval.text.tokenizer import JOINED_WORD

__all__ = ["CJK", "identifiers", "terms"]


def terms(text: str) -> list[str]:
    """Stemmed content words; an identifier (`follow_redirects`, `HTTP/2`) also counts whole.

    Words of any script count; a run of CJK text becomes character bigrams, as search reads it.
    """
    return ANSWER_TERMS(text)


def identifiers(question: str) -> tuple[str, ...]:
    """Tokens of the question that look like code: quoted, dotted, snake_case, camelCase, `a/2`."""
    found = {span.lower() for span in code_spans(question)}
    for token in JOINED_WORD.findall(question):
        if re.search(r"[._/:]|[a-z][A-Z]|[A-Za-z]\d|\d[A-Za-z]", token):
            found.add(token.lower())
    return tuple(sorted(found))
