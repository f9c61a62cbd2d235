"""The hand-written model answers: what a strong model writes for a dev question, claim by claim.

Each line of `<corpus>.jsonl` is one model answer to one dev question of
`benchmarks/questions/<corpus>.jsonl`; its split is that question's (`dev_questions.split_of`, by
question id), so nothing tuned on train questions is ever measured on their answers. Claims name
their evidence by `quotes` (verbatim excerpts of the corpus files in `files`), never by evidence
id: the replay server finds the ids in the prompt (replay.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from benchmarks.dev_questions import CORPORA, SETS, Question, load_questions, split_of

HERE = Path(__file__).resolve().parent
CORPUS_NAMES = tuple(sorted(p.stem for p in HERE.glob("*.jsonl")))  # django, httpx, peps, python
# Who wrote an answer, so figures on a set that grew can be told apart (`--batch`): a line without
# a `batch` is of the first set; "s8" answers were written in session 8, "s9" in session 9 (by a
# writer who had not read the verifier), both over all four corpora; "s11" in session 11, blind
# likewise, by two writers (httpx and Django; the Python docs and the PEPs).
FIRST_BATCH = "first"
BATCHES = (FIRST_BATCH, "s8", "s9", "s11")

# How a faithful claim says what its quotes say.
STYLES = (
    "paraphrase",  # the sentence reworded
    "you",  # "you can ..." phrasing of an impersonal sentence
    "combined",  # two sentences (often of two items) in one claim
    "backticks",  # identifiers, values and paths in `code` formatting
    "one_line_code",  # a code example from several lines written on one
    "spanish",  # the answer in the question's language (prompt rule 7)
    "chinese",
    "counted",  # a count or position in words: "two", "one", "a couple of", "third", "435" spelled
    "summary",  # a list summarised ("four kinds: connect, read, write and pool")
    "condition_first",  # the condition moved to the front ("If you set X to True, ...")
    "unit",  # a number restated with its unit ("2.5 MB (2621440 bytes)")
    "parenthetical",  # part of the claim in an aside ("... (the sign is not counted)")
    "ie_eg",  # an "i.e." restatement or an "e.g." example drawn from the quote
    "emphasis",  # markdown emphasis kept or added ("a *tiny* penalty", "**connect** timeout")
    "hedge",  # a softener the quote supports or adds nothing against ("typically", "roughly")
    "range",  # a range or a span of versions ("1-3", "3.9 - 3.12", "4xx and 5xx")
    "version",  # a version number, often from a `versionadded`/`versionchanged` line
    "negative",  # a true negative answer ("No, X does not ...", "it can't ...")
    "code_args",  # a call with its arguments in code (`foo(bar=1)`)
    "two_items",  # one claim quoting sentences of two different evidence items
    "rest_roles",  # reST markup kept in the claim (:func:`x`, ``literal``, :setting:`X`)
    "numbered",  # numbered steps in one claim ("1. Create ... 2. Pass it ...")
    "note_that",  # a "Note that ..." sentence, or a short answer ("No.") before one
    "caveat",  # a short caveat sentence ("One caveat: ...", "Ojo: ...")
    "comparison",  # two options set side by side ("Unlike X, which ..., Y ...")
    "two_files",  # one claim quoting sentences of two different files
)
# How an unfaithful claim goes wrong while still quoting real evidence.
UNFAITHFUL = (
    "invented_parameter",  # a parameter, setting or function the docs do not have
    "wrong_evidence",  # the right quote, but cites an item that does not hold it
    "outside_knowledge",  # not in the evidence (true elsewhere, or contrary to it with no "not")
    "changed_number",  # a number or default value changed
    "spelled_count",  # a count written out in words, changed ("three steps" for four)
    "bool_swapped",  # True for False or the reverse
    "negation_added",  # "not" where the evidence affirms
    "negation_removed",  # the evidence's "not" dropped
)
KINDS = ("faithful", *UNFAITHFUL)


@dataclass(frozen=True, slots=True)
class ModelClaim:
    kind: str  # one of KINDS
    style: str  # one of STYLES for a faithful claim, "" otherwise
    text: str
    quotes: tuple[str, ...]

    @property
    def faithful(self) -> bool:
        return self.kind == "faithful"

    @property
    def label(self) -> str:
        return f"faithful/{self.style}" if self.faithful else self.kind


@dataclass(frozen=True, slots=True)
class ModelAnswer:
    id: str
    corpus: str
    question_id: str
    question: str
    files: tuple[str, ...]  # corpus files (relative to the collection) the quotes come from
    claims: tuple[ModelClaim, ...]
    batch: str = FIRST_BATCH  # one of BATCHES

    @property
    def split(self) -> str:
        return split_of(self.question_id)

    @property
    def faithful(self) -> bool:
        return all(c.faithful for c in self.claims)


class AnswerSetError(ValueError):
    """A line of a model-answer file is malformed; the message names the file and line."""


def load_answers(
    corpus: str, split: str = "all", batches: tuple[str, ...] = BATCHES
) -> tuple[ModelAnswer, ...]:
    """The corpus's model answers of `split` (train, test or all) written in one of `batches`,
    checked as they are read (every line, whatever its split or batch)."""
    path = HERE / f"{corpus}.jsonl"
    questions = {q.id: q for q in load_questions(corpus)}
    out: list[ModelAnswer] = []
    seen: set[str] = set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path.name}:{number}"
        try:
            answer = _answer(corpus, json.loads(line), questions)
        except (KeyError, TypeError, ValueError) as exc:
            raise AnswerSetError(f"{where}: {exc}; compare with the lines around it") from None
        if answer.id in seen:
            raise AnswerSetError(f"{where}: answer id {answer.id!r} is used twice")
        seen.add(answer.id)
        if split in ("all", answer.split) and answer.batch in batches:
            out.append(answer)
    return tuple(out)


def _answer(corpus: str, row: dict[str, object], questions: dict[str, Question]) -> ModelAnswer:
    question_id = str(row["question"])
    question = questions.get(question_id)
    if question is None:
        raise ValueError(f"question {question_id!r} is not in benchmarks/questions/{corpus}.jsonl")
    claims = tuple(_claim(c) for c in _list(row["claims"]))
    if not claims:
        raise ValueError("an answer needs at least one claim")
    batch = str(row.get("batch", FIRST_BATCH))
    if batch not in BATCHES:
        raise ValueError(f"batch {batch!r} is not one of {', '.join(BATCHES)}")
    return ModelAnswer(
        id=str(row["id"]),
        corpus=corpus,
        question_id=question_id,
        question=question.question,
        files=tuple(str(f) for f in _list(row["files"])),
        claims=claims,
        batch=batch,
    )


def _claim(row: object) -> ModelClaim:
    if not isinstance(row, dict):
        raise TypeError(f"a claim must be an object, not {row!r}")
    kind = str(row["kind"])
    if kind not in KINDS:
        raise ValueError(f"kind {kind!r} is not one of {', '.join(KINDS)}")
    style = str(row.get("style", ""))
    if (kind == "faithful") != bool(style) or (style and style not in STYLES):
        raise ValueError(f"a faithful claim has a style of {', '.join(STYLES)}; others have none")
    quotes = tuple(str(q) for q in _list(row["quotes"]))
    if not quotes or not all(q.strip() for q in quotes):
        raise ValueError(f"claim {row['text']!r} needs at least one non-empty quote")
    return ModelClaim(kind, style, str(row["text"]), quotes)


def _list(value: object) -> list[object]:
    if not isinstance(value, list):
        raise TypeError(f"expected a list, not {value!r}")
    return value


def flat(text: str) -> str:
    """Whitespace collapsed: how quotes are matched against files and evidence."""
    return " ".join(text.split())


def corpus_folder(corpus: str) -> Path:
    return (CORPORA / SETS[corpus][0]).resolve()


def missing_quotes(answer: ModelAnswer) -> list[str]:
    """Quotes of `answer` that occur in none of its `files` (read in place from the corpus)."""
    folder = corpus_folder(answer.corpus)
    texts = [flat((folder / f).read_text(encoding="utf-8")) for f in answer.files]
    return [q for c in answer.claims for q in c.quotes if not any(flat(q) in t for t in texts)]
