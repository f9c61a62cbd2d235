"""Whether a claim is written in another language than its evidence (prompt rule 8 asks for the
question's language): such a claim is checked on what does not depend on the words (its quotes,
numbers, identifiers, whether it negates) and is shown with its quote so the reader can check
the rest."""

from __future__ import annotations

import re

from retrieval.text import STOPWORDS, has_cjk
from retrieval.text.markup import CODE_SPAN
from retrieval.text.tokenizer import LETTER_RUN
from retrieval.text.words import SPANISH_WORDS

_CODE = re.compile(CODE_SPAN)


def in_other_language(claim: str, evidence: str) -> bool:
    return _language(claim) != _language(evidence)


def _language(text: str) -> str:
    """zh for CJK text; else es when it has more Spanish function words than English ones.
    Counted, not sniffed from accents: a name such as "Krasiński" does not make English text
    Spanish. Code spans are the same in every language and are left out."""
    prose = _CODE.sub(" ", text)
    if has_cjk(prose):
        return "zh"
    words = LETTER_RUN.findall(prose.casefold())
    english = sum(w in STOPWORDS for w in words)
    spanish = sum(w in SPANISH_WORDS for w in words)
    return "es" if spanish > english else "en"
