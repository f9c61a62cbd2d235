"""Version directives of reStructuredText read as the sentence Sphinx shows for them: a quote of
".. versionadded:: 3.9" says "Added in version 3.9", which a claim restates as "added in 3.9",
"new in 3.9" or "since 3.9". Read as one word, `versionadded`, the directive gave the claim's
version nothing to be near, and every such claim was dropped."""

from __future__ import annotations

import re

_DIRECTIVE = re.compile(
    r"\.\.[ \t]*(versionadded|versionchanged|versionremoved|deprecated-removed|deprecated)"
    r"[ \t]*::[ \t]*(\d+(?:\.\d+)*)(?:[ \t]+(\d+(?:\.\d+)*))?"
)
# What Sphinx shows for each directive, with the words a paraphrase says it with ("new",
# "since"); {0} is its version, {1} the version a deprecated-removed one is removed in.
_READINGS = {
    "versionadded": "Added in version {0}, new since version {0}.",
    "versionchanged": "Changed in version {0}, since version {0}.",
    "versionremoved": "Removed in version {0}.",
    "deprecated": "Deprecated since version {0}.",
    "deprecated-removed": "Deprecated since version {0}, removed in version {1}.",
}


def readable(text: str) -> str:
    """`text` with each version directive as the sentence it stands for."""
    return _DIRECTIVE.sub(_reading, text)


def _reading(match: re.Match[str]) -> str:
    name, version, removed = match.groups()
    if name == "deprecated-removed" and removed is None:
        name = "deprecated"
    return _READINGS[name].format(version, removed)
