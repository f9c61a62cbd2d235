"""What `docbot index` prints: a row per collection, the totals, each source's sync (`synced:`
or `stale:`), and the notes and skipped files of the build."""

from __future__ import annotations

from typing import TextIO

from retrieval.index import BuildReport
from retrieval.sources import SyncOutcome, shown_time


def print_report(report: BuildReport, out: TextIO) -> None:
    """The report of one build, as `docbot index` prints it."""
    header = ("collection", "documents", "chunks", "new", "changed", "deleted")
    rows = [header] + [
        (c.name, str(c.documents), str(c.chunks), str(c.new), str(c.changed), str(c.deleted))
        for c in report.collections
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    for row in rows:
        cells = [row[0].ljust(widths[0])] + [
            v.rjust(w) for v, w in zip(row[1:], widths[1:], strict=True)
        ]
        print("  ".join(cells), file=out)
    documents = sum(c.documents for c in report.collections)
    chunks = sum(c.chunks for c in report.collections)
    print(
        f"{_count(documents, 'document')}, {_count(chunks, 'chunk')} in "
        f"{_count(len(report.collections), 'collection')} "
        f"({report.seconds:.1f} s; engines built {report.engines_built}, reused "
        f"{report.engines_reused}; chunks embedded {report.embedded:,}; "
        f"generation {report.generation})",
        file=out,
    )
    for outcome in report.synced:
        print(_sync_line(outcome), file=out)
        for note in outcome.notes:
            print(f"note: {outcome.collection}: {note}", file=out)
    for collection, path, note in report.notes:
        print(f"note: {collection}/{path}: {note}", file=out)
    for skipped in report.skipped:
        print(f"skipped: {skipped.collection}/{skipped.path}: {skipped.reason}", file=out)


def _sync_line(outcome: SyncOutcome) -> str:
    """What a sync did (`synced:`), or that it failed and answers use older files (`stale:`)."""
    commit = outcome.revision[:12]
    kind = "snapshot" if outcome.source.startswith("site ") else "commit"
    if not outcome.ok:
        return (
            f"stale: {outcome.collection}: cannot sync from {outcome.source}: {outcome.error}; "
            f"answers use {kind} {commit} from the last good sync at "
            f"{shown_time(outcome.last_success)} (failing since "
            f"{shown_time(outcome.failing_since)})"
        )
    if not outcome.previous:
        change = "first sync"
    elif outcome.previous == outcome.revision:
        change = "unchanged"
    else:
        change = f"was {outcome.previous[:12]}"
    return f"synced: {outcome.collection}: {outcome.source} at {commit} ({change})"


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"
