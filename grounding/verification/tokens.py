"""Whether each exact token of a claim (a name, code, a path, a URL) is in what the claim rests
on: as written, in quote form (code layout and markup normalised), part by part when it joins
several, or as the evidence names the same thing (an acronym of a code name, "URL" of a URL)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from grounding.verification.identifiers import (
    appears,
    appears_with_placeholders,
    is_number_token,
    joined_parts,
    names_the_same,
    set_in_prose,
)
from grounding.verification.quotes import quote_form, without_code_comments
from retrieval.text import normalize_text

# An acronym written in capitals is the same name in lowercase code: HTTPX and `httpx.get`.
_ACRONYM = re.compile(r"[A-Z][A-Z0-9]{2,}")
# "URL" names what the evidence writes out as one ("scheme://..."), not a name of its own.
_URL_WORD = re.compile(r"UR[LI]s?")
_SCHEME = re.compile(r"\b[a-z][a-z0-9+.-]*://", re.IGNORECASE)


def token_problem(tokens: Sequence[str], cited: str) -> str | None:
    """The first token not in the cited items as written, nor once code layout and markup are
    normalised on both sides (a one-line `mounts = {...}` of a multi-line example), nor part by
    part when it joins several (`a = f(); b = g(a)`, `prog -m tool --flag`)."""
    written = normalize_text(cited)
    # In quote form as written, and without the comments of its code (`"OPTIONS": {"timeout":
    # 20}` of an example with "# ..." lines around its key), which a line rebuilt leaves out.
    formed = (quote_form(cited), quote_form(without_code_comments(cited)))
    for token in tokens:
        if _token_in(token, written, formed):
            continue
        parts = joined_parts(token)
        if not parts or not all(_token_in(part, written, formed) for part in parts):
            return f"not in the cited evidence: {token!r}"
    return None


def _token_in(token: str, written: str, formed: tuple[str, ...]) -> bool:
    """One exact token is in the cited items (`written` as they are, `formed` in quote form)."""
    if is_number_token(token) or appears(token, written):
        return True
    if _ACRONYM.fullmatch(token) and _names_in_code(token.lower(), written.lower()):
        return True
    if _URL_WORD.fullmatch(token) and _SCHEME.search(written):
        return True  # "the proxy URL" of `proxy='socks5://user:pass@host:port'`
    code = quote_form(token)
    if any(appears(code, form) or appears_with_placeholders(code, form) for form in formed):
        return True
    return names_the_same(token, written) or set_in_prose(token, formed[0])


def _names_in_code(acronym: str, written: str) -> bool:
    """An acronym in lowercase is a word of the evidence, or a part of one of its identifiers:
    "TCP" of `connect_tcp`, "TLS" of `start_tls.started`."""
    return re.search(rf"(?<![^\W_]){re.escape(acronym)}(?![^\W_])", written) is not None
