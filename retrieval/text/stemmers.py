"""The stemmers: Snowball (search), and the two light suffix folders the extractive generator
and the verifier use. Each is applied to both sides of a comparison, so it only has to be
consistent; why each stage uses the one it does is measured, and said where it is chosen."""

from __future__ import annotations

import functools
import threading

import Stemmer

from retrieval.text.scripts import CYRILLIC
from retrieval.text.words import NEGATIONS


class SnowballStemmer:
    """A Snowball stemmer (PyStemmer), one per thread: a PyStemmer object is not thread-safe,
    and queries and generations run on several threads at once."""

    def __init__(self, language: str = "english") -> None:
        self.language = language
        self._local = threading.local()

    def __call__(self, word: str) -> str:
        stemmed: str = self.current().stemWord(word)
        return stemmed

    def current(self) -> Stemmer.Stemmer:
        """The calling thread's stemmer, made on its first word."""
        stemmer = getattr(self._local, "stemmer", None)
        if stemmer is None:
            stemmer = self._local.stemmer = Stemmer.Stemmer(self.language)
        return stemmer


_RUSSIAN = SnowballStemmer("russian")


@functools.lru_cache(maxsize=1 << 16)  # words repeat across units and packets
def light_stem(word: str) -> str:
    """The extractive generator's crude suffix stripper (lowercase words).

    Neither search's Snowball stemmer nor the verifier's `fold_word` does better there: on
    benchmarks/answer_quality.py --sample 500 each lost refusals (SQuAD v2.0 unanswerable refused
    0.072 -> 0.052 / 0.060) and Snowball answered "What is the capital of Australia?" from httpx.
    Cyrillic words go to Snowball Russian: Russian inflects far more than English ("развёртывание",
    "развёртывания"), and no English suffix applies. Other words outside ASCII are kept whole.
    """
    if not word.isascii():
        return _RUSSIAN(word) if CYRILLIC.search(word) else word
    for suffix, replacement in (("ies", "y"), ("ing", ""), ("ion", ""), ("ed", ""), ("es", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            word = word[: -len(suffix)] + replacement
            break
    if word.endswith("s") and not word.endswith("ss") and len(word) > 4:
        word = word[:-1]
    if word.endswith("e") and len(word) > 4:
        word = word[:-1]
    return word


@functools.lru_cache(maxsize=1 << 16)
def fold_word(word: str) -> str:
    """The verifier's light suffix folding so inflections meet: retries/retry,
    configured/configure, boxes/box (casefolded words).

    Negations are kept apart, since the verifier anchors each one: a negation folds to itself
    ("none" no longer becomes "non"), and a word that is none never folds into one ("note",
    "notes", "noted" and "noting" meet at `not_`, not at `not`).
    """
    if word in NEGATIONS:
        return word
    folded = _fold(word)
    return folded + "_" if folded in NEGATIONS else folded


def folded_words(text: str) -> frozenset[str]:
    """The words of `text`, each as fold_word reads it (a word list written as one string)."""
    return frozenset(fold_word(word) for word in text.split())


def _fold(word: str) -> str:
    if len(word) <= 3:
        return word
    for suffix, replacement in (
        ("ies", "y"),
        ("ied", "y"),
        ("sses", "ss"),
        ("ing", ""),
        ("ed", ""),
        ("es", ""),
        ("s", ""),
    ):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            if suffix == "s" and word.endswith(("ss", "us", "is")):
                continue
            word = word[: -len(suffix)] + replacement
            break
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
        word = word[:-1]  # stopped -> stopp -> stop
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]  # configure / configur(ed): meet at the stem
    return word
