"""Schema changes as versioned steps, one mechanism for both backends.

A backend keeps its steps as a tuple of `Step`s and the number applied (SQLite: `PRAGMA
user_version`; PostgreSQL: the `docbot_schema` table). Opening a store applies the steps past
that number in order, each in its own transaction together with the new number. Append, never
edit, once released: a database written by any earlier docbot then upgrades in place. Each step
lists its statements one by one, so no SQL is ever split on `;`.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.store.contract import StoreError


@dataclass(frozen=True, slots=True)
class Step:
    """One schema version: why it exists, and its statements, run in order."""

    why: str
    statements: tuple[str, ...]


def pending(version: int, steps: tuple[Step, ...], where: str) -> range:
    """The indexes of the steps a database at `version` still needs (empty when current); a
    StoreError when it was written by a newer docbot, which this one must not touch."""
    if version > len(steps):
        raise StoreError(
            f"{where}: the answer store has schema version {version}, newer than this docbot "
            f"understands ({len(steps)}). Upgrade docbot, or point it at another store."
        )
    return range(version, len(steps))
