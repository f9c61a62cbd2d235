"""A named setting's value: in a quote that lists several settings with their values, each
value belongs to the name before it on its line ("- `max_idle`, ... (Default 4)" then "-
`max_workers`, ... (Default 16)"; "Pool(max_idle=2, max_workers=8)"). A claim that gives a
setting a value of the quote that belongs to another setting holds every word and number of the
quote, and is still wrong."""

from __future__ import annotations

import re

from grounding.verification.anchors import terms, versioned
from grounding.verification.defaults import is_value, shown

# A setting's name: snake_case or CONSTANT_CASE, the way code and settings are written.
_NAME = re.compile(r"(?<![\w.])[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+(?![\w])")
# Where a claim's statement about a name ends: a sentence or clause end. A quote's ends at its
# line: a list item's default is often a sentence after its name ("... all. (Default 4)").
_CLAIM_END = re.compile(r"[.;!?](?:\s|$)|\n")
_LINE_END = re.compile(r"\n")


def _values(segment: str) -> list[str]:
    """The values of a segment; not a version ("since Python 3.8"), which is when, not what."""
    said = terms(segment)
    return [t for i, t in enumerate(said) if is_value(t) and not versioned(said, i)]


def _segments(text: str, end: re.Pattern[str]) -> list[tuple[str, str]]:
    """Each name of `text` with the text after it up to the next name or the end."""
    names = list(_NAME.finditer(text))
    out = []
    for k, name in enumerate(names):
        stop = names[k + 1].start() if k + 1 < len(names) else len(text)
        boundary = end.search(text, name.end(), stop)
        out.append((name.group(), text[name.end() : boundary.start() if boundary else stop]))
    return out


def setting_problem(claim: str, quoted: str) -> str | None:
    """A setting the claim gives a value the quoted sentences give only other settings."""
    owned: dict[str, set[str]] = {}
    for name, segment in _segments(quoted, _LINE_END):
        owned.setdefault(name, set()).update(_values(segment))
    for name, segment in _segments(claim, _CLAIM_END):
        values = _values(segment)
        stated = owned.get(name, set())
        if values and stated and values[0] not in stated:
            given = ", ".join(sorted(map(shown, stated)))
            return (
                f"the claim gives {name} the value {shown(values[0])}; the quoted evidence "
                f"gives it {given}"
            )
    return None
