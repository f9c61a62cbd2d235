"""Text analysis, one owner: scripts and normalizers, word lists, stemmers, the tokenizer with
its three configurations (search, the extractive generator, the verifier), and the Markdown/reST
and Slack line patterns the chunker, the splitter and the generator share."""

from __future__ import annotations

from retrieval.text.scripts import (
    CJK,
    CJK_RANGES,
    camel_parts,
    cjk_bigrams,
    has_cjk,
    nfkc,
    nfkc_casefold,
    normalize_text,
)
from retrieval.text.stemmers import SnowballStemmer, fold_word, folded_words, light_stem
from retrieval.text.tokenizer import (
    ANSWER_TERMS,
    CLAIM_WORDS,
    EVIDENCE_WORDS,
    SEARCH,
    Identifiers,
    Tokenizer,
    tokenize,
)
from retrieval.text.words import GATE_STOPWORDS, NEGATIONS, SEARCH_STOPWORDS, STOPWORDS

__all__ = [
    "ANSWER_TERMS",
    "CJK",
    "CJK_RANGES",
    "CLAIM_WORDS",
    "EVIDENCE_WORDS",
    "GATE_STOPWORDS",
    "NEGATIONS",
    "SEARCH",
    "SEARCH_STOPWORDS",
    "STOPWORDS",
    "Identifiers",
    "SnowballStemmer",
    "Tokenizer",
    "camel_parts",
    "cjk_bigrams",
    "fold_word",
    "folded_words",
    "has_cjk",
    "light_stem",
    "nfkc",
    "nfkc_casefold",
    "normalize_text",
    "tokenize",
]
