"""The query tokens are a cache of the tokenizer: a file that is damaged, missing or of another
docbot version does not refuse the index. The load warns, naming the file, what is wrong and
`docbot index` (which writes it anew), and questions are tokenized by the model's own
tokenizer, with the same hits. And a build by a docbot of another layout version names its
file apart: it never writes over the file the previous manifest names."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from retrieval.config import Config
from retrieval.index import Index, build_index, index_root
from retrieval.query_tokens import LAYOUT
from retrieval.scopes import ConversationKind, resolve_scope
from tests.retrieval.docs_tree import WordCounter
from tests.retrieval.test_scoped_load import three_collections

QUESTION = "rollback of the payments key"


def _manifest(config: Config) -> dict[str, Any]:
    found: dict[str, Any] = json.loads((index_root(config) / "manifest.json").read_text("utf-8"))
    return found


def _hits(config: Config) -> list[tuple[str, float]]:
    scope = resolve_scope(config, "T1", "CA", ConversationKind.CHANNEL)
    return [(h.chunk.chunk_id, h.score) for h in Index.load(config).search(QUESTION, scope, 5)]


def _rewrite(config: Config, data: bytes) -> None:
    """Put `data` in the query tokens file, the manifest recording it as another docbot's build
    would (its size and sha256): only the file's own words can tell what it is."""
    manifest = _manifest(config)
    entry = manifest["query_tokens"]
    (index_root(config) / str(entry["file"])).write_bytes(data)
    entry["bytes"], entry["sha256"] = len(data), hashlib.sha256(data).hexdigest()
    (index_root(config) / "manifest.json").write_text(json.dumps(manifest), "utf-8")


def _warned(caplog: pytest.LogCaptureFixture) -> str:
    (record,) = [r for r in caplog.records if r.name == "docbot.index"]
    assert record.levelname == "WARNING"
    return record.getMessage()


def _query_tokens_path(config: Config) -> Path:
    return index_root(config) / str(_manifest(config)["query_tokens"]["file"])


def test_a_damaged_query_tokens_file_is_passed_over_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    config = three_collections(tmp_path)
    expected = _hits(config)
    path = _query_tokens_path(config)
    data = bytearray(path.read_bytes())
    data[-5] ^= 0xFF  # in the last table; the manifest's sha256 no longer matches
    path.write_bytes(bytes(data))
    assert _hits(config) == expected
    message = _warned(caplog)
    assert str(path) in message and "is damaged" in message and "`docbot index`" in message

    caplog.clear()
    build_index(config, WordCounter())  # what the warning says to do: the file is whole again
    assert _hits(config) == expected and not caplog.records


def test_a_missing_query_tokens_file_is_passed_over_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    config = three_collections(tmp_path)
    expected = _hits(config)
    path = _query_tokens_path(config)
    path.unlink()
    assert _hits(config) == expected
    assert str(path) in _warned(caplog)


@pytest.mark.parametrize(("version", "words"), [(1, "an older"), (LAYOUT.version + 1, "a newer")])
def test_a_query_tokens_file_of_another_version_says_which_and_what_to_do(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, version: int, words: str
) -> None:
    config = three_collections(tmp_path)
    expected = _hits(config)
    path = _query_tokens_path(config)
    other = path.read_bytes().replace(LAYOUT.magic, b"docbot-query-tokens-%d\n" % version, 1)
    _rewrite(config, other)
    assert _hits(config) == expected
    message = _warned(caplog)
    assert f"was written by {words}, incompatible docbot version" in message
    assert "`docbot index` again" in message


def test_a_build_never_writes_over_another_version_s_query_tokens_file(tmp_path: Path) -> None:
    config = three_collections(tmp_path)
    path = _query_tokens_path(config)
    assert f"-v{LAYOUT.version}-" in path.name
    # An index an older docbot built: its query tokens file is of layout version 1, under the
    # name without a version that docbot gave it.
    older = path.with_name(path.name.replace(f"-v{LAYOUT.version}-", "-"))
    written = path.read_bytes().replace(LAYOUT.magic, b"docbot-query-tokens-1\n", 1)
    path.unlink()
    older.write_bytes(written)
    manifest = _manifest(config)
    manifest["query_tokens"]["file"] = f"vectors/{older.name}"
    manifest["query_tokens"]["sha256"] = hashlib.sha256(written).hexdigest()
    (index_root(config) / "manifest.json").write_text(json.dumps(manifest), "utf-8")

    build_index(config, WordCounter())
    assert _query_tokens_path(config) == path and path.read_bytes()[: len(LAYOUT.magic)] == (
        LAYOUT.magic
    )
    assert not older.exists()  # collected once no manifest names it
