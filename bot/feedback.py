"""`docbot feedback`: the feedback log joined with each answer, and the sources wrong answers cite.

Text for people, JSON and CSV for tools; all read from an `AnswerStore`.
"""

from __future__ import annotations

import csv
import json
from collections import Counter
from collections.abc import Sequence
from typing import Any, Literal, TextIO

from bot.store import AnswerStore, FeedbackEntry, FeedbackReason

CSV_FIELDS = (
    "answer_id", "kind", "source", "emoji", "user", "at", "team", "channel", "thread_ts",
    "reply_ts", "asker", "asked_at", "question", "status", "generator", "claims", "sources",
    "reasons",
)  # fmt: skip


# Columns that carry text typed by users or written by the model.
_FREE_TEXT = ("question", "claims", "sources", "reasons")


def feedback_command(
    store: AnswerStore, *, wrong_only: bool, fmt: Literal["text", "json", "csv"], out: TextIO
) -> None:
    """Write the feedback log (only "wrong" reactions when `wrong_only`) to `out` as `fmt`."""
    entries = store.feedback_entries(wrong_only)
    if fmt == "json":
        out.write(json.dumps(_json_report(entries), ensure_ascii=False, indent=2) + "\n")
    elif fmt == "csv":
        _write_csv(entries, out)
    else:
        _write_text(entries, out, wrong_only=wrong_only)


def most_cited_in_wrong(entries: Sequence[FeedbackEntry], top: int = 10) -> list[tuple[str, int]]:
    """ "collection/path" -> how many answers marked wrong cite it, most first.

    Each wrong answer counts once per file, however many people marked it or how many of its
    passages come from that file, so one loud thread does not dominate the ranking.
    """
    seen: set[int] = set()
    counts: Counter[str] = Counter()
    for entry in entries:
        if entry.kind != "wrong" or entry.answer_id in seen:
            continue
        seen.add(entry.answer_id)
        counts.update({_source_file(s) for s in _sources(entry)})
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:top]


def entry_dict(entry: FeedbackEntry) -> dict[str, Any]:
    """One entry as plain JSON data: the reaction, the answer it judges, and the reasons."""
    record = entry.record
    return {
        "answer_id": entry.answer_id,
        "kind": entry.kind,
        "source": entry.source,
        "emoji": entry.emoji,
        "user": entry.user,
        "at": entry.at,
        "team": record.team,
        "channel": record.channel,
        "thread_ts": record.thread_ts,
        "reply_ts": record.reply_ts,
        "asker": record.asker,
        "asked_at": record.created,
        "question": record.question,
        "status": record.answer.status.value,
        "generator": record.answer.generator,
        "claims": record.answer.to_dict()["claims"],
        "sources": _sources(entry),
        "reasons": [_reason_dict(r) for r in entry.reasons],
    }


def _json_report(entries: Sequence[FeedbackEntry]) -> dict[str, Any]:
    # The whole stored answer rides along under "answer": finding out why an answer was wrong
    # needs what was retrieved, omitted and dropped (docs/feedback.md), not only the claims.
    return {
        "entries": [
            entry_dict(entry) | {"answer": entry.record.answer.to_dict()} for entry in entries
        ],
        "most_cited_in_wrong": [
            {"source": source, "wrong_answers": count}
            for source, count in most_cited_in_wrong(entries)
        ],
    }


def _write_csv(entries: Sequence[FeedbackEntry], out: TextIO) -> None:
    """One row per reaction; lists are flattened into readable cells."""
    writer = csv.DictWriter(out, fieldnames=CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    for entry in entries:
        row = entry_dict(entry)
        row["claims"] = "\n".join(_claim_text(claim) for claim in row["claims"])
        row["sources"] = "\n".join(_source_text(source) for source in row["sources"])
        row["reasons"] = "\n".join(_reason_text(r) for r in entry.reasons)
        for field in _FREE_TEXT:
            row[field] = _defang(row[field])
        writer.writerow(row)


def _defang(cell: str) -> str:
    """Free text from Slack or a model must not run as a formula when the CSV is opened in a
    spreadsheet, so a leading formula character is quoted (OWASP's CSV-injection advice)."""
    return "'" + cell if cell.startswith(("=", "+", "-", "@", "\t", "\r")) else cell


def _write_text(entries: Sequence[FeedbackEntry], out: TextIO, *, wrong_only: bool) -> None:
    if not entries:
        what = "answers marked wrong" if wrong_only else "feedback"
        out.write(f"No {what} recorded yet.\n")
        return
    for entry in entries:
        out.write(_entry_text(entry) + "\n\n")
    ranking = most_cited_in_wrong(entries)
    if ranking:
        out.write("Sources most often cited in answers marked wrong:\n")
        out.writelines(f"  {count:>4}  {source}\n" for source, count in ranking)


def _entry_text(entry: FeedbackEntry) -> str:
    record = entry.record
    data = entry_dict(entry)
    lines = [
        f"#{entry.answer_id} {entry.kind} ({_mark_origin(entry)}) by {entry.user} at {entry.at}",
        f"  asked by {record.asker} in {record.team}/{record.channel} "
        f"(thread {record.thread_ts}, reply {record.reply_ts}) at {record.created}",
        f"  Q: {record.question}",
        f"  status: {data['status']}, generator: {data['generator'] or '-'}",
    ]
    if data["claims"]:
        # Continuation lines (code blocks, lists) are indented under their bullet.
        claims = [_claim_text(c).replace("\n", "\n      ") for c in data["claims"]]
        lines += ["  claims:"] + [f"    - {claim}" for claim in claims]
    if data["sources"]:
        lines += ["  sources:"] + [f"    {_source_text(s)}" for s in data["sources"]]
    if entry.reasons:
        lines += ["  reasons:"] + [f"    {_reason_text(r)}" for r in entry.reasons]
    return "\n".join(lines)


def _sources(entry: FeedbackEntry) -> list[dict[str, Any]]:
    sources: list[dict[str, Any]] = entry.record.answer.to_dict()["sources"]
    return sources


def _source_file(source: dict[str, Any]) -> str:
    return f"{source.get('collection', '?')}/{source.get('path', '?')}"


def _claim_text(claim: Any) -> str:
    if not isinstance(claim, dict):
        return str(claim)
    marks = "".join(f"[{n}]" for n in claim.get("citations", []))
    return f"{claim.get('text', '')} {marks}".rstrip()


def _source_text(source: dict[str, Any]) -> str:
    heading = f" § {source['heading']}" if source.get("heading") else ""
    span = f"L{source.get('start_line', '?')}-L{source.get('end_line', '?')}"
    url = f" {source['url']}" if source.get("url") else ""
    return f"[{source.get('n', '?')}] {_source_file(source)}{heading} ({span}){url}"


def _mark_origin(entry: FeedbackEntry) -> str:
    """Where a mark came from: the feedback buttons, or which emoji reaction."""
    return "feedback button" if entry.source == "button" else f"reaction :{entry.emoji}:"


def _reason_text(reason: FeedbackReason) -> str:
    """A reason with where it came from: a thread reply, or the modal (and what was chosen)."""
    origin = "thread reply" if reason.source == "thread" else f"modal: {reason.category or '?'}"
    text = f": {reason.text}" if reason.text else ""
    return f"{reason.user} at {reason.at} ({origin}){text}"


def _reason_dict(reason: FeedbackReason) -> dict[str, Any]:
    return {
        "user": reason.user,
        "text": reason.text,
        "at": reason.at,
        "source": reason.source,
        "category": reason.category,
    }
