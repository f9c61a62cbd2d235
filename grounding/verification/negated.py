"""What a negation of the evidence denies: the words it governs ("does not follow": follow),
read past an adverb ("does not automatically follow"), a modal word ("it is not possible to
resize"), a light verb ("does not make a recommendation"), a coordination ("does not drain or
flush"), and said by a verb ("refuses to drain")."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from grounding.verification.anchors import is_content
from retrieval.text import SnowballStemmer, fold_word, folded_words

# How far after a negation its negated word may be ("does not always follow": follow).
GOVERNS = 3
_SNOWBALL = SnowballStemmer("english")
_BE = folded_words("be been being")
_NOT = fold_word("not")
_TO = fold_word("to")

# Adverbs a negation reaches through to the verb it denies: "does not automatically close",
# "no longer drains", "is not yet supported". A claim stating the verb plainly drops the
# negation as surely as one stating the adverb. Besides these, an adverb made with "-ly"
# (ADVERB_SUFFIX) from a stem of four letters or more ("currently", "explicitly"), not a verb
# ending in "-ply" ("apply", "reply") and not "only" ("not only X but Y" denies nothing).
_SCOPE_ADVERBS = folded_words("longer yet always ever even still really")
_ADVERB_SUFFIX = "ly"
_NOT_ADVERBS = folded_words("only early family assembly")
# Words of possibility a negation denies along with the verb after their "to": "it is not
# possible to resize the buffer", "there is no way to resize it", "you are not able / allowed /
# permitted to resize it" deny the resizing: "You can resize the buffer" drops the negation.
_MODAL = folded_words("possible able way allowed permitted")
# Light verbs, whose meaning is their object's: "does not make a recommendation" denies the
# recommending ("recommends double quotes" drops the negation), "does not give a warning" the
# warning, "has no effect" ... the effect.
_LIGHT_VERBS = folded_words("make give take have do")
# "does not drain or flush the tank": "or" / "nor" right after the negated word joins a second.
_JOINING = folded_words("or nor")
# Verbs that say "not" of the verb after them, in a quote as in a claim: "refuses to drain",
# "fails to drain" ("fails with an error" denies nothing).
_NEGATING_BEFORE_TO = folded_words("refuse fail")
_NEITHER = fold_word("neither")


def negated_words(clause: Sequence[str], j: int) -> tuple[int, ...]:
    """Where the words the negation `j` of the clause denies are: the first content word it
    governs, and the verb past it when that word is an adverb or a modal word ("possible to
    resize"), and a word joined to it by "or"; empty when it governs none."""
    head = _negated_word(clause, j)
    if head is None:
        return ()
    k = clause.index(head, j + 1)
    out = [k]
    while len(out) <= GOVERNS:  # "not yet able to drain": yet, able, drain
        if _is_adverb(clause[k]):
            k = _next_content(clause, k)
        elif clause[k] in _MODAL and k + 1 < len(clause) and clause[k + 1] == _TO:
            k = _next_content(clause, k + 1)
        elif clause[k] in _LIGHT_VERBS:
            k = _next_content(clause, k)
        else:
            break
        if k < 0:
            break
        out.append(k)
    k = out[-1]
    if k + 2 < len(clause) and clause[k + 1] in _JOINING and is_content(clause[k + 2]):
        out.append(k + 2)
    return tuple(out)


def _negated_word(clause: Sequence[str], j: int) -> str | None:
    """The first content word the negation `j` governs; in a passive with none ("MUST NOT be
    used", "has not been done"), the participle after the "be", function word or not: it is
    what the negation denies, and a claim saying "you can use it" states it plainly."""
    passed: list[str] = []
    for term in clause[j + 1 : j + 1 + GOVERNS]:
        if not term:
            break  # the sentence ended
        if is_content(term):
            return term
        passed.append(term)
    return next((after for be, after in itertools.pairwise(passed) if be in _BE), None)


def _is_adverb(term: str) -> bool:
    if term in _SCOPE_ADVERBS:
        return True
    return (
        term.endswith(_ADVERB_SUFFIX)
        and len(term) - len(_ADVERB_SUFFIX) >= 4
        and not term.endswith("ply")
        and term not in _NOT_ADVERBS
    )


def _next_content(clause: Sequence[str], k: int) -> int:
    """Where the first content word after term `k` within GOVERNS terms is, in its sentence;
    -1 when there is none."""
    for n, term in enumerate(clause[k + 1 : k + 1 + GOVERNS], start=k + 1):
        if not term:
            break
        if is_content(term):
            return n
    return -1


def read_negating_verbs(clause: Sequence[str]) -> tuple[str, ...]:
    """The clause with each verb that says "not" of the verb after its "to" ("refuses to
    drain"), and each "neither" ("neither the pump nor the valve drains"), read as "not", so
    the negation it says is checked as any other."""
    return tuple(
        _NOT
        if term == _NEITHER
        or (term in _NEGATING_BEFORE_TO and j + 1 < len(clause) and clause[j + 1] == _TO)
        else term
        for j, term in enumerate(clause)
    )


def meets(word: str, negated: str) -> bool:
    """`word` is the negated word or a form of it that fold_word leaves apart and Snowball
    joins: "use" of "MUST NOT be used", "permits" of "not permitted"."""
    return word == negated or _SNOWBALL(word) == _SNOWBALL(negated)
