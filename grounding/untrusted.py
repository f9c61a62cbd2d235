"""How one chunk appears in the prompt: a labelled evidence block fenced as untrusted data.

Owns the `<untrusted-source-NONCE>` fence and the neutralizing of anything in document text that
could pass for it, so a document can never close its own block or open a forged one.
"""

from __future__ import annotations

import html
import re
import secrets
import unicodedata

from retrieval.chunks import Chunk

TAG = "untrusted-source"
NEUTRALIZED = "[source delimiter removed]"
# The fence tag is TAG-<nonce>, fresh per request: a document written in advance cannot close a
# block whose tag it cannot predict, whatever look-alike letters it uses. The nonce is decimal
# digits, a multiple of three of them: o200k_base splits a digit run into groups of three and has
# a single token for each of the 1,000 groups, so every nonce costs the same tokens (as it costs
# the same characters). A hex nonce costs 11 to 20 tokens by its letters, which made the budget,
# and so the evidence packet, differ run to run on the same question.
NONCE_DIGITS = 24  # about 80 bits
_NONCE = re.compile(r"[0-9a-z]{0,64}")

# Characters a model may read as angle brackets; NFKC already maps the fullwidth and small forms.
_ANGLE_LOOKALIKES = str.maketrans(
    {"‹": "<", "〈": "<", "⟨": "<", "˂": "<", "ᐸ": "<"}
    | {"›": ">", "〉": ">", "⟩": ">", "˃": ">", "ᐳ": ">"}
)
# Defence in depth behind the nonce: casefolded letters from other scripts (and Latin small
# capitals) that NFKC leaves alone but that read as the Latin letters of "untrusted source".
_LETTER_LOOKALIKES = str.maketrans(
    {"\u0435": "e", "\u043e": "o", "\u0441": "c", "\u0455": "s", "\u0501": "d", "\u0433": "r"}
    | {"\u0442": "t", "\u043f": "n", "\u0578": "n", "\u057d": "u", "\u0585": "o"}
    | {"\u03bf": "o", "\u03c5": "u", "\u03c4": "t", "\u03b5": "e", "\u03f2": "c"}
    | {"\u1d1c": "u", "\u0274": "n", "\u1d1b": "t", "\u0280": "r", "\ua731": "s"}
    | {"\u1d07": "e", "\u1d05": "d", "\u1d0f": "o", "\u1d04": "c"}
)
# Every format (Cf) character of Unicode 14 (Python 3.11); a test holds this to unicodedata.
INVISIBLE = re.compile(
    "[\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f"
    "\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd"
    "\U00013430-\U00013438\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001"
    "\U000e0020-\U000e007f]"
)
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});?")
# Matched on the folded text (see _fold). A bare "untrusted source" in prose is left alone unless
# something tag-like surrounds it: a bracket, a slash, attributes, or a joined/hyphenated name.
_TAG_LIKE = re.compile(
    r"(?P<open><[\s/]*)?"
    r"untrusted(?P<sep>[\s_.:\-\u2010-\u2015\u2212]*)source"
    r"(?:[_\-\u2010-\u2015\u2212][0-9a-z]{1,64}\b)?"  # a guessed or stale fence nonce
    r"(?P<attrs>(?:\s+[a-z_\-:]+\s*=\s*(?:\"[^\"<>\n]{0,80}\"|'[^'<>\n]{0,80}'|[^\s<>]{0,80}))*)"
    r"(?P<close>[\s/]*>)?"
)


def new_nonce() -> str:
    """A fresh, unpredictable fence nonce for one request; the caller makes it, so rendering
    stays pure."""
    return f"{secrets.randbelow(10**NONCE_DIGITS):0{NONCE_DIGITS}d}"


def fence_tag(nonce: str) -> str:
    """The tag name that fences evidence for `nonce`; bare TAG for "" (offline tools only)."""
    if not _NONCE.fullmatch(nonce):
        raise ValueError(f"fence nonce {nonce!r} must be 0-64 characters of [0-9a-z]")
    return f"{TAG}-{nonce}" if nonce else TAG


def evidence_block(label: str, chunk: Chunk, nonce: str) -> str:
    """One evidence item exactly as the prompt shows it, and as the budget counts it.

    Only the label stands outside the fence: path and heading come from documents, so they are
    data like the text (one line each, so they cannot fake the blank line that ends them).
    """
    tag = fence_tag(nonce)
    heading = " > ".join(chunk.heading_path) or "(none)"
    metadata = (
        f"source: {_one_line(f'{chunk.collection}/{chunk.path}')}\n"
        f"heading: {_one_line(heading)}\n"
        f"lines: {chunk.start_line}-{chunk.end_line}\n"
        f"updated: {_one_line(chunk.updated)}\n"
    )
    body = f"{neutralize(metadata)}\n{neutralize(chunk.text)}"
    return f'[{label}]\n<{tag} id="{label}">\n{body}\n</{tag}>'


def _one_line(value: str) -> str:
    return " ".join(value.split())


def neutralize(text: str) -> str:
    """`text` with delimiter look-alikes (case, spacing, fullwidth, zero-width, entity) replaced."""
    if not _may_hide_a_tag(text):
        return text
    folded, origin = _fold(text)
    spans: list[tuple[int, int]] = []
    for match in _TAG_LIKE.finditer(folded):
        if _is_tag_like(match):
            spans.append((origin[match.start()][0], origin[match.end() - 1][1]))
    if not spans:
        return text
    pieces: list[str] = []
    cursor = 0
    for start, end in spans:
        pieces.append(text[cursor : max(start, cursor)])
        pieces.append(NEUTRALIZED)
        cursor = end
    pieces.append(text[cursor:])
    return "".join(pieces)


def _may_hide_a_tag(text: str) -> bool:
    """A cheap whole-text fold: without "untrusted" in it, no delimiter can be spelled."""
    decoded = html.unescape(text) if "&" in text else text
    if decoded.isascii():
        return "untrusted" in decoded.casefold()
    decoded = INVISIBLE.sub("", unicodedata.normalize("NFKC", decoded)).casefold()
    return "untrusted" in decoded.translate(_LETTER_LOOKALIKES)


def _is_tag_like(match: re.Match[str]) -> bool:
    sep = match.group("sep")
    prose = sep != "" and sep.isspace()
    return not prose or bool(match.group("open") or match.group("close") or match.group("attrs"))


def _fold(text: str) -> tuple[str, list[tuple[int, int]]]:
    """A casefolded, NFKC, entity-decoded copy without invisible characters, mapped back to `text`.

    `origin[i]` is the (start, end) span in `text` of the unit that produced folded character i.
    """
    folded: list[str] = []
    origin: list[tuple[int, int]] = []
    position = 0
    while position < len(text):
        entity = _ENTITY.match(text, position) if text[position] == "&" else None
        end = entity.end() if entity else position + 1
        unit = html.unescape(text[position:end]) if entity else text[position]
        for char in _fold_unit(unit):
            folded.append(char)
            origin.append((position, end))
        position = end
    return "".join(folded), origin


def _fold_unit(unit: str) -> str:
    out = []
    folded = unicodedata.normalize("NFKC", unit).translate(_ANGLE_LOOKALIKES).casefold()
    for char in folded.translate(_LETTER_LOOKALIKES):
        # Zero-width and other format characters are invisible to a reader: drop them.
        if unicodedata.category(char) != "Cf":
            out.append(char)
    return "".join(out)
