"""The exact tokens of a claim (URLs, quoted strings, paths, flags, dotted names, versions,
identifiers, numbers): each must appear verbatim, as a whole token, in what the claim rests on."""

from __future__ import annotations

import re

from retrieval.text.markup import CODE_SPAN

_URL = re.compile(r"https?://[^\s<>\"'`)\]]+")
# A code span's backticks are stripped from its token (_token_of): it holds none inside.
_QUOTED = re.compile(
    rf"({CODE_SPAN})"
    r"|\"([^\"\n]+)\"|“([^”\n]+)”|‘([^’\n]+)’|(?<!\w)'([^'\n]+)'(?!\w)|«([^»\n]+)»"
)
_PATH = re.compile(r"(?<![\w/.~-])(?:~|\.{1,2})?/?(?:[\w.-]+/)+[\w.-]*")
_FLAG = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*")
_DOTTED = re.compile(r"\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\b")
_VERSION = re.compile(r"\b[vV]\d+(?:\.\d+)*\b")
_IDENTIFIER = re.compile(
    r"\b\w*_\w*\b"  # snake_case, CONSTANT_NAMES, __dunder__
    r"|\b[a-z]+[A-Z]\w*\b"  # camelCase
    r"|\b[A-Z][a-z0-9]+[A-Z]\w*\b"  # PascalCase with more than one hump
    r"|\b[A-Z][A-Z0-9]{2,}\b"  # CONSTANTS and acronyms
    # letters with digits (h2, utf8); not an ordinal (2nd) nor a unit after a decimal (1.3bn)
    r"|(?<!\d[.,])\b(?=[A-Za-z]*\d)(?=\d*[A-Za-z])(?!\d+(?:st|nd|rd|th)\b)[A-Za-z0-9]+\b"
)
_NUMBER = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)*")
_TRAILING_PUNCTUATION = ".,;:!?"


def without_urls(text: str) -> str:
    """`text` with its URLs blanked: a URL is checked whole, its digits are not numbers."""
    return _URL.sub(" ", text)


# The port of a URL: "http://localhost:8031" is on port 8031.
_URL_PORT = re.compile(r"^https?://[^/:?#]+:(\d{1,5})(?!\d)")


def url_ports(text: str) -> str:
    """The ports `text`'s URLs name, as sentences ("port 8031."): blanked with its URL, a port
    is still a number the text gives ("the proxy on port 8031")."""
    ports = (_URL_PORT.match(m.group()) for m in _URL.finditer(text))
    said = [f"port {p.group(1)}." for p in ports if p is not None]
    return "\n\n" + " ".join(said) if said else ""


def exact_tokens(text: str) -> tuple[str, ...]:
    """The tokens of `text` that must appear verbatim in evidence, by kind, then by position."""
    found: list[str] = []
    remaining = text
    for pattern in (_URL, _QUOTED, _PATH, _FLAG, _DOTTED, _VERSION, _IDENTIFIER, _NUMBER):
        taken: list[tuple[int, int]] = []
        for match in pattern.finditer(remaining):
            token = _token_of(pattern, match, text)
            if token:
                found.append(token)
                taken.append(match.span())
        # Mask what was taken, so a dotted name inside a quoted string is not checked twice;
        # tokens are always cut from the unmasked text.
        for start, end in taken:
            remaining = remaining[:start] + " " * (end - start) + remaining[end:]
    return tuple(dict.fromkeys(found))


def _token_of(pattern: re.Pattern[str], match: re.Match[str], text: str) -> str:
    if pattern is _QUOTED:
        group = next(i for i, g in enumerate(match.groups(), start=1) if g is not None)
        span = text[match.start(group) : match.end(group)]
        return (span.strip("`") if group == 1 else span).strip()  # group 1: a code span
    token = text[match.start() : match.end()]
    if pattern in (_URL, _PATH):
        token = token.rstrip(_TRAILING_PUNCTUATION)
    if pattern is _PATH and not _is_path(token):
        return ""
    if pattern is _DOTTED and all(len(part) == 1 for part in token.split(".")):
        return ""  # e.g. / i.e: abbreviations, not names
    if pattern is _FLAG and match.start() > 0 and text[match.start() - 1] in "`'\")]":
        return ""  # "`dict`-based": a hyphen after code, not a command-line flag
    return token


# What joins the parts of one code span a claim writes on one line: statements after a ";"
# (`auth = Auth(); client = Client(auth=auth)` of two lines of an example), or a command and
# the options it takes at its end (`prog -m tool --sort-keys`, documented one by one).
_STATEMENT_BREAK = re.compile(r"\s*;\s*")
_TRAILING_FLAGS = re.compile(r"(?P<head>\S.*?)(?P<flags>(?:\s+--?[A-Za-z][\w-]*)+)")


def joined_parts(token: str) -> tuple[str, ...]:
    """The parts of a code span that each must appear when the span does not as a whole: its
    statements, or its command and each of its trailing options; () when it joins nothing."""
    statements = [part for part in _STATEMENT_BREAK.split(token.strip()) if part]
    if len(statements) > 1:
        return tuple(statements)
    command = _TRAILING_FLAGS.fullmatch(token.strip())
    if command is None:
        return ()
    return (command.group("head"), *command.group("flags").split())


def is_number_token(token: str) -> bool:
    """A plain number (`5`, `1,000`, `0.5`): checked by value (values.py), not verbatim."""
    return _NUMBER.fullmatch(token) is not None


def _is_path(token: str) -> bool:
    """`and/or` and `HTTP/2` are words; `/etc/hosts`, `docs/api.md`, `a/b/c` are paths."""
    last = token.rsplit("/", 1)[-1]
    return token.startswith(("/", "~", ".")) or token.count("/") >= 2 or "." in last


def appears(token: str, evidence: str) -> bool:
    """`token` occurs in `evidence` as a whole token: `30` is not in `300`, `max` not in `max_x`.
    An empty token (what quote form leaves of a span of markup alone, `**`) occurs nowhere."""
    if not token:
        return False
    if not (token[0].isalnum() or token[0] == "_" or token[-1].isalnum() or token[-1] == "_"):
        return token in evidence
    left = r"(?<![\d])(?<!\d[.,])" if token[0].isdigit() else r"(?<!\w)" if _wordy(token[0]) else ""
    right = r"(?![\d])(?![.,]\d)" if token[-1].isdigit() else r"(?!\w)" if _wordy(token[-1]) else ""
    return re.search(left + re.escape(token) + right, evidence) is not None


# A bare lowercase name passed as a whole positional argument (`open(path, "rb")`): in a claim's
# code rebuilt from an example, the reader's name for what the example passes there.
_PLACEHOLDER = re.compile(r"(?<=[(,])[a-z_][a-z0-9_]*(?=[,)])")
# One positional argument of the example's code in quote form: a literal, a name, an expression
# or a call without nesting; not a keyword argument (no "=" outside a string or a call).
_ARGUMENT = r"(?:\"[^\"]*\"|'[^']*'|[^,()\"'=]|\([^()]*\))+?"


def appears_with_placeholders(code: str, evidence: str) -> bool:
    """`code` (in quote form) appears in `evidence` (in quote form) with each of its bare names
    passed as a positional argument standing for any one argument there: `open(path,"rb")` of
    `open(hashlib.__file__,"rb")`, `stream("GET",url)` of `stream("GET","https://...")`.
    Keywords, their values, literals and every other character are matched as written:
    `timeout=5` of `timeout=10` and `f(x,verify=False)` of `f(x)` are still not there."""
    names = list(_PLACEHOLDER.finditer(code))
    if not names:
        return False
    pattern, at = "", 0
    for name in names:
        pattern += re.escape(code[at : name.start()]) + _ARGUMENT
        at = name.end()
    pattern += re.escape(code[at:])
    left = r"(?<![\w.])" if _wordy(code[0]) else ""
    right = r"(?!\w)" if _wordy(code[-1]) else ""
    return re.search(left + pattern + right, evidence) is not None


# An assignment a claim writes as code (`SESSION_SAVE_EVERY_REQUEST = True`, `x.timeout = 5`).
_ASSIGNMENT = re.compile(r"(?P<name>[A-Za-z_][\w.]*)\s*=\s*(?P<value>[^\s=][^=]*)")


def set_in_prose(code: str, evidence: str) -> bool:
    """`code` is an assignment the evidence states in prose: "set NAME to VALUE", "set the NAME
    setting to VALUE", "NAME is [set to] VALUE" (in quote form, markup gone). The value is the
    one the sentence sets: `X = False` of "set X to True" is not there."""
    assignment = _ASSIGNMENT.fullmatch(code.strip())
    if assignment is None:
        return False
    name, value = (re.escape(v.strip()) for v in assignment.group("name", "value"))
    said = rf"(?<!\w)set\s+(?:the\s+)?{name}(?:\s+[a-z]+)?\s+to\s+{value}(?!\w|\.\w)"
    # The passive says the same: "if DEBUG is set to True", "when `pot.size` is 2".
    passive = rf"(?<![\w.]){name}(?:\s+[a-z]+)?\s+(?:is|are)\s+(?:set\s+to\s+)?{value}(?!\w|\.\w)"
    return any(re.search(p, evidence, re.IGNORECASE) is not None for p in (said, passive))


def _wordy(char: str) -> bool:
    return char.isalnum() or char == "_"


_CALL = re.compile(r"(\.?[A-Za-z_][\w.]*)\(\)")
_CLASS_NAME = re.compile(r"[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+")  # PascalCase with two humps or more
_QUALIFIED = re.compile(r"([a-z_]\w*)\.([A-Z]\w*)")


def names_the_same(token: str, evidence: str) -> bool:
    """`token` names what `evidence` names, written as prose writes it: `validate()` for a
    method the evidence defines with its parameters (``validate(self, password)``) or names
    bare (`.delete()` for `.delete`), a class
    name the evidence writes in the plural ("for AsyncClients"), and a class the evidence
    names bare (`TimeoutException`) qualified by a module the evidence qualifies names with
    (`httpx.TimeoutException` where it writes `httpx.Client`, or "HTTPX"). Not an attribute
    under another owner (`client.is_success` for `response.is_success`): only a class after a
    module."""
    call = _CALL.fullmatch(token)
    if call is not None:
        name = call.group(1)
        defined = re.search(rf"(?<![\w.]){re.escape(name)}\(", evidence)
        return defined is not None or appears(name, evidence) or _names_a_call(token, evidence)
    if _CLASS_NAME.fullmatch(token):
        return re.search(rf"(?<!\w){re.escape(token)}e?s(?!\w)", evidence) is not None
    qualified = _QUALIFIED.fullmatch(token)
    if qualified is not None:
        module, name = qualified.groups()
        if appears(name, evidence) and _is_module(module, evidence):
            return True
    # `shelf.Finder` where the evidence documents ":mod:`shelf`" but never writes `shelf.X`.
    return _names_a_call(token, evidence)


# A name the evidence documents, called with its arguments or qualified by its module or its
# instance: `shutil.which(cmd)`, `@dataclass(frozen=True)`, `functools.cache`, `q.join()`.
_NAMED_CALL = re.compile(
    r"@?(?:(?P<owner>[A-Za-z_]\w*)\.)?(?P<name>[A-Za-z_]\w*)(?:\((?P<args>[^()]*)\))?"
)
_KEYWORD = re.compile(r"([A-Za-z_]\w*)\s*=\s*(.+)")
_LITERAL = re.compile(r"True|False|None|-?\d+(?:\.\d+)?|'[^']*'|\"[^\"]*\"")


def _names_a_call(token: str, evidence: str) -> bool:
    """`token` calls or names what the evidence documents: the name is defined there (`which(`)
    or written bare; each argument is a literal or a word of the evidence and each keyword one
    with the value the evidence gives it; an owner is a module the
    evidence documents (":mod:`shutil`", ".. module:: shutil") or qualifies names with, or the
    instance of a class the evidence qualifies the name with (`q.join()` of ``Queue.join()``)."""
    call = _NAMED_CALL.fullmatch(token)
    if call is None or (call.group("owner") is None and call.group("args") is None):
        return False
    owner, name, args = call.group("owner", "name", "args")
    if re.search(rf"(?<!\w){re.escape(name)}\(", evidence) is None and not appears(name, evidence):
        return False
    if owner is not None and not (_documents(owner, evidence) or _instance(owner, name, evidence)):
        return False
    return all(_given(arg.strip(), evidence) for arg in (args or "").split(",") if arg.strip())


def _documents(module: str, evidence: str) -> bool:
    """The evidence documents `module`: ":mod:`shutil`", ".. module:: shutil", imports from it
    in its code (``from contextlib import suppress``, ``import shutil``), or qualifies names with
    it."""
    named = rf"(?::mod:`~?|\.\.[ \t]*(?:current)?module::[ \t]*){re.escape(module)}(?![\w.])"
    name = re.escape(module)
    imported = rf"(?<![\w.])(?:from[ \t]+{name}[ \t]+import|import[ \t]+{name}(?![\w.]))"
    return (
        re.search(named, evidence) is not None
        or re.search(imported, evidence) is not None
        or _is_module(module, evidence)
    )


def _instance(owner: str, name: str, evidence: str) -> bool:
    """`owner` is a lowercase instance of the class the evidence writes `name` under: `q` or
    `queue` of ``Queue.join()``."""
    if not owner.islower():
        return False
    classes = re.findall(rf"(?<![\w.])([A-Z]\w*)\.{re.escape(name)}(?!\w)", evidence)
    return any(cls.lower().startswith(owner) for cls in classes)


def _given(arg: str, evidence: str) -> bool:
    """An argument of a call: a literal, or a name the evidence writes; a keyword with its
    value as the evidence writes them."""
    keyword = _KEYWORD.fullmatch(arg)
    if keyword is not None:
        # A keyword and its value as the evidence writes them: `http2=False` of `http2=True`
        # swaps a value, `insecure=True` invents a keyword.
        key, value = keyword.groups()
        written = rf"(?<![\w.]){re.escape(key)}\s*=\s*{re.escape(value.strip())}(?![\w.])"
        return re.search(written, evidence) is not None
    if _LITERAL.fullmatch(arg):
        return True
    return re.fullmatch(r"[A-Za-z_]\w*", arg) is not None and appears(arg, evidence)


def _is_module(name: str, evidence: str) -> bool:
    """The evidence qualifies names with `name` (`httpx.Client`), or writes it as a product's
    name in capitals ("when using HTTPX"), as a project's docs name their own package."""
    if re.search(rf"(?<![\w.]){re.escape(name)}\.[A-Za-z_]", evidence) is not None:
        return True
    return len(name) > 2 and appears(name.upper(), evidence)
