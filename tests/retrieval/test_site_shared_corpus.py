"""A real docs site: the httpx documentation from ../shared published as HTML on loopback,
crawled from its sitemap, indexed, and answered from with links to the page and heading."""

from __future__ import annotations

from pathlib import Path

import pytest

from retrieval.build import build_index
from retrieval.config import load_config
from retrieval.index import Index
from retrieval.links import url_resolver
from retrieval.scopes import ConversationKind, Scope
from tests.site_pages import publish_markdown, slug
from tests.site_server import running_site

HTTPX = Path(__file__).resolve().parents[3] / "shared" / "corpora" / "httpx-docs"
pytestmark = pytest.mark.skipif(
    not HTTPX.is_dir(), reason=f"{HTTPX} is absent (the shared corpora are not beside this clone)"
)
SCOPE = Scope("T1", "C1", ConversationKind.CHANNEL, ("httpx",))


def test_the_httpx_docs_site_is_crawled_indexed_and_linked_by_heading(tmp_path: Path) -> None:
    with running_site() as site:
        pages = publish_markdown(site, HTTPX)
        path = tmp_path / "docbot.yml"
        path.write_text(
            "teams: [T1]\nretrieval: {dense: false}\ncollections:\n"
            f"  - name: httpx\n    site: {site.url}/\n",
            encoding="utf-8",
        )
        config = load_config(path)
        report = build_index(config)
        (outcome,) = report.synced
        assert outcome.ok, outcome.error
        index = Index.load(config)
        indexed = {chunk.path for chunk in index.chunks(SCOPE)}
        assert len(indexed) == len(pages)
        hit = index.search("how do I set a timeout on requests", SCOPE, 1)[0]
        link = url_resolver(config)(hit.chunk)
        assert link is not None and link.startswith(site.url)
        page, _, anchor = link.partition("#")
        assert page.removeprefix(site.url) in pages
        assert anchor in {slug(h) for h in hit.chunk.heading_path} | {""}
        # A second sync revalidates every page (ETag) and downloads none again.
        asked = len(site.requests)
        again = build_index(config).synced[0]
        assert again.ok and not again.changed
        revalidated = [h for _, h in site.requests[asked:] if "If-None-Match" in h]
        assert len(revalidated) == len(pages)
