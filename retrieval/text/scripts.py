"""Scripts and Unicode forms: the one CJK range, identifier humps, and the text normalizers."""

from __future__ import annotations

import re
import unicodedata

# Han, Hiragana, Katakana, Hangul (jamo, compatibility jamo, syllables) and CJK
# compatibility ideographs: scripts written without spaces between words.
CJK_RANGES = (
    "\u1100-\u11ff\u3040-\u309f\u30a0-\u30ff\u3130-\u318f\u31f0-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7af\ud7b0-\ud7ff\uf900-\ufaff"
    "\U00020000-\U0002fa1f"
)
CJK = re.compile(f"[{CJK_RANGES}]")
# re.split with this puts the CJK runs at the odd positions of its result.
CJK_RUNS = re.compile(f"([{CJK_RANGES}]+)")
CYRILLIC = re.compile("[\u0400-\u04ff]")


def has_cjk(text: str) -> bool:
    return CJK.search(text) is not None


def cjk_bigrams(run: str) -> list[str]:
    """Overlapping character bigrams, so a Chinese question finds Chinese text without a lexicon."""
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def camel_parts(word: str) -> list[str]:
    """Split at case changes: `HTTPServer` -> HTTP, Server; `getUserName` -> get, User, Name.

    Digits stay with the letters before them (`sha256`, `utf8Decoder` -> utf8, Decoder).
    """
    parts: list[str] = []
    start = 0
    for i in range(1, len(word)):
        prev, cur = word[i - 1], word[i]
        lower_to_upper = cur.isupper() and (prev.islower() or prev.isdigit())
        acronym_end = (
            cur.isupper() and prev.isupper() and i + 1 < len(word) and word[i + 1].islower()
        )
        if lower_to_upper or acronym_end:
            parts.append(word[start:i])
            start = i
    parts.append(word[start:])
    return parts


def normalize_text(text: str) -> str:
    """NFC, whitespace collapsed: the form chunk digests and verbatim comparisons use.

    NFC and not NFKC: a quote must read as the document wrote it, so `ﬁ` and `²` stay.
    """
    return " ".join(unicodedata.normalize("NFC", text).split())


def nfkc(text: str) -> str:
    """Compatibility forms folded (`ＡＰＩ` -> `API`, `ﬁ` -> `fi`): for matching, not quoting."""
    return unicodedata.normalize("NFKC", text)


def nfkc_casefold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()
