"""A `git:` collection: cloned, synced on each build, following edits, deletions and
force-pushes, and answering from its last good sync when the remote is gone."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from retrieval.build import build_index
from retrieval.config import Config, load_config
from retrieval.errors import ConfigError, DocbotError
from retrieval.index import Index
from retrieval.scopes import ConversationKind, Scope, resolve_scope
from retrieval.sources import SyncOutcome, sync_sources
from tests.git_repos import Remote, git, needs_git

pytestmark = needs_git

DEPLOY = "# Deploys\n\nDeploys go out from the release branch every weekday.\n"
SCOPE = Scope("T1", "C1", ConversationKind.CHANNEL, ("platform",))
ONCALL = "# On-call\n\nThe on-call rota lives in the ops calendar.\n"


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, minutes: int) -> None:
        self.now += timedelta(minutes=minutes)


@pytest.fixture
def remote(tmp_path: Path) -> Remote:
    remote = Remote(tmp_path / "upstream")
    remote.commit({"docs/deploy.md": DEPLOY}, "deploys", date="2026-01-05T10:00:00Z")
    remote.commit(
        {"docs/oncall.md": ONCALL, "README.md": "# Repo\n\nThe platform team docs.\n"},
        "on-call",
        "2026-02-10",
    )
    remote.push()
    return remote


def _config(tmp_path: Path, remote: Remote, extra: str = "") -> Config:
    path = tmp_path / "docbot.yml"
    path.write_text(
        "teams: [T1]\nretrieval: {dense: false}\ncollections:\n"
        f"  - name: platform\n    git: {remote.url}\n{extra}",
        encoding="utf-8",
    )
    return load_config(path)


@pytest.fixture
def clock() -> Iterator[Clock]:
    yield Clock()


def _build(config: Config, clock: Clock) -> tuple[SyncOutcome, ...]:
    return build_index(config, sync=lambda c: sync_sources(c, now=clock)).synced


def _files(config: Config) -> dict[str, str]:
    """Indexed path -> its date."""
    index = Index.load(config)
    chunks = index.chunks(SCOPE)
    return {chunk.path: chunk.updated for chunk in chunks}


def _search(config: Config, query: str) -> list[str]:
    hits = Index.load(config).search(query, SCOPE, 5)
    return [hit.chunk.path for hit in hits]


def test_first_index_clones_blobless_and_dates_each_file_by_its_own_last_commit(
    tmp_path: Path, remote: Remote, clock: Clock
) -> None:
    config = _config(tmp_path, remote)
    (outcome,) = _build(config, clock)
    head = git(remote.work, "rev-parse", "HEAD")
    assert (outcome.revision, outcome.previous, outcome.error) == (head, "", "")
    assert outcome.last_success == "2026-12-01T09:00:00Z"
    # Each file keeps its own commit's date, not the tip's: the clone has the history.
    assert _files(config) == {
        "README.md": "2026-02-10",
        "docs/deploy.md": "2026-01-05",
        "docs/oncall.md": "2026-02-10",
    }
    repo = config.collection("platform").folder
    assert git(repo, "config", "remote.origin.partialclonefilter") == "blob:none"
    assert Index.load(config).revisions() == {"platform": head}


def test_an_edit_and_a_deletion_at_the_source_follow_at_the_next_sync(
    tmp_path: Path, remote: Remote, clock: Clock
) -> None:
    config = _config(tmp_path, remote)
    (first,) = _build(config, clock)
    assert _search(config, "on-call rota calendar")[0] == "docs/oncall.md"
    edited = "# Deploys\n\nDeploys go out on Tuesdays only, from the train branch.\n"
    head = remote.commit({"docs/deploy.md": edited, "docs/oncall.md": None}, "edit", "2026-04-01")
    remote.push()
    clock.advance(10)
    (second,) = _build(config, clock)
    assert (second.revision, second.previous) == (head, first.revision)
    assert _files(config) == {"README.md": "2026-02-10", "docs/deploy.md": "2026-04-01"}
    assert "docs/oncall.md" not in _search(config, "on-call rota calendar")
    text = Index.load(config).chunks(SCOPE)
    assert any("Tuesdays only" in chunk.text for chunk in text)


def test_a_force_push_is_followed_to_the_rewritten_commit(
    tmp_path: Path, remote: Remote, clock: Clock
) -> None:
    config = _config(tmp_path, remote)
    _build(config, clock)
    rewritten = remote.rewrite_last({"docs/runbook.md": "# Runbook\n\nPage the SRE lead.\n"}, "x")
    remote.push(force=True)
    (outcome,) = _build(config, clock)
    assert outcome.ok and outcome.revision == rewritten
    # The dropped commit's files are gone; the rewritten history's are there.
    assert set(_files(config)) == {"docs/deploy.md", "docs/runbook.md"}


def test_an_unreachable_remote_keeps_the_last_good_sync_and_says_since_when(
    tmp_path: Path, remote: Remote, clock: Clock
) -> None:
    config = _config(tmp_path, remote)
    (good,) = _build(config, clock)
    remote.commit({"docs/new.md": "# New\n\nNever fetched.\n"}, "new")
    remote.push()
    remote.go_away()
    clock.advance(30)
    (failed,) = _build(config, clock)
    assert not failed.ok and "does not appear to be a git repository" in failed.error
    assert failed.revision == good.revision  # what the index still holds
    assert (failed.last_success, failed.failing_since) == (
        good.last_success,
        "2026-12-01T09:30:00Z",
    )
    # Still dated from git: the blobless clone's history needs no remote to be read.
    assert _files(config) == {
        "README.md": "2026-02-10",
        "docs/deploy.md": "2026-01-05",
        "docs/oncall.md": "2026-02-10",
    }
    clock.advance(30)
    (again,) = _build(config, clock)
    assert again.failing_since == "2026-12-01T09:30:00Z"  # the first failure of the run
    remote.come_back()
    clock.advance(5)
    (back,) = _build(config, clock)
    assert back.ok and back.failing_since == "" and back.last_success == "2026-12-01T10:05:00Z"
    assert "docs/new.md" in _files(config)


def test_a_remote_never_reached_is_an_error_naming_the_collection(
    tmp_path: Path, remote: Remote, clock: Clock
) -> None:
    remote.go_away()
    config = _config(tmp_path, remote)
    with pytest.raises(DocbotError) as caught:
        _build(config, clock)
    message = str(caught.value)
    assert "collection 'platform': cannot clone git " + remote.url in message
    assert "Nothing has been synced from it yet" in message


def test_subdir_indexes_only_that_folder_with_paths_relative_to_it(
    tmp_path: Path, remote: Remote, clock: Clock
) -> None:
    config = _config(tmp_path, remote, "    subdir: docs\n")
    _build(config, clock)
    assert _files(config) == {"deploy.md": "2026-01-05", "oncall.md": "2026-02-10"}


def test_a_subdir_missing_from_the_repository_names_the_key_to_fix(
    tmp_path: Path, remote: Remote, clock: Clock
) -> None:
    config = _config(tmp_path, remote, "    subdir: manuals\n")
    with pytest.raises(DocbotError, match=r"has no folder 'manuals' at commit .*fix `subdir`"):
        _build(config, clock)


def test_branch_reads_that_branch_and_the_default_follows_the_remote_head(
    tmp_path: Path, remote: Remote, clock: Clock
) -> None:
    remote.checkout("release", new=True)
    remote.commit({"docs/release.md": "# Release\n\nFreeze starts Friday.\n"}, "release")
    remote.push("release")
    on_branch = _config(tmp_path, remote, "    branch: release\n")
    (outcome,) = _build(on_branch, clock)
    assert outcome.source == f"git {remote.url} (branch release)"
    assert "docs/release.md" in _files(on_branch)
    default = _config(tmp_path, remote)
    _build(default, clock)
    assert "docs/release.md" not in _files(default)  # main, the remote's HEAD


def test_a_private_git_collection_is_read_only_by_its_channels(
    tmp_path: Path, remote: Remote, clock: Clock
) -> None:
    config = _config(tmp_path, remote, "    access: private\n    channels: [C0PAY]\n")
    _build(config, clock)
    index = Index.load(config)
    elsewhere = resolve_scope(config, "T1", "C0GEN", ConversationKind.CHANNEL)
    allowed = resolve_scope(config, "T1", "C0PAY", ConversationKind.CHANNEL)
    assert elsewhere.collections == () and index.search("on-call rota", elsewhere, 5) == ()
    assert [hit.chunk.path for hit in index.search("on-call rota", allowed, 1)] == [
        "docs/oncall.md"
    ]


def test_a_subdir_that_is_a_symbolic_link_in_the_repository_is_not_followed(
    tmp_path: Path, remote: Remote, clock: Clock
) -> None:
    # The repository's content must not choose what docbot reads outside it.
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret\n\nThe root password is swordfish.\n")
    (remote.work / "manuals").symlink_to(outside, target_is_directory=True)
    git(remote.work, "add", "manuals")
    git(remote.work, "commit", "--quiet", "-m", "link")
    remote.push()
    config = _config(tmp_path, remote, "    subdir: manuals\n")
    with pytest.raises(DocbotError, match="'manuals' is a symbolic link in the repository"):
        _build(config, clock)


def test_a_private_subdir_of_a_public_git_collection_is_refused_like_nested_folders(
    tmp_path: Path, remote: Remote, clock: Clock
) -> None:
    # As with a public folder holding a private one: a file both index would leak.
    path = tmp_path / "docbot.yml"
    path.write_text(
        "teams: [T1]\nretrieval: {dense: false}\ncollections:\n"
        f"  - name: platform\n    git: {remote.url}\n"
        f"  - name: oncall\n    git: {remote.url}\n    subdir: docs\n"
        "    access: private\n    channels: [C0OPS]\n",
        encoding="utf-8",
    )
    with pytest.raises(ConfigError, match=r"indexed by both collection 'platform' .* 'oncall'"):
        _build(load_config(path), clock)


def test_two_collections_of_one_repository_share_its_clone_and_commit(
    tmp_path: Path, remote: Remote, clock: Clock
) -> None:
    path = tmp_path / "docbot.yml"
    path.write_text(
        "teams: [T1]\nretrieval: {dense: false}\ncollections:\n"
        f"  - name: platform\n    git: {remote.url}\n    exclude: ['docs/**']\n"
        f"  - name: ops\n    git: {remote.url}\n    subdir: docs\n",
        encoding="utf-8",
    )
    config = load_config(path)
    outcomes = _build(config, clock)
    assert [o.collection for o in outcomes] == ["platform", "ops"]
    assert len({o.revision for o in outcomes}) == 1
    assert len(list((tmp_path / ".docbot" / "sources").iterdir())) == 1


def test_changing_the_branch_makes_a_new_clone_and_removes_the_old(
    tmp_path: Path, remote: Remote, clock: Clock
) -> None:
    remote.checkout("release", new=True)
    remote.push("release")
    _build(_config(tmp_path, remote), clock)
    (old,) = (tmp_path / ".docbot" / "sources").iterdir()
    config = _config(tmp_path, remote, "    branch: release\n")
    _build(config, clock)
    (new,) = (tmp_path / ".docbot" / "sources").iterdir()
    assert new != old and config.collection("platform").folder == new / "repo"
