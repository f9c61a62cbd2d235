"""The question-set line format of `docbot eval`: what is accepted, and what each bad line says."""

from __future__ import annotations

from pathlib import Path

import pytest

from grounding.evaluation.questions import parse_questions, read_questions
from retrieval.errors import InputError

DEV_SETS = Path(__file__).resolve().parents[2] / "benchmarks" / "questions"


def test_questions_docbots_own_dev_sets_are_a_valid_question_set() -> None:
    for path in sorted(DEV_SETS.glob("*.jsonl")):
        questions = read_questions(path)
        assert questions and all(q.id and q.line for q in questions), path


def test_questions_defaults_id_answerable_and_skips_comments() -> None:
    text = '# a comment\n\n{"question": "why?", "strings": ["because"]}\n'
    (q,) = parse_questions(text, "set.jsonl")
    assert (q.id, q.line, q.answerable, q.expected, q.strings) == (
        "line 3",
        3,
        True,
        (),
        ("because",),
    )


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("[1, 2]", "a JSON object is expected, not list"),
        ('{"expected": ["a.md"]}', "`question` is missing"),
        ('{"question": "  ", "answerable": false}', "`question` is blank"),
        ('{"question": "q", "answerable": "maybe"}', "`answerable`: Input should be a valid"),
        ('{"question": "q", "strings": [""]}', "may not hold empty strings"),
    ],
)
def test_questions_bad_line_names_file_line_and_problem(line: str, says: str) -> None:
    with pytest.raises(InputError) as raised:
        parse_questions('{"question": "ok", "strings": ["x"]}\n' + line, "set.jsonl")
    assert "set.jsonl:2: " in str(raised.value)
    assert says in str(raised.value)


def test_questions_ids_are_unique() -> None:
    text = '{"id": "a", "question": "q", "strings": ["x"]}\n' * 2
    with pytest.raises(InputError, match=r"set\.jsonl:2: id .a. is already used on line 1"):
        parse_questions(text, "set.jsonl")


def test_questions_empty_set_and_missing_file_are_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="holds no questions"):
        parse_questions("\n# nothing\n", "set.jsonl")
    with pytest.raises(InputError, match="does not exist"):
        read_questions(tmp_path / "absent.jsonl")


def test_questions_saved_with_a_byte_order_mark_and_crlf_are_read(tmp_path: Path) -> None:
    # Notepad and spreadsheet exports write "UTF-8" with a BOM and CRLF line ends.
    path = tmp_path / "set.jsonl"
    path.write_bytes(
        b'\xef\xbb\xbf{"id": "rb1", "question": "how do I roll back?", "strings": ["x"]}\r\n'
        b'{"id": "k8s", "question": "Kubernetes?", "answerable": false}\r\n'
    )
    assert [q.id for q in read_questions(path)] == ["rb1", "k8s"]
