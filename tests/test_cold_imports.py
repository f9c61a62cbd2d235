"""The command line starts without importing what only some commands use: the PostgreSQL
store's SQLAlchemy and asyncpg load when a store URL is set, not for `docbot search`."""

from __future__ import annotations

import subprocess
import sys


def test_the_cli_imports_no_postgresql_driver_until_one_is_needed() -> None:
    probe = (
        "import sys, bot.cli\n"
        "print(sorted(m for m in ('sqlalchemy', 'asyncpg') if m in sys.modules))\n"
        "from bot.store import PostgresAnswerStore\n"
        "print(PostgresAnswerStore.__name__, 'sqlalchemy' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    ).stdout.split("\n")
    assert out[0] == "[]"
    assert out[1] == "PostgresAnswerStore True"
