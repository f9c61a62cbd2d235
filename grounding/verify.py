"""Verification of a model's response against its evidence packet, in code, before anyone sees it.

Pure functions. Order (design.md): status/claims agree; citations are packet labels; each claim
is supported by its cited evidence. Dropped claims keep their reason; sources are numbered by use.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from grounding.answer import AnswerStatus, Claim, DroppedClaim, Source
from grounding.evidence import EvidenceItem, EvidencePacket
from grounding.schema import GroundedResponse
from retrieval.chunks import Chunk
from retrieval.text import (
    CLAIM_WORDS,
    EVIDENCE_WORDS,
    NEGATIONS,
    fold_word,
    has_cjk,
    nfkc,
    normalize_text,
)
from retrieval.text.words import CLAIM_STOPWORDS

# Share of a claim's content words (distinct, stopwords dropped, suffix-folded) that must occur in
# its cited evidence. 0.7 lets a claim rephrase a few words ("you can set" for "set") while a
# claim that adds its own facts fails; the exact-token check below catches changed specifics
# even when most words match.
SUPPORT_THRESHOLD = 0.7

# A negation or a number in a claim must appear in the evidence *near the same words*: "does not
# retry" shares every content word with "retries", and "week 17" is not supported by "week 16 ...
# 17 touchdowns". Windows are in words, on each side of the occurrence in the evidence.
NUMBER_WINDOW = 10
NEGATION_WINDOW = 5  # a negation binds to the words right next to it
_CONTRACTION = re.compile(r"n[’']t\b", re.IGNORECASE)
# Words, whole numbers, and sentence ends (kept as "" so a window never crosses a sentence).
_TERM = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+|[.!?](?=\s|$)|\n\s*\n")
_LABEL_MARKERS = re.compile(r"\s*[\[(]E\d+(?:\s*[,;]\s*E\d+)*[\])]")
_URL = re.compile(r"https?://[^\s<>\"'`)\]]+")
_QUOTED = re.compile(
    r"`([^`\n]+)`|\"([^\"\n]+)\"|“([^”\n]+)”|‘([^’\n]+)’|(?<!\w)'([^'\n]+)'(?!\w)|«([^»\n]+)»"
)
_PATH = re.compile(r"(?<![\w/.~-])(?:~|\.{1,2})?/?(?:[\w.-]+/)+[\w.-]*")
_FLAG = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*")
_DOTTED = re.compile(r"\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\b")
_VERSION = re.compile(r"\b[vV]\d+(?:\.\d+)*\b")
_IDENTIFIER = re.compile(
    r"\b\w*_\w*\b"  # snake_case, CONSTANT_NAMES, __dunder__
    r"|\b[a-z]+[A-Z]\w*\b"  # camelCase
    r"|\b[A-Z][a-z0-9]+[A-Z]\w*\b"  # PascalCase with more than one hump
    r"|\b[A-Z][A-Z0-9]{2,}\b"  # CONSTANTS and acronyms
    # letters with digits (h2, utf8); not an ordinal (2nd) nor a unit after a decimal (1.3bn)
    r"|(?<!\d[.,])\b(?=[A-Za-z]*\d)(?=\d*[A-Za-z])(?!\d+(?:st|nd|rd|th)\b)[A-Za-z0-9]+\b"
)
_NUMBER = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)*")
_TRAILING_PUNCTUATION = ".,;:!?"


@dataclass(frozen=True, slots=True)
class Verification:
    status: AnswerStatus
    claims: tuple[Claim, ...]
    sources: tuple[Source, ...]
    dropped: tuple[DroppedClaim, ...]
    message: str


def normalize_label(citation: str) -> str:
    """`E1` as written, or with brackets/spaces/lowercase ("[e1]"): formatting is not a fact."""
    return citation.strip().strip("[]()").strip().upper()


def unknown_citations(response: GroundedResponse, packet: EvidencePacket) -> tuple[str, ...]:
    """Cited ids that are not labels of `packet`, in order of first use; ignored claims excluded."""
    if response.status != "answered":
        return ()
    labels = set(packet.labels)
    unknown: dict[str, None] = {}
    for claim in response.claims:
        for citation in claim.citations:
            if normalize_label(citation) not in labels:
                unknown.setdefault(citation, None)
    return tuple(unknown)


def verify(
    response: GroundedResponse,
    packet: EvidencePacket,
    url_for: Callable[[Chunk], str | None],
) -> Verification:
    """Keep only the claims that cite packet labels and are supported by what they cite."""
    # First, status and claims must agree: an insufficient response shows no claims (any next to
    # it contradict the status), and an answered one must make at least one.
    if response.status == "insufficient_context":
        return _not_found(not_answered_message(packet), ())
    if not response.claims:
        return _not_found(no_claims_message(packet), ())
    kept: list[tuple[str, tuple[EvidenceItem, ...]]] = []
    dropped: list[DroppedClaim] = []
    for claim in response.claims:
        text = _LABEL_MARKERS.sub("", claim.text).strip()
        items, problem = _check_claim(text, claim.citations, packet)
        if problem is None:
            kept.append((text, items))
        else:
            dropped.append(DroppedClaim(text, *problem))
    if not kept:
        return _not_found(unverified_message(packet, len(dropped)), tuple(dropped))
    claims, sources = _number(kept, url_for)
    return Verification(AnswerStatus.ANSWERED, claims, sources, tuple(dropped), "")


def _check_claim(
    text: str, citations: Sequence[str], packet: EvidencePacket
) -> tuple[tuple[EvidenceItem, ...], tuple[str, str] | None]:
    """The cited items, and (reason, detail) when the claim must be dropped."""
    labels = tuple(dict.fromkeys(normalize_label(c) for c in citations))
    if not labels:
        return (), ("no_citation", "the claim cites no evidence")
    items = tuple(packet.item(label) for label in labels)
    unknown = [c for c, item in zip(labels, items, strict=True) if item is None]
    if unknown:
        return (), ("unknown_citation", ", ".join(unknown))
    known = tuple(item for item in items if item is not None)
    problem = support_problem(text, evidence_text(known))
    return known, None if problem is None else ("unsupported", problem)


def evidence_text(items: Iterable[EvidenceItem]) -> str:
    """What a claim citing `items` may draw on: their headings and their text."""
    return "\n\n".join("\n".join((*i.chunk.heading_path, i.chunk.text)) for i in items)


def _number(
    kept: Sequence[tuple[str, tuple[EvidenceItem, ...]]],
    url_for: Callable[[Chunk], str | None],
) -> tuple[tuple[Claim, ...], tuple[Source, ...]]:
    """Sources numbered 1.. in order of first use; each claim cites those numbers."""
    numbers: dict[str, int] = {}
    sources: list[Source] = []
    claims: list[Claim] = []
    for text, items in kept:
        for item in items:
            if item.label not in numbers:
                numbers[item.label] = len(sources) + 1
                sources.append(_source(numbers[item.label], item.chunk, url_for))
        claims.append(Claim(text, tuple(numbers[item.label] for item in items)))
    return tuple(claims), tuple(sources)


def _source(n: int, chunk: Chunk, url_for: Callable[[Chunk], str | None]) -> Source:
    return Source(
        n=n,
        collection=chunk.collection,
        path=chunk.path,
        heading=chunk.heading,
        start_line=chunk.start_line,
        end_line=chunk.end_line,
        url=url_for(chunk),
        chunk_id=chunk.chunk_id,
        updated=chunk.updated,
    )


def _not_found(message: str, dropped: tuple[DroppedClaim, ...]) -> Verification:
    return Verification(AnswerStatus.NOT_FOUND, (), (), dropped, message)


def not_answered_message(packet: EvidencePacket) -> str:
    # The model's own message is unverified free text, so what the user reads is written here.
    return (
        f"The documentation this conversation can read ({_collections(packet)}) does not "
        "answer this question."
    )


def no_claims_message(packet: EvidencePacket) -> str:
    return (
        f"I found passages in {_collections(packet)}, but the answer made no statement citing "
        "them, so there is nothing verified to show."
    )


def unverified_message(packet: EvidencePacket, dropped: int) -> str:
    statements = "statement" if dropped == 1 else "statements"
    return (
        f"I found passages in {_collections(packet)}, but could not verify an answer against "
        f"them ({dropped} {statements} did not match the cited text), so none is shown."
    )


def _collections(packet: EvidencePacket) -> str:
    return ", ".join(packet.scope.collections) or "no collections"


def support_problem(claim_text: str, evidence_text: str) -> str | None:
    """None when `evidence_text` supports `claim_text`, else why not (naming the offending token).

    Every exact token of the claim (number, version, quoted string, identifier, flag, path, URL)
    must appear verbatim; each number and negation must occur in the evidence within
    NUMBER_WINDOW / NEGATION_WINDOW words of a word next to it in the claim; then at least
    SUPPORT_THRESHOLD of its content words must appear.
    """
    claim = normalize_text(claim_text)
    if not claim:
        return "the claim is empty"
    evidence = normalize_text(evidence_text)
    tokens = exact_tokens(claim)
    for token in tokens:
        if not _appears(token, evidence):
            return f"not in the cited evidence: {token!r}"
    anchor = _unanchored(_terms(claim), _terms(evidence))
    if anchor is not None:
        return f"{anchor!r} is not near the same words in the cited evidence"
    return _coverage_problem(claim, evidence, has_exact=bool(tokens))


@functools.lru_cache(maxsize=64)  # the same evidence is checked once per claim citing it
def _terms(text: str) -> tuple[str, ...]:
    """Casefolded, suffix-folded words, whole numbers and "" for sentence ends; "n't" is "not"."""
    text = _CONTRACTION.sub(" not", nfkc(text)).casefold()
    return tuple(_term(t) for t in _TERM.findall(text))


def _term(token: str) -> str:
    if token[0].isdigit():
        return token
    return fold_word(token) if token[0].isalpha() else ""


def _unanchored(claim: Sequence[str], evidence: Sequence[str]) -> str | None:
    """The first negation or number of the claim whose neighbours are not near it in evidence."""
    for i, term in enumerate(claim):
        if not (term in NEGATIONS or term[:1].isdigit()):
            continue
        neighbours = _neighbour_words(claim, i)
        if not neighbours:
            continue  # nothing to anchor to: the verbatim check above is all there is
        spots = [j for j, other in enumerate(evidence) if _same_anchor(term, other)]
        window = NEGATION_WINDOW if term in NEGATIONS else NUMBER_WINDOW
        if not any(neighbours & _sentence_window(evidence, j, window) for j in spots):
            return term
    return None


def _sentence_window(terms: Sequence[str], j: int, width: int) -> set[str]:
    """Up to `width` terms on each side of `j`, not crossing a sentence end."""
    start = j
    while start > 0 and j - start < width and terms[start - 1]:
        start -= 1
    end = j + 1
    while end < len(terms) and end - j <= width and terms[end]:
        end += 1
    return set(terms[start:end])


def _neighbour_words(terms: Sequence[str], i: int) -> set[str]:
    near = _sentence_window(terms, i, 3) - {terms[i]}
    return {t for t in near if len(t) > 1 and t[0].isalpha() and t not in _STOPWORDS_FOLDED}


def _same_anchor(term: str, other: str) -> bool:
    return other in NEGATIONS if term in NEGATIONS else other == term


def _coverage_problem(claim: str, evidence: str, *, has_exact: bool) -> str | None:
    words = content_words(claim)
    if not words:
        return None if has_exact else "the claim has no content words to check"
    folded_evidence = evidence.casefold()
    available = content_words(evidence, keep_stopwords=True)
    missing = sorted(w for w in words if w not in available and not _cjk_in(w, folded_evidence))
    if len(words) - len(missing) >= SUPPORT_THRESHOLD * len(words):
        return None
    return (
        f"{len(words) - len(missing)} of {len(words)} content words are in the cited evidence "
        f"(needs {SUPPORT_THRESHOLD:.0%}); missing: {', '.join(missing[:8])}"
    )


def exact_tokens(text: str) -> tuple[str, ...]:
    """The tokens of `text` that must appear verbatim in evidence, by kind, then by position."""
    found: list[str] = []
    remaining = text
    for pattern in (_URL, _QUOTED, _PATH, _FLAG, _DOTTED, _VERSION, _IDENTIFIER, _NUMBER):
        taken: list[tuple[int, int]] = []
        for match in pattern.finditer(remaining):
            token = _token_of(pattern, match, text)
            if token:
                found.append(token)
                taken.append(match.span())
        # Mask what was taken, so a dotted name inside a quoted string is not checked twice;
        # tokens are always cut from the unmasked text.
        for start, end in taken:
            remaining = remaining[:start] + " " * (end - start) + remaining[end:]
    return tuple(dict.fromkeys(found))


def _token_of(pattern: re.Pattern[str], match: re.Match[str], text: str) -> str:
    if pattern is _QUOTED:
        group = next(i for i, g in enumerate(match.groups(), start=1) if g is not None)
        return text[match.start(group) : match.end(group)].strip()
    token = text[match.start() : match.end()]
    if pattern in (_URL, _PATH):
        token = token.rstrip(_TRAILING_PUNCTUATION)
    if pattern is _PATH and not _is_path(token):
        return ""
    if pattern is _DOTTED and all(len(part) == 1 for part in token.split(".")):
        return ""  # e.g. / i.e: abbreviations, not names
    return token


def _is_path(token: str) -> bool:
    """`and/or` and `HTTP/2` are words; `/etc/hosts`, `docs/api.md`, `a/b/c` are paths."""
    last = token.rsplit("/", 1)[-1]
    return token.startswith(("/", "~", ".")) or token.count("/") >= 2 or "." in last


def _appears(token: str, evidence: str) -> bool:
    """`token` occurs in `evidence` as a whole token: `30` is not in `300`, `max` not in `max_x`."""
    if not (token[0].isalnum() or token[0] == "_" or token[-1].isalnum() or token[-1] == "_"):
        return token in evidence
    left = r"(?<![\d])(?<!\d[.,])" if token[0].isdigit() else r"(?<!\w)" if _wordy(token[0]) else ""
    right = r"(?![\d])(?![.,]\d)" if token[-1].isdigit() else r"(?!\w)" if _wordy(token[-1]) else ""
    return re.search(left + re.escape(token) + right, evidence) is not None


def _wordy(char: str) -> bool:
    return char.isalnum() or char == "_"


@functools.lru_cache(maxsize=64)
def content_words(text: str, *, keep_stopwords: bool = False) -> frozenset[str]:
    """Distinct casefolded, suffix-folded words of letters; stopwords dropped unless kept."""
    return frozenset((EVIDENCE_WORDS if keep_stopwords else CLAIM_WORDS)(text))


def _cjk_in(word: str, folded_evidence: str) -> bool:
    # Scripts written without spaces have no word boundaries: a run must appear as written.
    return has_cjk(word) and word in folded_evidence


_STOPWORDS_FOLDED = frozenset(fold_word(w) for w in CLAIM_STOPWORDS) - NEGATIONS
