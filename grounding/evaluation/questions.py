"""The question-set line format: one JSON object per line, validated with its line number.

The same format as docbot's own development sets (benchmarks/questions/*.jsonl), so a team can
write theirs the same way: `question`, the files a right answer cites (`expected`), strings a
right answer holds (`strings`) and whether the docs answer it at all (`answerable`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from retrieval.errors import InputError
from retrieval.query import MAX_QUESTION_CHARS

MAX_ERRORS_SHOWN = 10
EXAMPLE = (
    '{"question": "how do I roll back a deploy?", "expected": ["deploy.md"], '
    '"strings": ["deployctl rollback"], "answerable": true}'
)


@dataclass(frozen=True, slots=True)
class EvalQuestion:
    id: str
    question: str
    expected: tuple[str, ...]  # files a right answer may cite: `path` or `collection/path`
    strings: tuple[str, ...]  # a right answer's claims hold one of these
    answerable: bool
    lang: str = "en"
    line: int = 0


class _Line(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str | None = Field(default=None, min_length=1)
    question: str = Field(min_length=1)
    expected: list[str] = Field(default_factory=list)
    strings: list[str] = Field(default_factory=list)
    answerable: bool = True
    lang: str = "en"

    @model_validator(mode="after")
    def _checkable(self) -> _Line:
        if not self.question.strip():
            raise ValueError("`question` is blank")
        if len(self.question.strip()) > MAX_QUESTION_CHARS:
            raise ValueError(
                f"`question` is {len(self.question.strip()):,} characters long; docbot answers "
                f"questions of at most {MAX_QUESTION_CHARS:,}: shorten it"
            )
        if self.answerable and not (self.expected or self.strings):
            raise ValueError(
                "an answerable question needs `expected` (files a right answer cites) or "
                "`strings` (text a right answer holds), or both; for a question the docs do "
                "not answer, set `answerable: false`"
            )
        if any(not s.strip() for s in [*self.expected, *self.strings]):
            raise ValueError("`expected` and `strings` may not hold empty strings")
        return self


def parse_questions(text: str, source: str) -> tuple[EvalQuestion, ...]:
    """Every question of a JSON Lines text; InputError naming each bad line (blank lines and
    lines starting with `#` are skipped). Ids default to `line N` and must be unique."""
    questions: list[EvalQuestion] = []
    errors: list[str] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            question = _parse_line(line, number)
        except ValueError as exc:
            errors.append(f"{source}:{number}: {exc}")
            continue
        if question.id in seen:
            errors.append(
                f"{source}:{number}: id {question.id!r} is already used on line "
                f"{seen[question.id]}; give each question its own id"
            )
            continue
        seen[question.id] = number
        questions.append(question)
    if errors:
        shown = errors[:MAX_ERRORS_SHOWN]
        more = len(errors) - len(shown)
        tail = f"\n(and {more} more bad lines)" if more else ""
        raise InputError(
            f"{len(errors)} bad line(s) in the question set; nothing was run. Each line is one "
            f"JSON object, for example {EXAMPLE}\n" + "\n".join(shown) + tail
        )
    if not questions:
        raise InputError(
            f"{source} holds no questions: write one JSON object per line, e.g. {EXAMPLE}"
        )
    return tuple(questions)


def read_questions(path: Path) -> tuple[EvalQuestion, ...]:
    try:
        text = path.read_text(encoding="utf-8-sig")  # a BOM, as Windows tools write, is no text
    except FileNotFoundError:
        raise InputError(f"question set {path} does not exist") from None
    except UnicodeDecodeError as exc:
        raise InputError(
            f"question set {path} is not UTF-8 text ({exc.reason} at byte {exc.start})"
        ) from None
    except OSError as exc:
        raise InputError(f"cannot read question set {path}: {exc.strerror}") from None
    return parse_questions(text, str(path))


def _parse_line(line: str, number: int) -> EvalQuestion:
    try:
        raw = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(raw, dict):
        raise ValueError(f"a JSON object is expected, not {type(raw).__name__}")
    try:
        row = _Line.model_validate(raw)
    except ValidationError as exc:
        raise ValueError(_problems(exc)) from None
    return EvalQuestion(
        id=row.id or f"line {number}",
        question=row.question,
        expected=tuple(row.expected),
        strings=tuple(row.strings),
        answerable=row.answerable,
        lang=row.lang,
        line=number,
    )


def _problems(exc: ValidationError) -> str:
    """pydantic's errors in the line's own terms: the key, what is wrong, the value found."""
    parts = []
    for error in exc.errors():
        key = ".".join(str(part) for part in error["loc"])
        if error["type"] == "extra_forbidden":
            parts.append(f"unknown key {key!r} (the keys are {', '.join(_Line.model_fields)})")
        elif error["type"] == "missing":
            parts.append(f"`{key}` is missing")
        elif key:
            parts.append(f"`{key}`: {error['msg']} (found {error['input']!r})")
        else:
            parts.append(error["msg"].removeprefix("Value error, "))
    return "; ".join(parts)
