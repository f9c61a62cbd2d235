"""Code and markup in a claim as Slack shows them. Code is one plain ``` block: Slack's code
blocks take no language tag (Markdown's "```yaml" would show "yaml" as code), and Slack knows
no reST, so a `.. code-block::` directive or a `::` literal block, quoted from a reST file, is
turned into a block of its own lines, unindented; the `::` that introduces a literal block
reads as `:`, and a Sphinx role as its text (`:func:`run`` as `run` in code, a link's title as
plain words), as in the built documentation. Outside code, Markdown's bold (`**x**`) is Slack's
(`*x*`) and a Markdown link is its text, with its address when it has one: Slack knows no
`[text](url)`, and links in a reply come only from the collection's `url` template."""

from __future__ import annotations

import re
import textwrap

from retrieval.blocks import blank, indent
from retrieval.text.markup import (
    CODE_SPAN,
    FENCE,
    REST_DIRECTIVE,
    REST_ROLE,
    rest_code_names,
)

FENCE_INFO = re.compile(r"^(?:```|~~~)[^\n`]*$", re.MULTILINE)
# The directives shown as code blocks: code, and doctest blocks' code and output, as the built
# documentation shows them; a literalinclude's code is in another file.
_CODE_DIRECTIVES = rest_code_names(doctest=True, include=False)
_OPTION = re.compile(r"^\s+:[\w-]+:")  # a directive's option line (`:linenos:`)
_LITERAL_LEAD = re.compile(r"(?<=\S)::$")  # "like this::" -> "like this:"
_LITERAL_ALONE = re.compile(r"\s*::$")  # "like this ::" and "::" alone lose it
# A role with its text, not inside a code span; a link role's text may hold its target.
_ROLE = re.compile(rf"(?<![`\w]){REST_ROLE}`([^`\n]+)`")
_TITLED = re.compile(r"^(.*?)\s*<[^<>]+>$", re.DOTALL)  # "the guide <rollback-guide>"
# Roles that link to prose (a section, a page, a glossary term), shown as words, not code.
_LINK_ROLES = frozenset({"ref", "doc", "term", "numref", "abbr", "keyword", "dfn"})
_NUMBERED_ROLES = {"pep": "PEP", "rfc": "RFC"}
_CODE_SPLIT = re.compile(f"({CODE_SPAN})")
_WEB_LINK = re.compile(r"!?\[([^\]\n]+)\]\((https?://[^()\s]+)\)")
_PAGE_LINK = re.compile(r"!?\[([^\]\n]+)\]\([^()\s]+\)")  # another page or an image
# Bold as Markdown and reST both write it; not `__x__`, which reST does not read as bold and
# which prose names such as __init__ are written with.
_BOLD = re.compile(r"(?<![\w*])\*\*(?=\S)(.+?)(?<=\S)\*\*(?![\w*])")


def slack_code(text: str) -> str:
    """`text` with its code blocks written as Slack's ``` blocks."""
    lines = text.split("\n")
    out: list[str] = []
    fence = ""
    i = 0
    while i < len(lines):
        line = lines[i]
        opening = FENCE.match(line)
        if fence or opening:
            if opening and not fence:
                fence = opening.group(1)
            elif opening and line.strip().startswith(fence):
                fence = ""
            out.append(line)
            i += 1
            continue
        directive = REST_DIRECTIVE.match(line)
        if directive and directive.group(1) in _CODE_DIRECTIVES:
            end, body = _indented_body(lines, i, skip_options=True)
            if body:
                out += ["```", *body, "```"]
                i = end
                continue
        if line.rstrip().endswith("::") and not directive:  # `.. note::` opens no code
            lead = _LITERAL_LEAD.sub(":", line.rstrip())
            lead = _LITERAL_ALONE.sub("", lead) if lead.endswith("::") else lead
            end, body = _indented_body(lines, i, skip_options=False)
            out += [lead] if lead.strip() else []
            if body:
                out += ["```", *body, "```"]
            i = end if body else i + 1
            continue
        out.append(_inline(_ROLE.sub(_role_text, line)))
        i += 1
    return FENCE_INFO.sub("```", "\n".join(out))


def _inline(line: str) -> str:
    """Markdown's bold and links of `line` as Slack writes them, its code spans as they are."""
    parts = _CODE_SPLIT.split(line)
    for k in range(0, len(parts), 2):  # the even parts are outside code spans
        text = _PAGE_LINK.sub(r"\1", _WEB_LINK.sub(r"\1 (\2)", parts[k]))
        parts[k] = _BOLD.sub(r"*\1*", text)
    return "".join(parts)


def _role_text(match: re.Match[str]) -> str:
    name, text = match.group(1), match.group(2).strip()
    titled = _TITLED.match(text)
    if titled and titled.group(1):
        return titled.group(1)
    if name in _NUMBERED_ROLES:
        return f"{_NUMBERED_ROLES[name]} {text}"
    if name in _LINK_ROLES:
        return text
    if text.startswith("~"):  # Sphinx shows only the last part of `~deploy.Runner`
        text = text[1:].rsplit(".", 1)[-1]
    return f"`{text.removeprefix('!')}`"


def _indented_body(lines: list[str], i: int, *, skip_options: bool) -> tuple[int, list[str]]:
    """The block indented deeper than line `i` after it (after its option lines), unindented;
    and the line after it."""
    depth, j = indent(lines[i]), i + 1
    while skip_options and j < len(lines) and _OPTION.match(lines[j]):
        j += 1
    body: list[str] = []
    while j < len(lines) and (blank(lines[j]) or indent(lines[j]) > depth):
        body.append(lines[j])
        j += 1
    while body and blank(body[-1]):
        body.pop()
    while body and blank(body[0]):
        body.pop(0)
    return j, textwrap.dedent("\n".join(body)).split("\n") if body else []
