"""Code in a claim as Slack shows code: one plain ``` block. Slack's code blocks take no
language tag (Markdown's "```yaml" would show "yaml" as code), and Slack knows no reST, so a
`.. code-block::` directive or a `::` literal block, quoted from a reST file, is turned into
a block of its own lines, unindented; the `::` that introduces a literal block reads as `:`,
as it does in the built documentation."""

from __future__ import annotations

import re
import textwrap

from retrieval.blocks import blank, indent
from retrieval.text.markup import FENCE, REST_CODE_DIRECTIVES, REST_DIRECTIVE

FENCE_INFO = re.compile(r"^(?:```|~~~)[^\n`]*$", re.MULTILINE)
_OPTION = re.compile(r"^\s+:[\w-]+:")  # a directive's option line (`:linenos:`)
_LITERAL_LEAD = re.compile(r"(?<=\S)::$")  # "like this::" -> "like this:"
_LITERAL_ALONE = re.compile(r"\s*::$")  # "like this ::" and "::" alone lose it


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
        if directive and directive.group(1) in REST_CODE_DIRECTIVES:
            end, body = _indented_body(lines, i, skip_options=True)
            if body:
                out += ["```", *body, "```"]
                i = end
                continue
        if line.rstrip().endswith("::"):
            lead = _LITERAL_LEAD.sub(":", line.rstrip())
            lead = _LITERAL_ALONE.sub("", lead) if lead.endswith("::") else lead
            end, body = _indented_body(lines, i, skip_options=False)
            out += [lead] if lead.strip() else []
            if body:
                out += ["```", *body, "```"]
            i = end if body else i + 1
            continue
        out.append(line)
        i += 1
    return FENCE_INFO.sub("```", "\n".join(out))


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
