"""What a number belongs to: the noun phrase it counts ("500 entries", "3 database queries", "2
of the hooks") and a noun right before it ("port 8000"). When the claim gives a number to a word
the quoted evidence gives only other numbers, the claim moved the number: "500 hours" from
"expire after 2 hours ... holds 500 entries", "port 9000" from "port 8000 ... the proxy uses
9000". A word two or more terms before a number binds nothing: it is often the paraphrase's own
("set the queue size to 1024" for "set it to 1024"). "one", "a single", "a couple of" and a
leading "both" are counts here when they count a noun, so they must agree with the evidence."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from grounding.verification.anchors import (
    content_after,
    is_content,
    is_number,
    is_ordinal,
    sentence_window,
    spaced_terms,
)
from grounding.verification.quantities import converts
from retrieval.text import fold_word, folded_words

# How many function words may sit between a number and the noun phrase it counts ("2 of the
# hooks"), and how long that phrase is read ("3 database queries"). Set by hand from how
# English attaches a count, not fit.
SKIP = 2
PHRASE = 2
# How near a noun a number that counts nothing must be to stand for it ("query count to 2").
NEAR = 4
_ONE, _A = fold_word("one"), fold_word("a")
_BOTH = fold_word("both")
# "one" is no count after these ("the one that", "which one") nor before these ("one of them",
# "one another").
_NOT_COUNTED_AFTER = folded_words("the this that which each any every no another some")
_NOT_COUNTING = folded_words("of another")
# After "a": "a single hook" is one, "a couple of hooks" and "a pair of hooks" two.
_AFTER_A = {fold_word("single"): "1", fold_word("couple"): "2", fold_word("pair"): "2"}
# "both" counts where it opens a noun phrase: at a sentence start or after a preposition
# ("Both hooks run", "for both hooks"); "they are both hooks" says what they are, not how many.
_BEFORE_BOTH = folded_words("of for to on in with by from at")


def counts(terms: Sequence[str]) -> Iterator[tuple[int, str]]:
    """Each number of `terms` with its position, and each word counting a noun, as its value."""
    for i, term in enumerate(terms):
        if is_number(term):
            if not is_ordinal(term):  # "the first way" of "two ways" counts no ways
                yield i, term
        else:
            value = _soft_count(terms, i)
            if value is not None:
                yield i, value


def _soft_count(terms: Sequence[str], i: int) -> str | None:
    term = terms[i]
    before = terms[i - 1] if i > 0 else ""
    after = terms[i + 1] if i + 1 < len(terms) else ""
    if term in _AFTER_A:
        return _AFTER_A[term] if before == _A else None
    if term == _BOTH:
        return "2" if (not before or before in _BEFORE_BOTH) and is_content(after) else None
    if term == _ONE and before not in _NOT_COUNTED_AFTER and after and after not in _NOT_COUNTING:
        return "1"
    return None


def counted_words(terms: Sequence[str], spaced: Sequence[bool], i: int) -> tuple[str, ...]:
    """The noun phrase after count `i`: up to SKIP function words, then up to PHRASE content
    words in a row, with only whitespace between them; () if a number, punctuation or a
    sentence end comes first ("max_idle=5, max_workers": the 5 counts no workers)."""
    j, skipped = i + 1, 0
    while j < len(terms) and spaced[j] and terms[j] and not is_content(terms[j]):
        if is_number(terms[j]) or _soft_count(terms, j) is not None or skipped == SKIP:
            return ()
        j, skipped = j + 1, skipped + 1
    phrase: list[str] = []
    while j < len(terms) and spaced[j] and len(phrase) < PHRASE and is_content(terms[j]):
        phrase.append(terms[j])
        j += 1
    return tuple(phrase)


def owner_before(terms: Sequence[str], spaced: Sequence[bool], i: int) -> str | None:
    """The content word right before number `i`, only whitespace between ("port 8000")."""
    return terms[i - 1] if i > 0 and spaced[i] and is_content(terms[i - 1]) else None


def binding_problem(claim: str, evidence: str) -> str | None:
    """A number of the claim counting a noun that the evidence counts only with other numbers,
    or following a noun the evidence follows only with other numbers. Each word of the phrases
    counts: "2 queries run" is read for "query" (and "run"), "3 database queries" gives both
    "database" and "query" 3; the claim's number must be given to none of its words. Not
    when the evidence has the claim's number, counting nothing, near that noun ("the query
    count to 2" supports "2 queries" beside "3 database queries"). A duration the evidence
    writes in other units ("72 hours" for "3 days") is left to the number check, which
    converts it."""
    said, said_spaced = spaced_terms(claim)
    stated, stated_spaced = spaced_terms(evidence)
    counted: dict[str, set[str]] = {}
    owned: dict[str, set[str]] = {}
    loose: dict[str, list[int]] = {}  # value -> where the evidence has it counting nothing
    for j, value in counts(stated):
        phrase = counted_words(stated, stated_spaced, j)
        for word in phrase:
            counted.setdefault(word, set()).add(value)
        owner = owner_before(stated, stated_spaced, j)
        if owner is not None:
            owned.setdefault(owner, set()).add(value)
        if not phrase and owner is None:
            loose.setdefault(value, []).append(j)
    for i, value in counts(said):
        if value not in stated and converts(said, i, stated):
            continue
        phrase = counted_words(said, said_spaced, i)
        moved = [w for w in phrase if _moved(value, counted.get(w), stated, w, loose)]
        if moved and not any(value in counted.get(w, ()) for w in phrase):
            given = ", ".join(sorted(counted[moved[0]]))
            return (
                f"the number {value} counts {moved[0]!r} in the claim; the quoted evidence "
                f"gives {given} {moved[0]!r}"
            )
        owner = owner_before(said, said_spaced, i)
        if owner is not None and _moved(value, owned.get(owner), stated, owner, loose):
            given = ", ".join(sorted(owned[owner]))
            return (
                f"the number {value} follows {owner!r} in the claim; the quoted evidence gives "
                f"{owner!r} {given}"
            )
    return None


def _moved(
    value: str,
    given: set[str] | None,
    evidence: Sequence[str],
    word: str,
    loose: dict[str, list[int]],
) -> bool:
    """The evidence gives `word` numbers, not `value`, and has no `value` counting nothing
    near it."""
    return (
        bool(given)
        and value not in (given or ())
        and not _near(evidence, word, loose.get(value, []))
    )


def _near(terms: Sequence[str], word: str, spots: Sequence[int]) -> bool:
    """Whether `word` is within NEAR terms of one of `spots`, in the same sentence."""
    return any(word in sentence_window(terms, j, NEAR) for j in spots)


_ONLY, _OF = fold_word("only"), fold_word("of")
_PARTITIVE = folded_words("which them these those")


def partitive_problem(claim: Sequence[str], evidence: Sequence[str]) -> str | None:
    """The evidence restricts what it says to part of a count ("20 aphorisms, only 19 of which
    have been written down") and the claim says it of the noun without that part's number
    ("All twenty aphorisms have been written down"): the claim has the noun and every content
    word of what the part does, and not its number."""
    said = set(claim)
    for j in range(1, len(evidence) - 3):
        part = evidence[j + 1]
        if evidence[j] != _ONLY or not is_number(part) or evidence[j + 2] != _OF:
            continue
        if evidence[j + 3] not in _PARTITIVE:
            continue
        noun = evidence[j - 1]
        done = content_after(evidence, j + 3, len(evidence))  # what the part does
        if is_content(noun) and done and {noun, *done} <= said and part not in said:
            return (
                f"the quoted evidence says {' '.join(done)!r} of only {part} of the {noun!r}; "
                "the claim does not give that number"
            )
    return None
