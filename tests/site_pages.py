"""HTML pages made from a folder of Markdown, as a docs site generator would publish them:
one page per file at `/<path without .md>/`, each heading with a slug `id`."""

from __future__ import annotations

import re
from pathlib import Path

from markdown_it import MarkdownIt

from tests.site_server import Page, SiteServer, html

_HEADING = re.compile(r"<h([1-6])>(.*?)</h\1>", re.S)
_TAGS = re.compile(r"<[^>]+>")


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", _TAGS.sub("", text).lower()).strip("-")


def publish_markdown(site: SiteServer, folder: Path) -> dict[str, Path]:
    """Serve every .md under `folder` as an HTML page with a sitemap; page path -> its file."""
    renderer = MarkdownIt("commonmark").enable("table")
    pages = {}
    for source in sorted(folder.rglob("*.md")):
        relative = source.relative_to(folder).with_suffix("").as_posix()
        path = "/" if relative == "index" else f"/{relative}/"
        body = renderer.render(source.read_text(encoding="utf-8"))
        body = _HEADING.sub(lambda m: f"<h{m[1]} id='{slug(m[2])}'>{m[2]}</h{m[1]}>", body)
        site.pages[path] = Page(html(relative, body), etag=f'"{len(body)}"')
        pages[path] = source
    site.sitemap(*pages)
    return pages
