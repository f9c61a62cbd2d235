"""Numbers as values: `5`, `5.0` and "five" are one number, `1,000` is `1000`, so a claim that
spells a count out ("three steps") is checked like one that writes digits, both ways."""

from __future__ import annotations

import re
from types import MappingProxyType

_UNIT_TEXT = """
    zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen
    sixteen seventeen eighteen nineteen
"""
_UNITS = _UNIT_TEXT.split()
_TENS_TEXT = "twenty thirty forty fifty sixty seventy eighty ninety"
_TENS = _TENS_TEXT.split()
# English number words, casefolded. Not "one" (as often a pronoun, "the one that"), nor "a",
# "single" or "once": they are mostly not counts.
NUMBER_WORDS = MappingProxyType(
    {
        **{word: value for value, word in enumerate(_UNITS) if word != "one"},
        **{word: 20 + 10 * i for i, word in enumerate(_TENS)},
        **{
            f"{ten}-{unit}": 20 + 10 * i + j
            for i, ten in enumerate(_TENS)
            for j, unit in enumerate(_UNITS[1:10], start=1)
        },
        "hundred": 100,
        "thousand": 1000,
        "million": 1_000_000,
        "dozen": 12,
        "twice": 2,
    }
)
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")


def canonical(token: str) -> str | None:
    """The value of a digit token or a number word, as one spelling; None if it is neither."""
    word = token.casefold()
    if word in NUMBER_WORDS:
        return str(NUMBER_WORDS[word])
    if not token[:1].isdigit():
        return None
    if _THOUSANDS.fullmatch(token):
        token = token.replace(",", "")
    whole, dot, fraction = token.partition(".")
    if dot and fraction.strip("0") == "" and whole.isdigit():
        return str(int(whole))  # 5.0 is 5; 3.10 stays 3.10 (a version, not 3.1)
    return str(int(token)) if token.isdigit() else token
