"""Every link into the manual lands on a heading: `(file.md#anchor)` and `(#anchor)` in the
docs and the README, and `docs/file.md#anchor` in messages the code prints. A heading renamed,
or an anchor mistyped, leaves an admin on the top of the page, or nowhere."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
_FENCED = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
_DOC_LINK = re.compile(r"\]\(((?:[\w./-]+\.md)?)(?:#([\w-]+))?\)")
_CODE_LINK = re.compile(r"docs/([\w-]+\.md)#([\w-]+)")


def _anchors(path: Path) -> set[str]:
    """GitHub's anchors of a Markdown file's headings: lowercased, punctuation dropped, spaces
    as hyphens."""
    text = _FENCED.sub("", path.read_text(encoding="utf-8"))
    return {
        re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        for heading in _HEADING.findall(text)
    }


def _broken(root: Path) -> list[str]:
    """Links to a page that does not exist, or to a heading its page does not have."""
    broken = []
    pages = [*sorted((root / "docs").rglob("*.md")), root / "README.md"]
    for page in pages:
        for target, anchor in _DOC_LINK.findall(page.read_text(encoding="utf-8")):
            if not target and not anchor:
                continue  # `[x]()`
            linked = (page.parent / target).resolve() if target else page
            if not linked.is_file() or (anchor and anchor not in _anchors(linked)):
                broken.append(f"{page.relative_to(root)}: {target}#{anchor}".removesuffix("#"))
    for package in ("bot", "grounding", "retrieval"):
        for source in sorted((root / package).rglob("*.py")):
            for name, anchor in _CODE_LINK.findall(source.read_text(encoding="utf-8")):
                manual = root / "docs" / name
                if not manual.is_file() or anchor not in _anchors(manual):
                    broken.append(f"{source.relative_to(root)}: docs/{name}#{anchor}")
    return broken


def test_every_link_into_the_manual_names_a_heading_that_exists() -> None:
    assert _broken(ROOT) == []


def test_a_link_to_a_missing_page_or_heading_is_found(tmp_path: Path) -> None:
    """The check itself: a page renamed away, a heading renamed, in the docs and in the code."""
    (tmp_path / "docs" / "deploy").mkdir(parents=True)
    (tmp_path / "bot").mkdir()
    (tmp_path / "README.md").write_text("See [setup](docs/setup.md) and [it](docs/deploy.md).\n")
    (tmp_path / "docs" / "deploy.md").write_text("# Deploying\n\n## The container\n")
    (tmp_path / "docs" / "deploy" / "kube.md").write_text(
        "[up](../deploy.md#the-container), [gone](../deploy.md#the-vm), [old](#nothing)\n"
    )
    (tmp_path / "bot" / "cli.py").write_text('HINT = "docs/deploy.md#the-vm, docs/gone.md#x"\n')
    assert _broken(tmp_path) == [
        "docs/deploy/kube.md: ../deploy.md#the-vm",
        "docs/deploy/kube.md: #nothing",
        "README.md: docs/setup.md",
        "bot/cli.py: docs/deploy.md#the-vm",
        "bot/cli.py: docs/gone.md#x",
    ]
