"""The `docbot` command line: index, search, ask, eval, serve, feedback. The composition root."""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal, NoReturn, TextIO

from bot.cli_output import hit_json, nothing_found, print_answer
from bot.eval_parser import add_eval_parser
from retrieval.config import CHANNEL_ID, Config, default_config_path, load_config
from retrieval.errors import DocbotError, InputError
from retrieval.query import check_question
from retrieval.scopes import ConversationKind, Scope, resolve_scope

if TYPE_CHECKING:
    from grounding.answer import Answer
    from grounding.pipeline import AnswerPipeline

# Each command imports what it needs when it runs: `docbot search` is answered in a fraction
# of a second, and importing the builder, the answer store, the generators and the renderer
# up front cost it ~1 s (docs/performance-loading.md, "Cold search").

EXIT_FAILED = 1
EXIT_USAGE = 2


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.command == "serve" else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        return int(args.run(args, sys.stdout))
    except InputError as exc:
        print(f"docbot: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except DocbotError as exc:
        print(f"docbot: error: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `docbot ask … --json | head`: the reader left; nothing to report. Point stdout at
        # devnull so the interpreter's final flush does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception:
        # The edge catches broadly: the user hears what failed, the traceback goes to the log.
        logging.getLogger("docbot.cli").exception("docbot %s failed", args.command)
        print(
            f"docbot: error: `docbot {args.command}` failed unexpectedly (traceback above); "
            "please report it with the command you ran.",
            file=sys.stderr,
        )
        return EXIT_FAILED


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="docbot", description="Answers questions from your team's documentation."
    )
    parser.add_argument(
        "-V", "--version", action=_Version, help="print docbot's version and index format, exit"
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    index = commands.add_parser("index", help="build or refresh the search index")
    _config_option(index)
    index.add_argument(
        "--publish",
        type=Path,
        default=None,
        metavar="DIR",
        help="then publish it to DIR as a new immutable version, for replicas to load "
        "(default: index_dir in docbot.yml, when set)",
    )
    index.set_defaults(run=_index)

    search = commands.add_parser("search", help="scoped retrieval only")
    _config_option(search)
    _question_options(search)
    search.add_argument("--k", type=int, default=8, help="number of hits (default 8)")
    search.add_argument("--json", action="store_true", help="print the hits as JSON")
    search.set_defaults(run=_search)

    ask = commands.add_parser("ask", help="answer a question with verified citations")
    _config_option(ask)
    _question_options(ask)
    form = ask.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="print the answer object")
    form.add_argument("--blocks", action="store_true", help="print the Slack message")
    ask.set_defaults(run=_ask)

    add_eval_parser(commands)

    serve = commands.add_parser("serve", help="run the Slack app")
    _config_option(serve)
    serve.add_argument(
        "--host",
        default=None,
        help="HTTP mode: the address to listen on (default: serve.host in docbot.yml, else "
        "127.0.0.1; use 0.0.0.0 in a container)",
    )
    serve.add_argument(
        "--port",
        type=_port,
        default=None,
        help="HTTP mode: the port (default: serve.port in docbot.yml, else 3000)",
    )
    serve.add_argument(
        "--index",
        type=Path,
        default=None,
        metavar="DIR",
        help="load the index published in DIR (by `docbot index --publish DIR`), read-only, "
        "and swap in each newer version (default: index_dir in docbot.yml, else state_dir)",
    )
    serve.set_defaults(run=_serve)

    feedback = commands.add_parser("feedback", help="list feedback on answers")
    _config_option(feedback)
    feedback.add_argument("--wrong", action="store_true", help="only answers marked wrong")
    fmt = feedback.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print JSON")
    fmt.add_argument("--csv", action="store_true", help="print CSV")
    feedback.set_defaults(run=_feedback)
    return parser


class _Version(argparse.Action):
    """`docbot --version`: worked out only when asked (it runs git), needing no config."""

    def __init__(self, option_strings: Sequence[str], dest: str, help: str) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> NoReturn:
        from bot.version import version_text

        print(version_text())  # stdout, as argparse's own version action
        parser.exit()


def _port(text: str) -> int:
    """--port's value: checked here, or a bad one surfaced only at the bind, after Slack."""
    port = int(text) if text.strip().isdigit() else 0
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number: use 1 to 65535")
    return port


def _config_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        type=Path,
        default=None,
        help="config file (default: $DOCBOT_CONFIG or ./docbot.yml)",
    )


def _question_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("question", help="the question, in quotes")
    parser.add_argument("--channel", required=True, help="channel ID whose access rules apply")
    parser.add_argument("--team", help="team ID (default: the first team in the config)")
    kind = parser.add_mutually_exclusive_group()
    kind.add_argument("--dm", action="store_true", help="as a direct message")
    kind.add_argument("--external", action="store_true", help="as a Slack Connect channel")


def _config(args: argparse.Namespace) -> Config:
    return load_config(args.config or default_config_path())


def _scope(args: argparse.Namespace, config: Config) -> Scope:
    kind = ConversationKind.CHANNEL
    if args.dm:
        kind = ConversationKind.DM
    elif args.external:
        kind = ConversationKind.EXTERNAL
    if not CHANNEL_ID.match(args.channel):
        raise InputError(
            f"--channel {args.channel!r} is not a channel ID: access rules are keyed by ID "
            "(C..., G... or D...); in Slack, open the channel's details to copy it"
        )
    team = args.team or config.teams[0]
    if team not in config.teams:
        raise InputError(
            f"team {team!r} is not served by this config: use one of {', '.join(config.teams)}, "
            "or add it to `teams` in docbot.yml"
        )
    return resolve_scope(config, team, args.channel, kind)


def _index(args: argparse.Namespace, out: TextIO) -> int:
    from bot.building import index_once
    from bot.index_report import print_report
    from bot.progress import terminal_progress

    config = _config(args)

    def waiting(why: str) -> None:
        print(f"docbot: {why}", file=sys.stderr)

    report, published = index_once(
        config,
        publish_to=args.publish,
        progress=terminal_progress(sys.stderr),
        waiting=waiting,
    )
    print_report(report, out)
    if published is not None:
        state = "already published; CURRENT points at it" if published.reused else "published"
        print(f"{state}: {published.folder}", file=out)
    return 0


def _search(args: argparse.Namespace, out: TextIO) -> int:
    question = check_question(args.question)
    if args.k < 1:
        raise InputError("--k must be at least 1")
    config = _config(args)
    scope = _scope(args, config)
    from retrieval.index import Index

    # Only the collections the scope may read are loaded: a channel reading one collection
    # of six does not pay for the other five (nor trip over their files).
    hits = Index.load(config, collections=scope.collections).search(question, scope, args.k)
    if args.json:
        json.dump([hit_json(hit) for hit in hits], out, ensure_ascii=False, indent=2)
        print(file=out)
    elif not hits:
        print(nothing_found(scope), file=out)
    else:
        for hit in hits:
            c = hit.chunk
            heading = f"  § {' > '.join(c.heading_path)}" if c.heading_path else ""
            print(
                f"{hit.rank:>2}. {hit.score:7.3f}  {c.collection}  {c.path}:{c.start_line}-"
                f"{c.end_line}{heading}",
                file=out,
            )
    return 0


def _ask(args: argparse.Namespace, out: TextIO) -> int:
    import asyncio

    from bot.render import post_kwargs, render_answer
    from bot.render.no_answer import no_answer_text
    from bot.runtime import pipeline_loader
    from bot.settings import Settings
    from grounding.answer import AnswerStatus

    question = check_question(args.question)
    config = _config(args)
    scope = _scope(args, config)
    settings = Settings.from_env(os.environ)
    pipeline = pipeline_loader(settings)(config)
    answer = asyncio.run(_answer_once(pipeline, question, scope))
    if args.json:
        data = answer.to_dict()
        if answer.reason is not None:
            data["message"] = no_answer_text(answer)  # the bot words reason codes
        json.dump(data, out, ensure_ascii=False, indent=2)
        print(file=out)
    elif args.blocks:
        json.dump(post_kwargs(render_answer(answer, config.feedback)), out, indent=2)
        print(file=out)
    else:
        print_answer(answer, out)
    return EXIT_FAILED if answer.status is AnswerStatus.ERROR else 0


async def _answer_once(pipeline: AnswerPipeline, question: str, scope: Scope) -> Answer:
    # Closed inside the loop that used it: the model client's connections end with the command.
    async with contextlib.aclosing(pipeline):
        return await pipeline.answer(question, scope)


def _serve(args: argparse.Namespace, out: TextIO) -> int:
    # Only serve needs slack_bolt, the slowest import: index, search and ask start without it.
    import asyncio

    from bot.live import Reload
    from bot.runtime import pipeline_loader
    from bot.serve import run_serve
    from bot.settings import Settings
    from bot.store.select import open_store
    from bot.version import version_line

    logging.getLogger("docbot.serve").info("starting %s", version_line())
    config_path = args.config or default_config_path()
    published: Path | None = args.index

    def read_config(path: Path) -> Config:
        config = load_config(path)
        if published is not None:  # --index wins over index_dir, on every reload too
            return config.model_copy(update={"index_dir": published.resolve()})
        return config

    config = read_config(config_path)
    settings = Settings.from_env(os.environ)
    load_pipeline = pipeline_loader(settings)
    pipeline = load_pipeline(config)
    # docbot.yml and the index are read again when they change: a newer published version is
    # swapped in once it has loaded whole (bot/live.py).
    reload = Reload(config_path, load_pipeline, read_config)
    store = open_store(config, settings)
    try:
        serving = run_serve(
            config, settings, pipeline, store, host=args.host, port=args.port, reload=reload
        )
        asyncio.run(serving)
    finally:
        store.close()
    return 0


def _feedback(args: argparse.Namespace, out: TextIO) -> int:
    from bot.feedback import feedback_command
    from bot.settings import Settings
    from bot.store.select import database_url, open_store, sqlite_path

    config = _config(args)
    settings = Settings.from_env(os.environ)
    path = sqlite_path(config)
    if database_url(config, settings) is None and not path.exists():
        print(f"No answers recorded yet ({path} does not exist).", file=out)
        return 0
    store = open_store(config, settings)
    try:
        fmt: Literal["text", "json", "csv"] = "json" if args.json else "csv" if args.csv else "text"
        feedback_command(store, wrong_only=args.wrong, fmt=fmt, out=out)
    finally:
        store.close()
    return 0


def entry() -> None:
    """The process's entry point (the `docbot` script, `python -m bot.cli`): `main`, then exit.

    `docbot search` reads and prints only, so once its output is flushed it exits at once,
    without the interpreter's teardown (freeing the loaded index, its memory maps and every
    module: ~0.06-0.1 s CPU of a ~0.5 s cold search, docs/performance-loading.md "Cold search").
    Every other command exits normally."""
    code = main()
    if sys.argv[1:2] == ["search"]:
        logging.shutdown()
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            pass  # the reader left: nothing to report (as `main`)
        except OSError as exc:  # a full disk, say: the hits are lost, so the search failed
            print(f"docbot: error: cannot write the hits ({exc.strerror or exc})", file=sys.stderr)
            code = code or EXIT_FAILED
        with contextlib.suppress(OSError):
            sys.stderr.flush()
        os._exit(code)
    raise SystemExit(code)


if __name__ == "__main__":
    entry()
