"""Opposites: a claim that says "ignores" where its quote says "respects" (or "disables" for
"enables") contradicts it without a negation word, and shares all its other words. The claim's
word must be absent from the quoted evidence and its opposite present near the same words, with
no negation near either ("does not ignore" says what "respects" says). Besides the verb pairs
set by hand, a prefix makes an opposite of the word itself ("inside" of "outside",
"unencrypted" of "encrypted")."""

from __future__ import annotations

from collections.abc import Sequence

from grounding.verification.anchors import (
    anchored,
    content_after,
    is_content,
    is_number,
    sentence_window,
)
from retrieval.text import NEGATIONS, fold_word, folded_words

# Verb pairs whose one member denies the other. Set by hand, not fit; "before"/"after" and
# "open"/"close" are left out: a paraphrase turns "X before Y" into "Y after X".
_PAIRS: tuple[tuple[str, str], ...] = (
    ("enable", "disable"),
    ("respect", "ignore"),
    ("include", "exclude"),
    ("accept", "reject"),
    ("allow", "forbid"),
    ("allow", "disallow"),
)
# A statement said "always" where its quote hedges it by how often ("usually", "typically")
# turns a rule with exceptions into one without: English's adverbs of frequency short of all.
_HEDGES = ("usually", "typically", "generally", "normally", "often", "mostly", "sometimes")
_PAIRS += tuple(("always", hedge) for hedge in _HEDGES)
_OPPOSITES: dict[str, set[str]] = {}
for _one, _other in _PAIRS:
    _OPPOSITES.setdefault(fold_word(_one), set()).add(fold_word(_other))
    _OPPOSITES.setdefault(fold_word(_other), set()).add(fold_word(_one))
# Opposites English makes by a prefix, read off the word itself: "un-", "dis-" and "non-"
# deny the word they open ("unencrypted" of "encrypted", "disconnects" of "connects"), and
# "in-" and "out-" swap ends ("inside" of "outside", "inbound" of "outbound"). A stem left
# after "un", "dis" or "non" must be long enough to be a word of its own ("unless" is no "less").
_DENYING_PREFIXES = ("un", "dis", "non")
_DENIED_STEM = 5
_SWAPPED_PREFIXES = (("in", "out"), ("out", "in"))
_SWAPPED_STEM = 3
# A state's "in-" / "im-" denies it too ("is incompatible" of "is compatible", "is invalid",
# "is impossible"), read only where both words follow a "be": elsewhere the prefix is a word's
# own ("install", "import", "inline").
_STATE_PREFIXES = ("in", "im")
_BE = folded_words("is are was were be been being am")
_REACH = 3  # how near a negation must be to turn a word around ("does not ignore")
_WINDOW = 10  # how near the opposite must be to the claim's other words, as a number's


def opposite_problem(claim: Sequence[str], evidence: Sequence[str]) -> str | None:
    """The first word of the claim whose opposite the evidence states about the same words."""
    stated = set(evidence)
    states = {other for j, other in enumerate(evidence) if j > 0 and evidence[j - 1] in _BE}
    for i, term in enumerate(claim):
        opposites = opposites_of(term) & stated
        if i > 0 and claim[i - 1] in _BE and len(term) >= _DENIED_STEM:
            opposites |= {prefix + term for prefix in _STATE_PREFIXES} & states
        if term in stated or not opposites or _negated(claim, i):
            continue
        for opposite in opposites:
            spots = [j for j, other in enumerate(evidence) if other == opposite]
            plain = any(not _negated(evidence, j) for j in spots)
            if plain and _near(claim, i, evidence, opposite):
                return f"the claim says {term!r} where the quoted evidence says {opposite!r}"
    return None


def opposites_of(term: str) -> set[str]:
    """The words that deny `term`: its pair's other verb, and the forms a prefix makes of it."""
    out = set(_OPPOSITES.get(term, ()))
    for prefix in _DENYING_PREFIXES:
        if len(term) >= _DENIED_STEM:
            out.add(prefix + term)
        if term.startswith(prefix) and len(term) - len(prefix) >= _DENIED_STEM:
            out.add(term[len(prefix) :])
    for prefix, other in _SWAPPED_PREFIXES:
        if term.startswith(prefix) and len(term) - len(prefix) >= _SWAPPED_STEM:
            out.add(other + term[len(prefix) :])
    return out


def _negated(terms: Sequence[str], i: int) -> bool:
    return bool(NEGATIONS & sentence_window(terms, i, _REACH))


def _near(claim: Sequence[str], i: int, evidence: Sequence[str], opposite: str) -> bool:
    """The claim's words around term `i` are near the opposite in the evidence."""
    swapped = [*claim[:i], opposite, *claim[i + 1 :]]
    return anchored(swapped, i, evidence, _WINDOW)


# "after" and "before" are read by what they govern, not as opposites: "sent after it is
# prepared" restates "prepared before it is sent", but "called after it is sent" denies
# "called after it is prepared, but before it is sent". What a claim's word governs must match
# what the quote's other word governs on both sides, the claim's words and the quote's: one
# word shared with a longer phrase ("cleared after each test" of "cleared once a test ends,
# before the next test starts") is no contradiction.
_BEFORE, _AFTER = fold_word("before"), fold_word("after")
_ORDER = {_BEFORE: _AFTER, _AFTER: _BEFORE}
_ORDER_WORDS = {_BEFORE: "before", _AFTER: "after"}
_GOVERNED = 3  # the content words an "after" or a "before" governs
# How much of the two phrases' words they must share (of the words of either): at least half,
# so that the claim's phrase says what the quote's phrase says (set by hand, not fit).
_SAME_PHRASE = 0.5


def order_problem(claim: Sequence[str], evidence: Sequence[str]) -> str | None:
    """The first "after" (or "before") of the claim governing the words the evidence's "before"
    (or "after") governs, more closely than any of the evidence's own word does."""
    for i, term in enumerate(claim):
        opposite = _ORDER.get(term)
        if opposite is None or _negated(claim, i):
            continue
        said = set(_governed(claim, i))
        other = _match(said, evidence, opposite)
        if said and other >= _SAME_PHRASE and other > _match(said, evidence, term):
            said_word, quoted_word = _ORDER_WORDS[term], _ORDER_WORDS[opposite]
            return f"the claim says {said_word!r} where the quoted evidence says {quoted_word!r}"
    return None


def _match(said: set[str], evidence: Sequence[str], word: str) -> float:
    """How closely `said` matches what one `word` of the evidence governs, at best: the share of
    the words of both that both have."""
    best = 0.0
    for j, other in enumerate(evidence):
        if other == word:
            governed = set(_governed(evidence, j))
            if governed:
                best = max(best, len(said & governed) / len(said | governed))
    return best


def _governed(terms: Sequence[str], i: int) -> list[str]:
    """The content words after term `i`, up to _GOVERNED, the sentence's end or the next
    "after" or "before"."""
    return content_after(terms, i, _GOVERNED, frozenset(_ORDER))


# Opposite ends of an order or a scale. A claim may say an order the other way round ("the ones
# listed later have lower precedence than the ones listed first") only by turning it around
# twice: an odd number of turns (ends swapped in place, or one end said for the other) reverses
# what its quote says ("from the least specific to the most specific" of "from most specific
# to least specific").
_ENDS = tuple(
    (fold_word(a), fold_word(b))
    for a, b in (
        ("first", "last"),
        ("first", "later"),
        ("earlier", "later"),
        ("most", "least"),
        ("highest", "lowest"),
        ("higher", "lower"),
    )
)
_POSITION = {"1st": fold_word("first")}  # "the first file" is read as a position
# One end said for the other turns the order around only in its place, by the same word on the
# same side ("the last file" of "the first file", "lower precedence" of "higher precedence"):
# elsewhere it is a word of its own sentence ("add hosts later" of "First, configure the
# host"; "at least one backend" of "most projects list one backend").


def reversed_problem(claim: Sequence[str], evidence: Sequence[str]) -> str | None:
    """The claim turns an order or a scale of its quote around an odd number of times."""
    said = [_POSITION.get(t, t) for t in _without_lasting(claim)]
    quoted = [_POSITION.get(t, t) for t in _without_lasting(evidence)]
    turns, turned = 0, ""
    for a, b in _ENDS:
        in_claim, in_quote = {a, b} & set(said), {a, b} & set(quoted)
        if not in_claim or not in_quote:
            continue
        if len(in_claim) == 2 and len(in_quote) == 2:
            if (said.index(a) < said.index(b)) != (quoted.index(a) < quoted.index(b)):
                turns, turned = turns + 1, f"{a} ... {b}"
        elif len(in_claim) == 1 and len(in_quote) == 1 and in_claim != in_quote:
            end, other = next(iter(in_claim)), next(iter(in_quote))
            if _sides(said, end) & _sides(quoted, other):
                turns, turned = turns + 1, end
    if turns % 2:
        return f"the claim turns around the order its quotes give ({turned})"
    return None


_LAST = fold_word("last")
_LASTING = "lasting"  # not folded: no end of _ENDS, nor any folded word
_DETERMINERS = folded_words("the its their this these those our your my his her")


def _without_lasting(terms: Sequence[str]) -> list[str]:
    """`terms` with each "last" that is the verb read as "lasting": before a length of time, no
    determiner before it ("support lasts 24 months"; not "the last 24 months", an end)."""
    return [_LASTING if _lasts(terms, i) else term for i, term in enumerate(terms)]


def _lasts(terms: Sequence[str], i: int) -> bool:
    if terms[i] != _LAST or i + 1 >= len(terms) or not is_number(terms[i + 1]):
        return False
    return i == 0 or terms[i - 1] not in _DETERMINERS


def _sides(terms: Sequence[str], word: str) -> set[tuple[int, str]]:
    """The content word right before (-1) and right after (1) each `word` of `terms`, in its
    sentence."""
    out: set[tuple[int, str]] = set()
    for i, term in enumerate(terms):
        if term != word:
            continue
        for step in (-1, 1):
            j = i + step
            while 0 <= j < len(terms) and terms[j] and not is_content(terms[j]):
                j += step
            if 0 <= j < len(terms) and terms[j]:
                out.add((step, terms[j]))
    return out


# A comparison: the word before "than" says which way it goes ("slower than", "faster than").
# A claim's comparison of the same thing as one of its quote's (a word after "than" shared),
# in a word the quote never says, where the quote compares by other words, turns it around or
# says something the quote does not ("slower than `lru_cache`" of "smaller and faster than
# `lru_cache`"). "rather than" and "other than" compare nothing; "more", "less" and "fewer"
# than a number are bounds (bounds.py).
_THAN = fold_word("than")
_NOT_COMPARING = folded_words("rather other more less fewer")
_COMPARED = 4  # the content words after "than" that name what is compared, in any order


def comparison_problem(claim: Sequence[str], evidence: Sequence[str]) -> str | None:
    """The first comparative of the claim that its quote compares the same thing by, in other
    words."""
    stated = set(evidence)
    for i, term in enumerate(claim):
        if term != _THAN or i == 0 or _negated(claim, i):
            continue
        said = claim[i - 1]
        if said in stated or said in _NOT_COMPARING or not is_content(said):
            continue
        compared = set(content_after(claim, i, _COMPARED))
        for j, other in enumerate(evidence):
            if other != _THAN or j == 0 or evidence[j - 1] in _NOT_COMPARING:
                continue
            if compared & set(content_after(evidence, j, _COMPARED)):
                return (
                    f"the claim says {said!r} than where the quoted evidence says "
                    f"{evidence[j - 1]!r} than"
                )
    return None
