"""What a `site:` collection costs `docbot index`: the first crawl, a sync where every page
answers 304 Not Modified, and a sync after one page changed, each with the index run around it
(dense search off, so the numbers are the crawl's and the scan's, not the embedder's).

Usage: python -m benchmarks.site_sync [corpus] [--copies N]   (default: httpx-docs, 20 copies)

The corpus's Markdown is published as HTML on a loopback server (tests/site_pages.py), `copies`
times under different paths to make a site of a realistic size; no network time is in these
numbers (add your link's round trips: four requests are in flight at once).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from retrieval.build import BuildReport, build_index
from retrieval.config import load_config
from tests.site_pages import publish_markdown
from tests.site_server import Page, running_site

SHARED = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpora"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("corpus", nargs="?", default="httpx-docs")
    parser.add_argument("--copies", type=int, default=20)
    args = parser.parse_args()
    corpus = (SHARED / args.corpus).resolve()
    if not corpus.is_dir():
        raise SystemExit(f"{corpus} is absent")
    with running_site() as site, tempfile.TemporaryDirectory() as tmp:
        pages = publish_markdown(site, corpus)
        served = {path: site.pages[path] for path in pages}
        for copy in range(1, args.copies):
            for path, page in served.items():
                site.pages[f"/v{copy}{path}"] = page
        site.sitemap(*sorted(p for p in site.pages if p.endswith("/")))
        total = sum(1 for p in site.pages if p.endswith("/"))
        config_path = Path(tmp) / "docbot.yml"
        config_path.write_text(
            "teams: [T1]\nretrieval: {dense: false}\ncollections:\n"
            f"  - name: site\n    site: {site.url}/\n",
            encoding="utf-8",
        )
        config = load_config(config_path)
        print(f"{args.corpus} x {args.copies}: {total} pages on {site.url}")
        _row("first crawl + index", total, lambda: build_index(config))
        _row("sync, all 304 + index", total, lambda: build_index(config))
        first = sorted(served)[0]
        site.pages[first] = Page(served[first].body + "<p>One more line.</p>", etag='"changed"')
        _row("sync, one page changed + index", total, lambda: build_index(config))


def _row(label: str, pages: int, run: Callable[[], BuildReport]) -> None:
    start = time.perf_counter()
    report = run()
    seconds = time.perf_counter() - start
    (outcome,) = report.synced
    state = "ok" if outcome.ok else f"failed: {outcome.error}"
    print(f"{label:34} {seconds:7.2f} s  {pages / seconds:8.0f} pages/s  ({state})")


if __name__ == "__main__":
    main()
