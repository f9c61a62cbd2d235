"""The one tokenizer for documents and queries: words, code identifiers and CJK bigrams.

Pure: the only state is a bounded memo of word -> tokens, which never changes a result.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import chain

import Stemmer

# Han, Hiragana, Katakana, Hangul (jamo, compatibility jamo, syllables) and CJK
# compatibility ideographs: scripts written without spaces between words.
_CJK_RANGES = (
    "\u1100-\u11ff\u3040-\u309f\u30a0-\u30ff\u3130-\u318f\u31f0-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7af\ud7b0-\ud7ff\uf900-\ufaff"
    "\U00020000-\U0002fa1f"
)
_CJK_SPLIT = re.compile(f"([{_CJK_RANGES}]+)")
_HAS_CJK = re.compile(f"[{_CJK_RANGES}]")
# A word, or dotted name such as `httpx.Client` or `3.11`; case is kept until the
# identifier has been split at its case changes.
_WORD = re.compile(r"\w+(?:\.\w+)*")
_MEMO_LIMIT = 300_000

# English function words: articles, pronouns, prepositions, conjunctions, auxiliaries, modals,
# quantifiers and negations. docbot's one list: search, the extractive generator and the verifier
# each derive their own set from it, and say why theirs differs.
_STOPWORD_TEXT = """
a about above after again against all also am an and any are as at be because been before being
below between both but by can could did do does doing done down during each either every few for
from further had has have having he her here hers him his how i if in into is it its itself just
me might more most much must my no nor not now of off on once only or other our ours out over own
same shall she should so some such than that the their theirs them then there these they this
those through to too under until up upon us very via was we were what when where whether which
while who whom whose why will with within without would you your yours
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
# Search drops only the commonest function words, which costs no recall and shortens the posting
# lists a query walks (most of tantivy's latency at 100k, docs/performance.md). It keeps these:
# dropping them too measured worse on SQuAD v1.1 dev with bm25 (recall@1 0.780 -> 0.778,
# recall@5 0.933 -> 0.932), so prepositions, quantifiers and negations ("before", "only", "not")
# still tell questions apart.
_SEARCH_KEEPS_TEXT = """
    about above after again against all also am any because before below between both done down
    during each either every few further here just might more most much must no nor not now off
    once only other out over own same shall some such through under until up upon us very via
    whether whose within without
"""
SEARCH_STOPWORDS = STOPWORDS - frozenset(_SEARCH_KEEPS_TEXT.split())
# Words that turn a statement around: "does not retry" shares every other word with "retries".
NEGATIONS = frozenset(("not", "no", "never", "cannot", "none", "nor", "without"))


class EnglishStemmer:
    """Snowball English (PyStemmer), one stemmer per thread: a PyStemmer object is not
    thread-safe, and queries may be tokenized on several threads at once."""

    def __init__(self) -> None:
        self._local = threading.local()

    def __call__(self, word: str) -> str:
        stemmed: str = self.current().stemWord(word)
        return stemmed

    def current(self) -> Stemmer.Stemmer:
        """The calling thread's stemmer, made on its first word."""
        stemmer = getattr(self._local, "stemmer", None)
        if stemmer is None:
            stemmer = self._local.stemmer = Stemmer.Stemmer("english")
        return stemmer


@dataclass(slots=True)
class Tokenizer:
    """Turns text into index terms; one instance, `tokenize`, serves documents and queries.

    The options exist so benchmarks can measure the alternatives; docbot uses the defaults.
    `stem` applies to words and to the parts of identifiers, never to an identifier's whole
    form (`follow_redirects`, `httpx.client`, `getusername`), to words holding digits, or to CJK.
    """

    stopwords: frozenset[str] = SEARCH_STOPWORDS
    keep_dotted: bool = True  # `httpx.client` kept whole besides `httpx` and `client`
    # Snowball English: +0.019 recall@5 on SQuAD, no loss on the httpx or Django FAQ questions
    # (docs/performance.md); `None` turns it off.
    stem: Callable[[str], str] | None = field(default_factory=EnglishStemmer)
    _memo: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False)

    def __call__(self, text: str) -> list[str]:
        words = _WORD.findall(unicodedata.normalize("NFKC", text))
        memo = self._memo
        missing = set(words).difference(memo)
        if len(memo) + len(missing) > _MEMO_LIMIT:
            memo.clear()  # bounded: a long build must not grow without end
            missing = set(words)
        for raw in missing:
            memo[raw] = self._word(raw)
        # Looked up and flattened in C: this runs over every word of every document.
        return list(chain.from_iterable(map(memo.__getitem__, words)))

    def _word(self, raw: str) -> tuple[str, ...]:
        if _HAS_CJK.search(raw):
            return tuple(self._mixed(raw))
        names = raw.split(".")
        out: list[str] = []
        if len(names) > 1 and self.keep_dotted:
            out.append(raw.casefold())
        for name in names:
            whole, parts = self._identifier(name)
            if whole is not None:
                out.append(whole)
            out.extend(self._finish(parts))
        return tuple(out)

    def _mixed(self, raw: str) -> Iterable[str]:
        """A word mixing CJK and other letters, e.g. `Python的文档`: bigrams for the CJK runs."""
        for index, piece in enumerate(_CJK_SPLIT.split(raw)):
            if not piece:
                continue
            if index % 2:  # re.split puts the captured CJK runs at odd positions
                yield from cjk_bigrams(piece)
            else:
                yield from self._word(piece.strip("."))

    def _identifier(self, name: str) -> tuple[str | None, list[str]]:
        """`getUserName` -> (getusername, [get, user, name]); a plain word is its own part.

        The whole form of a compound name is returned apart: it is indexed as written.
        """
        whole = name.casefold()
        if not whole.strip("_"):
            return None, []
        parts = [p.casefold() for chunk in name.split("_") if chunk for p in camel_parts(chunk)]
        if parts == [whole]:
            return None, [whole]
        return whole, list(dict.fromkeys(p for p in parts if p != whole))

    def _finish(self, words: list[str]) -> list[str]:
        """Stopwords dropped (by their written form), then plain alphabetic words stemmed."""
        kept = [w for w in words if w not in self.stopwords]
        stem = self.stem
        if stem is None:
            return kept
        return [stem(w) if w.isalpha() else w for w in kept]


def camel_parts(word: str) -> list[str]:
    """Split at case changes: `HTTPServer` -> HTTP, Server; `getUserName` -> get, User, Name.

    Digits stay with the letters before them (`sha256`, `utf8Decoder` -> utf8, Decoder).
    """
    parts: list[str] = []
    start = 0
    for i in range(1, len(word)):
        prev, cur = word[i - 1], word[i]
        lower_to_upper = cur.isupper() and (prev.islower() or prev.isdigit())
        acronym_end = (
            cur.isupper() and prev.isupper() and i + 1 < len(word) and word[i + 1].islower()
        )
        if lower_to_upper or acronym_end:
            parts.append(word[start:i])
            start = i
    parts.append(word[start:])
    return parts


def cjk_bigrams(run: str) -> list[str]:
    """Overlapping character bigrams, so a Chinese question finds Chinese text without a lexicon."""
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


_DEFAULT = Tokenizer()


def tokenize(text: str) -> list[str]:
    """docbot's tokenizer: NFKC, casefold, identifiers split (keeping the whole), CJK bigrams."""
    return _DEFAULT(text)
