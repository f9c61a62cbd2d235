"""The command line starts without importing what only some commands use: the PostgreSQL
store's SQLAlchemy and asyncpg load when a store URL is set, not for `docbot search`; the builder,
the answer store, the generators, the renderer and Slack load in the command that needs them.
One fresh interpreter answers every question here (each is a print, in the order that keeps
them apart: `bot.store` is imported last)."""

from __future__ import annotations

from tests.fresh_process import fresh_process_prints

# What only `docbot index`, `ask`, `eval`, `serve` or `feedback` use (bot/cli.py imports each in
# the command that needs it): `docbot search` starts without any of them.
NOT_FOR_SEARCH = (
    "bot.building", "bot.eval_command", "bot.feedback", "bot.render", "bot.runtime",
    "bot.store", "grounding.pipeline", "openai", "slack_sdk", "slack_bolt",
)  # fmt: skip


def test_the_cli_imports_a_command_s_machinery_and_postgresql_only_when_needed() -> None:
    probe = (
        "import sys, bot.cli\n"
        "print(sorted(m for m in ('sqlalchemy', 'asyncpg') if m in sys.modules))\n"
        f"print(sorted(m for m in {NOT_FOR_SEARCH!r} if m in sys.modules))\n"
        "try:\n"
        "    bot.cli.main(['search'])  # the parser, every command's options, then a usage error\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print(sorted(m for m in {NOT_FOR_SEARCH!r} if m in sys.modules))\n"
        "print(sorted(m for m in ('sqlalchemy', 'asyncpg') if m in sys.modules))\n"
        "from bot.store import PostgresAnswerStore\n"
        "print(PostgresAnswerStore.__name__, 'sqlalchemy' in sys.modules)\n"
    )
    no_driver, no_machinery, after_parsing, still_no_driver, postgres, _ = fresh_process_prints(
        probe, timeout=60
    ).split("\n")
    assert no_driver == "[]"
    assert no_machinery == "[]"
    assert after_parsing == "[]"  # building the parser (`docbot eval`'s options too) loads none
    assert still_no_driver == "[]"
    assert postgres == "PostgresAnswerStore True"
