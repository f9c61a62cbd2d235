"""Every link into the manual lands on a heading: `(file.md#anchor)` and `(#anchor)` in the
docs and the README, and `docs/file.md#anchor` in messages the code prints. A heading renamed,
or an anchor mistyped, leaves an admin on the top of the page, or nowhere."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
_FENCED = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
_DOC_LINK = re.compile(r"\]\(((?:[\w./-]+\.md)?)#([\w-]+)\)")
_CODE_LINK = re.compile(r"docs/([\w-]+\.md)#([\w-]+)")


def _anchors(path: Path) -> set[str]:
    """GitHub's anchors of a Markdown file's headings: lowercased, punctuation dropped, spaces
    as hyphens."""
    text = _FENCED.sub("", path.read_text(encoding="utf-8"))
    return {
        re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        for heading in _HEADING.findall(text)
    }


def _broken() -> list[str]:
    broken = []
    pages = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]
    for page in pages:
        for target, anchor in _DOC_LINK.findall(page.read_text(encoding="utf-8")):
            linked = (page.parent / target).resolve() if target else page
            if linked.is_file() and anchor not in _anchors(linked):
                broken.append(f"{page.relative_to(ROOT)}: {target}#{anchor}")
    for package in ("bot", "grounding", "retrieval"):
        for source in sorted((ROOT / package).rglob("*.py")):
            for name, anchor in _CODE_LINK.findall(source.read_text(encoding="utf-8")):
                if anchor not in _anchors(ROOT / "docs" / name):
                    broken.append(f"{source.relative_to(ROOT)}: docs/{name}#{anchor}")
    return broken


def test_every_link_into_the_manual_names_a_heading_that_exists() -> None:
    assert _broken() == []
