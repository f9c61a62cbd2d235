"""Whether its quotes support a claim: identifiers and code, numbers, defaults and booleans,
negation both ways, then content coverage. A claim in another language than its evidence is
checked on what does not depend on its words."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Literal

from grounding.verification.additions import addition_problem
from grounding.verification.anchors import is_content, terms
from grounding.verification.antonyms import (
    comparison_problem,
    opposite_problem,
    order_problem,
    reversed_problem,
)
from grounding.verification.attributions import attribution_problem
from grounding.verification.bindings import binding_problem, partitive_problem
from grounding.verification.bounds import bound_problem, range_problem
from grounding.verification.code_names import (
    code_negations,
    without_code_negations,
    without_names,
)
from grounding.verification.coverage import CITED_THRESHOLD, SUPPORT_THRESHOLD, coverage_problem
from grounding.verification.defaults import default_problem, signature_defaults
from grounding.verification.digit_groups import numbers_apart
from grounding.verification.directives import readable
from grounding.verification.enumerations import list_counts, pointed_counts, self_counted
from grounding.verification.foreign_counts import in_english
from grounding.verification.identifiers import (
    appears,
    exact_tokens,
    is_number_token,
    url_ports,
    without_urls,
)
from grounding.verification.language import in_other_language
from grounding.verification.negation import (
    added_negation,
    denied_but_stated,
    dropped_negation,
    negation_disagrees,
)
from grounding.verification.numbers import (
    chinese_in_digits,
    spanish_numbers,
    without_english_number_words,
)
from grounding.verification.preferences import preference_problem
from grounding.verification.quantities import bare_unit_problem, unit_problem
from grounding.verification.quotes import (
    quote_form,
    without_code_comments,
    without_line_markup,
    without_links,
)
from grounding.verification.settings import setting_problem
from grounding.verification.tokens import token_problem
from grounding.verification.values import BOOLEANS, number_problem, value_problem
from retrieval.text import NEGATIONS, normalize_text
from retrieval.text.markup import CODE_SPAN

# "No: the transport only retries on ...": the answer to a yes/no question, not a negation of
# the words after it; "Not really:", "Not quite,", "Not necessarily." are the same answer
# hedged (the "not" denies the question, not a word of the claim).
_ANSWER_MARKER = re.compile(
    r"^(?:no|yes|not[ \t]+(?:really|quite|exactly|necessarily))\s*[:,;.—–]\s+",
    re.IGNORECASE,
)
# "Not on a client instance: per-request cookies aren't supported there.": a leading "Not ...:"
# answers a yes/no question with the negation its sentence goes on to state. Only the "Not" is
# that answer: the words after it are the claim's, checked as any others ("Not after 5 retries").
_NOT_LEAD = re.compile(r"^not\b(?P<lead>[^:;.!?\n]{1,60}:)\s+(?=\S)", re.IGNORECASE)
# A condition opening a claim, up to its comma ("Unless you change it, ...", "If you haven't set
# anything, ..."), and the word of the evidence it may restate.
_DEFAULT_CONDITION = re.compile(r"^(?:unless|if)\b[^,;:.]{1,80},\s+", re.IGNORECASE)
_DEFAULT_WORD = re.compile(r"\bdefault", re.IGNORECASE)
# Any condition opening a claim ("If there isn't an open transaction, ...", "When it is set,
# ..."): what follows is what the claim says happens then, and must be its quotes' as the whole
# claim must ("..., `on_commit()` raises an error" of "..., the callback will be executed").
_CONDITION = re.compile(r"^(?:unless|if|when|whenever|once)\b[^,;:.]{1,80},\s+", re.IGNORECASE)


# The texts content coverage can be measured against (Support's fields of those names).
Coverage = Literal["quoted", "context", "cited"]


@dataclass(frozen=True, slots=True)
class Support:
    """What a claim is checked against: `quoted`, the sentences its quotes stand in (numbers,
    values, negations and coverage); `cited`, its cited items whole (identifiers, whose
    definition may sit a line away from the sentence quoted); `clauses`, each quote's own
    clause, where a negation the claim drops would be."""

    quoted: str
    cited: str
    clauses: tuple[str, ...] = ()
    context: str = ""  # the quoted sentences and one on each side
    # Sentences of the cited items' documents that earlier kept claims of the answer quoted: a
    # number they hold was shown already, so the claim may restate it ("... above 100").
    stated: str = ""
    # The cited items' headings, one a paragraph: what the quoted sentences are under, so a
    # number there ("Django 1.10 release notes") is the quote's too.
    headings: str = ""
    # The lengths of the numbered lists the quotes are items of: a count the claim gives a
    # noun may be one ("takes three steps" of items "1." to "3.").
    lists: tuple[int, ...] = ()
    # The headings the quotes are under: their words count as quoted for coverage, since a
    # claim may merge a heading with its text.
    under: str = ""

    def coverage_text(self, name: Coverage) -> str:
        """What content coverage reads as `name`: the quoted sentences (and their context) with
        the headings the quotes are under; the cited items as they are."""
        text: str = getattr(self, name)
        return f"{text}\n\n{self.under}" if name != "cited" and self.under else text


@dataclass(frozen=True, slots=True)
class Verdict:
    problem: str | None
    other_language: bool = False  # checked on quotes, numbers and identifiers only


def support_problem(claim_text: str, evidence_text: str) -> str | None:
    """None when `evidence_text` supports `claim_text`, else why not: every check, with the one
    text standing for both the quoted sentences and the cited items."""
    return check(claim_text, Support(evidence_text, evidence_text)).problem


def check(
    claim_text: str,
    support: Support,
    *,
    quoted: float = SUPPORT_THRESHOLD,
    cited: float = CITED_THRESHOLD,
) -> Verdict:
    """The claim against its support. Its content words must be `quoted` of those of the
    quoted sentences and `cited` of its cited items; the defaults are fitted
    (benchmarks/verifier_fit.py passes 0 to measure the other checks alone)."""
    claim = normalize_text(without_line_markup(claim_text))
    if not claim:
        return Verdict("the claim is empty")
    support = replace(
        support,
        quoted=numbers_apart(readable(support.quoted), support.cited),
        context=readable(support.context),
        clauses=tuple(readable(clause) for clause in support.clauses),
    )
    other = in_other_language(claim, support.cited)
    tokens = exact_tokens(claim)
    problem = token_problem(tokens, support.cited) or _meaning_problem(claim, support, other=other)
    if problem is None and not other:
        said, quoted_text, cited_text = _coverage_texts(claim, support)
        exact = bool(tokens)
        for text, threshold in ((quoted_text, quoted), (cited_text, cited)):
            problem = coverage_problem(said, text, has_exact=exact, threshold=threshold)
            if problem is not None:
                break
        if problem is None:
            problem = _consequence_problem(said, support, quoted)
    return Verdict(problem, other)


def coverage_texts(claim_text: str, support: Support) -> tuple[str, str, str]:
    """What content coverage compares, as `check` reads them: the claim's counted words, the
    quoted sentences (with the headings they are under) and the cited items (for
    benchmarks/coverage_model.py, which measures other rules on the same texts)."""
    claim = normalize_text(without_line_markup(claim_text))
    return _coverage_texts(claim, replace(support, quoted=readable(support.quoted)))


def _coverage_texts(claim: str, support: Support) -> tuple[str, str, str]:
    said = _covered(_prose(claim), support.quoted)
    quoted = _prose(support.coverage_text("quoted"))
    shown = _quoted_code(claim, support)
    return said, f"{quoted}\n\n{shown}" if shown else quoted, _prose(support.cited)


def _quoted_code(claim: str, support: Support) -> str:
    """The claim's code spans that rebuild a quoted code line with the lines around it in its
    cited items (`"OPTIONS": {"timeout": 20}` of the quoted line `"timeout": 20,`): the span is
    the items' code as written, the quote's line inside it, so its words are quoted too."""
    formed = (quote_form(support.cited), quote_form(without_code_comments(support.cited)))
    lines = [quote_form(block).strip(" ,;") for block in support.quoted.split("\n\n")]
    held = []
    for match in _CODE.finditer(claim):
        span = quote_form(match.group().strip("`").strip())
        inside = any(line and len(line) < len(span) and line in span for line in lines)
        if inside and any(appears(span, form) for form in formed):
            held.append(span)
    return "\n\n".join(held)


def _consequence_problem(said: str, support: Support, threshold: float) -> str | None:
    """The words after a claim's opening condition, held to the quoted sentences' share on
    their own: a claim that keeps its quote's condition and changes what follows it shares the
    condition's words, and those alone can carry the whole claim past the share."""
    condition = _CONDITION.match(said)
    if condition is None:
        return None
    then = said[condition.end() :]
    text = _prose(support.coverage_text("quoted"))
    problem = coverage_problem(then, text, has_exact=True, threshold=threshold)
    return None if problem is None else f"after its condition, {problem}"


def _covered(claim: str, quoted: str) -> str:
    """The part of a claim its content words are counted in: without a leading condition that
    restates a default its quotes give ("Unless you configure something else, ..." for "By
    default ..."), whose words are the paraphrase's own."""
    if _DEFAULT_WORD.search(quoted) is None:
        return claim
    return _DEFAULT_CONDITION.sub("", claim, count=1)


def _unmarked(text: str) -> str:
    """`text` with its links read as their text, URLs blanked and a leading "No:" or "Yes,"
    answering the question left out."""
    return _ANSWER_MARKER.sub("", without_urls(without_links(text)))


def _prose(text: str) -> str:
    """The words a claim or its evidence says: links read as their text, URLs blanked (each is
    an exact token, checked whole), and a leading "No:" or "Yes," answering the question, or the
    "Not" of a "Not ...:" whose negation the rest of the claim states."""
    text = _unmarked(text)
    lead = _NOT_LEAD.match(text)
    if lead is not None and NEGATIONS & set(terms(text[lead.end() :])):
        return text[lead.start("lead") :]
    return text


def _lead_denial(claim: str) -> tuple[str, ...]:
    """The words of a leading "Not ...:" that _prose leaves out, when they are what it denies
    ("Not thread-safe: ..."), which the evidence must not state plainly."""
    text = _unmarked(claim)
    lead = _NOT_LEAD.match(text)
    if lead is None or _prose(claim) == text:
        return ()
    denied = terms(lead.group("lead")[:-1])
    # "Not after 3 retries: ...", "Not on a client: ...": a circumstance the rest of the claim
    # denies in its own words (and is checked on), not a property the lead denies.
    return denied if denied and is_content(denied[0]) else ()


_CODE = re.compile(CODE_SPAN)


_CODE_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)*(?!\w)")


def _without_quoted_code(claim: str, quoted: str) -> str:
    """`claim` with the numbers blanked of each code span that is more than a number and that
    the quoted sentences hold as written (in quote form); its words stay, to anchor others."""
    formed = quote_form(quoted)

    def blank(match: re.Match[str]) -> str:
        code = match.group().strip("`").strip()
        written = quote_form(code)  # "" for a span of markup alone (`**`): appears nowhere
        if is_number_token(code) or not appears(written, formed):
            return match.group()
        return _CODE_NUMBER.sub(" ", match.group())

    return _CODE.sub(blank, claim)


def _meaning_problem(claim: str, support: Support, *, other: bool) -> str | None:
    """Numbers, values and negations; in another language the numbers (not their neighbours,
    which are words of that language) and whether it negates at all."""
    said = terms(_prose(without_english_number_words(chinese_in_digits(claim)) if other else claim))
    extra = signature_defaults(support.quoted) + url_ports(support.quoted)
    quoted = terms(_prose(support.quoted + extra))
    if other:  # "tres pasos": a number, whatever language spells it
        said += tuple(t for n in spanish_numbers(claim) for t in ("", n))
    prose = _prose(claim)
    # Numbers inside code the quotes hold as written are the quotes' own (`~= 2.2`): the code
    # around them anchors them, however few words the quoted line has.
    counted = said if other else terms(_prose(_without_quoted_code(claim, support.quoted)))
    listed = (
        frozenset()
        if other
        else self_counted(prose, _prose(support.quoted))
        | list_counts(prose, support.lists)
        | pointed_counts(said, _prose(support.quoted))
    )
    problem = number_problem(counted, quoted, anchor=not other, listed=listed)
    if problem is not None and (support.stated or support.headings):
        shown = terms(_prose(f"{support.quoted}\n\n{support.stated}\n\n{support.headings}"))
        problem = number_problem(counted, shown, anchor=not other, listed=listed)
    if problem is not None:
        return problem
    if other:
        clauses = [terms(clause) for clause in support.clauses]
        if negation_disagrees(said, clauses, claim):
            return "the claim and its quotes disagree on a negation"
        # "默认是 `True`" of "Default: ``False``": its literals are the quotes' (not only
        # somewhere in the cited items), as an English claim's are.
        problem = value_problem(said, quoted, BOOLEANS)
        if problem is not None:
            return problem
        # "tres conexiones": a count of a noun the tables know, read as an English count.
        return binding_problem(in_english(claim), _prose(support.quoted))
    for rule in (
        value_problem,
        default_problem,
        unit_problem,
        bare_unit_problem,
        opposite_problem,
        comparison_problem,
        order_problem,
        reversed_problem,
        preference_problem,
    ):
        problem = rule(said, quoted)
        if problem is not None:
            return problem
    problem = addition_problem(said, quoted, written=claim, follows=bool(support.stated))
    if problem is not None:
        return problem
    blocks = [terms(_prose(block)) for block in support.quoted.split("\n\n")]
    problem = bound_problem(said, quoted, blocks) or range_problem(said, quoted)
    if problem is not None:
        return problem
    problem = (
        binding_problem(_prose(claim), _prose(support.quoted))
        or partitive_problem(said, quoted)
        or setting_problem(claim, support.quoted)
        or attribution_problem(claim, support.quoted)
    )
    if problem is not None:
        return problem
    negation = added_negation(terms(_prose(without_code_negations(claim))), quoted)
    if negation is not None:
        return f"{negation!r} is not near the same words in the quoted evidence"
    stated = denied_but_stated(_lead_denial(claim), quoted)
    if stated is not None:
        return f"the claim's lead denies {stated!r}, which the quoted evidence states"
    # The "Not" of a "Not ...:" lead denies the lead's words: it keeps a negation of the quote.
    # A negation word in code is a name (`--no-verify`, `Facets.NEVER`): in the claim it is no
    # negation of the claim's prose, in a quote writing that name none of the quote's; the
    # claim's name keeps a quote's negation describing the option in prose ("Never show
    # facets."), not one beside the name the quote writes ("`Facets.NEVER` never shows ...").
    denying = terms(_unmarked(without_code_negations(claim)))
    for clause in support.clauses:
        named = code_negations(claim, clause)
        negated = dropped_negation(denying, without_names(clause, claim), named)
        if negated is not None:
            return f"the quoted evidence negates {negated!r} and the claim does not"
    return None
