"""The error hierarchy every layer raises; foreign exceptions are translated into it."""

from __future__ import annotations


class DocbotError(Exception):
    """Something docbot can explain to the user: what was wrong and what to do."""


class ConfigError(DocbotError):
    """The configuration file is missing or invalid."""


class InputError(DocbotError):
    """A question or argument that cannot be served as given."""


class IndexNotBuiltError(DocbotError):
    """The search index has not been built yet, or was built by an incompatible version."""


class IndexOutdatedError(IndexNotBuiltError):
    """The index, or a folder of it, was written by another docbot version: not damage, and
    `docbot index` rebuilds it in place."""


def other_version(found: object, current: int | str) -> str:
    """Which docbot wrote a format `found` on disk, next to this one's `current`, in words."""
    if isinstance(found, int) and isinstance(current, int) and not isinstance(found, bool):
        return "an older" if found < current else "a newer"
    if isinstance(found, str) and isinstance(current, str):
        if found.isdigit() and current.isdigit():  # "9" is older than "10", not newer
            return "an older" if int(found) < int(current) else "a newer"
        return "an older" if found < current else "a newer"
    return "another"  # none recorded, or not a version number
