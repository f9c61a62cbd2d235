"""A `site:` collection: crawled from its sitemap (or its links) on a real loopback server,
indexed as Markdown with its headings, linked by page URL and heading anchor, following
removals, keeping the last good copy through failures, and staying on its host."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from retrieval.build import build_index
from retrieval.config import Config, load_config
from retrieval.errors import ConfigError, DocbotError
from retrieval.index import Index
from retrieval.links import url_resolver
from retrieval.scopes import ConversationKind, Scope
from retrieval.sources import SyncOutcome, sync_sources
from tests.site_server import Page, SiteServer, html, running_site

SCOPE = Scope("T1", "C1", ConversationKind.CHANNEL, ("product",))
QUICKSTART = html(
    "Quickstart",
    "<section id='quickstart'><h1>Quickstart<a class='headerlink' href='#quickstart'>¶</a></h1>"
    "<p>Install the client with <code>pip install acme</code>.</p>"
    # Long enough that the next section is a chunk of its own, not merged into this one.
    + "<p>"
    + "The client keeps a pool of connections and reuses them between requests. " * 30
    + "</p></section>"
    + "<section id='timeouts'><h2>Timeouts</h2><p>Requests time out after five seconds by "
    "default; pass <code>timeout=30</code> to wait longer.</p></section>"
    + "<a href='/guide/retries/'>Retries</a><a href='https://elsewhere.example/x'>off host</a>",
)
RETRIES = html(
    "Retries",
    "<h1 id='retries'>Retries</h1><p>Failed requests are retried three times with backoff.</p>",
)


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def site() -> Iterator[SiteServer]:
    with running_site() as server:
        server.pages["/guide/quickstart/"] = Page(QUICKSTART, etag='"q1"')
        server.pages["/guide/retries/"] = Page(
            RETRIES, last_modified="Tue, 03 Nov 2026 10:00:00 GMT"
        )
        server.pages["/blog/news/"] = Page(html("News", "<h1>News</h1><p>Not docs.</p>"))
        server.sitemap("/guide/quickstart/", "/guide/retries/", "/blog/news/")
        yield server


def _config(tmp_path: Path, site: SiteServer, extra: str = "") -> Config:
    path = tmp_path / "docbot.yml"
    path.write_text(
        "teams: [T1]\nretrieval: {dense: false}\ncollections:\n"
        f"  - name: product\n    site: {site.url}/\n    include: ['/guide/**']\n{extra}",
        encoding="utf-8",
    )
    return load_config(path)


def _build(config: Config) -> SyncOutcome:
    (outcome,) = build_index(config, sync=lambda c: sync_sources(c, now=Clock())).synced
    return outcome


def _texts(config: Config) -> dict[str, str]:
    chunks = Index.load(config).chunks(SCOPE)
    return {
        chunk.path: "\n".join(c.text for c in chunks if c.path == chunk.path) for chunk in chunks
    }


def test_a_site_is_indexed_from_its_sitemap_within_include(
    tmp_path: Path, site: SiteServer
) -> None:
    config = _config(tmp_path, site)
    outcome = _build(config)
    assert outcome.ok and outcome.revision and outcome.source == f"site {site.url}/"
    texts = _texts(config)
    assert sorted(texts) == ["guide/quickstart/index.md", "guide/retries/index.md"]
    assert "pip install acme" in texts["guide/quickstart/index.md"]
    assert "¶" not in texts["guide/quickstart/index.md"]  # the permalink mark is chrome
    assert "Home" not in texts["guide/retries/index.md"]  # so is the nav and the footer
    assert site.asked("/blog/news/") == []  # outside include: never fetched


def test_a_passage_links_to_its_page_at_the_nearest_heading(
    tmp_path: Path, site: SiteServer
) -> None:
    config = _config(tmp_path, site)
    _build(config)
    hit = Index.load(config).search("time out after five seconds", SCOPE, 1)[0]
    link = url_resolver(config)(hit.chunk)
    assert link == f"{site.url}/guide/quickstart/#timeouts"
    retries = Index.load(config).search("retried three times backoff", SCOPE, 1)[0]
    assert url_resolver(config)(retries.chunk) == f"{site.url}/guide/retries/#retries"
    assert retries.chunk.updated == "2026-11-03"  # dated by the page's Last-Modified


def test_a_page_gone_from_the_sitemap_or_404_disappears_at_the_next_sync(
    tmp_path: Path, site: SiteServer
) -> None:
    config = _config(tmp_path, site)
    first = _build(config)
    site.sitemap("/guide/quickstart/")
    second = _build(config)
    assert sorted(_texts(config)) == ["guide/quickstart/index.md"]
    assert second.previous == first.revision != second.revision
    site.sitemap("/guide/quickstart/", "/guide/retries/")
    del site.pages["/guide/retries/"]
    third = _build(config)
    assert sorted(_texts(config)) == ["guide/quickstart/index.md"]
    assert any("retries" in note and "404" in note for note in third.notes)


def test_unchanged_pages_are_revalidated_and_a_failing_page_keeps_its_last_copy(
    tmp_path: Path, site: SiteServer
) -> None:
    config = _config(tmp_path, site)
    _build(config)
    site.pages["/guide/retries/"] = Page("oops", status=500)
    outcome = _build(config)
    assert site.asked("/guide/quickstart/")[-1].get("If-None-Match") == '"q1"'
    assert "retried three times" in _texts(config)["guide/retries/index.md"]
    assert any("kept the last good copy" in note and "500" in note for note in outcome.notes)


def test_an_unreachable_site_keeps_the_last_snapshot_and_says_since_when(
    tmp_path: Path, site: SiteServer
) -> None:
    config = _config(tmp_path, site)
    first = _build(config)
    site.pages["/robots.txt"] = Page("down", status=503, content_type="text/plain")
    outcome = _build(config)
    assert not outcome.ok and "503" in outcome.error
    assert outcome.revision == first.revision and outcome.failing_since
    assert "pip install acme" in _texts(config)["guide/quickstart/index.md"]


def test_a_site_never_synced_that_cannot_be_read_is_an_error(
    tmp_path: Path, site: SiteServer
) -> None:
    site.pages["/robots.txt"] = Page("down", status=500, content_type="text/plain")
    with pytest.raises(DocbotError, match="cannot crawl site"):
        _build(_config(tmp_path, site))


def test_robots_txt_is_obeyed(tmp_path: Path, site: SiteServer) -> None:
    site.pages["/robots.txt"] = Page(
        "User-agent: *\nDisallow: /guide/retries/\n", content_type="text/plain"
    )
    config = _config(tmp_path, site)
    outcome = _build(config)
    assert sorted(_texts(config)) == ["guide/quickstart/index.md"]
    assert site.asked("/guide/retries/") == []
    assert any("robots.txt" in note for note in outcome.notes)


def test_without_a_sitemap_links_are_followed_on_the_host_only(
    tmp_path: Path, site: SiteServer
) -> None:
    del site.pages["/sitemap.xml"]
    site.pages["/guide/"] = Page(
        html("Guide", "<h1>Guide</h1><p><a href='quickstart/'>Start here</a></p>")
    )
    path = tmp_path / "docbot.yml"
    path.write_text(
        "teams: [T1]\nretrieval: {dense: false}\ncollections:\n"
        f"  - name: product\n    site: {site.url}/guide/\n",
        encoding="utf-8",
    )
    config = load_config(path)
    _build(config)
    # guide/ -> quickstart/ -> retries/; the off-host link and /blog/ (not under the start) never
    assert sorted(_texts(config)) == ["index.md", "quickstart/index.md", "retries/index.md"]
    assert site.asked("/blog/news/") == []


def _linked_site(tmp_path: Path, site: SiteServer, include: str = "") -> Config:
    """A site without a sitemap whose start page (the site's root, revalidated with an ETag)
    links to the guide."""
    del site.pages["/sitemap.xml"]
    site.pages["/"] = Page(
        html("Home", "<h1>Home</h1><p><a href='/guide/quickstart/'>Guide</a></p>"), etag='"h1"'
    )
    path = tmp_path / "docbot.yml"
    path.write_text(
        "teams: [T1]\nretrieval: {dense: false}\ncollections:\n"
        f"  - name: product\n    site: {site.url}/\n{include}",
        encoding="utf-8",
    )
    return load_config(path)


def test_a_start_page_that_did_not_change_still_leads_to_the_pages_it_links(
    tmp_path: Path, site: SiteServer
) -> None:
    config = _linked_site(tmp_path, site)
    _build(config)
    pages = ["guide/quickstart/index.md", "guide/retries/index.md", "index.md"]
    assert sorted(_texts(config)) == pages
    outcome = _build(config)  # the start page answers 304 Not Modified this time
    assert site.asked("/")[-1].get("If-None-Match") == '"h1"'
    assert sorted(_texts(config)) == pages, outcome.notes


def test_a_linked_page_that_fails_keeps_its_copy_and_still_leads_to_the_pages_it_links(
    tmp_path: Path, site: SiteServer
) -> None:
    config = _linked_site(tmp_path, site)
    _build(config)
    pages = ["guide/quickstart/index.md", "guide/retries/index.md", "index.md"]
    site.pages["/guide/quickstart/"] = Page("oops", status=500)  # the only page linking retries
    outcome = _build(config)
    assert sorted(_texts(config)) == pages, outcome.notes
    assert any("quickstart" in note and "500" in note for note in outcome.notes)


def test_a_snapshot_from_before_links_were_kept_still_keeps_a_failing_pages_copy(
    tmp_path: Path, site: SiteServer
) -> None:
    config = _config(tmp_path, site)
    _build(config)
    (site_json,) = config.state_dir.glob("sources/site-*/site.json")
    stored = json.loads(site_json.read_text(encoding="utf-8"))
    for entry in stored["pages"].values():
        del entry["links"]  # as a docbot from before links were kept wrote it
    site_json.write_text(json.dumps(stored), encoding="utf-8")
    site.pages["/guide/retries/"] = Page("oops", status=500)
    outcome = _build(config)
    assert "retried three times" in _texts(config)["guide/retries/index.md"], outcome.notes
    assert any("kept the last good copy" in note and "500" in note for note in outcome.notes)


def test_a_start_page_outside_include_is_followed_but_not_indexed(
    tmp_path: Path, site: SiteServer
) -> None:
    config = _linked_site(tmp_path, site, "    include: ['/guide/**']\n")
    _build(config)
    assert sorted(_texts(config)) == ["guide/quickstart/index.md", "guide/retries/index.md"]
    _build(config)
    assert sorted(_texts(config)) == ["guide/quickstart/index.md", "guide/retries/index.md"]


def test_slow_and_non_html_pages_are_skipped_with_a_reason(
    tmp_path: Path, site: SiteServer
) -> None:
    site.pages["/guide/slow/"] = Page(html("Slow", "<p>late</p>"), hang=True)
    site.pages["/guide/data.json"] = Page("{}", content_type="application/json")
    site.sitemap("/guide/quickstart/", "/guide/slow/", "/guide/data.json")
    config = _config(tmp_path, site, "    exclude: []\n")
    from retrieval import site_source

    home = config.collection("product").folder.parent
    done = site_source.sync_site(home, f"{site.url}/", ("/guide/**",), (), timeout=0.5)
    assert any("slow" in note and "no answer" in note for note in done.notes)
    assert any("data.json" in note and "application/json" in note for note in done.notes)


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ("    site: https://user:pw@docs.example.com/\n", "credentials"),
        ("    site: ftp://docs.example.com/\n", "not a website URL"),
        ("    site: https://docs.example.com/\n    url: https://x/{path}\n", "remove `url`"),
        ("    site: https://docs.example.com/\n    path: docs\n", "names both"),
        ("    site: https://docs.example.com/\n    branch: main\n", "only applies to a `git:`"),
    ],
)
def test_site_config_mistakes_say_what_to_write(tmp_path: Path, lines: str, message: str) -> None:
    path = tmp_path / "docbot.yml"
    path.write_text(f"teams: [T1]\ncollections:\n  - name: product\n{lines}", encoding="utf-8")
    with pytest.raises(ConfigError, match=message):
        load_config(path)


def test_pages_are_stored_under_safe_relative_names() -> None:
    from retrieval.site_source import page_path

    start = "https://docs.example.com/v2/"
    assert page_path(start, "https://docs.example.com/v2/") == "index.md"
    assert page_path(start, "https://docs.example.com/v2/api/client.html") == "api/client.md"
    assert page_path(start, "https://docs.example.com/v2/a%20b/.hidden") == "a_b/hidden.md"
    assert page_path(start, "https://docs.example.com/v2/x/../../etc/passwd") == "x/etc/passwd.md"
