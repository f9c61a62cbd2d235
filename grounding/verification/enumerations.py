"""Counts a claim gives its own list: "two ports: 8000 and 8001", "four commands: `migrate`,
`makemigrations`, `sqlmigrate` and `showmigrations`", "the four methods `GET`, `DELETE`, `HEAD`
and `OPTIONS`". Such a count is the length of the list, whose items the other rules check one by
one, so it needs no number of its own in the evidence; unless the quoted evidence counts
something itself ("four different types of timeouts"), when the count must be one the evidence
gives ("three kinds: connect, read and write" is dropped)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from grounding.verification.anchors import spaced_terms
from grounding.verification.bindings import counted_words, counts
from grounding.verification.numbers import NUMBER_WORDS

# A list of one is no list; past a dozen items a count is rarely written out.
_SMALLEST, _LARGEST = 2, 12
_COUNT_WORDS = "|".join(
    sorted((w for w, n in NUMBER_WORDS.items() if _SMALLEST <= n <= _LARGEST), key=len)
)
_COUNT = rf"(?<![\w.`-])(?P<count>\d{{1,2}}|{_COUNT_WORDS})"
_CODE = r"`[^`\n]+`"
# A count, up to six words it counts (no punctuation but inside code spans: "six parameters
# `httpx.Request()` does not support"), a colon, then the list up to the sentence's end: a full
# stop, ; ! or ? before a space or the text's end.
_AFTER_COLON = re.compile(
    rf"{_COUNT}(?:[ \t]+(?:{_CODE}|[^\s:;,.!?`]+)){{1,6}}:[ \t]+(?P<items>.+?)(?=[.;!?](?:\s|$)|$)",
    re.S | re.I,
)
# A count, up to three words, perhaps a comma and up to two more words, then a list of code
# spans or of numbers: "the four methods `GET`, ... and `X`", "two loggers to configure,
# `httpx` and `httpcore`", "three proxies, on ports 8030, 8031 and 8032".
_ITEM = rf"(?:{_CODE}|\d+(?!\w|\.\d))"
_JOIN = r"(?:,[ \t]*(?:and[ \t]+|or[ \t]+)?|[ \t]+(?:and|or)[ \t]+)"
_CODE_LIST = re.compile(
    rf"{_COUNT}(?:[ \t]+[^\s:;,.!?`]+){{1,3}}(?:,(?:[ \t]+[^\s:;,.!?`\d]+){{0,2}})?[ \t]+"
    rf"(?P<items>{_ITEM}(?:{_JOIN}{_ITEM})+)",
    re.I,
)
_COMMA = re.compile(r"\s*,\s*")
_LAST_JOIN = re.compile(r"\s+(?:and|or)\s+(?!.*\s(?:and|or)\s)", re.S)
_LEADING_JOIN = re.compile(r"^(?:and|or)\s+")


def self_counted(claim: str, quoted: str) -> frozenset[str]:
    """The counts of `claim` that are the length of the list it gives with them, when the
    quoted evidence counts nothing with another value."""
    values = set()
    for pattern in (_AFTER_COLON, _CODE_LIST):
        for match in pattern.finditer(claim):
            value = _value(match.group("count"))
            items = list_items(match.group("items"))
            if value is not None and len(items) == value and not _part_of_longer(items, quoted):
                values.add(str(value))
    if not values:
        return frozenset()
    return frozenset(values - _other_counts(quoted, values))


def list_counts(claim: str, lengths: Sequence[int]) -> frozenset[str]:
    """The counts of the claim's terms that count a noun ("three steps") and are the length of
    a numbered list its quotes are items of: the list's last number is a position, so the
    count is nowhere in the evidence as a count."""
    if not lengths:
        return frozenset()
    given = {str(n) for n in lengths}
    terms, spaced = spaced_terms(claim)
    return frozenset(
        value for i, value in counts(terms) if value in given and counted_words(terms, spaced, i)
    )


def list_items(text: str) -> list[str]:
    """The items of a list written out: split at commas, the last two at "and" or "or" when no
    comma comes before it ("a, b and c"); an item keeps an "and" of its own when the list puts
    a comma before its last one ("reduced CPU usage and round-trips, and reduced congestion")."""
    parts = [p for p in _COMMA.split(text.strip()) if p]
    if not parts:
        return []
    last = parts[-1]
    if len(parts) == 1 or not _LEADING_JOIN.match(last):
        parts[-1:] = [p for p in _LAST_JOIN.split(last, maxsplit=1) if p]
    return [_LEADING_JOIN.sub("", p) for p in parts]


def _value(word: str) -> int | None:
    if word.isdigit():
        value = int(word)
    else:
        found = NUMBER_WORDS.get(word.casefold())
        if not isinstance(found, int):
            return None
        value = found
    return value if _SMALLEST <= value <= _LARGEST else None


def _other_counts(quoted: str, values: set[str]) -> set[str]:
    """`values` the quoted evidence contradicts: all of them, when it counts a noun with a
    value not among them."""
    terms, spaced = spaced_terms(quoted)
    given = {value for j, value in counts(terms) if counted_words(terms, spaced, j)}
    return set(values) if given - values else set()


_EDGE = "`'\" \t.:;()[]"


def _part_of_longer(items: Sequence[str], quoted: str) -> bool:
    """Every item of the claim's list is an item of a longer list a quoted line or sentence
    gives: "one of two versions: `HTTP/1.1` or `HTTP/2`" of "HTTP/1.0, HTTP/1.1, or HTTP/2"
    counts a part of the list, not the list."""
    wanted = [item.strip(_EDGE).casefold() for item in items]
    for line in re.split(r"\n|(?<=[.!?])\s+", quoted):
        listed = [part.casefold() for part in list_items(line)]
        if len(listed) > len(wanted) and all(
            any(_holds(part, item) for part in listed) for item in wanted
        ):
            return True
    return False


def _holds(part: str, item: str) -> bool:
    """`item` is the whole of list part `part`, or its last words ("print(x)  # "HTTP/1.0"")."""
    core = part.strip(_EDGE)
    if not item or not core.endswith(item):
        return False
    return not core[: -len(item)][-1:].isalnum()
