"""Numbers a list writes apart that quote form joins: quote form drops the space after a comma
(code layout), so "PEPs 484, 526, 544" of the file reads "484,526,544", one number in thousands.
Where the cited items write the digits apart, the quoted sentences are read with them apart."""

from __future__ import annotations

import re

_GROUPED = re.compile(r"(?<![\d.,])\d+(?:,\d+)+(?![\d,]*\d)")


def numbers_apart(quoted: str, cited: str) -> str:
    """`quoted` with each comma-joined run of digits written "a, b, c" where `cited` (as it is,
    whitespace aside) writes them with spaces after the commas; a thousands number the items
    write as one ("1,000") stays as it is."""
    written = " ".join(cited.split())

    def apart(match: re.Match[str]) -> str:
        parts = match.group().split(",")
        pattern = r",\s+".join(re.escape(part) for part in parts)
        found = re.search(rf"(?<!\d){pattern}(?!\d)", written) is not None
        return ", ".join(parts) if found else match.group()

    return _GROUPED.sub(apart, quoted)
