"""The extractive generator: answers by quoting the evidence units that best match the question.

No network and no model; deterministic. The embedded default when no OpenAI key is set.
"""

from __future__ import annotations

import asyncio
import itertools
import math
import re
import textwrap
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from grounding.evidence import EvidenceItem, EvidencePacket
from grounding.generators.base import Generation, GenerationRequest
from grounding.generators.segmentation import Unit, UnitKind, markup_for, split_units
from grounding.schema import GroundedClaim, GroundedResponse
from retrieval.text import ANSWER_TERMS, CJK, light_stem, normalize_text
from retrieval.text.markup import BULLET, LIST_MARKER, NUMBERED
from retrieval.text.slack import markup_words
from retrieval.text.tokenizer import JOINED_WORD
from retrieval.text.words import QUESTION_STOPWORDS

# Answer only when the best unit and its headings cover this share of the question's weight
# (each question word weighs its IDF over the packet's units; a word no unit has weighs most).
# Calibrated with benchmarks/answer_quality.py --sweep (docs/performance.md, Grounded answers):
# - httpx set, real index: uncovered questions score at most 0.25 (HTTP/3, "faster than
#   requests"), answerable ones at least 0.37; 0.30 sits in that gap, nearer its middle.
# - SQuAD v2.0 dev cannot place it: its unanswerable questions are written to share the
#   paragraph's words, so coverage barely tells them apart (0.30: 93% of answerable answered,
#   7% of unanswerable refused; 0.60: 53% / 53%). Refusing those needs reading, not matching;
#   raising the threshold would only trade real answers for coin flips.
DEFAULT_THRESHOLD = 0.3

INSUFFICIENT_MESSAGE = (
    "The documents this conversation can read do not seem to answer this question."
)

# A further claim must score at least this share of the best one: more claims only when they
# are nearly as good, so an answer stays an answer rather than a dump of the top chunk.
_EXTRA_CLAIM_RATIO = 0.8
_EXTRA_COVERAGE_RATIO = 0.8

_BM25_K1 = 1.2
_BM25_B = 0.75
_MIN_WORDS = 4  # a prose unit with fewer words is a label, not an answer
_CODE_PENALTY = 0.3  # a code block is chosen next to its prose, or when it names what is asked
_SHOWS_HOW_BONUS = 0.1  # for "how do I": prose that leads into a code block shows how
_ABSENT_NAME_FACTOR = 2.0
# A version the docs do not name is ignored when the rest of the question is covered this well.
_WELL_COVERED = 0.5
_VERSION_TERM = re.compile(r"v\d+(?:\.\d+)*|\d+(?:\.\d+)+")
# The question's key words weigh at least this share of its heaviest word: a code block that
# uses one as a name in code (`json=data`, `import asyncio`) shows how to do what is asked.
_KEY_SHARE = 0.5
# Names a code block uses: imported modules, attributes, called functions, keyword arguments.
_CODE_NAME = re.compile(r"(?:\bimport\s+|\bfrom\s+|\.)(\w+)|(\w+)\s*(?:=(?!=)|\()")
_HEADING_WEIGHT = 0.5  # a question word found only in the unit's headings counts half
# Question words must meet within this many lines of a code block: a long config file holds
# a few common words somewhere (`docs/`, `answer:`) without being about them.
_CODE_WINDOW = 3
# For "how do I" questions, procedures (numbered steps, instructions, prose that leads into
# code or a list) outrank descriptions that match as well: the question asks what to do.
_PROCEDURE_BONUS = 0.3
_MAX_LIST_UNITS = 12  # a list quoted whole for a "how do I" question stops here

# "How" in the other languages the generator reads: Chinese, Japanese, Russian, German.
_HOW_ELSEWHERE = r"^\s*(?:如何|怎么|怎麼|怎样|怎樣|どうやって|どうすれば|как\b|wie\b)"
_HOW = re.compile(
    r"^\s*(?:how\b|can\s+i\b|is\s+there\s+a\s+way\b|what(?:'s|\s+is)\s+the\s+way\b|show\b)"
    r"|\b(?:example|snippet|code)\b|" + _HOW_ELSEWHERE,
    re.IGNORECASE,
)
_NUMERIC = re.compile(
    r"^\s*(?:how\s+(?:many|much|long|old|far|big|large|often)|when\b|what\s+(?:year|date|time))"
    r"|\bin\s+what\s+year\b|\bwhich\s+year\b|\bnumber\s+of\b",
    re.IGNORECASE,
)
# A number in the text, not a list marker's ("3.") nor part of a name (`E1`, `o200k_base`).
_VALUE = re.compile(r"(?<![\w.])\d")
_WHO = re.compile(r"^\s*(?:who|whom|whose)\b", re.IGNORECASE)
_PROCEDURE = re.compile(
    r"^\s*how\s+(?:do|can|could|should|would|shall|must)\s+(?:i|we|you|one)\b"
    r"|\bhow\s+to\b|\bsteps?\s+(?:to|for)\b|\b(?:procedure|instructions)\b|" + _HOW_ELSEWHERE,
    re.IGNORECASE,
)
_LEAD_MARKUP = re.compile(rf"^\s*(?:{BULLET}|{NUMBERED})?\s*[*_`\"'(\[]*")
# Verbs a documentation instruction starts with ("Run ...", "2. Copy the backup ..."): enough
# to tell an instruction from a description without a part-of-speech tagger.
_IMPERATIVE_TEXT = """
    add allow apply ask back build call change check choose clear click clone close configure
    confirm connect copy create define delete deploy disable download drop edit enable ensure
    enter export fill find follow generate give go grant import increase install invite keep
    launch list load log make mention merge migrate move open pass paste pick pin point press
    provide pull push put read rebuild regenerate register reload remove rename replace restart
    restore retry revoke rotate run save select send set setup specify start stop subclass
    switch tell try turn type uninstall unset update upgrade upload use verify wait wrap write
"""
_IMPERATIVES = frozenset(_IMPERATIVE_TEXT.split())
_OPENING_WORDS = 6  # "For HTTP mode instead, copy ...": the phrase before the verb is short


def terms(text: str) -> list[str]:
    """Stemmed content words; an identifier (`follow_redirects`, `HTTP/2`) also counts whole.

    Words of any script count; a run of CJK text becomes character bigrams, as search reads it.
    The tokenizer is retrieval.text's ANSWER_TERMS, where its differences from search are said.
    """
    return ANSWER_TERMS(text)


def identifiers(question: str) -> tuple[str, ...]:
    """Tokens of the question that look like code: quoted, dotted, snake_case, camelCase, `a/2`."""
    found = {m.lower() for m in re.findall(r"`([^`]+)`", question)}
    for token in JOINED_WORD.findall(question):
        if re.search(r"[._/:]|[a-z][A-Z]|[A-Za-z]\d|\d[A-Za-z]", token):
            found.add(token.lower())
    return tuple(sorted(found))


_NAME = re.compile(r"\b[A-Z][\w'’-]*(?:[ \t]+[A-Z][\w'’-]*)+")


def proper_names(question: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Capitalised names of two words or more ("Microsoft Teams", "Super Bowl"), lowercased,
    with their terms; a capitalised function word ("Does", "What") is not part of a name."""
    out = []
    for match in _NAME.finditer(question):
        words = match.group().split()
        while words and words[0].lower() in QUESTION_STOPWORDS:
            words = words[1:]
        while words and words[-1].lower() in QUESTION_STOPWORDS:
            words = words[:-1]
        parts = tuple(terms(" ".join(words)))
        if len(words) >= 2 and parts:
            out.append((" ".join(words).lower(), parts))
    return tuple(out)


def spelled_identifiers(question: str) -> tuple[str, ...]:
    """Names a question spells out in words: "base URL" may mean `base_url` or `baseurl`."""
    words = [w.lower() for w in re.findall(r"[A-Za-z]+", question)]
    pairs = [
        (a, b)
        for a, b in itertools.pairwise(words)
        if a not in QUESTION_STOPWORDS and b not in QUESTION_STOPWORDS and min(len(a), len(b)) >= 3
    ]
    return tuple(sorted({f"{a}_{b}" for a, b in pairs} | {f"{a}{b}" for a, b in pairs}))


@dataclass(frozen=True, slots=True)
class Candidate:
    """One answer unit of one evidence item, with what the scoring needs to know about it."""

    item: EvidenceItem
    item_index: int
    unit_index: int
    unit: Unit
    units: tuple[Unit, ...]  # all units of the item's chunk, for neighbours
    terms: Counter[str]
    context: frozenset[str]  # terms of the unit's headings
    # Where the question's words must meet: the unit itself, or each few-line window of code.
    spots: tuple[frozenset[str], ...] = ()
    lead_in: frozenset[str] = frozenset()  # code: terms of the sentence that introduces it
    # A list item of a procedure (numbered, or instructions): the list's extent as unit
    # indexes (lead-in sentence included) and the terms of all of it.
    steps: tuple[int, int] | None = None
    procedure: frozenset[str] = frozenset()
    code_names: frozenset[str] = frozenset()  # code: terms of the names it uses (`json=`)


@dataclass(frozen=True, slots=True)
class Scored:
    candidate: Candidate
    score: float
    coverage: float  # share of the question's weight found in the unit and its headings


def candidates(packet: EvidencePacket) -> tuple[Candidate, ...]:
    out: list[Candidate] = []
    heading_terms: dict[str, frozenset[str]] = {}  # a chunk has only a few distinct headings
    for item_index, item in enumerate(packet.items):
        units = split_units(item.chunk.text, markup_for(item.chunk.path))
        procedures = _procedures(units, item.chunk.text)
        for unit_index, unit in enumerate(units):
            if not _claimable(unit):
                continue
            # A table row is read under its header ("| key | default | meaning |"), as a
            # sentence is read under its headings: the header names what each cell is.
            header = _table_header(units, item.chunk.text, unit_index)
            headings = " ".join((*item.chunk.heading_path, unit.section, header))
            if headings not in heading_terms:
                heading_terms[headings] = frozenset(terms(headings))
            unit_terms = Counter(terms(unit.text))
            steps = procedures.get(unit_index)
            out.append(
                Candidate(
                    item,
                    item_index,
                    unit_index,
                    unit,
                    units,
                    unit_terms,
                    heading_terms[headings],
                    _spots(unit, unit_terms),
                    _lead_in_terms(units, item.chunk.text, unit_index),
                    steps,
                    _goal_terms(units, steps[0], heading_terms[headings]) if steps else frozenset(),
                    _code_names(unit),
                )
            )
    return tuple(out)


def _claimable(unit: Unit) -> bool:
    """Headings, bare names and link-only lines say too little to be an answer on their own."""
    if unit.kind is UnitKind.CODE:
        return True
    if unit.kind is UnitKind.HEADING:
        return False
    prose = re.sub(r"\]\([^)]*\)|https?://\S+", " ", unit.text)
    # CJK is written without spaces: a word is about two characters.
    cjk = len(CJK.findall(prose))
    words = len(re.findall(r"[^\W\d_]{2,}", CJK.sub(" ", prose)))
    return words + cjk / 2 >= _MIN_WORDS


_HEADER_RULE = re.compile(r"^\s*\|?\s*:?-{3,}")


def _table_header(units: Sequence[Unit], text: str, index: int) -> str:
    """The header row of the Markdown table a row belongs to ('' for the header itself, or for
    a row outside a table with a header): the first row of its run, when a `|---|` rule
    follows it."""
    if units[index].kind is not UnitKind.ROW:
        return ""
    first = index
    while first > 0 and units[first - 1].kind is UnitKind.ROW:
        between = text[units[first - 1].end : units[first].start]
        if any(line.strip() and not _HEADER_RULE.match(line) for line in between.splitlines()):
            break
        first -= 1
    if first == index:
        return ""
    rule = text[units[first].end : units[first + 1].start]
    return units[first].text if _HEADER_RULE.search(rule.strip()) else ""


def _code_names(unit: Unit) -> frozenset[str]:
    if unit.kind is not UnitKind.CODE:
        return frozenset()
    names = (m.group(1) or m.group(2) for m in _CODE_NAME.finditer(unit.text))
    return frozenset(t for name in names for t in terms(name))


def _spots(unit: Unit, unit_terms: Counter[str]) -> tuple[frozenset[str], ...]:
    if unit.kind is not UnitKind.CODE:
        return (frozenset(unit_terms),)
    lines = [line for line in unit.text.splitlines() if line.strip()]
    windows = range(max(1, len(lines) - _CODE_WINDOW + 1))
    return tuple(frozenset(terms("\n".join(lines[i : i + _CODE_WINDOW]))) for i in windows)


def _lead_in_terms(units: Sequence[Unit], text: str, index: int) -> frozenset[str]:
    """For a code block, the terms of the sentence right before it: the prose that says what
    the code is for."""
    if units[index].kind is not UnitKind.CODE or index == 0:
        return frozenset()
    before = units[index - 1]
    if before.kind is not UnitKind.SENTENCE or text[before.end : units[index].start].strip():
        return frozenset()
    return frozenset(terms(before.text))


def _goal_terms(units: Sequence[Unit], first: int, headings: frozenset[str]) -> frozenset[str]:
    """What a procedure is for: its headings and its lead-in sentence, if it has one."""
    lead = units[first]
    return headings | frozenset(terms(lead.text)) if lead.kind is UnitKind.SENTENCE else headings


def _procedures(units: Sequence[Unit], text: str) -> dict[int, tuple[int, int]]:
    """Each item of a procedural list -> the list's extent, its lead-in sentence included.

    A list is procedural when at least half its items are instructions (a numbered list of
    pipeline stages is not); a lead-in is the sentence ending in a colon right before it.
    """
    out: dict[int, tuple[int, int]] = {}
    i = 0
    while i < len(units):
        if units[i].kind is not UnitKind.ITEM:
            i += 1
            continue
        last = i
        while last + 1 < len(units) and _adjacent(units, text, last, UnitKind.ITEM):
            last += 1
        items = units[i : last + 1]
        if 2 * sum(bool(_instruction(u.text)) for u in items) >= len(items):
            first = i - 1 if i > 0 and _leads_in(units, text, i - 1) else i
            out.update((k, (first, last)) for k in range(i, last + 1))
        i = last + 1
    return out


def _adjacent(units: Sequence[Unit], text: str, i: int, kind: UnitKind) -> bool:
    """Unit `i + 1` is of `kind` and only whitespace separates it from unit `i`."""
    nxt = units[i + 1]
    return nxt.kind is kind and not text[units[i].end : nxt.start].strip()


def _leads_in(units: Sequence[Unit], text: str, i: int) -> bool:
    unit = units[i]
    ends = unit.text.rstrip().endswith((":", "...", "…"))
    return (
        unit.kind is UnitKind.SENTENCE and ends and not text[unit.end : units[i + 1].start].strip()
    )


def _instruction(text: str) -> str:
    """The verb an instruction starts with ("Copy the backup ..." -> "copy"), or ''.

    The verb may follow a short opening phrase: "In the app settings, open ...".
    """
    body = _LEAD_MARKUP.sub("", text)
    opening, comma, rest = body.partition(",")
    starts = [body]
    if comma and len(opening.split()) <= _OPENING_WORDS:
        starts.append(rest)
    for start in starts:
        words = start.split(None, 2)
        if words and words[0].lower() in ("first", "then", "next", "finally", "also"):
            words = words[1:]
        verb = words[0].lower().strip("*_`") if words else ""
        if verb in _IMPERATIVES:
            return verb
    return ""


def idf_table(pool: Sequence[Candidate]) -> dict[str, float]:
    df: Counter[str] = Counter()
    for candidate in pool:
        df.update(candidate.terms.keys())
    n = len(pool)
    return {term: _idf(n, count) for term, count in df.items()}


def _idf(n: int, df: int) -> float:
    # BM25's IDF, kept positive: a word in every unit still counts a little.
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


# "@alice" / "cc @bob" address people, not the docs. A question arrives with them, and with
# Slack markup (`<@U0BOB>`, `<!here>`), from the CLI and other callers too.
_HANDLE = re.compile(r"(?:\bcc:?\s*)?(?<![\w.@])@\w[\w.\-]*(?<![.\-])", re.IGNORECASE)


def asked(question: str, pool: Sequence[Candidate]) -> str:
    """The question without the people it addresses: an `@name` counts only when some evidence
    holds it (a decorator such as `@cached_property`), since a handle is a name no doc has."""
    text = markup_words(question)
    if "@" not in text:
        return " ".join(text.split())
    evidence = {m.lower() for c in pool for m in re.findall(r"@\w[\w.\-]*", c.unit.text)}

    def drop(match: re.Match[str]) -> str:
        handle = match.group()[match.group().index("@") :].lower()
        return match.group() if handle in evidence else " "

    return " ".join(_HANDLE.sub(drop, text).split())


def score_candidates(question: str, pool: Sequence[Candidate]) -> tuple[Scored, ...]:
    """Every candidate scored against the question, best first; ties keep document order."""
    if not pool:
        return ()
    question = asked(question, pool)
    idf = idf_table(pool)
    absent = _idf(len(pool), 0)  # a question word nowhere in the packet weighs the most
    idents = identifiers(question)
    weights = {t: idf.get(t, _unnamed(t, idents) * absent) for t in set(terms(question))}
    versions = {t for t in weights if t not in idf and _VERSION_TERM.fullmatch(t)}
    if versions:
        # A version no evidence names ("httpx 0.28") does not block an answer the rest of the
        # question finds well; when the rest is weak, it weighs as an unknown word, not double.
        # A feature name the docs lack (`HTTP/3`) is not a version and still weighs double.
        rest = {t: w for t, w in weights.items() if t not in versions}
        ranked = _rank(question, pool, rest, idents) if rest else ()
        if ranked and ranked[0].coverage >= _WELL_COVERED:
            return ranked
        weights |= dict.fromkeys(versions, absent)
    return _rank(question, pool, weights, idents)


def _rank(
    question: str, pool: Sequence[Candidate], weights: dict[str, float], idents: tuple[str, ...]
) -> tuple[Scored, ...]:
    procedural = bool(_PROCEDURE.search(question))
    top_weight = max(weights.values(), default=0.0)
    key = frozenset(t for t, w in weights.items() if w >= _KEY_SHARE * top_weight)
    # Only a name with a word no evidence has gates the answer: SQuAD's answering sentences
    # often say "the team" for "Denver Broncos", so requiring the name in the claimed unit
    # itself cost answers (gold in a claim 0.768 -> 0.737 on --sample 1000).
    names = tuple(
        (phrase, rarest)
        for phrase, parts in proper_names(question)
        if not _in_evidence(rarest := max(parts, key=lambda t: (weights.get(t, 0.0), t)), pool)
    )
    query = _Query(question, weights, idents, spelled_identifiers(question), procedural, key, names)
    avg_len = sum(sum(c.terms.values()) for c in pool) / len(pool) or 1.0
    bm25 = [_bm25(c.terms, weights, avg_len) for c in pool]
    top_bm25 = max(bm25) or 1.0
    top_retrieval = max((c.item.score for c in pool), default=0.0) or 1.0
    scored = [
        _score(query, c, b / top_bm25, c.item.score / top_retrieval)
        for c, b in zip(pool, bm25, strict=True)
    ]
    order = sorted(
        range(len(scored)),
        key=lambda i: (-scored[i].score, pool[i].item_index, pool[i].unit_index),
    )
    return tuple(scored[i] for i in order)


def _unnamed(term: str, idents: tuple[str, ...]) -> float:
    # A name or version the question asks about (`HTTP/3`) that no evidence mentions is
    # the strongest sign the documents do not cover the question: it weighs double.
    return _ABSENT_NAME_FACTOR if term in idents else 1.0


def _bm25(tf: Counter[str], weights: dict[str, float], avg_len: float) -> float:
    length = sum(tf.values())
    norm = _BM25_K1 * (1 - _BM25_B + _BM25_B * length / avg_len)
    return sum(w * tf[t] * (_BM25_K1 + 1) / (tf[t] + norm) for t, w in weights.items() if tf[t])


def _coverage(c: Candidate, query: _Query) -> float:
    """Share of the question's weight the unit covers: its own words in full, its headings (and
    a code block's lead-in sentence) at half.

    A code block's words must meet within a few lines, and one stands on its own only when the
    question asks how (or for an example) or names something in it: a question about what
    docbot does is not answered by a config file that happens to hold `docs/` and `answer:`.
    For a "how do I" question a procedure is read whole: its steps do what its heading or
    lead-in names, so the words found there count in full.
    """
    weights = query.weights
    total = sum(weights.values())
    if total == 0 or (c.unit.kind is UnitKind.CODE and not _code_may_stand(query, c)):
        return 0.0
    if not _mentions_names(query, c):
        return 0.0
    if query.procedural and c.steps is not None:
        return _found(c.spots[0] | c.procedure, frozenset(), weights) / total
    around = c.context | c.lead_in
    if _shows_asked(query, c):
        # Code that uses what is asked shows how to do what its heading and lead-in name, as
        # the steps of a procedure do: "Sending JSON Encoded Data" over `json=data`.
        return max(_found(spot | around, frozenset(), weights) for spot in c.spots) / total
    return max(_found(spot, around, weights) for spot in c.spots) / total


def _in_evidence(term: str, pool: Sequence[Candidate]) -> bool:
    return any(term in c.terms or term in c.context or term in c.lead_in for c in pool)


def _mentions_names(query: _Query, c: Candidate) -> bool:
    """A unit answers a question about "Microsoft Teams" only when it, its headings or its
    lead-in say the name, or at least its rarest word: "teams" alone is another subject."""
    if not query.names:
        return True
    lowered = " ".join(c.unit.text.lower().split())
    seen = c.terms.keys() | c.context | c.lead_in
    return all(phrase in lowered or rarest in seen for phrase, rarest in query.names)


def _found(spot: frozenset[str], around: frozenset[str], weights: dict[str, float]) -> float:
    return sum(
        w if t in spot else _HEADING_WEIGHT * w if t in around else 0.0 for t, w in weights.items()
    )


def _code_may_stand(query: _Query, c: Candidate) -> bool:
    return _names(query, c) or bool(_HOW.search(query.text))


def _names(query: _Query, c: Candidate) -> bool:
    lowered = c.unit.text.lower()
    return any(i in lowered for i in query.identifiers) or _shows_asked(query, c)


def _shows_asked(query: _Query, c: Candidate) -> bool:
    """A code block for a "how" question that uses one of its key words as a name in code:
    `json=data` for "send a JSON body", `import asyncio` for "use httpx with asyncio"."""
    return bool(c.code_names & query.key) and bool(_HOW.search(query.text))


@dataclass(frozen=True, slots=True)
class _Query:
    text: str
    weights: dict[str, float]  # question term -> weight
    identifiers: tuple[str, ...]  # written as code in the question
    spelled: tuple[str, ...]  # written as words ("base URL"): a weaker hint
    procedural: bool  # "how do I ...", "how to ...", "steps to ...": asks what to do
    key: frozenset[str] = frozenset()  # the question's heaviest terms
    # Each capitalised multi-word name ("Microsoft Teams"): its phrase and its rarest term.
    names: tuple[tuple[str, str], ...] = ()


def _score(query: _Query, c: Candidate, bm25: float, retrieval: float) -> Scored:
    coverage = _coverage(c, query)
    lowered = c.unit.text.lower()
    named = _names(query, c)
    # A spelled-out name counts in prose only: in code, "error messages" would find every
    # `error_messages = {...}` of the docs.
    spelled = c.unit.kind is not UnitKind.CODE and any(i in lowered for i in query.spelled)
    if c.item.neighbour:
        retrieval *= 0.5
    score = (
        coverage
        + 0.3 * bm25
        + 0.2 * max(retrieval, 0.0)
        + (0.15 if named or spelled else 0.0)
        + 0.1 * _answer_type(query.text, c.unit.text)
        + (_SHOWS_HOW_BONUS if _HOW.search(query.text) and _code_follows(c) else 0.0)
        + (_PROCEDURE_BONUS * _procedural(query, c) if query.procedural else 0.0)
        - (_CODE_PENALTY if c.unit.kind is UnitKind.CODE and not named else 0.0)
    )
    return Scored(c, score, coverage)


def _procedural(query: _Query, c: Candidate) -> float:
    """How much the unit tells what to do: 1 for a step of a procedure or the prose that leads
    into one (or into code), 0.5 for an instruction, 0 for a description.

    An instruction to do just what the question asks ("Rotate the secret when it leaked") says
    when or why, not how: it counts as a description.
    """
    if c.steps is not None or _leads_into_steps(c, query) or _shows_asked(query, c):
        return 1.0
    verb = _instruction(c.unit.text) if c.unit.kind is not UnitKind.CODE else ""
    return 0.5 if verb and light_stem(verb) not in query.weights else 0.0


def _leads_into_steps(c: Candidate, query: _Query) -> bool:
    """Prose that ends in a colon before a list, or before code that has a word of the question:
    "For example:" over `client.get(...)` does not show how to send JSON."""
    nxt = c.unit_index + 1
    if nxt >= len(c.units) or not _leads_in(c.units, c.item.chunk.text, c.unit_index):
        return False
    following = c.units[nxt]
    if following.kind is UnitKind.CODE:
        return any(t in query.weights for t in terms(following.text))
    return following.kind is UnitKind.ITEM


def _code_follows(c: Candidate) -> bool:
    following = list(_following(c, limit=2))
    return c.unit.kind is not UnitKind.CODE and any(u.kind is UnitKind.CODE for u in following)


def _answer_type(question: str, text: str) -> float:
    """Whether the unit holds the kind of thing the question asks for (a number, a name)."""
    if _NUMERIC.search(question):
        return 1.0 if _VALUE.search(LIST_MARKER.sub("", text)) else 0.0
    if _WHO.search(question):
        asked = {w.lower() for w in re.findall(r"[A-Za-z]+", question)}
        names = re.findall(r"(?<![.!?]\s)\b[A-Z][a-z]+", text)
        return 1.0 if any(n.lower() not in asked for n in names) else 0.0
    return 0.0


@dataclass(frozen=True, slots=True)
class Span:
    """Consecutive units of one chunk that make one claim."""

    candidate: Candidate  # the unit that earned the claim
    first: int  # unit indexes into candidate.units, inclusive
    last: int

    def touches(self, other: Candidate) -> bool:
        same = other.item_index == self.candidate.item_index
        return same and self.first - 1 <= other.unit_index <= self.last + 1

    def extended(self, other: Candidate) -> Span:
        first, last = min(self.first, other.unit_index), max(self.last, other.unit_index)
        return Span(self.candidate, first, last)


def select_spans(
    question: str, ranked: Sequence[Scored], threshold: float, max_claims: int
) -> tuple[Span, ...]:
    """The best unit and, only when nearly as good, a few more; neighbours merge into one claim."""
    if not ranked or ranked[0].coverage < threshold:
        return ()
    best = ranked[0]
    spans = [_with_companions(question, best.candidate)]
    for scored in ranked[1:]:
        if scored.score < _EXTRA_CLAIM_RATIO * best.score:
            break
        c = scored.candidate
        # A further claim must also cover nearly as much of the question: two common words of
        # three, in a sentence about something else, are not a second answer.
        floor = max(threshold, _EXTRA_COVERAGE_RATIO * best.coverage)
        if scored.coverage < floor or any(_covers(s, c) for s in spans):
            continue
        touching = next((i for i, s in enumerate(spans) if s.touches(c) and _joinable(s, c)), None)
        if touching is not None:
            spans[touching] = spans[touching].extended(c)
        elif len(spans) < max_claims:
            _add(spans, _with_companions(question, c))
    return tuple(spans)


def _add(spans: list[Span], new: Span) -> None:
    """Append `new`, or widen the span it overlaps so no text is quoted twice."""
    for i, span in enumerate(spans):
        same = span.candidate.item_index == new.candidate.item_index
        if same and new.first <= span.last and span.first <= new.last:
            spans[i] = Span(span.candidate, min(span.first, new.first), max(span.last, new.last))
            return
    spans.append(new)


def _covers(span: Span, c: Candidate) -> bool:
    same = c.item_index == span.candidate.item_index
    return same and span.first <= c.unit_index <= span.last


def _joinable(span: Span, c: Candidate) -> bool:
    """Only whitespace between them: the joined claim is still a verbatim passage."""
    units = span.candidate.units
    lo, hi = min(span.last, c.unit_index), max(span.first, c.unit_index)
    gap = span.candidate.item.chunk.text[units[lo].end : units[hi].start]
    return not gap.strip() and c.unit.kind is not UnitKind.HEADING


def _with_companions(question: str, c: Candidate) -> Span:
    """A sentence that introduces a code block or list, or answers "how" next to code, keeps it."""
    span = Span(c, c.unit_index, c.unit_index)
    if c.unit.kind is UnitKind.CODE:
        # Code that shows how keeps the sentence that says what it is for.
        return (
            Span(c, c.unit_index - 1, c.unit_index) if c.lead_in and _HOW.search(question) else span
        )
    procedural = bool(_PROCEDURE.search(question))
    if c.steps is not None and procedural:
        # One step of a procedure does not answer "how do I": quote the steps whole.
        first, last = c.steps
        return Span(c, first, min(last, max(first + _MAX_LIST_UNITS - 1, c.unit_index)))
    following = list(_following(c, limit=_MAX_LIST_UNITS if procedural else 4))
    if c.unit.text.rstrip().endswith((":", "...", "…")) and following:
        if following[0].kind is UnitKind.CODE:
            return Span(c, c.unit_index, c.unit_index + 1)
        items = 0
        while items < len(following) and following[items].kind is UnitKind.ITEM:
            items += 1
        return Span(c, c.unit_index, c.unit_index + items) if items else span
    if _HOW.search(question):
        # The code that shows how sits right after its prose, at most one sentence apart.
        for offset, unit in enumerate(following[:2], start=1):
            if unit.kind is UnitKind.CODE:
                return Span(c, c.unit_index, c.unit_index + offset)
    return span


def _following(c: Candidate, limit: int) -> Iterable[Unit]:
    """The units right after `c` in its section, while only whitespace separates them."""
    text, previous = c.item.chunk.text, c.unit
    for unit in c.units[c.unit_index + 1 : c.unit_index + 1 + limit]:
        if unit.kind is UnitKind.HEADING or text[previous.end : unit.start].strip():
            return
        yield unit
        previous = unit


def clean(unit: Unit, alone: bool = True) -> str:
    """The unit without edge markup (bullets, table pipes, quote marks), whitespace collapsed.

    A list item keeps its bullet unless it is quoted `alone`: between two items the bullet is
    what keeps the passage verbatim.
    """
    match unit.kind:
        case UnitKind.CODE:
            return textwrap.dedent(unit.text).strip("\n")
        case UnitKind.ITEM:
            text = LIST_MARKER.sub("", unit.text) if alone else unit.text
            return " ".join(text.split())
        case UnitKind.ROW:
            return " ".join(unit.text.strip().strip("|").split())
        case _:
            return " ".join(re.sub(r"^(?:\s*>)+", "", unit.text).split())


def claim_texts(span: Span) -> tuple[str, ...]:
    """The span's claims: its prose as one, each code block as its own, in document order.

    A code block stands alone so that the prose it illustrates is verified, kept or dropped on
    its own: one unsupported token in a long block must not take the explanation with it.
    """
    units = span.candidate.units[span.first : span.last + 1]
    groups: list[list[Unit]] = []
    for unit in units:
        if unit.kind is UnitKind.CODE or not groups or groups[-1][-1].kind is UnitKind.CODE:
            groups.append([unit])
        else:
            groups[-1].append(unit)
    return tuple(_passage(group, span.candidate.item.chunk.text) for group in groups)


def _passage(units: Sequence[Unit], source: str) -> str:
    """Cleaned parts when they still read verbatim in the evidence, else the raw passage."""
    alone = len(units) == 1
    text = clean(units[0], alone)
    for previous, unit in itertools.pairwise(units):
        block = {previous.kind, unit.kind} - {UnitKind.SENTENCE}
        text += ("\n" if block else " ") + clean(unit, alone)
    if normalize_text(text) in normalize_text(source):
        return text
    return source[units[0].start : units[-1].end]


def extract(packet: EvidencePacket, max_claims: int, threshold: float) -> GroundedResponse:
    """The pure core of the generator: packet in, grounded response out."""
    pool = candidates(packet)
    question = asked(packet.question, pool)
    ranked = score_candidates(question, pool)
    spans = select_spans(question, ranked, threshold, max_claims)
    if not spans:
        return GroundedResponse(
            status="insufficient_context", claims=[], message=INSUFFICIENT_MESSAGE
        )
    claims = [
        GroundedClaim(text=text, citations=[span.candidate.item.label])
        for span in spans
        for text in claim_texts(span)
    ]
    return GroundedResponse(status="answered", claims=claims, message="")


class ExtractiveGenerator:
    """Quotes the best evidence units verbatim, so every claim passes verification.

    `max_claims` caps the passages quoted; a code block shown with its prose is a claim of its
    own, so an answer may hold up to twice as many claims.
    """

    def __init__(self, max_claims: int = 3, threshold: float = DEFAULT_THRESHOLD) -> None:
        if max_claims < 1:
            raise ValueError(f"max_claims is {max_claims}: an answer needs at least one claim")
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(
                f"threshold is {threshold}: it is a share of the question's weight, in [0, 1]"
            )
        self._max_claims = max_claims
        self._threshold = threshold

    @property
    def name(self) -> str:
        return "extractive"

    async def generate(self, request: GenerationRequest) -> Generation:
        # Pure CPU work: off the event loop so a large packet never stalls Slack handling.
        response = await asyncio.to_thread(
            extract, request.packet, self._max_claims, self._threshold
        )
        return Generation(response=response)
