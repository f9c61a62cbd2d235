"""Both backends grow their schemas by the same versioned steps (bot/store/migrations.py).
PostgreSQL's first step is SQLite's first four at once (it came later); every step since is
appended to both, with the same reason, in the same order: a schema change landed on one
backend only fails here."""

from __future__ import annotations

from bot.store import postgres_schema, sqlite_schema


def test_every_step_since_postgres_came_is_on_both_backends_in_order() -> None:
    sqlite_steps = [step.why for step in sqlite_schema.STEPS]
    postgres_steps = [step.why for step in postgres_schema.STEPS]
    since = postgres_steps[1:]
    assert since, "PostgreSQL has steps of its own after its first"
    assert sqlite_steps[-len(since) :] == since
    for steps in (sqlite_steps, postgres_steps):
        assert len(set(steps)) == len(steps), "each step says what it is for, once"
    assert all(step.statements for step in sqlite_schema.STEPS + postgres_schema.STEPS)
