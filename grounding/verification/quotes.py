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
from grounding.verification.blocks import ITEM_NUMBER, blocks
from grounding.verification.numbered_lists import list_length
from grounding.verification.numbers import ordinal
from retrieval.text import nfkc
from retrieval.text.markup import ATX_HEADING, BULLET, REST_ROLE
from retrieval.text.sentences import sentence_spans

# Markup at a line's start: headings, block quotes, bullets and numbered items, table pipes, and
# a Python console's prompts (`>>> `, `... `), which a one-line example leaves out.
_LINE_MARKUP = re.compile(
    r"^[ \t]*(?:>>>[ \t]?|\.\.\.[ \t]+|#{1,6}[ \t]+|>[ \t]?|"
    rf"(?:{BULLET}|\d{{1,3}}[.)])[ \t]+)+",
    re.M,
)
# A step's marker inside a line: "1." or "2)" after the text's start, a sentence's end, a colon,
# a comma or a word ("a frontend may 1. call ..., then 2. call ..."), before a step's first word
# or code. A number ending a sentence ("in Python 3. Then ...") is followed by a capital word too,
# which is why only a whole run 1..n counts.
_STEP_MARKER = re.compile(r"(?:^|(?<=\s))(?P<n>\d{1,2})[.)][ \t]+(?=[^\W\d_]|[`*])")
_CODE_COMMENT = re.compile(r"(?:^|(?<=[ \t]))#(?:[ \t][^\n]*)?$", re.M)
_MD_LINK = re.compile(r"!?\[([^\]\n]*)\]\([^)\s]*(?:\s+\"[^\"]*\")?\)")
_REST_LINK = re.compile(r"`([^`<\n]+?)\s*<[^>\n]+>`_{1,2}")
_REST_ROLE = re.compile(REST_ROLE)
_EMPHASIS = re.compile(r"[`*|]+|(?<![^\W_])_+|_+(?![^\W_])")
_FENCE_LINE = re.compile(r"^[ \t]*(?:`{3,}|~{3,})[^\n]*$", re.M)  # no words of the document
# Code layout: a space next to brackets and separators, a trailing comma before a closer.
_CODE_SPACE = re.compile(r"\s*([()\[\]{},:;=])\s*")
_TRAILING_COMMA = re.compile(r",(?=[)\]}])")
_CODE_GLUE = frozenset("()[]{},:;=")
_TYPOGRAPHY = str.maketrans(
    {"‘": "'", "’": "'", "‚": "'", "“": '"', "”": '"', "„": '"', "–": "-", "—": "-", "…": "..."}
)
_ELLIPSIS = re.compile(r"\s*(?:\[\.\.\.\]|\.{3,})\s*")
_EDGES = " \t\n\"'.,;:!?()[]«»"
# A reST heading: a line of words, then a line of one punctuation character repeated.
_UNDERLINED = re.compile(r"^[^\n]*\w[^\n]*\n([=\-~^\"'`#*+])\1{2,}[ \t]*$")
# What ends a clause inside a sentence: the clause of a quote is where its negations bind.
_CLAUSE_END = re.compile(r"[,;:()]|\s-\s|\s(?=but\b|unlike\b|whereas\b|while\b|which\b)")


@dataclass(frozen=True, slots=True)
class Located:
    """A quote as the claim gave it, the cited item it occurs in, and what it is read in: the
    whole sentences it overlaps and its own clause (both in quote form)."""

    quote: str
    item: EvidenceItem
    sentences: str
    clause: str
    context: str  # the sentences with one more on each side: what a paraphrase may draw on
    # How many items the numbered list the quote is in has ("1." to "3.": 3), 0 when it is in
    # none: "takes three steps" counts that list, whose "3." is a position, not a count.
    list_length: int = 0
    # The heading the quote is under, in its item ("### Complex configuration example"), or the
    # item's own last heading: a claim may merge it with the text ("The complex configuration
    # example uses three proxies").
    heading: str = ""


@dataclass(frozen=True, slots=True)
class _Form:
    """An item in quote form, its sentences as (start, end) offsets into it, and its numbered
    list items as (start, end, number): quote form drops the "3." a step's position is in."""

    text: str
    sentences: tuple[tuple[int, int], ...]
    numbered: tuple[tuple[int, int, int], ...] = ()
    headings: tuple[tuple[int, str], ...] = ()  # (start, text) of each heading block


def quote_form(text: str) -> str:
    """`text` with only whitespace, markup and typography normalised: what quotes match in."""
    text = _FENCE_LINE.sub("", nfkc(text).translate(_TYPOGRAPHY))
    # Whitespace is collapsed before links are read: a link's text may wrap onto a new line.
    text = without_links(" ".join(_LINE_MARKUP.sub("", text).split()))
    # Emphasis and bullets inside a line leave two spaces where they stood ("* A * B"): one.
    text = " ".join(_EMPHASIS.sub("", _REST_ROLE.sub("", text)).split())
    text = _CODE_SPACE.sub(r"\1", text)
    return _TRAILING_COMMA.sub("", text)


def without_line_markup(text: str) -> str:
    """`text` without code fence lines and line-start markup (list numbers and bullets,
    headings, console prompts), and without the numbers of steps written on one line ("1.
    Create ... 2. Pass ..."): what a claim may carry and its quotes' sentences drop."""
    return _LINE_MARKUP.sub("", without_step_numbers(_FENCE_LINE.sub("", text)))


def without_step_numbers(text: str) -> str:
    """`text` without the markers of a numbered list it writes inline, "1." to "n." (n >= 2) in
    order, each opening the text, a sentence or a clause and followed by a step's words: their
    numbers are positions in the claim's own list, not numbers the evidence must hold. Any other
    number, or markers out of order ("2. ... 5."), is left to be checked."""
    markers = list(_STEP_MARKER.finditer(text))
    numbers = [int(m.group("n")) for m in markers]
    if len(numbers) < 2 or numbers != list(range(1, len(numbers) + 1)):
        return text
    for marker in reversed(markers):
        text = text[: marker.start("n")] + text[marker.end() :]
    return text


def without_code_comments(text: str) -> str:
    """`text` without its code's comments: a "#" opening a line or after a space, then a space
    or the line's end, to the line's end (``# ...`` in an example, `x = 1  # seconds`). A
    markdown heading's "## " is no comment; an "# " heading is taken too, as no code spans one."""
    return _CODE_COMMENT.sub("", text)


def without_links(text: str) -> str:
    """Markdown and reST links as their text: the target is checked whole, as an exact token."""
    return _REST_LINK.sub(r"\1", _MD_LINK.sub(r"\1", text))


def item_text(item: EvidenceItem) -> str:
    """What a quote of `item` may come from: its headings and its text."""
    return "\n".join((*item.chunk.heading_path, item.chunk.text))


@functools.lru_cache(maxsize=256)  # an item is searched once per quote of every claim citing it
def _item_form(text: str) -> _Form:
    """The item's blocks in quote form, joined by spaces; a sentence never crosses a block."""
    joined = ""
    sentences: list[tuple[int, int]] = []
    numbered: list[tuple[int, int, int]] = []
    headings: list[tuple[int, str]] = []
    auto = 0
    for block, in_code in blocks(text):
        form = quote_form(block)
        if not form:
            continue
        if joined.endswith(",") and form[0] in ")]}":
            joined = joined[:-1]  # a trailing comma on the line before a closer
        glue = "" if not joined or joined[-1] in _CODE_GLUE or form[0] in _CODE_GLUE else " "
        joined += glue
        start = len(joined)
        joined += form
        sentences += [(start + a, start + b) for a, b in sentence_spans(form)]
        marker = ITEM_NUMBER.match(block)
        if marker is not None and marker.group(1) == "#":
            auto += 1  # reST's "#." items number themselves: 1, 2, 3, ...
            numbered.append((start, len(joined), auto))
        elif marker is not None:
            numbered.append((start, len(joined), int(marker.group(1))))
        elif not block[:1].isspace():
            auto = 0  # a paragraph not indented under an item ends its list
        if not in_code and (ATX_HEADING.match(block) or _UNDERLINED.match(block)):
            headings.append((start, quote_form(block.splitlines()[0])))
    return _Form(joined, tuple(sentences), tuple(numbered), tuple(headings))


def quote_parts(quote: str) -> tuple[str, ...]:
    """The quote's parts in quote form, split where "..." marks text left out; () if empty."""
    form = quote_form(quote)
    parts = (p.strip(_EDGES) for p in _ELLIPSIS.split(form))
    return tuple(p for p in parts if any(c.isalnum() for c in p))


def occurs(quote: str, item: EvidenceItem) -> bool:
    """`quote` occurs in `item`, its parts in order, each starting and ending at a word edge."""
    return _find(quote, item) is not None


def _find(quote: str, item: EvidenceItem, packet: Sequence[EvidenceItem] = ()) -> Located | None:
    """`quote` located in `item`; `packet`'s items next to it in its file tell how long a
    numbered list cut by the item's edge is."""
    parts = quote_parts(quote)
    if not parts:
        return None
    form = _item_form(item_text(item))
    match = _pattern(parts).search(form.text)
    if match is None:
        return None
    start, end = match.span()
    overlapping = [k for k, (a, b) in enumerate(form.sentences) if a < end and start < b]
    around = [form.sentences[k] for k in overlapping] or [(start, end)]
    sentences = form.text[around[0][0] : around[-1][1]]
    near = form.sentences[max(0, overlapping[0] - 1) : overlapping[-1] + 2] if overlapping else ()
    context = form.text[near[0][0] : near[-1][1]] if near else sentences
    ends_before = [m.end() for m in _CLAUSE_END.finditer(form.text, around[0][0], start)]
    clause_start = max([around[0][0], *ends_before])
    clause_end = next(
        (m.start() for m in _CLAUSE_END.finditer(form.text, end, around[-1][1])), around[-1][1]
    )
    clause = form.text[clause_start:clause_end].strip()
    # The position of a numbered item the quote is in, which its marker gave: "the third step"
    # and "step 3" are checked against "3. Configure ..." as against "the 3rd ...".
    items = [n for a, b, n in form.numbered if a < end and start < b]
    positions = "".join(f"{n}, {ordinal(n)}: " for n in items)
    length = list_length(form.numbered, start, end, item, packet)
    above = [text for at, text in form.headings if at <= start]
    heading = above[-1] if above else (item.chunk.heading_path or ("",))[-1]
    return Located(
        quote, item, positions + sentences.strip(), clause, context.strip(), length, heading
    )


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
    quotes: Sequence[str], cited: Sequence[EvidenceItem], packet: Sequence[EvidenceItem]
) -> tuple[tuple[Located, ...], str | None]:
    """Each quote with the cited item it occurs in, and why not when one does not (or none is
    given)."""
    if not quotes:
        return (), "the claim gives no quote of its evidence"
    located: list[Located] = []
    for quote in quotes:
        found = next((f for f in (_find(quote, i, packet) for i in cited) if f), None)
        if found is None:
            return (), _not_found(quote, cited, packet)
        located.append(found)
    return tuple(located), None


def _not_found(quote: str, cited: Sequence[EvidenceItem], packet: Sequence[EvidenceItem]) -> str:
    shown = _clip(quote)
    if not quote_parts(quote):
        return f"the quote {shown} has no words"
    elsewhere = [i.label for i in packet if i not in cited and occurs(quote, i)]
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
