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
