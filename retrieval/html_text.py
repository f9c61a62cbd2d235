"""A web page as Markdown text with its headings kept, for the chunker; and the page's links.

A `site:` collection (retrieval/site_source.py) stores each page it crawls as the Markdown this
module writes, so pages are chunked, cited and line-counted like any other document. Sites have
no lines to link to, so the page records, for each heading line it wrote, the heading's anchor
(`id`) on the page: a cited passage links to the page URL with its nearest heading's anchor.

Parsing is selectolax's (the Lexbor HTML5 parser): real pages are not well-formed, and a
parser that follows the HTML5 rules reads them as browsers do.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urldefrag, urljoin

from selectolax.lexbor import LexborHTMLParser, LexborNode

# Never content: page chrome, scripts and controls.
_DROPPED = frozenset(
    [
        "script",
        "style",
        "noscript",
        "template",
        "nav",
        "header",
        "footer",
        "aside",
        "form",
        "button",
        "select",
        "svg",
        "iframe",
        "object",
        "canvas",
        "dialog",
        "head",
    ]
)
# Read as part of the running text of a paragraph.
_INLINE = frozenset(
    [
        "a",
        "abbr",
        "b",
        "bdi",
        "bdo",
        "cite",
        "code",
        "data",
        "dfn",
        "em",
        "font",
        "i",
        "ins",
        "kbd",
        "mark",
        "q",
        "s",
        "samp",
        "small",
        "span",
        "strong",
        "sub",
        "sup",
        "time",
        "tt",
        "u",
        "var",
        "wbr",
        "del",
        "label",
        "img",
        "br",
    ]
)
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
# The permalink mark documentation generators put in a heading (Sphinx's pilcrow, MkDocs' #).
_PERMALINK_TEXT = frozenset({"¶", "#", "§", "🔗", ""})
_SPACE = re.compile(r"\s+")
_FENCE_RUN = re.compile(r"`{3,}")


@dataclass(frozen=True, slots=True)
class PageText:
    title: str
    text: str  # Markdown: headings as `#` lines, code fenced, lists, tables, quotes
    anchors: tuple[tuple[int, str], ...]  # (1-based line of a heading in `text`, its anchor id)
    links: tuple[str, ...]  # absolute URLs of the page's links, fragments removed, in order


def page_text(html: str, url: str) -> PageText:
    """The readable content of `html` (its `main`, `article` or `[role=main]` element when it
    has one, else its body) as Markdown, with the heading anchors and the links of `url`."""
    tree = LexborHTMLParser(html)
    base = url
    base_tag = tree.css_first("base[href]")
    if base_tag is not None:
        base = urljoin(url, base_tag.attributes.get("href") or "")
    links = _links(tree, base)
    title_node = tree.css_first("title")
    title = _collapse(title_node.text()) if title_node is not None else ""
    root = (
        tree.css_first("main")
        or tree.css_first("[role=main]")
        or tree.css_first("article")
        or tree.body
    )
    writer = _Writer()
    if root is not None:
        _blocks(root, writer)
    text, anchors = writer.finish()
    return PageText(title, text, anchors, links)


def _links(tree: LexborHTMLParser, base: str) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for node in tree.css("a[href]"):
        href = (node.attributes.get("href") or "").strip()
        if not href or href.startswith(("#", "mailto:", "javascript:", "tel:", "data:")):
            continue
        seen.setdefault(urldefrag(urljoin(base, href)).url, None)
    return tuple(seen)


class _Writer:
    """Collects Markdown blocks separated by blank lines, and the line of each heading."""

    def __init__(self) -> None:
        self.blocks: list[tuple[str, str]] = []  # (block text, anchor id of a heading or "")
        self.inline: list[str] = []
        self.prefix = ""  # "> " inside a blockquote

    def add_inline(self, text: str) -> None:
        self.inline.append(text)

    def flush(self) -> None:
        text = _collapse("".join(self.inline))
        self.inline.clear()
        if text:
            self.block(_escape_line_start(text))

    def block(self, text: str, anchor: str = "") -> None:
        if self.prefix:
            text = "\n".join(
                self.prefix + line if line else self.prefix.rstrip() for line in text.split("\n")
            )
        self.blocks.append((text, anchor))

    def finish(self) -> tuple[str, tuple[tuple[int, str], ...]]:
        self.flush()
        lines: list[str] = []
        anchors: list[tuple[int, str]] = []
        for text, anchor in self.blocks:
            if lines:
                lines.append("")
            if anchor:
                anchors.append((len(lines) + 1, anchor))
            lines.extend(text.split("\n"))
        return ("\n".join(lines) + "\n" if lines else ""), tuple(anchors)


def _blocks(node: LexborNode, out: _Writer) -> None:
    for child in node.iter(include_text=True):
        tag = child.tag or ""
        if tag == "-text":
            out.add_inline(child.text_content or "")
        elif tag in _DROPPED or tag.startswith("-") or _hidden(child):
            continue
        elif tag in _INLINE:
            out.add_inline(_inline(child))
        else:
            out.flush()
            _block(child, tag, out)
    out.flush()


def _block(node: LexborNode, tag: str, out: _Writer) -> None:
    if tag in _HEADINGS:
        text = _collapse(_inline(node))
        if text:
            out.block("#" * _HEADINGS[tag] + " " + text, _anchor(node))
    elif tag == "pre":
        out.block(_fenced(node))
    elif tag in ("ul", "ol"):
        lines = _list_lines(node, ordered=tag == "ol", depth=0)
        if lines:
            out.block("\n".join(lines))
    elif tag == "table":
        rows = _table_rows(node)
        if rows:
            out.block("\n".join(rows))
    elif tag == "blockquote":
        outer = out.prefix
        out.prefix = outer + "> "
        _blocks(node, out)
        out.prefix = outer
    elif tag == "dl":
        for item in node.iter():
            text = _collapse(_inline(item))
            if item.tag == "dt" and text:
                out.block(f"**{text}**")
            elif item.tag == "dd":
                _blocks(item, out)
    elif tag == "hr":
        return
    else:  # p, div, section, li outside a list, figure, details, ...
        _blocks(node, out)


def _inline(node: LexborNode) -> str:
    tag = node.tag or ""
    if tag == "-text":
        return node.text_content or ""
    if tag in _DROPPED or _hidden(node) or _permalink(node):
        return ""
    if tag == "br":
        return " "
    if tag == "img":
        return node.attributes.get("alt") or ""
    if tag in ("code", "kbd", "samp", "tt"):
        text = _collapse(node.text(deep=True))
        return f"`{text}`" if text and "`" not in text else text
    return "".join(_inline(child) for child in node.iter(include_text=True))


def _fenced(node: LexborNode) -> str:
    code = node.text(deep=True).strip("\n")
    longest = max((len(run) for run in _FENCE_RUN.findall(code)), default=2)
    fence = "`" * max(3, longest + 1)
    language = ""
    for element in (node, node.css_first("code")):
        if element is None:
            continue
        for name in (element.attributes.get("class") or "").split():
            if name.startswith(("language-", "lang-")):
                language = name.split("-", 1)[1]
    return f"{fence}{language}\n{code}\n{fence}"


def _list_lines(node: LexborNode, *, ordered: bool, depth: int) -> list[str]:
    lines: list[str] = []
    number = 0
    for item in node.iter():
        if item.tag != "li":
            continue
        number += 1
        marker = f"{number}." if ordered else "-"
        text_parts: list[str] = []
        nested: list[str] = []
        for child in item.iter(include_text=True):
            if child.tag in ("ul", "ol"):
                nested.extend(_list_lines(child, ordered=child.tag == "ol", depth=depth + 1))
            elif child.tag == "pre":
                text_parts.append(" " + _collapse(child.text(deep=True)))
            else:
                text_parts.append(_inline(child))
        text = _collapse("".join(text_parts))
        if text:
            lines.append("  " * depth + f"{marker} {text}")
        lines.extend(nested)
    return lines


def _table_rows(node: LexborNode) -> list[str]:
    rows = []
    for row in node.css("tr"):
        cells = [
            _collapse(_inline(cell)).replace("|", "\\|")
            for cell in row.iter()
            if cell.tag in ("td", "th")
        ]
        if any(cells):
            rows.append("| " + " | ".join(cells) + " |")
    if rows:
        width = rows[0].count(" | ") + 1
        rows.insert(1, "|" + "---|" * width)
    return rows


def _anchor(heading: LexborNode) -> str:
    """The id a link to this heading uses: its own, a named anchor inside it, or that of the
    section it opens (Sphinx puts the id on the section)."""
    if heading.id:
        return heading.id
    inner = heading.css_first("a[id], a[name], span[id]")
    if inner is not None:
        return inner.attributes.get("id") or inner.attributes.get("name") or ""
    parent = heading.parent
    if parent is not None and parent.tag in ("section", "div") and parent.id:
        first = next((c for c in parent.iter() if c.tag != "-text"), None)
        if first is not None and first.mem_id == heading.mem_id:
            return parent.id
    return ""


def _permalink(node: LexborNode) -> bool:
    href = node.attributes.get("href") or ""
    return node.tag == "a" and href.startswith("#") and node.text().strip() in _PERMALINK_TEXT


def _hidden(node: LexborNode) -> bool:
    attributes = node.attributes
    return "hidden" in attributes or attributes.get("aria-hidden") == "true"


def _collapse(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def _escape_line_start(text: str) -> str:
    """A paragraph that starts like Markdown syntax would be read as a heading or list."""
    return "\\" + text if text[0] in "#>|-*+`=" else text
