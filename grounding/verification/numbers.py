"""Numbers as values: `5`, `5.0` and "five" are one number, `1,000` is `1000`, and a number
phrase is one number ("twenty five", "two hundred and fifty", "5 thousand", "1.5 million"), so a
claim that spells a count out ("three steps") is checked like one that writes digits, both ways."""

from __future__ import annotations

import re
from collections.abc import Sequence
from types import MappingProxyType

_UNIT_TEXT = """
    zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen
    sixteen seventeen eighteen nineteen
"""
_UNITS = _UNIT_TEXT.split()
_TENS_TEXT = "twenty thirty forty fifty sixty seventy eighty ninety"
_TENS = _TENS_TEXT.split()
# The words of a number below a hundred, "one" included: inside a phrase ("one hundred",
# "twenty one") it is a number, whatever it is alone.
_BELOW_HUNDRED = MappingProxyType(
    {
        **{word: value for value, word in enumerate(_UNITS)},
        **{word: 20 + 10 * i for i, word in enumerate(_TENS)},
        **{
            f"{ten}-{unit}": 20 + 10 * i + j
            for i, ten in enumerate(_TENS)
            for j, unit in enumerate(_UNITS[1:10], start=1)
        },
    }
)
_SCALES = MappingProxyType(
    {"hundred": 100, "thousand": 1000, "million": 1_000_000, "billion": 1_000_000_000}
)
# English number words, casefolded, read alone. Not "one" (as often a pronoun, "the one that"),
# nor "a", "single" or "once": they are mostly not counts (bindings.py reads "one" as a count
# where it counts a noun).
NUMBER_WORDS = MappingProxyType(
    {
        **{word: value for word, value in _BELOW_HUNDRED.items() if word != "one"},
        **_SCALES,
        "dozen": 12,
        "twice": 2,
    }
)
# Ordinal words from "third" on, read as positions ("third" is `3rd`, as written in digits).
# Not "first" and "second": "First, install it" and "30 seconds" are no positions.
_ORDINAL_TEXT = """
    first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth
    fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth
"""
_ORDINAL_WORDS = _ORDINAL_TEXT.split()
_ORDINAL_TENS_TEXT = "twentieth thirtieth fortieth fiftieth sixtieth seventieth eightieth ninetieth"


def ordinal(n: int) -> str:
    """`n` as an ordinal in digits: 1st, 2nd, 3rd, 11th, 22nd."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


ORDINALS = MappingProxyType(
    {
        **{word: ordinal(n) for n, word in enumerate(_ORDINAL_WORDS[2:], start=3)},
        # "Firstly, you can ...": adverbs that number the ways a text goes on to give.
        **{f"{word}ly": ordinal(n) for n, word in enumerate(_ORDINAL_WORDS[:4], start=1)},
        **{word: ordinal(20 + 10 * i) for i, word in enumerate(_ORDINAL_TENS_TEXT.split())},
        **{
            f"{ten}-{unit}": ordinal(20 + 10 * i + j)
            for i, ten in enumerate(_TENS)
            for j, unit in enumerate(_ORDINAL_WORDS[:9], start=1)
        },
    }
)
# Every word that spells (part of) a number, "one" included: coverage leaves them to the
# number checks, which read them by value ("fifty" is in "50").
SPELLED = frozenset(_BELOW_HUNDRED) | frozenset(NUMBER_WORDS) | frozenset(ORDINALS)
# Spanish number words, for a claim in Spanish (checked on its numbers only). Not "un", "una",
# "uno" alone: articles as often as counts, as "one" is in English ("treinta y uno" is 31).
_SPANISH_TEXT = """
    cero uno dos tres cuatro cinco seis siete ocho nueve diez once doce trece catorce quince
    dieciséis diecisiete dieciocho diecinueve veinte veintiuno veintidós veintitrés veinticuatro
    veinticinco veintiséis veintisiete veintiocho veintinueve
"""
_SPANISH_TENS_TEXT = "treinta cuarenta cincuenta sesenta setenta ochenta noventa"
_SPANISH_UNITS = MappingProxyType(
    {w: n for n, w in enumerate(_SPANISH_TEXT.split()) if w != "uno"}
    | {"veintiún": 21, "veintiuna": 21}  # before a noun: "veintiún segundos"
)
_SPANISH_TENS = MappingProxyType({w: 30 + 10 * i for i, w in enumerate(_SPANISH_TENS_TEXT.split())})
# After a ten's "y": "treinta y cinco", "cuarenta y un segundos".
_SPANISH_AFTER_Y = MappingProxyType(
    {**{w: n for w, n in _SPANISH_UNITS.items() if 1 <= n <= 9}, "uno": 1, "un": 1, "una": 1}
)
_SPANISH_HUNDREDS_TEXT = """
    doscientos trescientos cuatrocientos quinientos seiscientos setecientos ochocientos
    novecientos
"""
_SPANISH_HUNDREDS = MappingProxyType(
    {
        "cien": 100,
        "ciento": 100,  # only before a number: "cinco por ciento" is five percent
        **{w: 100 * n for n, w in enumerate(_SPANISH_HUNDREDS_TEXT.split(), start=2)},
        # "doscientas filas": the feminine form
        **{w[:-2] + "as": 100 * n for n, w in enumerate(_SPANISH_HUNDREDS_TEXT.split(), start=2)},
    }
)
# A name with digits in it: `http2`, `utf8`, `base64`, `sha256`, `x86_64`, `Python3.11`, a
# version joined to its name (`HTTP/2`, `UTF-8`), a migration's `0003_another_change`. Letters
# (ASCII: Chinese "第3步" is a position) before the digits, or digits joined to a name by "_"
# ("1_000" stays a thousand); digits before letters stay a quantity ("100ms", "3rd", "2xx").
IDENTIFIER_WITH_DIGITS = (
    r"(?:[A-Za-z][A-Za-z0-9_]*?\d[A-Za-z0-9_]*|\d+_[A-Za-z_][A-Za-z0-9_]*"
    r"|[A-Za-z]+[-/]\d+(?![\d/-]))(?:\.\d+)*"
)
_NAMED = re.compile(IDENTIFIER_WITH_DIGITS)
_NAME_PART = re.compile(r"\d+(?:\.\d+)*|[A-Za-z]+")
# The mark of a name's digits as a term: "_2" of `http2` is no number ("two steps" finds no 2
# in it), yet the claim's `HTTP/1.1` must be in the evidence, as `http1.1` or "HTTP 1.1".
NAME_DIGITS = "_"


def identifier_parts(token: str) -> tuple[str, ...] | None:
    """A name with digits as its letter runs and its digit runs, each digit run marked by
    NAME_DIGITS ("http2" is "http", "_2"; "0003_another_change" is "_3", "another", "change");
    None for any other token."""
    if _NAMED.fullmatch(token) is None:
        return None
    return tuple(
        NAME_DIGITS + (canonical(part) or part) if part[0].isdigit() else part
        for part in _NAME_PART.findall(token)
    )


def is_name_digits(term: str) -> bool:
    return term.startswith(NAME_DIGITS) and term[1:2].isdigit()


_WORD = re.compile(r"[^\W\d_]+")
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")
_DIGIT_ORDINAL = re.compile(r"\d+(?:st|nd|rd|th)")


def canonical(token: str) -> str | None:
    """The value of a digit token or a number word, as one spelling; None if it is neither."""
    word = token.casefold()
    if word in NUMBER_WORDS:
        return str(NUMBER_WORDS[word])
    if word in ORDINALS:
        return ORDINALS[word]
    if _DIGIT_ORDINAL.fullmatch(word):
        return ordinal(int(word[:-2]))  # "03rd" is "3rd"; "3th" is read as "3rd" too
    if not token[:1].isdigit():
        return None
    if _THOUSANDS.fullmatch(token):
        token = token.replace(",", "")
    whole, dot, fraction = token.partition(".")
    if dot and fraction.strip("0") == "" and whole.isdigit():
        return str(int(whole))  # 5.0 is 5; 3.10 stays 3.10 (a version, not 3.1)
    return str(int(token)) if token.isdigit() else token


def compose(tokens: Sequence[str], spaced: Sequence[bool]) -> list[tuple[str, bool]]:
    """`tokens` (casefolded words and digit runs) with each number phrase of two or more
    tokens replaced by its value in digits: "sixty four" is "64", "two hundred and fifty" is
    "250", "1.5 million" is "1500000". `spaced[i]`: only whitespace separates token i from the
    one before, as a phrase's words are ("5 thousand, one of them" is two numbers). Two numbers
    side by side ("2 3", "two three") stay two. Each token comes with its `spaced` (a phrase
    with its first word's)."""
    out: list[tuple[str, bool]] = []
    i = 0
    while i < len(tokens):
        end, value = _phrase(tokens, spaced, i)
        if end > i + 1:
            out.append((value, spaced[i]))
            i = end
        else:
            out.append((tokens[i], spaced[i]))
            i += 1
    return out


def _phrase(tokens: Sequence[str], spaced: Sequence[bool], start: int) -> tuple[int, str]:
    """Where the number phrase starting at `start` ends, and its value (end == start + 1 or
    less when there is no phrase of two tokens or more)."""
    total, current, last, end = 0.0, 0.0, "", start
    i = start
    while i < len(tokens):
        token = tokens[i]
        if i > start and not spaced[i]:
            break
        if token in _SCALES and last in ("digits", "tens", "small", "hundred"):
            scale = _SCALES[token]
            if scale == 100:
                if last == "hundred":
                    break
                current, last = current * 100, "hundred"
            else:
                total, current, last = total + current * scale, 0.0, "scale"
        elif token in _BELOW_HUNDRED and _may_follow(last, token):
            current += _BELOW_HUNDRED[token]
            last = "tens" if token in _TENS else "small"
        elif token == "and" and last in ("hundred", "scale") and _next_is_small(tokens, spaced, i):
            i += 1
            continue
        elif i == start and _DIGITS.fullmatch(token) and _next_is_scale(tokens, i):
            current, last = float(token.replace(",", "")), "digits"
        elif i == start and token == "a" and _next_is_scale(tokens, i):
            current, last = 1.0, "digits"  # "a hundred and twenty-eight" is 128
        else:
            break
        i += 1
        end = i
    value = total + current
    return end, str(int(value)) if value == int(value) else str(value)


_DIGITS = re.compile(r"\d{1,3}(?:,\d{3})*(?:\.\d+)?|\d+(?:\.\d+)?")


def _may_follow(last: str, word: str) -> bool:
    if last in ("", "hundred", "scale"):
        return True
    # "twenty five": a unit after a ten; never "two three" or "twenty thirty".
    return last == "tens" and _BELOW_HUNDRED[word] < 10 and "-" not in word


def _next_is_small(tokens: Sequence[str], spaced: Sequence[bool], i: int) -> bool:
    return i + 1 < len(tokens) and spaced[i + 1] and tokens[i + 1] in _BELOW_HUNDRED


def _next_is_scale(tokens: Sequence[str], i: int) -> bool:
    return i + 1 < len(tokens) and tokens[i + 1] in _SCALES


_SPELLED_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)?")


def without_english_number_words(text: str) -> str:
    """`text` with English number words blanked, for a claim in another language, whose words
    are that language's: Spanish "Ten en cuenta" ("keep in mind") is no 10, "once" is read as
    Spanish (11) by `spanish_numbers`. Digits stay."""
    return _SPELLED_WORD.sub(lambda m: " " if m.group().casefold() in SPELLED else m.group(), text)


def spanish_numbers(text: str) -> tuple[str, ...]:
    """The values of the Spanish numbers in words of `text`, in order: "tres pasos" is 3, a
    phrase is one number ("treinta y cinco" is 35, "dos mil quinientos" 2500)."""
    words = _WORD.findall(text.casefold())
    values: list[str] = []
    i = 0
    while i < len(words):
        end, value = _spanish_phrase(words, i)
        if end > i:
            values.append(str(value))
        i = max(end, i + 1)
    return tuple(values)


def spanish_number_before(words: Sequence[str], k: int) -> str | None:
    """The value of the longest Spanish number phrase of casefolded `words` that ends right
    before word `k` ("ciento veinte" of "ciento veinte segundos" is 120); None if none does."""
    for start in range(k):
        end, value = _spanish_phrase(words, start)
        if end == k:
            return str(value)
    return None


def _spanish_phrase(words: Sequence[str], start: int) -> tuple[int, int]:
    """Where the Spanish number phrase starting at `start` ends (`start` if there is none), and
    its value: hundreds, tens and units add up, "mil" multiplies what comes before it."""
    total, current, last, i = 0, 0, "", start
    while i < len(words):
        word = words[i]
        following = words[i + 1] if i + 1 < len(words) else ""
        if word == "mil" and last != "mil":
            total, current, last = total + (current or 1) * 1000, 0, "mil"
        elif word in _SPANISH_HUNDREDS and last in ("", "mil"):
            if word == "ciento" and following not in _SPANISH_UNITS | _SPANISH_TENS:
                break
            current, last = current + _SPANISH_HUNDREDS[word], "hundred"
        elif word in _SPANISH_TENS and last in ("", "mil", "hundred"):
            current, last = current + _SPANISH_TENS[word], "tens"
        elif word in _SPANISH_UNITS and last in ("", "mil", "hundred"):
            current, last = current + _SPANISH_UNITS[word], "unit"
        elif word == "y" and last == "tens" and following in _SPANISH_AFTER_Y:
            current, last = current + _SPANISH_AFTER_Y[following], "unit"
            i += 1
        else:
            break
        i += 1
    return i, total + current


_CHINESE_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5}
_CHINESE_DIGITS |= {"六": 6, "七": 7, "八": 8, "九": 9}
_CHINESE_SCALES = {"十": 10, "百": 100, "千": 1000}  # within a group of four digits
_DECIMAL = r"\d+(?:\.\d+)?"
_NUMERALS = "零〇一二两三四五六七八九十百千万亿"
# The measure words a Chinese count takes before the noun it counts ("三个连接", "两条线").
CHINESE_MEASURES = "个条项位台件份组"
# A Chinese count is a numeral before a classifier ("三个", "二十秒", "3万次"); without one a run
# of numerals is often a word ("十分", very). "第" makes a position ("第三方", third-party). A
# lone "一" is "a" as often as one, as "one" is in English.
_CHINESE_COUNT = re.compile(
    rf"(?<![第\d.{_NUMERALS}])((?:{_DECIMAL})?(?:[{_NUMERALS}]+{_DECIMAL})*[{_NUMERALS}]+)"
    rf"(?=[{CHINESE_MEASURES}]|次|秒|毫秒|分钟|小时|天|周|月|年|种|步|倍|行|类|层|字节)"
)
_NUMERAL_PART = re.compile(rf"{_DECIMAL}|.")


def chinese_in_digits(text: str) -> str:
    """`text` with each Chinese numeral that counts something written in digits ("十二万个" is
    "120000个", "3万次" is "30000次"), so it is read as one number, digits and all."""
    return _CHINESE_COUNT.sub(_in_digits, text)


def _in_digits(match: re.Match[str]) -> str:
    numeral = match.group(1)
    if numeral == "一":
        return numeral
    if all(char in _CHINESE_DIGITS for char in numeral) and len(numeral) > 1:
        # Digits without a scale: three or more are written one by one ("二〇二四年" is 2024);
        # two are a range as often ("三四个", three or four), and stay unread.
        if len(numeral) == 2 or "两" in numeral:
            return numeral
        return "".join(str(_CHINESE_DIGITS[char]) for char in numeral)
    return _chinese_value(numeral)


def _chinese_value(numeral: str) -> str:
    """The value of a numeral, in groups of four digits: "十二万" is (10 + 2) x 10^4, "一亿二千万"
    is 10^8 + 2000 x 10^4; a digit run counts as one digit does ("3万" is 3 x 10^4)."""
    yi, wan, group, current = 0.0, 0.0, 0.0, 0.0
    for part in _NUMERAL_PART.findall(numeral):
        if part == "亿":
            yi, wan, group, current = yi + ((wan + group + current) or 1) * 10**8, 0, 0, 0
        elif part == "万":
            wan, group, current = wan + ((group + current) or 1) * 10**4, 0, 0
        elif part in _CHINESE_SCALES:
            group, current = group + (current or 1) * _CHINESE_SCALES[part], 0
        else:
            current = float(part) if part[0].isdigit() else _CHINESE_DIGITS[part]
    value = yi + wan + group + current
    return str(int(value)) if value == int(value) else str(value)
