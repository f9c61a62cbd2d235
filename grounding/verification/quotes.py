"""Quotes: the verbatim excerpts each claim gives of the evidence it cites, and where they occur.

A quote must occur in a cited item after normalising whitespace, markup and typography only
(backticks, emphasis, links, list and heading markers, table pipes, curly quotes, code layout:
line breaks, spaces inside brackets, trailing commas). Case is kept, except a quote's first
letter, which a model may capitalise when it starts mid-sentence. "..." between parts of a quote
stands for text left out: the parts must occur in order in one item.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from grounding.evidence import EvidenceItem, EvidencePacket
from retrieval.text import nfkc

# Markup at a line's start: headings, block quotes, bullets and numbered items, table pipes.
_LINE_MARKUP = re.compile(r"^[ \t]*(?:#{1,6}[ \t]+|>[ \t]?|(?:[-*+•]|\d{1,3}[.)])[ \t]+)+", re.M)
_MD_LINK = re.compile(r"!?\[([^\]\n]*)\]\([^)\s]*(?:\s+\"[^\"]*\")?\)")
_REST_LINK = re.compile(r"`([^`<\n]+?)\s*<[^>\n]+>`_{1,2}")
_REST_ROLE = re.compile(r":[a-z][\w-]*(?::[a-z][\w-]*)?:(?=`)")
_EMPHASIS = re.compile(r"[`*|]+|(?<![^\W_])_+|_+(?![^\W_])")
# Code layout: a space next to brackets and separators, a trailing comma before a closer.
_CODE_SPACE = re.compile(r"\s*([()\[\]{},:;=])\s*")
_TRAILING_COMMA = re.compile(r",(?=[)\]}])")
_TYPOGRAPHY = str.maketrans(
    {"‘": "'", "’": "'", "‚": "'", "“": '"', "”": '"', "„": '"', "–": "-", "—": "-", "…": "..."}
)
_ELLIPSIS = re.compile(r"\s*(?:\[\.\.\.\]|\.{3,})\s*")
_EDGES = " \t\n\"'.,;:!?()[]«»"


@dataclass(frozen=True, slots=True)
class Located:
    """A quote as the claim gave it, and the cited item it occurs in."""

    quote: str
    item: EvidenceItem


def quote_form(text: str) -> str:
    """`text` with only whitespace, markup and typography normalised: what quotes match in."""
    text = _LINE_MARKUP.sub("", nfkc(text).translate(_TYPOGRAPHY))
    text = _REST_LINK.sub(r"\1", _MD_LINK.sub(r"\1", text))
    text = _EMPHASIS.sub("", _REST_ROLE.sub("", text))
    text = _CODE_SPACE.sub(r"\1", " ".join(text.split()))
    return _TRAILING_COMMA.sub("", text)


@functools.lru_cache(maxsize=256)  # an item is searched once per quote of every claim citing it
def _item_form(text: str) -> str:
    return quote_form(text)


def item_text(item: EvidenceItem) -> str:
    """What a quote of `item` may come from: its headings and its text."""
    return "\n".join((*item.chunk.heading_path, item.chunk.text))


def quote_parts(quote: str) -> tuple[str, ...]:
    """The quote's parts in quote form, split where "..." marks text left out; () if empty."""
    form = quote_form(quote.translate(_TYPOGRAPHY))
    parts = (p.strip(_EDGES) for p in _ELLIPSIS.split(form))
    return tuple(p for p in parts if any(c.isalnum() for c in p))


def occurs(quote: str, item: EvidenceItem) -> bool:
    """`quote` occurs in `item`, its parts in order, each starting and ending at a word edge."""
    parts = quote_parts(quote)
    return bool(parts) and _pattern(parts).search(_item_form(item_text(item))) is not None


@functools.lru_cache(maxsize=256)
def _pattern(parts: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(".*?".join(_part_pattern(p) for p in parts), re.S)


def _part_pattern(part: str) -> str:
    first = part[0]
    head = f"[{re.escape(first.lower())}{re.escape(first.upper())}]" if first.isalpha() else ""
    body = re.escape(part[1:] if head else part)
    left = r"(?<![^\W_])" if first.isalnum() else ""
    right = r"(?![^\W_])" if part[-1].isalnum() else ""
    return left + head + body + right


def locate(
    quotes: Sequence[str], cited: Sequence[EvidenceItem], packet: EvidencePacket
) -> tuple[tuple[Located, ...], str | None]:
    """Each quote with the cited item it occurs in, and why not when one does not (or none is
    given)."""
    if not quotes:
        return (), "the claim gives no quote of its evidence"
    located: list[Located] = []
    for quote in quotes:
        item = next((i for i in cited if occurs(quote, i)), None)
        if item is None:
            return (), _not_found(quote, cited, packet)
        located.append(Located(quote, item))
    return tuple(located), None


def _not_found(quote: str, cited: Sequence[EvidenceItem], packet: EvidencePacket) -> str:
    shown = _clip(quote)
    if not quote_parts(quote):
        return f"the quote {shown} has no words"
    elsewhere = [i.label for i in packet.items if i not in cited and occurs(quote, i)]
    labels = ", ".join(i.label for i in cited)
    if elsewhere:
        return f"the quote {shown} is in {', '.join(elsewhere)}, not in the cited {labels}"
    return f"the quote {shown} is not in the cited {labels}"


def unknown_quotes(claims: Iterable[Sequence[str]], packet: EvidencePacket) -> tuple[str, ...]:
    """Quotes that occur in no item of the packet, in order of first use."""
    unknown: dict[str, None] = {}
    for quotes in claims:
        for quote in quotes:
            if not any(occurs(quote, item) for item in packet.items):
                unknown.setdefault(quote, None)
    return tuple(unknown)


def _clip(text: str, limit: int = 80) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "…")
