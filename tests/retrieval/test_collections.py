"""Incremental scans: only new or changed files are read and chunked."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from retrieval.collections import CollectionSnapshot, ScanChanges, scan_collection
from retrieval.config import CollectionConfig, SearchConfig
from retrieval.errors import DocbotError
from retrieval.tokens import TokenCounter
from tests.retrieval.ingest_fakes import WordCounter
from tests.retrieval.test_files import broken_checkout, too_deep_to_list

SEARCH = SearchConfig(chunk_tokens=50)


def _write(root: Path, name: str, body: str) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body, encoding="utf-8")
    return path


def _docs(root: Path) -> CollectionConfig:
    _write(root, "alpha.md", "# Alpha\n\nThe alpha service rotates keys nightly.\n")
    _write(root, "beta.md", "# Beta\n\nBeta deploys run on Tuesdays.\n")
    _write(root, "gamma/notes.md", "# Gamma\n\nGamma is retired.\n")
    _write(root, "image.md", "\x00\x01binary")
    return CollectionConfig(name="handbook", path=root)


def _scan(
    collection: CollectionConfig,
    counter: TokenCounter,
    previous: CollectionSnapshot | None = None,
) -> tuple[CollectionSnapshot, ScanChanges]:
    return scan_collection(collection, SEARCH, counter, previous)


def test_scan_collection_first_scan_indexes_every_readable_file(tmp_path: Path) -> None:
    snapshot, changes = _scan(_docs(tmp_path), WordCounter())

    assert [r.path for r in snapshot.files] == ["alpha.md", "beta.md", "gamma/notes.md"]
    assert [(s.path, s.reason) for s in snapshot.skipped] == [
        ("image.md", "binary file (NUL bytes)")
    ]
    assert changes == ScanChanges(("alpha.md", "beta.md", "gamma/notes.md"), (), (), 0)
    alpha = snapshot.files[0]
    assert alpha.chunks[0].text == "# Alpha\n\nThe alpha service rotates keys nightly."
    assert alpha.chunks[0].heading_path == ("Alpha",)
    assert alpha.updated and alpha.chunks[0].updated == alpha.updated
    assert alpha.size == (tmp_path / "alpha.md").stat().st_size


def test_scan_collection_rechunks_only_new_and_changed_files(tmp_path: Path) -> None:
    collection = _docs(tmp_path)
    first, _ = _scan(collection, WordCounter())
    # Same size, same mtime, different bytes: a scan that read alpha.md would see "ALPHA".
    alpha = tmp_path / "alpha.md"
    stat = alpha.stat()
    alpha.write_text(alpha.read_text().replace("alpha", "ALPHA"), encoding="utf-8")
    os.utime(alpha, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    _write(tmp_path, "beta.md", "# Beta\n\nBeta deploys moved to Thursdays.\n")
    (tmp_path / "gamma" / "notes.md").unlink()
    _write(tmp_path, "delta.md", "# Delta\n\nDelta is new.\n")
    counter = WordCounter()

    second, changes = _scan(collection, counter, first)

    assert changes == ScanChanges(("delta.md",), ("beta.md",), ("gamma/notes.md",), 1)
    assert [r.path for r in second.files] == ["alpha.md", "beta.md", "delta.md"]
    assert second.files[0] == first.files[0]
    assert "ALPHA" not in second.files[0].chunks[0].text
    assert "Thursdays" in second.files[1].chunks[0].text
    assert not any("alpha" in text.lower() for text in counter.seen)


def test_scan_collection_touched_file_keeps_its_chunks(tmp_path: Path) -> None:
    collection = _docs(tmp_path)
    first, _ = _scan(collection, WordCounter())
    beta = tmp_path / "beta.md"
    os.utime(beta, ns=(beta.stat().st_atime_ns, beta.stat().st_mtime_ns + 5_000_000_000))
    counter = WordCounter()

    second, changes = _scan(collection, counter, first)

    assert changes == ScanChanges((), (), (), 3)
    assert counter.seen == []
    assert second.files[1].chunks == first.files[1].chunks
    assert second.files[1].mtime_ns == beta.stat().st_mtime_ns


def test_scan_collection_file_that_becomes_binary_is_deleted_and_skipped(tmp_path: Path) -> None:
    collection = _docs(tmp_path)
    first, _ = _scan(collection, WordCounter())
    (tmp_path / "beta.md").write_bytes(b"\x00" * 40)

    second, changes = _scan(collection, WordCounter(), first)

    assert changes.deleted == ("beta.md",)
    assert ("beta.md", "binary file (NUL bytes)") in [(s.path, s.reason) for s in second.skipped]


def test_scan_collection_other_chunk_budget_rechunks_everything(tmp_path: Path) -> None:
    collection = _docs(tmp_path)
    first, _ = _scan(collection, WordCounter())

    _, changes = scan_collection(collection, SearchConfig(chunk_tokens=60), WordCounter(), first)

    assert changes.changed == ("alpha.md", "beta.md", "gamma/notes.md")
    assert changes.unchanged == 0


def test_scan_collection_missing_folder_is_an_error_not_an_empty_collection(
    tmp_path: Path,
) -> None:
    collection = CollectionConfig(name="gone", path=tmp_path / "nowhere")

    with pytest.raises(DocbotError, match=r"folder .*nowhere does not exist"):
        _scan(collection, WordCounter())


def test_scan_collection_lists_a_folder_it_cannot_read_as_skipped(tmp_path: Path) -> None:
    collection = _docs(tmp_path)
    unlisted = too_deep_to_list(tmp_path / "gamma")

    snapshot, _ = _scan(collection, WordCounter())

    assert [r.path for r in snapshot.files] == ["alpha.md", "beta.md", "gamma/notes.md"]
    folder, binary = snapshot.skipped
    assert folder.path.startswith(unlisted.relative_to(tmp_path).as_posix() + "/")
    assert folder.reason == "cannot list folder: File name too long"
    assert (binary.path, binary.reason) == ("image.md", "binary file (NUL bytes)")


def test_scan_collection_notes_why_git_dates_were_not_used(tmp_path: Path) -> None:
    collection = _docs(tmp_path)
    broken_checkout(tmp_path, ["alpha.md"])

    snapshot, changes = _scan(collection, WordCounter())

    assert len(snapshot.files) == 3  # dated by mtime instead
    [note] = changes.notes
    assert "git log failed: fatal: bad object HEAD" in note


def test_scan_collection_outside_git_has_no_notes(tmp_path: Path) -> None:
    _, changes = _scan(_docs(tmp_path), WordCounter())

    assert changes.notes == ()
