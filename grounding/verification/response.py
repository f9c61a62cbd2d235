"""verify(): a model's response against its evidence packet, in code, before anyone sees it.

Order (design.md): status and claims agree; citations are packet labels; every quote occurs in a
cited item; each claim is supported by what it cites. Dropped claims keep their reason; sources
are numbered by use.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from grounding.answer import AnswerStatus, Claim, DroppedClaim, NoAnswer, Source
from grounding.evidence import EvidenceItem, EvidencePacket
from grounding.schema import GroundedClaim, GroundedResponse
from grounding.verification.documents import document_name
from grounding.verification.quotes import Located, item_text, locate
from grounding.verification.quotes import unknown_quotes as _unknown_quotes
from grounding.verification.support import Support, check
from retrieval.chunks import Chunk
from retrieval.text.markup import code_spans

_LABEL_MARKERS = re.compile(r"\s*[\[(]E\d+(?:\s*[,;]\s*E\d+)*[\])]")


@dataclass(frozen=True, slots=True)
class Verification:
    status: AnswerStatus
    claims: tuple[Claim, ...]
    sources: tuple[Source, ...]
    dropped: tuple[DroppedClaim, ...]
    reason: NoAnswer | None  # why nothing is shown (not found); the bot words it


@dataclass(frozen=True, slots=True)
class Kept:
    text: str
    items: tuple[EvidenceItem, ...]
    quotes: tuple[Located, ...]
    other_language: bool


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


def unknown_quotes(response: GroundedResponse, packet: EvidencePacket) -> tuple[str, ...]:
    """Quotes that occur in no item of `packet` (invented, or garbled past normalising), in order
    of first use; like an unknown id, they earn the response one regeneration."""
    if response.status != "answered":
        return ()
    return _unknown_quotes((claim.quotes for claim in response.claims), packet)


def verify(
    response: GroundedResponse,
    packet: EvidencePacket,
    url_for: Callable[[Chunk], str | None],
) -> Verification:
    """Keep only the claims that cite packet labels, quote what they cite, and are supported."""
    # First, status and claims must agree: an insufficient response shows no claims (any next to
    # it contradict the status), and an answered one must make at least one.
    if response.status == "insufficient_context" or not response.claims:
        return _not_found(not_found_reason(response), ())
    kept: list[Kept] = []
    dropped: list[DroppedClaim] = []
    for claim in response.claims:
        checked = check_claim(claim, packet, kept)
        if isinstance(checked, Kept):
            kept.append(checked)
        else:
            dropped.append(checked)
    if not kept:
        return _not_found(not_found_reason(response), tuple(dropped))
    claims, sources = _number(kept, url_for)
    return Verification(AnswerStatus.ANSWERED, claims, sources, tuple(dropped), None)


def not_found_reason(response: GroundedResponse) -> NoAnswer:
    """Why nothing of `response` is shown, when none of its claims was kept: it said the
    evidence is insufficient, made no claim, or every claim it made was dropped."""
    if response.status == "insufficient_context":
        return NoAnswer.NOT_IN_DOCS
    if not response.claims:
        return NoAnswer.NO_CLAIMS
    return NoAnswer.UNVERIFIED


def check_claim(
    claim: GroundedClaim, packet: EvidencePacket, earlier: Sequence[Kept] = ()
) -> Kept | DroppedClaim:
    """One claim, as `verify` checks each (a streamed answer checks them as they come), after
    the `earlier` claims of its answer that were kept: kept with its items and quotes, or
    dropped with the reason."""
    text = _LABEL_MARKERS.sub("", claim.text).strip()
    checked = _check_claim(text, claim, packet, earlier)
    return checked if isinstance(checked, Kept) else DroppedClaim(text, *checked)


def _check_claim(
    text: str, claim: GroundedClaim, packet: EvidencePacket, earlier: Sequence[Kept]
) -> Kept | tuple[str, str]:
    """The claim kept with its items and quotes, or (reason, detail) when it must be dropped."""
    labels = tuple(dict.fromkeys(normalize_label(c) for c in claim.citations))
    if not labels:
        return "no_citation", "the claim cites no evidence"
    items = tuple(packet.item(label) for label in labels)
    unknown = [c for c, item in zip(labels, items, strict=True) if item is None]
    if unknown:
        return "unknown_citation", ", ".join(unknown)
    known = tuple(item for item in items if item is not None)
    located, problem = locate(claim.quotes, known, packet.items)
    if problem is not None:
        return "unquoted", problem
    verdict = check(text, support_of(located, known, earlier))
    if verdict.problem is not None:
        return "unsupported", verdict.problem
    return Kept(text, known, located, verdict.other_language)


def support_of(
    located: Sequence[Located], cited: Sequence[EvidenceItem], earlier: Sequence[Kept] = ()
) -> Support:
    """A claim's support: the sentences its quotes stand in, its cited items whole, and the
    sentences earlier kept claims quoted from those items' documents (numbers the answer already
    showed, cases an "also" adds to: a section may be cut into several items)."""
    quoted = "\n\n".join(dict.fromkeys(q.sentences for q in located))
    context = "\n\n".join(dict.fromkeys(q.context for q in located))
    documents = {_document(item) for item in cited}
    shown = dict.fromkeys(
        q.sentences for k in earlier for q in k.quotes if _document(q.item) in documents
    )
    stated = "\n\n".join(s for s in shown if s not in quoted)
    # The documents' own names (their file names) stand beside their headings: a number there
    # ("PEP 572" of pep-0572.rst) is the document's, as one of its title is.
    names = "\n\n".join(dict.fromkeys(document_name(i.chunk.path) for i in cited))
    headings = "\n\n".join(
        dict.fromkeys((*(" > ".join(i.chunk.heading_path) for i in cited), names))
    )
    clauses = tuple(q.clause for q in located)
    lists = tuple(sorted({q.list_length for q in located if q.list_length}))
    under = "\n\n".join(
        dict.fromkeys(
            h for q in located for h in (*_heading_names(q.item.chunk.heading_path), q.heading) if h
        )
    )
    cited_text = f"{evidence_text(cited)}\n\n{names}"
    return Support(quoted, cited_text, clauses, context, stated, headings, lists, under)


def _document(item: EvidenceItem) -> tuple[str, str]:
    return item.chunk.collection, item.chunk.path


def _heading_names(headings: Sequence[str]) -> tuple[str, ...]:
    """The names the headings above a quote write as code (":mod:`contextlib` --- Utilities"):
    the module or object the section documents, which a claim may name as its subject."""
    return tuple(" ".join(code_spans(h)) for h in headings)


def evidence_text(items: Iterable[EvidenceItem]) -> str:
    """What a claim citing `items` may draw on: their headings and their text."""
    return "\n\n".join(item_text(i) for i in items)


def _number(
    kept: Sequence[Kept], url_for: Callable[[Chunk], str | None]
) -> tuple[tuple[Claim, ...], tuple[Source, ...]]:
    """Sources numbered 1.. in order of first use; each claim cites those numbers."""
    numbering = Numbering(url_for)
    claims = tuple(numbering.number(claim)[0] for claim in kept)
    return claims, tuple(numbering.sources)


class Numbering:
    """Numbers sources 1.. in order of first use, one kept claim at a time: a number, once
    given, never changes, so claims shown early keep their markers."""

    def __init__(self, url_for: Callable[[Chunk], str | None]) -> None:
        self._url_for = url_for
        self._numbers: dict[str, int] = {}
        self.sources: list[Source] = []

    def number(self, claim: Kept) -> tuple[Claim, tuple[Source, ...]]:
        """The claim citing source numbers, and the sources it cites first."""
        new: list[Source] = []
        for item in claim.items:
            if item.label not in self._numbers:
                self._numbers[item.label] = len(self.sources) + 1
                new.append(_source(self._numbers[item.label], item.chunk, self._url_for))
                self.sources.append(new[-1])
        citations = tuple(self._numbers[item.label] for item in claim.items)
        quotes = tuple(q.quote.strip() for q in claim.quotes)
        return Claim(claim.text, citations, quotes, claim.other_language), tuple(new)


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


def _not_found(reason: NoAnswer, dropped: tuple[DroppedClaim, ...]) -> Verification:
    return Verification(AnswerStatus.NOT_FOUND, (), (), dropped, reason)
