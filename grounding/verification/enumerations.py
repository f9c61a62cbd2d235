"""Counts a claim gives its own list: "two ports: 8000 and 8001", "four commands: `migrate`,
`makemigrations`, `sqlmigrate` and `showmigrations`", "the four methods `GET`, `DELETE`, `HEAD`
and `OPTIONS`". Such a count is the length of the list, whose items the other rules check one by
one, so it needs no number of its own in the evidence; unless the quoted evidence counts
something itself ("four different types of timeouts"), when the count must be one the evidence
gives ("three kinds: connect, read and write" is dropped). A list the claim's code writes out
counts too: "one key with two values, write `get(params={'key1': ['value1', 'value2']})`"."""

from __future__ import annotations

import re
from collections.abc import Sequence

from grounding.verification.anchors import is_content, spaced_terms
from grounding.verification.bindings import counted_words, counts
from grounding.verification.numbers import NUMBER_WORDS
from retrieval.text import folded_words
from retrieval.text.markup import CODE_SPAN

# A list of one is no list; past a dozen items a count is rarely written out.
_SMALLEST, _LARGEST = 2, 12
_COUNT_WORDS = "|".join(
    sorted((w for w, n in NUMBER_WORDS.items() if _SMALLEST <= n <= _LARGEST), key=len)
)
_COUNT = rf"(?<![\w.`-])(?P<count>\d{{1,2}}|{_COUNT_WORDS})"
# A count, up to six words it counts (no punctuation but inside code spans: "six parameters
# `httpx.Request()` does not support"), a colon, then the list up to the sentence's end: a full
# stop, ; ! or ? before a space or the text's end.
_AFTER_COLON = re.compile(
    rf"{_COUNT}(?:[ \t]+(?:{CODE_SPAN}|[^\s:;,.!?`]+)){{1,6}}:[ \t]+"
    r"(?P<items>.+?)(?=[.;!?](?:\s|$)|$)",
    re.S | re.I,
)
# The same list in parentheses after the words it counts: "four parts of the request
# (`method`, `url`, `headers` and `content`)".
_IN_PARENTHESES = re.compile(
    rf"{_COUNT}(?:[ \t]+(?:{CODE_SPAN}|[^\s:;,.!?`()]+)){{1,6}}[ \t]*\((?P<items>[^()]+)\)", re.I
)
# A count, up to three words, perhaps a comma and up to two more words, then a list of code
# spans or of numbers: "the four methods `GET`, ... and `X`", "two loggers to configure,
# `httpx` and `httpcore`", "three proxies, on ports 8030, 8031 and 8032".
_ITEM = rf"(?:{CODE_SPAN}|\d+(?!\w|\.\d))"
_JOIN = r"(?:,[ \t]*(?:and[ \t]+|or[ \t]+)?|[ \t]+(?:and|or)[ \t]+)"
_CODE_LIST = re.compile(
    rf"{_COUNT}(?:[ \t]+[^\s:;,.!?`]+){{1,3}}(?:,(?:[ \t]+[^\s:;,.!?`\d]+){{0,2}})?[ \t]+"
    rf"(?P<items>{_ITEM}(?:{_JOIN}{_ITEM})+)",
    re.I,
)
# A count, the noun it counts and up to 40 more characters of its sentence, then a code span
# ("one key with two values, write `get(params={'key1': ['value1', 'value2']})`"): the count
# may be the length of a list, tuple, set or dict the code writes out.
_BEFORE_CODE = re.compile(
    rf"{_COUNT}[ \t]+[^\s:;,.!?`]+(?:[^.;!?`\n]{{0,40}}?)`(?P<code>[^`\n]+)`", re.I
)
_OPENERS = {"[": "]", "(": ")", "{": "}"}
_COMMA = re.compile(r"\s*,\s*")
_LAST_JOIN = re.compile(r"\s+(?:and|or)\s+(?!.*\s(?:and|or)\s)", re.S)
_LEADING_JOIN = re.compile(r"^(?:and|or)\s+")
_RELATIVE = re.compile(r"(?:which|who|whose|where)\b", re.I)


def self_counted(claim: str, quoted: str) -> frozenset[str]:
    """The counts of `claim` that are the length of the list it gives with them, when the
    quoted evidence counts nothing with another value."""
    values = set()
    for pattern in (_AFTER_COLON, _IN_PARENTHESES, _CODE_LIST):
        for match in pattern.finditer(claim):
            value = _value(match.group("count"))
            items = list_items(match.group("items"))
            if value is not None and len(items) == value and not _part_of_longer(items, quoted):
                values.add(str(value))
    for match in _BEFORE_CODE.finditer(claim):
        value = _value(match.group("count"))
        if value is not None and value in literal_lengths(match.group("code")):
            values.add(str(value))
    if not values:
        return frozenset()
    return frozenset(values - _other_counts(quoted, values, claim))


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


# A list a quote writes out in prose: two to four short items (up to three words each) joined
# by commas, the last by "and" or "or" ("For headers, query parameters and cookies, ...").
_WORDS = r"[^\W\d_][\w-]*(?:[ \t]+[^\W\d_][\w-]*){0,2}"
_PROSE_LIST = re.compile(rf"{_WORDS}(?:,[ \t]*{_WORDS}){{1,3}},?[ \t]+(?:and|or)[ \t]+{_WORDS}")
# A run of word characters longer than any word of a list (a key, a hash, a data URI): the
# scan tried it from each of its letters, quadratic in its length (24 s of CPU for a quoted
# run of 50,000), and no list item is in it.
_NO_WORD = re.compile(r"[\w-]{65,}")
# Words before a count that points back at things already named ("only those three", "all
# four"): such a count has no noun of its own, it counts a list.
_POINTING = folded_words("those these all")


def pointed_counts(claim: Sequence[str], quoted: str) -> frozenset[str]:
    """The counts of the claim's terms that point back ("those three are merged": after a
    demonstrative, no content word after them) and are the length of a list the quoted
    evidence writes out in prose. The quote's lists are read only for a claim that has one."""
    pointing = {
        term
        for i, term in enumerate(claim)
        if i > 0
        and claim[i - 1] in _POINTING
        and (i + 1 == len(claim) or not is_content(claim[i + 1]))
    }
    if not pointing:
        return frozenset()
    lengths = {
        str(len(list_items(m.group()))) for m in _PROSE_LIST.finditer(_NO_WORD.sub(" ", quoted))
    }
    return frozenset(pointing & lengths)


def list_items(text: str) -> list[str]:
    """The items of a list written out: split at commas, the last two at "and" or "or" when no
    comma comes before it ("a, b and c"); an item keeps an "and" of its own when the list puts
    a comma before its last one ("reduced CPU usage and round-trips, and reduced congestion")."""
    parts = [p for p in _COMMA.split(text.strip()) if p]
    if not parts:
        return []
    # "..., and `C`, which shows them only on request": a clause of the item before it.
    while len(parts) > 1 and _RELATIVE.match(parts[-1]):
        parts[-2:] = [f"{parts[-2]}, {parts[-1]}"]
    last = parts[-1]
    if len(parts) == 1 or not _LEADING_JOIN.match(last):
        parts[-1:] = [p for p in _LAST_JOIN.split(last, maxsplit=1) if p]
    return [_LEADING_JOIN.sub("", p) for p in parts]


def literal_lengths(code: str) -> frozenset[int]:
    """The number of items of each list, tuple, set and dict the code writes out: `[a, b]` has 2,
    `{'k': [1, 2, 3]}` has 1 and 3; a call's arguments (`f(a, b)`: a bracket right after a name)
    and commas inside string literals count nothing."""
    lengths: set[int] = set()
    # Per open bracket: its closer, whether it writes a literal, and the items begun inside it.
    open_groups: list[tuple[str, bool, list[int]]] = []
    for k, char in enumerate(_without_strings(code)):
        if char in _OPENERS:
            before = code[:k].rstrip()[-1:]
            literal = char != "(" or not (before.isalnum() or before in ("_", ")", "]"))
            if open_groups:
                _begin(open_groups[-1][2])
            open_groups.append((_OPENERS[char], literal, []))
        elif open_groups and char == open_groups[-1][0]:
            _, literal, items = open_groups.pop()
            # A tuple needs a comma ("(a)" is a parenthesis); a trailing comma begins no item.
            if literal and items and (len(items) > 1 or char != ")"):
                lengths.add(sum(items))
        elif open_groups and char == ",":
            open_groups[-1][2].append(0)
        elif open_groups and not char.isspace():
            _begin(open_groups[-1][2])
    return frozenset(lengths)


def _begin(items: list[int]) -> None:
    """Mark the group's current item as begun: `items` holds 1 per item with anything in it."""
    if not items:
        items.append(1)
    else:
        items[-1] = 1


_STRING = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")


def _without_strings(code: str) -> str:
    """`code` with each string literal's insides blanked, its quotes kept: same offsets."""
    return _STRING.sub(lambda m: m.group()[0] + "x" * (len(m.group()) - 2) + m.group()[0], code)


def _value(word: str) -> int | None:
    if word.isdigit():
        value = int(word)
    else:
        found = NUMBER_WORDS.get(word.casefold())
        if not isinstance(found, int):
            return None
        value = found
    return value if _SMALLEST <= value <= _LARGEST else None


def _other_counts(quoted: str, values: set[str], claim: str) -> set[str]:
    """`values` the quoted evidence contradicts: all of them, when it counts a noun with a
    value the claim does not give ("one key" of "To send one key with two values: ..." is the
    claim's too)."""
    terms, spaced = spaced_terms(quoted)
    given = {value for j, value in counts(terms) if counted_words(terms, spaced, j)}
    said = {value for _, value in counts(spaced_terms(claim)[0])}
    return set(values) if given - values - said else set()


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
