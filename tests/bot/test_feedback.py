"""`docbot feedback`: the joined log as text, JSON and CSV, and the files wrong answers cite."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import pytest

from bot.feedback import CSV_FIELDS, feedback_command, most_cited_in_wrong
from bot.store import AnswerRecord, SQLiteAnswerStore
from grounding.answer_json import answer_from_dict

SCOPE = {"team": "T1", "channel": "C1", "kind": "channel", "collections": ["handbook"]}


def _sources(*paths: str) -> list[dict[str, Any]]:
    return [
        {"n": n, "collection": "handbook", "path": path, "heading": "Rollback", "start_line": 4,
         "end_line": 9, "url": f"https://x/{path}#L4", "chunk_id": f"c{n}", "updated": "2026-10-02"}
        for n, path in enumerate(paths, start=1)
    ]  # fmt: skip


def _save(store: SQLiteAnswerStore, reply_ts: str, question: str, *paths: str) -> int:
    answer = {
        "status": "answered",
        "question": question,
        "claims": [{"text": f"Claim citing {p}.", "citations": [n]} for n, p in
                   enumerate(paths, start=1)],
        "sources": _sources(*paths),
        "generator": "extractive", "scope": SCOPE,
    }  # fmt: skip
    record = AnswerRecord(
        team="T1", channel="C1", thread_ts="1.0", reply_ts=reply_ts, question_ts="1.0",
        asker="U1", question=question, answer=answer_from_dict(answer),
        created=f"2026-10-03T10:00:{reply_ts}",
    )  # fmt: skip
    return store.save_answer(record)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SQLiteAnswerStore]:
    store = SQLiteAnswerStore(tmp_path / "answers.sqlite3")
    deploy = _save(store, "2.0", "how do I roll back?", "deploy.md", "ops.md")
    keys = _save(store, "3.0", '=HYPERLINK("http://evil")', "deploy.md")
    fine = _save(store, "4.0", "where are the runbooks?", "runbooks.md")
    store.add_feedback(deploy, "U2", "wrong", "x", "2026-10-03T11:00:00")
    store.add_feedback(deploy, "U3", "wrong", "-1", "2026-10-03T11:05:00")
    store.add_feedback(keys, "U2", "wrong", "x", "2026-10-03T11:10:00")
    store.add_feedback(fine, "U4", "helpful", "white_check_mark", "2026-10-03T11:20:00")
    store.add_reason(deploy, "U2", "rollback moved to the deploy CLI", "2026-10-03T11:01:00")
    yield store
    store.close()


def _run(store: SQLiteAnswerStore, fmt: Literal["text", "json", "csv"], wrong: bool) -> str:
    out = io.StringIO()
    feedback_command(store, wrong_only=wrong, fmt=fmt, out=out)
    return out.getvalue()


def test_feedback_command_text_joins_answer_reasons_and_summary(store: SQLiteAnswerStore) -> None:
    text = _run(store, "text", wrong=False)
    assert "wrong (reaction :x:) by U2 at 2026-10-03T11:00:00" in text
    assert "Q: how do I roll back?" in text
    assert "- Claim citing ops.md. [2]" in text
    assert "[1] handbook/deploy.md § Rollback (L4-L9) https://x/deploy.md#L4" in text
    assert "U2 at 2026-10-03T11:01:00 (thread reply): rollback moved to the deploy CLI" in text
    assert "helpful (reaction :white_check_mark:) by U4" in text
    summary = text.split("Sources most often cited in answers marked wrong:\n")[1]
    assert summary.splitlines() == [
        "     2  handbook/deploy.md",
        "     1  handbook/ops.md",
    ]


def test_feedback_command_wrong_only_leaves_helpful_out(store: SQLiteAnswerStore) -> None:
    text = _run(store, "text", wrong=True)
    assert text.count(" wrong (reaction :") == 3
    assert "helpful" not in text and "runbooks" not in text


def test_feedback_command_says_when_there_is_nothing(tmp_path: Path) -> None:
    empty = SQLiteAnswerStore(tmp_path / "empty.sqlite3")
    assert _run(empty, "text", wrong=False) == "No feedback recorded yet.\n"
    assert _run(empty, "text", wrong=True) == "No answers marked wrong recorded yet.\n"
    assert json.loads(_run(empty, "json", wrong=True)) == {
        "entries": [],
        "most_cited_in_wrong": [],
    }


def test_feedback_command_json_is_complete(store: SQLiteAnswerStore) -> None:
    report = json.loads(_run(store, "json", wrong=False))
    assert len(report["entries"]) == 4
    first = report["entries"][0]
    assert first["question"] == "how do I roll back?"
    assert first["claims"][0] == {
        "text": "Claim citing deploy.md.", "citations": [1], "quotes": [], "other_language": False,
    }  # fmt: skip
    assert first["sources"][1]["path"] == "ops.md"
    assert first["reasons"] == [
        {"user": "U2", "text": "rollback moved to the deploy CLI", "at": "2026-10-03T11:01:00",
         "source": "thread", "category": None}
    ]  # fmt: skip
    assert first["source"] == "reaction"
    assert report["most_cited_in_wrong"][0] == {"source": "handbook/deploy.md", "wrong_answers": 2}


def test_feedback_command_csv_rows_are_defanged(store: SQLiteAnswerStore) -> None:
    rows = list(csv.DictReader(io.StringIO(_run(store, "csv", wrong=True))))
    assert len(rows) == 3
    assert tuple(rows[0]) == CSV_FIELDS
    assert rows[0]["claims"] == "Claim citing deploy.md. [1]\nClaim citing ops.md. [2]"
    assert rows[0]["reasons"] == (
        "U2 at 2026-10-03T11:01:00 (thread reply): rollback moved to the deploy CLI"
    )
    assert rows[0]["source"] == "reaction"
    assert rows[1]["emoji"] == "-1"  # data columns are left exactly as stored
    # A question that looks like a formula is quoted so a spreadsheet shows it as text.
    assert rows[2]["question"] == '\'=HYPERLINK("http://evil")'


def test_most_cited_in_wrong_counts_each_answer_once(store: SQLiteAnswerStore) -> None:
    entries = store.feedback_entries(wrong_only=False)
    # deploy.md: answers 1 and 2 (answer 1 was marked by two people); runbooks is only helpful.
    assert most_cited_in_wrong(entries) == [("handbook/deploy.md", 2), ("handbook/ops.md", 1)]
    assert most_cited_in_wrong(entries, top=1) == [("handbook/deploy.md", 2)]
    assert most_cited_in_wrong(()) == []


def test_feedback_command_json_carries_the_whole_stored_answer(tmp_path: Path) -> None:
    """docs/feedback.md sends admins to `retrieved`, `omitted` and `dropped_claims`."""
    store = SQLiteAnswerStore(tmp_path / "answers.sqlite3")
    answer = {
        "status": "answered", "question": "how do I roll back?", "message": "",
        "scope": {"team": "T1", "channel": "C1", "kind": "channel", "collections": ["handbook"]},
        "claims": [{"text": "Run make rollback.", "citations": [1], "quotes": [],
                    "other_language": False}],
        "sources": _sources("d.md"),
        "retrieved": [{"chunk_id": "c1", "collection": "handbook", "path": "d.md", "score": 7.5}],
        "omitted": [{"chunk_id": "c9", "reason": "budget", "detail": ""}],
        "dropped_claims": [{"text": "Always safe.", "reason": "unsupported", "detail": "x"}],
        "generator": "extractive", "error_detail": "", "timings_ms": {"search": 1.5},
        "usage": {"input_tokens": 0, "output_tokens": 0},
    }  # fmt: skip
    record = AnswerRecord(
        team="T1", channel="C1", thread_ts="1.0", reply_ts="2.0", question_ts="1.0",
        asker="U1", question="how do I roll back?", answer=answer_from_dict(answer),
        created="2026-10-03T10:00",
    )  # fmt: skip
    store.add_feedback(store.save_answer(record), "U2", "wrong", "x", "2026-10-03T11:00:00")
    try:
        (entry,) = json.loads(_run(store, "json", wrong=True))["entries"]
    finally:
        store.close()
    assert entry["answer"] == record.answer.to_dict()  # every key, as stored
    assert entry["answer"]["omitted"] == [{"chunk_id": "c9", "reason": "budget", "detail": ""}]


def test_feedback_command_text_indents_multi_line_claims_under_their_bullet(
    tmp_path: Path,
) -> None:
    store = SQLiteAnswerStore(tmp_path / "answers.sqlite3")
    answer = {
        "status": "answered", "question": "how?", "sources": _sources("d.md"), "scope": SCOPE,
        "claims": [{"text": "Run:\n```\nmake rollback\n```", "citations": [1]}],
    }  # fmt: skip
    record = AnswerRecord(
        team="T1", channel="C1", thread_ts="1.0", reply_ts="2.0", question_ts="1.0",
        asker="U1", question="how?", answer=answer_from_dict(answer), created="2026-10-03T10:00",
    )  # fmt: skip
    store.add_feedback(store.save_answer(record), "U2", "wrong", "x", "2026-10-03T11:00:00")
    try:
        text = _run(store, "text", wrong=True)
    finally:
        store.close()
    assert "    - Run:\n      ```\n      make rollback\n      ``` [1]\n" in text


def test_feedback_command_says_where_each_mark_and_reason_came_from(
    store: SQLiteAnswerStore,
) -> None:
    """A feedback button's mark and the modal's reason are told apart from reactions and thread
    replies in every format."""
    record = store.find_answer("T1", "C1", "2.0")
    assert record is not None and record.id is not None
    assert store.toggle_mark(record.id, "U7", "wrong", "2026-10-03T12:00:00").mark == "wrong"
    store.add_reason(record.id, "U7", "step 3 changed", "2026-10-03T12:01:00", source="modal",
                     category="outdated")  # fmt: skip
    text = _run(store, "text", wrong=True)
    assert "wrong (feedback button) by U7 at 2026-10-03T12:00:00" in text
    assert "U7 at 2026-10-03T12:01:00 (modal: outdated): step 3 changed" in text
    entries = json.loads(_run(store, "json", wrong=True))["entries"]
    button = [e for e in entries if e["user"] == "U7"]
    assert [(e["source"], e["emoji"]) for e in button] == [("button", "")]
    assert button[0]["reasons"][0]["category"] == "outdated"
    rows = [r for r in csv.DictReader(io.StringIO(_run(store, "csv", wrong=True)))
            if r["user"] == "U7"]  # fmt: skip
    assert [r["source"] for r in rows] == ["button"]
