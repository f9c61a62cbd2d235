"""What a question asks: its language, its kind and the words to read the evidence with.

Kinds are a few broad features for the reader's model, not rules: a default or other value
("what port", "how long", "por defecto", "默认"), a name ("which setting", "what's it
called"), a procedure ("how do I", or a request without a question word), a cause ("why",
an error), a yes/no question. A question in Chinese or Spanish about English docs is read
through its anchors: the English words, identifiers and numbers it holds that the evidence
also has ("SESSION_COOKIE_AGE 默认是多少?" -> SESSION_COOKIE_AGE, default).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from grounding.generators.terms import CJK, identifiers, terms
from retrieval.text.slack import markup_words
from retrieval.text.words import SPANISH_WORDS


class Kind(StrEnum):
    VALUE = "value"
    NAME = "name"
    HOWTO = "howto"
    CAUSE = "cause"
    YESNO = "yesno"


# The kind patterns are written by hand from how English asks for each kind, not fit by a
# script: training/train_reader.py fits only how much the kind features weigh. Some phrases
# ("out of the box") also occur in dev questions, of the test split too (hx04), so a test
# figure on such a question is not wholly held out from these patterns.
_ENGLISH_KINDS: dict[Kind, re.Pattern[str]] = {
    Kind.VALUE: re.compile(
        r"\bdefaults?\b|\bhow\s+(?:many|much|long|big|large|often|deep|wide)\b|\bwhat\s+"
        r"(?:port|size|value|version|number|limit|length|level)\b|\bmax(?:imum)?\b|\bmin(?:imum)?\b"
        r"|\bby default\b|\bout of the box\b",
        re.IGNORECASE,
    ),
    Kind.NAME: re.compile(
        r"\b(?:which|what)(?:'s)?\s+(?:the\s+)?(?:\w+\s+)?(?:setting|option|flag|parameter|argument"
        r"|function|method|class|module|command|variable|exception)\b"
        r"|\bcalled\b|\bwhere\s+(?:do|does|is)\b",
        re.IGNORECASE,
    ),
    Kind.HOWTO: re.compile(
        r"^\s*how\s+(?:do|can|could|should|would|shall)\s+(?:i|we|you|one)\b|\bhow\s+to\b"
        r"|\bsteps?\s+(?:to|for)\b|\bis\s+there\s+a\s+way\b",
        re.IGNORECASE,
    ),
    Kind.CAUSE: re.compile(r"\bwhy\b|\berrors?\b|\bfail\w*|\bwrong\b", re.IGNORECASE),
    Kind.YESNO: re.compile(
        r"^\s*(?:is|are|does|do|can|should|will|could|has|have)\b", re.IGNORECASE
    ),
}
# The same kinds in the other languages docbot's users write in (Chinese, Spanish).
_OTHER_KINDS: dict[Kind, re.Pattern[str]] = {
    Kind.VALUE: re.compile(r"por\s+defecto|predeterminad|cu[aá]nt[oa]s?\b|默认|缺省|多少|几"),
    Kind.HOWTO: re.compile(r"c[oó]mo\b|如何|怎么|怎样|怎麼|怎樣"),
    Kind.CAUSE: re.compile(r"por\s+qu[eé]|为什么|為什麼|错误|錯誤"),
    Kind.YESNO: re.compile(r"吗|嗎|是否"),
}
# "How long", "how many": the kind of answer asked for, not a word the answer must contain.
_AMOUNT = re.compile(r"\bhow\s+(?:many|much|long|often|big|large|far|deep|wide)\b", re.IGNORECASE)
_DEFAULT_ELSEWHERE = re.compile(r"por\s+defecto|predeterminad|默认|缺省")
# The words of such a phrase, whole ("predeterminado"): the reading holds them as "default".
_DEFAULT_WORDS = re.compile(rf"\w*(?:{_DEFAULT_ELSEWHERE.pattern})\w*")
_QUESTION_WORD = re.compile(
    r"^\s*(?:what|which|who|whom|whose|where|when|why|how|is|are|does|do|did|can|could|should"
    r"|will|would|has|have|any)\b",
    re.IGNORECASE,
)
# Two Spanish function words (retrieval.text.words.SPANISH_WORDS), or Spanish punctuation and
# letters, mark a question written in Spanish. They are never anchors.
_SPANISH_MARK = re.compile(r"[¿¡ñáéíóú]", re.IGNORECASE)
_ASCII_TOKEN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./:\-]*[A-Za-z0-9_]|[A-Za-z0-9]")
# A token written as code: a digit or a path/identifier mark, camelCase, or an ACRONYM.
_CODE_LIKE = re.compile(r"[\d_./:]|[a-z][A-Z]|^[A-Z]{2,}")
_CC_MENTION = re.compile(r"\bcc:?\s*(?=<@)", re.IGNORECASE)  # "cc <@U0BOB>": addressing people
# "... cc" whose people were already stripped (the bot removes Slack mentions before asking).
_TRAILING_CC = re.compile(r"\s*\bcc:?\s*$", re.IGNORECASE)
# An @handle ("@alice", "@cached_property"): not an email's domain, nor a sentence's last dot.
_AT_NAME = r"(?<![\w.@])@\w[\w.\-]*(?<![.\-])"
_AT_NAMES = re.compile(_AT_NAME)
_HANDLE = re.compile(r"(?:\bcc:?\s*)?" + _AT_NAME, re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Asked:
    text: str  # the question without Slack markup and @handles no evidence has
    lang: str  # en | zh | es
    kinds: frozenset[Kind]
    reading: str  # what is matched against the evidence: the question, or its anchors
    terms: tuple[str, ...]  # stemmed content terms of `reading`, in order, without repeats
    identifiers: tuple[str, ...]  # tokens written as code
    foreign: bool = False  # read through its anchors: the evidence is in another language
    # A foreign question's non-Spanish Latin words its reading left out because the evidence
    # lacks them ("kubernetes"): the reading cannot hold them, so the answerer's missing words
    # are counted on these too (reading.py).
    dropped: tuple[str, ...] = ()


def language(text: str) -> str:
    if CJK.search(text):
        return "zh"
    words = re.findall(r"[^\W\d_]+", text.lower())
    if _SPANISH_MARK.search(text) or sum(w in SPANISH_WORDS for w in words) >= 2:
        return "es"
    return "en"


def kinds_of(text: str, lang: str) -> frozenset[Kind]:
    patterns = _ENGLISH_KINDS if lang == "en" else _OTHER_KINDS
    found = {kind for kind, pattern in patterns.items() if pattern.search(text)}
    if lang == "en" and not _QUESTION_WORD.search(text) and not text.rstrip().endswith("?"):
        found.add(Kind.HOWTO)  # "cache a whole view for 15 minutes": a request to show how
    return frozenset(found)


def ask(question: str, vocabulary: Iterable[str], handles: Iterable[str] = ()) -> Asked:
    """Analyse `question` against the evidence's `vocabulary` (its terms) and `@handles`."""
    text = _without_people(question, {h.lower() for h in handles})
    lang = language(text)
    kinds = kinds_of(text, lang)
    known = frozenset(vocabulary)
    own = terms(text)
    # A question in the evidence's own language (Chinese docs, a Chinese question) is read
    # whole; one whose words the evidence mostly lacks is read through its anchors.
    foreign = lang != "en" and sum(t in known for t in own) * 2 < len(own)
    reading = _anchors(text, lang, known) if foreign else _AMOUNT.sub("how", text)
    return Asked(
        text=text,
        lang=lang,
        kinds=kinds,
        reading=reading,
        terms=tuple(dict.fromkeys(terms(reading))),
        identifiers=identifiers(reading),
        foreign=foreign,
        dropped=_dropped(text, lang, known) if foreign else (),
    )


def handles(text: str) -> set[str]:
    """The @handles `text` holds, lowered: read from evidence the same way as from a question."""
    return {m.lower() for m in _AT_NAMES.findall(text)}


def _anchors(text: str, lang: str, vocabulary: frozenset[str]) -> str:
    """The English words, identifiers and numbers of a non-English question.

    In Chinese every Latin token is one; in Spanish a plain word counts only when the evidence
    has it ("timeout"), since most are Spanish ("puerto"); code-like tokens always count.
    """
    kept = []
    # Chinese runs into Latin words without spaces
    tokens = _ASCII_TOKEN.findall(text) if lang == "zh" else _latin_words(text)
    for token in tokens:
        code_like = bool(_CODE_LIKE.search(token))
        english = token.lower() not in SPANISH_WORDS and set(terms(token)) <= vocabulary
        if lang == "zh" or code_like or english:
            kept.append(token)
    if _DEFAULT_ELSEWHERE.search(text):
        kept.append("default")
    return " ".join(kept)


def _dropped(text: str, lang: str, vocabulary: frozenset[str]) -> tuple[str, ...]:
    """The Latin words of a Spanish question that _anchors leaves out only because the evidence
    lacks them (neither Spanish, code-like nor numbers: those it keeps or never reads, nor the
    words of "por defecto": _anchors reads those as "default")."""
    if lang == "zh":
        return ()  # _anchors keeps every Latin token of a Chinese question
    out = []
    for token in _latin_words(_DEFAULT_WORDS.sub(" ", text)):
        plain = not _CODE_LIKE.search(token)
        own = set(terms(token))
        if plain and token.lower() not in SPANISH_WORDS and own and not own <= vocabulary:
            out.append(token)
    return tuple(out)


def _latin_words(text: str) -> list[str]:
    words = (w.strip(".:") for w in re.findall(r"[^\s¿?¡!,;()\"']+", text))
    return [w for w in words if w and w.isascii()]


def _without_people(question: str, evidence_handles: set[str]) -> str:
    """Slack markup and "@alice" / "cc @bob" address people; an `@name` the evidence holds (a
    decorator such as `@cached_property`) stays."""
    text = _TRAILING_CC.sub("", markup_words(_CC_MENTION.sub(" ", question)))
    if "@" not in text:
        return " ".join(text.split())

    def drop(match: re.Match[str]) -> str:
        handle = match.group()[match.group().index("@") :].lower()
        return match.group() if handle in evidence_handles else " "

    return " ".join(_HANDLE.sub(drop, text).split())
