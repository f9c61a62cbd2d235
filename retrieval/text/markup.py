"""Markdown and reST line patterns shared by the chunker, the answer-unit splitter and the
extractive generator, and the code spans the verifier reads too: code fences, ATX headings, reST
explicit markup and directives, code spans, and list markers."""

from __future__ import annotations

import re
from collections.abc import Sequence

# A Markdown code fence line: three or more backticks or tildes.
FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
# An ATX heading (CommonMark): up to three spaces, one to six `#`, then space or the line's end;
# group 1 is the marks, group 2 the title without a closing run of `#`.
ATX_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))??(?:[ \t]+#+)?[ \t]*$")

# reST explicit markup (`.. ` starts a comment, directive, target, footnote or substitution),
# and a directive with its name in group 1: `.. note::`, `.. py:function::`, `.. c++:class::`.
REST_EXPLICIT = re.compile(r"^\s*\.\.(?:\s|$)")
REST_DIRECTIVE = re.compile(r"^\s*\.\.[ \t]+([\w.+:-]+?)::(?:\s|$)")
# A Sphinx role's name before its backticked text: `:func:`, `:py:class:`, `:ref:`; group 1 is
# the name without its domain.
REST_ROLE = r":(?:[a-z][\w-]*:)?([a-z][\w-]*):(?=`)"
# reST's code directives, one owner for every reader of them. Their members differ on purpose,
# each saying which of the kinds it takes (`rest_code_directive`):
# - the directives whose body is code written in the document, shown as code (every reader);
REST_CODE_DIRECTIVES = frozenset({"code-block", "code", "sourcecode"})
# - sphinx.ext.doctest's blocks of code and its expected output, written in the document (the
#   verifier reads their lines as code lines, Slack's reply shows them as code blocks);
REST_DOCTEST_DIRECTIVES = frozenset({"doctest", "testcode", "testoutput"})
# - the directive whose code is read from another file, its body only options (the answer-unit
#   splitter takes it as one code unit).
REST_INCLUDE_DIRECTIVES = frozenset({"literalinclude"})

# A code span: between double backticks first (reST literals, and Markdown's way to hold a
# backtick), else single ones, within one line. Read as single ones, "``X``; set it to ``None``"
# gave "; set it to" as code. The one spelling of a code span for the verifier (exact tokens,
# enumerations, the language check) and the extractive generator (a question's code names, an
# answer unit that holds code).
CODE_SPAN = r"``[^`\n]+``|`[^`\n]+`"
_CODE_SPANS = re.compile(CODE_SPAN)

# List markers: a bullet, or a number as Markdown and reST write it ("3." "3)" "(3)" "#.").
BULLET = r"[-*+•]"
NUMBERED = r"\d{1,3}[.)]|#\.|\(\d{1,3}\)"
# A list item's marker and the space after it.
LIST_MARKER = re.compile(rf"^\s*(?:{BULLET}|{NUMBERED})\s+")
# The marker of a numbered item only: a step of a procedure.
NUMBERED_MARKER = re.compile(rf"^\s*(?:{NUMBERED})\s+")


def code_spans(text: str) -> list[str]:
    """What each code span of `text` holds, without its backticks."""
    return [match.group().strip("`") for match in _CODE_SPANS.finditer(text)]


def fence_end(lines: Sequence[str], i: int, opening: str) -> int:
    """The line closing the fence `opening` on line `i`: the same character, at least as many,
    nothing after them (CommonMark). An unclosed fence runs to its last non-blank line."""
    closing = fence_closing(opening)
    for k in range(i + 1, len(lines)):
        if closing.match(lines[k]):
            return k
    last = len(lines) - 1
    while last > i and not lines[last].strip():
        last -= 1
    return last


def fence_closing(opening: str) -> re.Pattern[str]:
    """A line that closes the fence `opening`: the same character, at least as many, nothing
    after them."""
    return re.compile(r"^\s*" + re.escape(opening[0]) + "{" + str(len(opening)) + r",}\s*$")


def rest_code_names(*, doctest: bool, include: bool) -> frozenset[str]:
    """The code directives' names, with sphinx.ext.doctest's blocks when `doctest` and
    `literalinclude` when `include`."""
    names = REST_CODE_DIRECTIVES | (REST_DOCTEST_DIRECTIVES if doctest else frozenset())
    return names | (REST_INCLUDE_DIRECTIVES if include else frozenset())


def rest_code_directive(*, doctest: bool, include: bool) -> re.Pattern[str]:
    """A line opening a code directive (`.. code-block:: sh`) of `rest_code_names`."""
    names = rest_code_names(doctest=doctest, include=include)
    alternatives = "|".join(sorted(map(re.escape, names)))
    return re.compile(rf"^\s*\.\.[ \t]+(?:{alternatives})::")
