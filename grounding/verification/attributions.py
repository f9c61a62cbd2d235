"""Who a statement is about: a quote that says one thing of one name and another of a second
("`Strict` is the usual mode to use, but `Lenient` may be used in special cases") holds every
word of a claim that says the first thing of the second name ("`Lenient` is the usual mode to
use"), so coverage keeps it. A claim naming one identifier must say of it what a clause of its
quote naming that identifier says, not what the clause of another name says."""

from __future__ import annotations

import re

from grounding.verification.coverage import coverage
from grounding.verification.identifiers import exact_tokens

# Where one statement of a quote ends and the next, about another name, may start: a sentence or
# clause end, or a comma before "but", "while" or "whereas" (written with or without its space).
_CLAUSE_END = re.compile(r"[.;:!?](?:\s|$)|\n|,\s*(?=(?:but|while|whereas)\b)", re.IGNORECASE)
# A clause says what the claim says when it holds all of the claim's words; the clause of the
# claim's own name says it when it holds at least half (set by hand, as the reaches of the
# negation and number checks are, not fit).
_OWN_SHARE = 0.5


def attribution_problem(claim: str, quoted: str) -> str | None:
    """The other name whose clause of `quoted` holds every word of a claim about one name, when
    no clause naming the claim's own holds half of them."""
    names = [t for t in exact_tokens(claim) if t[:1].isalpha()]
    if len(names) != 1:
        return None
    name = names[0]
    said = _prose(claim, (name,))
    clauses = [clause for clause in _CLAUSE_END.split(quoted) if clause.strip()]
    own = [clause for clause in clauses if name in exact_tokens(clause)]
    if not own or max(_share(said, clause) for clause in own) >= _OWN_SHARE:
        return None
    for clause in clauses:
        others = [t for t in exact_tokens(clause) if t[:1].isalpha() and t != name]
        if others and name not in exact_tokens(clause) and _share(said, clause) == 1.0:
            return f"the quoted evidence says this of {others[0]!r}, not of {name!r}"
    return None


def _prose(text: str, tokens: tuple[str, ...]) -> str:
    for token in tokens:
        text = text.replace(token, " ")
    return text


def _share(said: str, clause: str) -> float:
    found, missing = coverage(said, _prose(clause, exact_tokens(clause)))
    total = len(found) + len(missing)
    return len(found) / total if total else 0.0
