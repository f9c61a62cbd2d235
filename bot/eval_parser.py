"""`docbot eval`'s command-line options, apart from the command itself: the parser is built on
every `docbot` call, and bot/eval_command.py imports the index, the generators and the report
writer, which only `docbot eval` needs."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

EXIT_BELOW_BAR = 3


def add_eval_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("eval", help="score a question set (answered right, refused)")
    parser.add_argument("questions", type=Path, help="question set, one JSON object per line")
    parser.add_argument(
        "--config",
        type=Path,
        default=None,
        help="config file (default: $DOCBOT_CONFIG or ./docbot.yml)",
    )
    parser.add_argument(
        "--channel",
        default=None,
        help="ask as this channel, with its private collections (an ID named in docbot.yml); "
        "default: a public channel, which reads every public collection",
    )
    parser.add_argument("--team", help="team ID (default: the first team in the config)")
    parser.add_argument("--html", type=Path, default=None, help="also write a one-page report")
    for flag, what in (("--min-right", "answered right"), ("--min-refused", "uncovered refused")):
        parser.add_argument(
            flag,
            type=_fraction,
            default=None,
            metavar="SHARE",
            help=f"exit {EXIT_BELOW_BAR} when the share {what} is below SHARE (0 to 1)",
        )
    parser.set_defaults(run=_run_eval)


def _run_eval(args: argparse.Namespace, out: TextIO) -> int:
    from bot.eval_command import run_eval

    return run_eval(args, out)


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number between 0 and 1") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text} is not between 0 and 1 (0.8 means 80%)")
    return value
