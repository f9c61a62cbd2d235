"""Finding files, reading them as text with exact line numbering, and dating them."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from retrieval.config import CollectionConfig
from retrieval.file_dates import FileDates, file_dates, parse_git_log
from retrieval.files import (
    Skipped,
    SourceText,
    decode_text,
    find_files,
    glob_regex,
    read_source,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "ingest"
FIXTURE_DOCS = CollectionConfig(name="fixtures", path=FIXTURES)


def _read(name: str, max_bytes: int = 1_000_000) -> SourceText:
    source = read_source(FIXTURE_DOCS, name, max_bytes)
    assert isinstance(source, SourceText), source
    return source


def _skip_reason(name: str) -> str:
    source = read_source(FIXTURE_DOCS, name, 1_000_000)
    assert isinstance(source, Skipped), source
    return source.reason


def _tree(root: Path, *names: str) -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# {name}\n\ntext\n", encoding="utf-8")


def test_find_files_applies_include_and_exclude_and_sorts(tmp_path: Path) -> None:
    _tree(tmp_path, "b.md", "a.rst", "guide/z.md", "guide/drafts/wip.md", "img.png", "x.txt")
    collection = CollectionConfig(
        name="docs", path=tmp_path, include=("**/*.md", "*.rst"), exclude=("**/drafts/**",)
    )

    assert find_files(collection).paths == ("a.rst", "b.md", "guide/z.md")


def test_find_files_ignores_hidden_folders_and_hidden_files(tmp_path: Path) -> None:
    _tree(tmp_path, "keep.md", ".git/HEAD.md", ".venv/lib/readme.md", "docs/.draft.md")

    assert find_files(CollectionConfig(name="docs", path=tmp_path)).paths == ("keep.md",)


def test_find_files_never_follows_symlinks_out_of_the_root(tmp_path: Path) -> None:
    outside, root = tmp_path / "outside", tmp_path / "root"
    _tree(outside, "secret.md", "folder/secret2.md")
    _tree(root, "inside.md")
    (root / "leak.md").symlink_to(outside / "secret.md")
    (root / "leakdir").symlink_to(outside / "folder", target_is_directory=True)
    (root / "alias.md").symlink_to(root / "inside.md")

    assert find_files(CollectionConfig(name="docs", path=root)).paths == ("inside.md",)


def test_find_files_reports_each_symlink_it_does_not_follow(tmp_path: Path) -> None:
    outside, root = tmp_path / "outside", tmp_path / "root"
    _tree(outside, "secret.md", "folder/secret2.md")
    _tree(root, "inside.md", "sub/page.md")
    (root / "leak.md").symlink_to(outside / "secret.md")
    (root / "leakdir").symlink_to(outside / "folder", target_is_directory=True)
    (root / "subdir").symlink_to(root / "sub", target_is_directory=True)
    (root / "alias.md").symlink_to(root / "inside.md")
    (root / "gone.md").symlink_to(root / "missing.md")
    (root / "loop.md").symlink_to(root / "loop.md")
    (root / "image.png").symlink_to(outside / "secret.md")  # not included: not reported

    found = find_files(CollectionConfig(name="docs", path=root))

    assert found.paths == ("inside.md", "sub/page.md")
    not_followed = "symbolic link: not followed, so a collection cannot reach outside its folder"
    broken = "symbolic link: broken (its target is missing or loops)"
    inside = "symbolic link: not followed (its target inside the folder is indexed as itself"
    skipped = [(s.path, s.reason) for s in found.skipped]
    assert skipped[0][0] == "alias.md" and skipped[0][1].startswith(inside)
    assert skipped[1:] == [
        ("gone.md", broken),
        ("leak.md", not_followed),
        ("leakdir/", not_followed),
        ("loop.md", broken),
        ("subdir/", not_followed),
    ]
    assert all(s.collection == "docs" for s in found.skipped)


def test_find_files_says_nothing_of_an_excluded_symlink(tmp_path: Path) -> None:
    outside, root = tmp_path / "outside", tmp_path / "root"
    _tree(outside, "secret.md", "folder/secret2.md")
    _tree(root, "inside.md")
    (root / "vendor").mkdir()
    (root / "vendor" / "leak.md").symlink_to(outside / "secret.md")
    (root / "linked").symlink_to(outside / "folder", target_is_directory=True)
    collection = CollectionConfig(name="docs", path=root, exclude=("vendor/**", "linked/**"))

    assert find_files(collection).skipped == ()


def test_glob_regex_double_star_spans_folders_and_single_star_does_not() -> None:
    anywhere, top, below = glob_regex("**/*.md"), glob_regex("*.md"), glob_regex("docs/**")

    assert anywhere.fullmatch("a.md") and anywhere.fullmatch("x/y/a.md")
    assert top.fullmatch("a.md") and not top.fullmatch("x/a.md")
    assert below.fullmatch("docs/a/b.txt") and not below.fullmatch("other/docs.md")
    assert glob_regex("v[0-9].md").fullmatch("v1.md") and not glob_regex("v[!0-9].md").fullmatch(
        "v1.md"
    )


def test_read_source_crlf_keeps_line_numbering() -> None:
    source = _read("crlf.md")

    raw = (FIXTURES / "crlf.md").read_bytes()
    assert source.text.split("\n") == raw.decode().split("\r\n")
    assert "\r" not in source.text
    assert source.sha256 == hashlib.sha256(raw).hexdigest()
    assert source.size == len(raw) and source.note == ""


def test_read_source_lone_cr_counts_as_a_line_break() -> None:
    assert _read("classic-mac.txt").text.split("\n")[:4] == [
        "First paragraph.",
        "Still first.",
        "",
        "Second paragraph.",
    ]


def test_read_source_strips_a_utf8_bom() -> None:
    source = _read("bom.md")

    assert source.text.startswith("# BOM title\n")
    assert source.note == ""


def test_read_source_decodes_utf16_with_a_bom() -> None:
    source = _read("utf16.md")

    assert source.text == "# UTF-16 title\n\nCafé in UTF-16.\n"
    assert "utf-16" in source.note


def test_read_source_decodes_latin1_with_a_note() -> None:
    source = _read("latin1.txt")

    assert source.text.startswith("Café crème brûlée.")
    assert source.note == "not UTF-8; decoded as latin-1"


def test_read_source_prefers_cp1252_for_curly_quotes() -> None:
    source = _read("cp1252.txt")

    assert source.text == "It’s “quoted” — in cp1252.\n"
    assert source.note == "not UTF-8; decoded as cp1252"


def test_read_source_skips_binary_and_empty_files_with_reasons() -> None:
    assert _skip_reason("binary.md") == "binary file (NUL bytes)"
    assert _skip_reason("empty.md") == "empty file"
    assert _skip_reason("blank.txt") == "empty file (only whitespace)"


def test_read_source_skips_mostly_control_characters(tmp_path: Path) -> None:
    (tmp_path / "noise.txt").write_bytes(bytes([1, 2, 3, 65, 66, 4, 5, 6, 7]) * 50)

    source = read_source(CollectionConfig(name="d", path=tmp_path), "noise.txt", 10_000)

    assert isinstance(source, Skipped)
    assert source.reason == "binary file (mostly non-text characters)"


def test_read_source_unreadable_file_is_skipped_not_raised(tmp_path: Path) -> None:
    (tmp_path / "folder.md").mkdir()
    (tmp_path / "loop.md").symlink_to(tmp_path / "loop.md")
    collection = CollectionConfig(name="d", path=tmp_path)

    directory = read_source(collection, "folder.md", 10_000)
    looping = read_source(collection, "loop.md", 10_000)
    missing = read_source(collection, "gone.md", 10_000)

    assert isinstance(directory, Skipped) and directory.reason == "not a regular file"
    assert isinstance(looping, Skipped)
    assert looping.reason == "cannot read: Too many levels of symbolic links"
    assert (
        isinstance(missing, Skipped) and missing.reason == "cannot read: No such file or directory"
    )


def test_read_source_truncates_huge_files_at_a_line_boundary(tmp_path: Path) -> None:
    body = "".join(f"line {n} é\n" for n in range(1000)).encode()
    (tmp_path / "huge.txt").write_bytes(body)

    source = read_source(CollectionConfig(name="d", path=tmp_path), "huge.txt", 1001)

    assert isinstance(source, SourceText)
    assert source.note == "truncated at 1001 bytes"
    assert source.text.endswith("\n") and len(source.text.encode()) <= 1001
    assert body.decode().startswith(source.text)
    assert source.sha256 == hashlib.sha256(body).hexdigest() and source.size == len(body)


def test_decode_text_truncated_inside_a_multibyte_character_is_still_utf8() -> None:
    data = "a\néé".encode()[:-1]  # cut inside the last "é"

    assert decode_text(data, truncated=True) == ("a\n", ())


def test_decode_text_invalid_utf16_is_skipped_with_the_position() -> None:
    reason = decode_text(b"\xff\xfe" + "ok".encode("utf-16-le") + b"\x00\xd8\x41\x00")

    assert isinstance(reason, str) and reason.startswith("cannot decode as utf-16-le")


def test_file_dates_without_git_use_the_mtime(tmp_path: Path) -> None:
    _tree(tmp_path, "a.md")
    os.utime(tmp_path / "a.md", (1_600_000_000, 1_600_000_000))  # 2020-09-13 UTC

    assert file_dates(tmp_path, ["a.md"]) == FileDates({"a.md": "2020-09-13"}, "")


def test_file_dates_in_a_git_checkout_use_the_last_commit(tmp_path: Path) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    _tree(tmp_path, "docs/old.md", "docs/new.md", "docs/untracked.md")
    os.utime(tmp_path / "docs/untracked.md", (1_600_000_000, 1_600_000_000))
    _commit(tmp_path, ["docs/old.md", "docs/new.md"], "2021-03-04T05:06:07+00:00")
    (tmp_path / "docs/new.md").write_text("# changed\n", encoding="utf-8")
    _commit(tmp_path, ["docs/new.md"], "2022-07-08T23:30:00-05:00")

    dates, note = file_dates(tmp_path / "docs", ["old.md", "new.md", "untracked.md"])

    assert dates == {"old.md": "2021-03-04", "new.md": "2022-07-09", "untracked.md": "2020-09-13"}
    assert note == ""


# Neither the machine's nor the user's git settings (a `safe.directory = *`) apply in these tests.
_NO_GIT_CONFIG = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def _commit(repo: Path, paths: list[str], when: str = "2021-03-04T05:06:07+00:00") -> None:
    env = {**os.environ, "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when, **_NO_GIT_CONFIG}
    identity = ["-c", "user.name=Docs", "-c", "user.email=docs@example.com"]
    for args in (["init", "-q"], ["add", *paths], [*identity, "commit", "-q", "-m", "docs"]):
        subprocess.run(["git", "-C", str(repo), *args], check=True, env=env, capture_output=True)


def test_parse_git_log_keeps_the_newest_date_per_path() -> None:
    output = "\x011700000000\0\nb.md\0a.md\0\x011600000000\0\na.md\0c.md\0"

    dates = parse_git_log(output, frozenset({"a.md", "b.md"}))

    assert dates == {"a.md": "2023-11-14", "b.md": "2023-11-14"}


def test_read_source_fifo_is_skipped_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.md")
    collection = CollectionConfig(name="d", path=tmp_path)

    source = read_source(collection, "pipe.md", 10_000)

    assert isinstance(source, Skipped) and "named pipe (FIFO)" in source.reason
    assert find_files(collection).paths == ()


def test_parse_git_log_ignores_a_garbled_date() -> None:
    assert parse_git_log("\x01soon\0\na.md\0", frozenset({"a.md"})) == {}


def too_deep_to_list(parent: Path) -> Path:
    """A real folder whose path is over PATH_MAX, so listing it fails with ENAMETOOLONG.

    Made through directory file descriptors; unlike a chmod 000 folder this also fails for root,
    and it takes the same error path as any folder the walk cannot list.
    """
    parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(parent, os.O_RDONLY | os.O_DIRECTORY)
    name = "d" * 200
    try:
        for _ in range(22):
            os.mkdir(name, dir_fd=fd)
            inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = inner
        with open(os.open("lost.md", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "w") as out:
            out.write("# Lost\n\ntext\n")
    finally:
        os.close(fd)
    return parent / name


def test_find_files_reports_a_folder_it_cannot_list(tmp_path: Path) -> None:
    _tree(tmp_path, "keep.md", "deep/kept.md")
    unlisted = too_deep_to_list(tmp_path / "deep")
    collection = CollectionConfig(name="docs", path=tmp_path)

    found = find_files(collection)

    assert found.paths == ("deep/kept.md", "keep.md")
    [skipped] = found.skipped
    assert skipped.collection == "docs"
    assert skipped.path.startswith(unlisted.relative_to(tmp_path).as_posix() + "/")
    assert skipped.path.endswith("/")  # a folder, not a file
    assert skipped.reason == "cannot list folder: File name too long"


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a chmod 000 folder anyway")
def test_find_files_reports_a_folder_without_read_permission(tmp_path: Path) -> None:
    _tree(tmp_path, "keep.md", "locked/secret.md")
    (tmp_path / "locked").chmod(0)
    try:
        found = find_files(CollectionConfig(name="docs", path=tmp_path))
    finally:
        (tmp_path / "locked").chmod(0o755)

    assert found.paths == ("keep.md",)
    assert [(s.path, s.reason) for s in found.skipped] == [
        ("locked/", "cannot list folder: Permission denied")
    ]


def test_find_files_says_nothing_of_an_excluded_folder_it_cannot_list(tmp_path: Path) -> None:
    _tree(tmp_path, "keep.md")
    too_deep_to_list(tmp_path / "archive")
    collection = CollectionConfig(name="docs", path=tmp_path, exclude=("archive/**",))

    found = find_files(collection)

    assert (found.paths, found.skipped) == (("keep.md",), ())


def broken_checkout(repo: Path, paths: list[str]) -> None:
    """Commit `paths`, then lose every commit and tree: `git log` fails with "bad object HEAD"."""
    _needs_git()
    _commit(repo, paths)
    for folder in (repo / ".git" / "objects").glob("??"):
        shutil.rmtree(folder)


def _needs_git() -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")


def test_file_dates_outside_a_checkout_or_before_the_first_commit_say_nothing(
    tmp_path: Path,
) -> None:
    _needs_git()
    _tree(tmp_path, "plain/a.md", "fresh/a.md")
    subprocess.run(["git", "init", "-q", str(tmp_path / "fresh")], check=True, env=_git_env())

    assert file_dates(tmp_path / "plain", ["a.md"]).note == ""
    assert file_dates(tmp_path / "fresh", ["a.md"]).note == ""


def test_file_dates_broken_repository_falls_back_to_mtime_with_gits_reason(
    tmp_path: Path,
) -> None:
    _needs_git()
    _tree(tmp_path, "a.md")
    broken_checkout(tmp_path, ["a.md"])
    os.utime(tmp_path / "a.md", (1_600_000_000, 1_600_000_000))

    dates, note = file_dates(tmp_path, ["a.md"])

    assert dates == {"a.md": "2020-09-13"}
    assert note.startswith("dates are file modification times, not commit dates: ")
    assert "git log failed: fatal: bad object HEAD" in note
    assert f"git -C {tmp_path} log -1" in note


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a checkout to another user")
def test_file_dates_dubious_ownership_is_noted_not_swallowed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _needs_git()
    for name, value in _NO_GIT_CONFIG.items():
        monkeypatch.setenv(name, value)
    repo = tmp_path / "repo"
    _tree(repo, "a.md")
    _commit(repo, ["a.md"])
    for path in (repo, *repo.rglob("*")):
        os.lchown(path, 12345, 12345)

    dates, note = file_dates(repo, ["a.md"])

    assert dates == {"a.md": _mtime(repo / "a.md")}
    assert f"git log failed: fatal: detected dubious ownership in repository at '{repo}'" in note
    assert "\n" not in note  # only git's first line


def test_file_dates_git_that_hangs_is_cut_off_and_noted(tmp_path: Path) -> None:
    _tree(tmp_path, "a.md")
    slow_git = tmp_path / "slow-git"
    slow_git.write_text("#!/bin/sh\nexec sleep 30\n", encoding="utf-8")
    slow_git.chmod(0o755)

    dates, note = file_dates(tmp_path, ["a.md"], git=str(slow_git), timeout=0.5)

    assert dates == {"a.md": _mtime(tmp_path / "a.md")}
    assert note == ("dates are file modification times, not commit dates: git log took over 0.5 s")


def test_file_dates_missing_git_is_noted_only_inside_a_checkout(tmp_path: Path) -> None:
    _tree(tmp_path, "plain/a.md", "repo/docs/a.md")
    (tmp_path / "repo" / ".git").mkdir()
    absent = str(tmp_path / "no-such-git")

    assert file_dates(tmp_path / "plain", ["a.md"], git=absent).note == ""
    dates, note = file_dates(tmp_path / "repo" / "docs", ["a.md"], git=absent)
    assert dates == {"a.md": _mtime(tmp_path / "repo" / "docs" / "a.md")}
    assert note == (
        "dates are file modification times, not commit dates: "
        "cannot run git (No such file or directory)"
    )


def _git_env() -> dict[str, str]:
    return {**os.environ, **_NO_GIT_CONFIG}


def _mtime(path: Path) -> str:
    return datetime.fromtimestamp(path.stat().st_mtime, tz=UTC).date().isoformat()


def test_find_files_a_link_cannot_carry_an_excluded_file_in(tmp_path: Path) -> None:
    # A public handbook excluding payroll/ must not index payroll's file through a link.
    root = tmp_path / "hb"
    _tree(root, "guide.md", "payroll/bands.md")
    (root / "bands-link.md").symlink_to(root / "payroll" / "bands.md")

    found = find_files(CollectionConfig(name="hb", path=root, exclude=("payroll/**",)))

    assert found.paths == ("guide.md",)
    assert [s.path for s in found.skipped] == ["bands-link.md"]
