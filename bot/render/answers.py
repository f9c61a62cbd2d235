"""Answers, help and errors as Slack messages that stay inside Slack's limits: each answer status
has its own reply, none is silent."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.render.code_blocks import slack_code
from bot.render.escalation import escalate_block
from bot.render.feedback import feedback_block
from bot.render.no_answer import NO_ACCESS as NO_ACCESS
from bot.render.no_answer import PUBLIC_ONLY as PUBLIC_ONLY
from bot.render.no_answer import UNVERIFIED as UNVERIFIED
from bot.render.no_answer import no_answer_text
from bot.render.text import (
    ELLIPSIS,
    FALLBACK_CHARS,
    Message,
    clip,
    clip_escaped,
    context,
    count,
    escape,
    plain,
    safe_cut,
    safe_url,
    section,
)
from grounding.answer import Answer, AnswerStatus, Claim, Source
from retrieval.config import FeedbackConfig
from retrieval.scopes import ConversationKind

MAX_BLOCKS = 50
# Slack rejects section text of 3,000 characters or more; stay clearly under it.
SECTION_CHARS = 2_900
# Long replies are unreadable in a thread and the whole payload has a size cap: claims beyond
# this many characters are cut with a visible note (sources are always kept).
CLAIM_BUDGET_CHARS = 12_000
SOURCE_BUDGET_CHARS = 12_000
SOURCE_LABEL_CHARS = 400
# Each claim's quotes are shown under it, each cut to this many characters, at most three.
QUOTE_CHARS = 300
MAX_QUOTES_SHOWN = 3
_QUOTE_OPEN = "“"
OTHER_LANGUAGE_NOTE = (
    "This claim is in another language than its source: only its numbers and names were "
    "checked, against the quote above."
)
# A longer link is not one a person can use; the source is then shown without it.
MAX_URL_CHARS = 1_500
HOW_TO_ASK = (
    "Mention me with a question, like `@docbot how do I roll back a deploy?`, and I'll "
    "answer in the thread, linking every claim to the file, section and lines it comes from."
)
HOW_TO_ASK_COMMAND = (
    "Type `/docbot` and a question, like `/docbot how do I roll back a deploy?`: I'll answer "
    "you privately here, linking every claim to the file, section and lines it comes from, "
    "with a button to share the answer with the channel. Mentioning me answers in a thread."
)


def render_answer(answer: Answer, feedback: FeedbackConfig, *, escalate: bool = False) -> Message:
    """The reply for one answer; each status gets its own message, none is silent.

    `escalate`: the collections involved have owners, so a not-found offers "Still need help?"."""
    match answer.status:
        case AnswerStatus.ANSWERED if answer.claims:
            return _render_claims(answer, feedback)
        case AnswerStatus.ANSWERED | AnswerStatus.NOT_FOUND:
            return _render_not_found(answer, escalate=escalate)
        case AnswerStatus.REFUSED:
            return _render_refused(answer)
        case AnswerStatus.ERROR:
            return _render_failed(answer)


def render_help(
    collections: Sequence[str], feedback: FeedbackConfig, *, unverified: bool = False,
    command: bool = False,
) -> Message:  # fmt: skip
    """The reply to an empty mention (or a bare `/docbot`, `command`): how to ask, and what
    this conversation can read.

    `unverified`: the channel's properties could not be read from Slack (an UNKNOWN scope)."""
    how = HOW_TO_ASK_COMMAND if command else HOW_TO_ASK
    if collections:
        names = ", ".join(f"*{escape(name)}*" for name in collections)
        where = clip_escaped(f"Here I can read: {names}.", SECTION_CHARS)
    elif unverified:
        where = UNVERIFIED
    else:
        where = (
            "This conversation may not read any documentation collection yet: ask a docbot "
            "admin to give it access in `docbot.yml`."
        )
    blocks: list[dict[str, Any]] = [section(how), section(where)]
    footer = _feedback_footer(feedback, lead="After an answer, react", subject="it is")
    if footer:
        blocks.append(context(footer))
    return Message(text=plain(f"{how} {where}"), blocks=tuple(blocks))


def render_error(message: str) -> Message:
    """A reply for when answering or posting failed unexpectedly; `message` is shown escaped."""
    detail = message.strip() or "an unexpected error"
    text = (
        f":warning: Sorry, I could not answer this: {escape(clip(detail, 500))}\n"
        "Please try again in a minute; if it keeps failing, tell the docbot admins."
    )
    return Message(text=plain(text), blocks=(section(text),))


def render_internal_error() -> Message:
    """Answering failed on docbot's side (the traceback is in the log)."""
    return render_error(
        "something went wrong on my side while answering (it has been logged for the docbot admins)"
    )


def render_too_long(length: int, limit: int) -> Message:
    """A question over the length docbot takes: say by how much, and what to change."""
    return render_input_error(
        f"That question is {length:,} characters long; I can take up to {limit:,}. Ask about "
        "one thing, or quote only the relevant part."
    )


def render_input_error(message: str) -> Message:
    """A reply for a question docbot will not take as asked (e.g. too long): `message` says what
    to change. Nothing failed, so no "try again" and no admins."""
    text = f":pencil2: {escape(clip(message.strip(), 1_000))}"
    return Message(text=plain(text), blocks=(section(text),))


def _unverified_note(answer: Answer) -> list[dict[str, Any]]:
    """docs/access.md promises that a reply from an unverifiable channel says so."""
    if answer.scope.kind is ConversationKind.UNKNOWN and answer.scope.collections:
        return [context(PUBLIC_ONLY)]
    return []


def _render_not_found(answer: Answer, *, escalate: bool) -> Message:
    searched = clip_escaped(", ".join(f"*{escape(n)}*" for n in answer.scope.collections), 1_000)
    where = f" in {searched}" if searched else ""
    text = (
        f":mag: I couldn't find a verified answer to this{where}. "
        "Try rephrasing with the words the docs use, or ask a teammate."
    )
    blocks = [section(text)]
    why = no_answer_text(answer)
    if why:
        blocks.append(context(why))
    blocks += _unverified_note(answer)
    if escalate:
        blocks.append(escalate_block())
    return Message(text=plain(text), blocks=tuple(blocks))


def _render_refused(answer: Answer) -> Message:
    text = f":no_entry: {no_answer_text(answer)}"
    return Message(text=plain(text), blocks=(section(text),))


def _render_failed(answer: Answer) -> Message:
    """An `error` answer: its reason code's words, which already say what to do (the details
    are in `error_detail`, for the log and the store only)."""
    why = no_answer_text(answer)
    if not why:
        return render_error("")
    text = f":warning: Sorry, I could not answer this. {why}"
    return Message(text=plain(text), blocks=(section(text),))


def _render_claims(answer: Answer, feedback: FeedbackConfig) -> Message:
    urls = {s.n: _link_url(s) for s in answer.sources}
    lines = [_claim_line(claim, urls, bullet=len(answer.claims) > 1) for claim in answer.claims]
    tail = list(tail_blocks(answer, feedback))
    # One block stays free for the truncation note.
    sections, shown = _claim_sections(lines, MAX_BLOCKS - len(tail) - 1)
    blocks = [section(text) for text in sections]
    if shown < len(lines):
        hidden = len(lines) - shown
        note = f"{ELLIPSIS} {count(hidden, 'more claim')} not shown: the answer was too long"
        blocks.append(context(note + " for one Slack message."))
    return Message(text=_fallback(answer), blocks=(*blocks, *tail))


def tail_blocks(answer: Answer, feedback: FeedbackConfig) -> tuple[dict[str, Any], ...]:
    """What follows an answer's claims: the unverified-channel note, sources, the footer and
    the feedback buttons (a streamed answer ends with the same)."""
    tail = _unverified_note(answer) + [context(text) for text in _source_texts(answer.sources)]
    footer = _feedback_footer(feedback)
    if footer:
        tail.append(context(footer))
    tail.append(feedback_block())  # last: Slack shows the thumbs under the answer
    return tuple(tail)


def claim_section(claim: Claim, sources: Sequence[Source], *, bullet: bool) -> dict[str, Any]:
    """One claim as its own section (a streamed reply appends one per verified claim), cut to
    one section's limit."""
    line = _claim_line(claim, {s.n: _link_url(s) for s in sources}, bullet=bullet)
    return section(clip_escaped(line, SECTION_CHARS))


def _claim_line(claim: Claim, urls: dict[int, str | None], *, bullet: bool) -> str:
    markers = "".join(_marker(n, urls.get(n)) for n in claim.citations)
    prefix = "• " if bullet else ""
    text = clip_escaped(escape(slack_code(claim.text.strip())), CLAIM_BUDGET_CHARS)
    return f"{prefix}{text} {markers}".rstrip() + _quote_lines(claim)


def _quote_lines(claim: Claim) -> str:
    """The passages a claim was checked against, as quoted lines under it, so a reader sees what
    the documentation says without opening the link. Not for a claim that is its own quote (the
    extractive generator's); always for one in another language than its sources, whose words
    could not be checked, with a note saying so."""
    shown = quotes_to_show(claim)
    lines = [f">{_QUOTE_OPEN}{clip_escaped(escape(q), QUOTE_CHARS)}”" for q in shown]
    if lines and claim.other_language:
        lines.append(f">_{OTHER_LANGUAGE_NOTE}_")
    return "".join(f"\n{line}" for line in lines)


def quotes_to_show(claim: Claim) -> tuple[str, ...]:
    """The claim's quotes a reader should see, each on one line (`docbot ask` prints them too)."""
    shown = [q for q in claim.quotes if claim.other_language or not _quoted_by(claim.text, q)]
    return tuple(_one_line(q) for q in shown[:MAX_QUOTES_SHOWN])


def _quoted_by(text: str, quote: str) -> bool:
    """The claim already reads the quote word for word (whitespace aside)."""
    return _one_line(quote) in _one_line(text)


def _one_line(text: str) -> str:
    return " ".join(slack_code(text).replace("```", " ").split())


def _marker(n: int, url: str | None) -> str:
    return f"<{url}|[{n}]>" if url else f"[{n}]"


def _claim_sections(lines: Sequence[str], room: int) -> tuple[list[str], int]:
    """Claim lines packed into at most `room` sections within the budget; how many lines fit.

    The first claim is always shown: it is clipped to the budget, so it needs few sections.
    """
    sections: list[str] = []
    used = 0
    for shown, line in enumerate(lines):
        candidate = _append_parts(sections, _split_line(line))
        used += len(line)
        if shown and (len(candidate) > room or used > CLAIM_BUDGET_CHARS):
            return sections, shown
        sections = candidate
    return sections, len(lines)


def _append_parts(sections: list[str], parts: list[str]) -> list[str]:
    """`parts` (one claim, pre-split to fit) appended, sharing the last section when it fits."""
    result = list(sections)
    for part in parts:
        if result and len(result[-1]) + 1 + len(part) <= SECTION_CHARS:
            result[-1] = f"{result[-1]}\n{part}"
        else:
            result.append(part)
    return result


def _split_line(line: str) -> list[str]:
    """An over-long line split at spaces (links hold none), else at a link- and entity-safe cut."""
    parts: list[str] = []
    while len(line) > SECTION_CHARS:
        cut = line.rfind(" ", 0, SECTION_CHARS)
        if cut <= 0:
            cut = safe_cut(line, SECTION_CHARS)
        parts.append(line[:cut])
        line = line[cut:].lstrip(" ")
    parts.append(line)
    return parts


def _source_texts(sources: Sequence[Source]) -> list[str]:
    """The "Sources" context texts: every line whole, within the block and character budgets."""
    lines = [_source_line(source) for source in sources]
    texts = ["*Sources*"]
    used = 0
    for index, line in enumerate(lines):
        used += len(line)
        if used > SOURCE_BUDGET_CHARS:
            hidden = len(lines) - index
            texts.append(f"{ELLIPSIS} {count(hidden, 'more source')} not shown.")
            return texts
        if len(texts[-1]) + 1 + len(line) <= SECTION_CHARS:
            texts[-1] = f"{texts[-1]}\n{line}"
        else:
            texts.append(line)
    return texts


def _source_line(source: Source) -> str:
    where = source.path + (f" § {source.heading.strip()}" if source.heading.strip() else "")
    label = clip_escaped(escape(f"[{source.n}] {where}"), SOURCE_LABEL_CHARS)
    label = f"{label} ({_span(source)})"
    url = _link_url(source)
    linked = f"<{url}|{label}>" if url else label
    updated = source.updated.strip()
    return linked + (f" · updated {escape(clip(updated, 40))}" if updated else "")


def _link_url(source: Source) -> str | None:
    url = safe_url(source.url)
    return url if url and len(url) <= MAX_URL_CHARS else None


def _span(source: Source) -> str:
    if source.end_line == source.start_line:
        return f"L{source.start_line}"
    return f"L{source.start_line}–L{source.end_line}"


def _feedback_footer(
    feedback: FeedbackConfig, *, lead: str = "React", subject: str = "this is"
) -> str:
    parts = []
    if feedback.wrong:
        parts.append(f":{escape(feedback.wrong[0])}: if {subject} wrong")
    if feedback.helpful:
        parts.append(f":{escape(feedback.helpful[0])}: if it helped")
    return f"{lead} " + ", ".join(parts) + "." if parts else ""


def _fallback(answer: Answer) -> str:
    """Plain notification text: the claims, then the numbered sources, escaped and clipped."""
    parts: list[str] = []
    for claim in answer.claims:
        parts.append(claim.text[:FALLBACK_CHARS].strip() + " ")
        parts.append("".join(f"[{n}]" for n in claim.citations) + " ")
        if sum(map(len, parts)) > FALLBACK_CHARS:  # the rest would be clipped anyway
            break
    claims = "".join(parts)
    sources = "; ".join(f"[{s.n}] {s.path} ({_span(s)})" for s in answer.sources)
    text = f"{claims} Sources: {sources}" if sources else claims
    return escape(clip(" ".join(text.split()), FALLBACK_CHARS))
