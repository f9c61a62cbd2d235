"""`docbot eval`: a team's question set through the configured index and generator, scored.

Prints the figures (answered right, refused when uncovered, claims dropped by reason, latency,
tokens) and the failures; `--html` also writes a one-page report (bot/eval_html.py).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from bot.eval_html import figure_rows, label, render_report, why_not_right
from bot.eval_parser import EXIT_BELOW_BAR
from bot.runtime import make_generator, make_pipeline
from bot.settings import Settings
from grounding.evaluation.questions import EvalQuestion, read_questions
from grounding.evaluation.run import Figures, Result, failures, figures, run_questions
from grounding.pipeline import AnswerPipeline
from retrieval.chunks import Chunk
from retrieval.config import CHANNEL_ID, Config, default_config_path, load_config
from retrieval.errors import InputError
from retrieval.index import Index
from retrieval.scopes import ConversationKind, Scope, resolve_scope

# Not a channel ID (IDs are upper case), so no private collection can grant it anything: the
# scope of any public channel that has no private grants.
PUBLIC_CHANNEL = "public"
EXIT_FAILED = 1
_KINDS = {"C": ConversationKind.CHANNEL, "G": ConversationKind.PRIVATE, "D": ConversationKind.DM}


def eval_scope(config: Config, team: str | None, channel: str | None) -> Scope:
    """The scope the questions are asked in: a public channel's unless `channel` is given."""
    team = team or config.teams[0]
    if team not in config.teams:
        raise InputError(
            f"team {team!r} is not served by this config: use one of {', '.join(config.teams)}"
        )
    if channel is None:
        return resolve_scope(config, team, PUBLIC_CHANNEL, ConversationKind.CHANNEL)
    if not CHANNEL_ID.match(channel):
        raise InputError(
            f"--channel {channel!r} is not a channel ID (C..., G... or D...); in Slack, open the "
            "channel's details to copy it"
        )
    if not any(channel in c.channels for c in config.collections):
        raise InputError(
            f"--channel {channel} is not named in any collection's `channels` in docbot.yml, so "
            "it reads the public collections only: that is what `docbot eval` does without "
            "--channel. Check the ID, or leave the option out."
        )
    return resolve_scope(config, team, channel, _KINDS[channel[0]])


def run_eval(args: argparse.Namespace, out: TextIO) -> int:
    questions = read_questions(args.questions)
    config = load_config(args.config or default_config_path())
    scope = eval_scope(config, args.team, args.channel)
    if args.html is not None:
        _check_writable(args.html)
    index = Index.load(config)
    in_scope = index.chunks(scope)
    for note in unheld_expected(questions, in_scope):
        print(note, file=sys.stderr)
    generator = make_generator(config.answer, Settings.from_env(os.environ))
    pipeline = make_pipeline(config, index, generator)
    results = asyncio.run(_run_and_close(pipeline, questions, scope))
    measured = figures(results)
    if args.html is not None:
        # Written before anything is printed: `docbot eval ... | head` closes stdout early, and
        # the run's report must not be lost with it.
        chunks = {chunk.chunk_id: chunk for chunk in in_scope}
        page = render_report(str(args.questions), describe_scope(scope), measured, results, chunks)
        _write(args.html, page)
    _print_figures(str(args.questions), scope, measured, out)
    _print_failures(failures(results), out)
    if args.html is not None:
        print(f"report: {args.html}", file=out)
    if measured.errors == len(results):
        # Every answer failed (the model server is down, a bad key): nothing was measured.
        print(f"every answer was an error: {results[0].answer.error_detail}", file=out)
        return EXIT_FAILED
    return _verdict(measured, args.min_right, args.min_refused, out)


async def _run_and_close(
    pipeline: AnswerPipeline, questions: Sequence[EvalQuestion], scope: Scope
) -> tuple[Result, ...]:
    # Closed inside the loop that used it: the model client's connections end with the run.
    async with contextlib.aclosing(pipeline):
        return await run_questions(pipeline, questions, scope)


def describe_scope(scope: Scope) -> str:
    where = "a public channel" if scope.channel_id == PUBLIC_CHANNEL else scope.channel_id
    return f"team {scope.team_id}, {where}: {', '.join(scope.collections) or 'no collections'}"


def _print_figures(name: str, scope: Scope, f: Figures, out: TextIO) -> None:
    rows = (
        ("question set", f"{name}: {f.answerable} answerable, {f.uncovered} not covered"),
        ("scope", describe_scope(scope)),
        ("generator", ", ".join(f.generators) or "none ran"),
        *figure_rows(f),
    )
    for heading, value in rows:
        print(f"{heading:<26}{value}", file=out)


def _print_failures(failed: tuple[Result, ...], out: TextIO) -> None:
    if not failed:
        return
    print(f"\nnot right ({len(failed)}):", file=out)
    for r in failed:
        q, a = r.question, r.answer
        want = f"expected {', '.join(q.expected) or 'a claim'}" if q.answerable else "uncovered"
        cited = sorted({f"{s.collection}/{s.path}" for s in a.sources})
        got = f"{a.status.value} {', '.join(cited)}".rstrip()
        if a.gate is not None and not a.gate.near:
            got += f" (gated: nearness {a.gate.nearness:.3f} < {a.gate.threshold})"
        print(f"  {label(q)}: {q.question!r} -> {got} ({want}): {why_not_right(r)}", file=out)


def _verdict(f: Figures, min_right: float | None, min_refused: float | None, out: TextIO) -> int:
    below = []
    if min_right is not None and f.answerable and f.answered_right / f.answerable < min_right:
        below.append(f"answered right is below --min-right {min_right}")
    if min_refused is not None and f.uncovered and f.uncovered_refused / f.uncovered < min_refused:
        below.append(f"refused when uncovered is below --min-refused {min_refused}")
    for line in below:
        print(f"below the bar: {line}", file=out)
    return EXIT_BELOW_BAR if below else 0


def _write(path: Path, page: str) -> None:
    try:
        path.write_text(page, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write the report to {path}: {exc.strerror}") from None


def unheld_expected(questions: Sequence[EvalQuestion], chunks: Sequence[Chunk]) -> list[str]:
    """A note for each `expected` file that no collection of the scope holds (a typo, a moved
    file, a private collection): its question can never be answered right."""
    held = {name for c in chunks for name in (c.path, f"{c.collection}/{c.path}")}
    return [
        f"note: {label(q)}: expected file {name} is in no collection this scope reads; check "
        "its path (inside its collection, or collection/path) or the scope (--channel)"
        for q in questions
        for name in q.expected
        if name not in held
    ]


def _check_writable(path: Path) -> None:
    """Before any question is asked: a run can take minutes and the model's tokens."""
    folder = path.parent
    if path.is_dir():
        problem = "that is a folder"
    elif not folder.is_dir():
        problem = f"the folder {folder} does not exist"
    elif not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        problem = "permission denied"
    else:
        return
    raise InputError(
        f"cannot write the report to {path}: {problem}; nothing was asked. Give --html a file "
        "in a folder you can write to"
    )
