"""How the command line prints what it found: `docbot search`'s hits and `docbot ask`'s answer
in their text and JSON forms (the Slack form is bot/render's)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from grounding.answer import Answer
    from retrieval.chunks import Hit
    from retrieval.scopes import Scope


def hit_json(hit: Hit) -> dict[str, Any]:
    c = hit.chunk
    return {
        "chunk_id": c.chunk_id,
        "collection": c.collection,
        "path": c.path,
        "heading": c.heading,
        "start_line": c.start_line,
        "end_line": c.end_line,
        "score": hit.score,
        "text": c.text,
    }


def nothing_found(scope: Scope) -> str:
    from bot.render.no_answer import NO_ACCESS

    if scope.is_empty:
        return NO_ACCESS
    return f"No passage matches in: {', '.join(scope.collections)}."


def print_answer(answer: Answer, out: TextIO) -> None:
    from bot.render import quotes_to_show
    from bot.render.no_answer import no_answer_text
    from grounding.answer import AnswerStatus

    if answer.status is not AnswerStatus.ANSWERED:
        print(f"[{answer.status.value}] {no_answer_text(answer)}", file=out)
        if answer.error_detail:
            # The command line is the admin's view: the detail Slack users are spared.
            print(f"detail: {answer.error_detail}", file=out)
        return
    for claim in answer.claims:
        markers = "".join(f"[{n}]" for n in claim.citations)
        # Continuation lines (code blocks, lists) are indented under their bullet.
        text = claim.text.replace("\n", "\n  ")
        print(f"- {text} {markers}", file=out)
        for quote in quotes_to_show(claim):
            print(f"  > {quote}", file=out)
    print("\nSources:", file=out)
    for s in answer.sources:
        heading = f" § {s.heading}" if s.heading else ""
        print(
            f"[{s.n}] {s.collection}/{s.path} (L{s.start_line}-L{s.end_line}){heading}"
            f"  updated {s.updated}",
            file=out,
        )
        if s.url:
            print(f"    {s.url}", file=out)
    print(f"\n({answer.generator})", file=out)
