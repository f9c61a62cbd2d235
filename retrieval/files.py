"""Finding a collection's files and reading them as text, skipping (never failing on) bad ones.

Text comes back with every line break as "\\n", so line N of the text is line N of the file.
"""

from __future__ import annotations

import codecs
import hashlib
import os
import re
import stat as stat_module
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from retrieval.config import CollectionConfig

_SNIFF_BYTES = 8192
_BOMS = (  # UTF-32 first: its little-endian BOM starts with UTF-16's
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
# Control characters that do not occur in text (tab, line breaks, form feed and ESC do).
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f-\x9f]")
_LINE_BREAK = re.compile(r"\r\n?")
_CP1252_ONLY = re.compile(rb"[\x80-\x9f]")
_NOT_FOLLOWED = "symbolic link: not followed, so a collection cannot reach outside its folder"
_LINK_INSIDE = (
    "symbolic link: not followed (its target inside the folder is indexed as itself, if "
    "included), so a link cannot carry an excluded or private file into this collection"
)
_NAME_NOT_UTF8 = (
    "its name is not valid UTF-8, so no link or citation could name it: rename it in UTF-8 to "
    "index it"
)
# Flags that only POSIX has; elsewhere 0 (a FIFO in a collection is a POSIX thing anyway).
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_NOCTTY = getattr(os, "O_NOCTTY", 0)


@dataclass(frozen=True, slots=True)
class SourceText:
    path: str
    text: str
    sha256: str  # of the whole file's bytes, even when the text is truncated
    size: int
    mtime_ns: int
    note: str = ""  # e.g. "decoded as latin-1", "truncated at 5000000 bytes"


@dataclass(frozen=True, slots=True)
class Skipped:
    collection: str
    path: str
    reason: str  # human readable: "binary file (NUL bytes)", "empty file", ...


@dataclass(frozen=True, slots=True)
class FoundFiles:
    paths: tuple[str, ...]  # relative posix paths, sorted
    skipped: tuple[Skipped, ...]  # folders that could not be listed, path ending in "/"


def find_files(collection: CollectionConfig) -> FoundFiles:
    """Relative posix paths under the root that match `include` and not `exclude`, sorted.

    Hidden files and folders (".git", ".venv", ...) are ignored; symlinked folders are not
    entered, and a symlinked file counts only if it points at a file inside the root. A folder
    that cannot be listed, a symlink not followed and a special file (a FIFO, socket or device)
    are reported, unless the patterns leave them out anyway.
    """
    root = collection.folder
    include_globs, exclude_globs = collection.file_globs
    include = tuple(glob_regex(p) for p in include_globs)
    exclude = tuple(glob_regex(p) for p in exclude_globs)
    unlisted: list[OSError] = []
    not_read: list[tuple[str, str]] = []
    found = [
        rel
        for rel in _walk(root, unlisted.append, not_read.append)
        if any(p.fullmatch(rel) for p in include) and not any(p.fullmatch(rel) for p in exclude)
    ]
    skipped = []
    for error in unlisted:
        folder = _folder_path(root, error)
        if not any(p.fullmatch(folder) for p in exclude):
            reason = f"cannot list folder: {error.strerror or error}"
            skipped.append(Skipped(collection.name, folder, reason))
    for rel, reason in not_read:
        # A folder ("x/") is reported unless excluded; a file only if it would be indexed.
        wanted = rel.endswith("/") or any(p.fullmatch(rel) for p in include)
        if wanted and not any(p.fullmatch(rel) for p in exclude):
            skipped.append(Skipped(collection.name, rel, reason))
    return FoundFiles(tuple(sorted(found)), tuple(sorted(skipped, key=lambda s: s.path)))


def _utf8(name: str) -> bool:
    """Whether a name from os.walk was valid UTF-8 (undecodable bytes come as surrogates)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _shown(path: str) -> str:
    """A path with undecodable bytes written as \\xNN escapes, fit for reports and JSON."""
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _walk(
    root: Path,
    on_error: Callable[[OSError], None],
    on_skip: Callable[[tuple[str, str]], None],
) -> Iterator[str]:
    """Regular files below `root`; symlinks (never followed) and special files such as FIFOs
    go to `on_skip` as (path, reason)."""
    real_root = root.resolve()
    for folder, dirs, files in os.walk(root, onerror=on_error, followlinks=False):
        base = Path(folder)
        for name in [d for d in dirs if not d.startswith(".") and not _utf8(d)]:
            on_skip((_shown((base / name).relative_to(root).as_posix()) + "/", _NAME_NOT_UTF8))
        dirs[:] = [d for d in dirs if not d.startswith(".") and _utf8(d)]
        for name in dirs:
            if _is_link(base / name):  # os.walk does not enter it (followlinks=False)
                on_skip(((base / name).relative_to(root).as_posix() + "/", _NOT_FOLLOWED))
        for name in files:
            if name.startswith("."):
                continue
            path = base / name
            if not _utf8(name):  # os.walk gives such bytes as lone surrogates
                on_skip((_shown(path.relative_to(root).as_posix()), _NAME_NOT_UTF8))
                continue
            if _is_link(path):
                reason = _link_reason(path, real_root)
                if reason:
                    on_skip((path.relative_to(root).as_posix(), reason))
                    continue
            special = _special_file_reason(path)
            if special:  # a FIFO would block the reader, a device or socket fail it
                on_skip((path.relative_to(root).as_posix(), special))
                continue
            yield path.relative_to(root).as_posix()


def _special_file_reason(path: Path) -> str:
    """Why a name in the folder that is not a regular file is not read, or "" when it is one."""
    try:
        mode = path.lstat().st_mode
    except OSError as exc:
        return f"cannot read: {exc.strerror or exc}"
    return special_file_reason(mode)


def special_file_reason(mode: int) -> str:
    """ "" for a regular file; else what it is, for the `skipped:` line of `docbot index`."""
    if stat_module.S_ISREG(mode):
        return ""
    if stat_module.S_ISFIFO(mode):
        return "not a regular file but a named pipe (FIFO): not read, as reading one waits"
    if stat_module.S_ISSOCK(mode):
        return "not a regular file but a socket: not read"
    if stat_module.S_ISCHR(mode) or stat_module.S_ISBLK(mode):
        return "not a regular file but a device: not read"
    return "not a regular file"


def _is_link(path: Path) -> bool:
    try:
        return stat_module.S_ISLNK(path.lstat().st_mode)
    except OSError:  # e.g. a name too long to look up: os.walk reports the folder when it fails
        return False


def _link_reason(path: Path, real_root: Path) -> str:
    """Why a symlinked file is not indexed: never, wherever it points.

    A link inside the folder can still point at a file that `exclude`, a hidden folder or a
    nested private collection keeps out, and it would be indexed under the link's own path,
    where the shared-file check cannot see it. The target, if wanted, is indexed as itself.
    """
    # realpath, not Path.resolve: on Python 3.11 resolve raises RuntimeError on a loop.
    target = Path(os.path.realpath(path))
    if not target.exists():
        return "symbolic link: broken (its target is missing or loops)"
    if not target.is_relative_to(real_root):
        return _NOT_FOLLOWED
    return _LINK_INSIDE


def _folder_path(root: Path, error: OSError) -> str:
    """The folder as `sub/folder/` below the root, or `./` for the root itself."""
    try:
        rel = Path(os.fsdecode(error.filename)).relative_to(root).as_posix()
    except (TypeError, ValueError):
        return "./"
    return "./" if rel == "." else rel + "/"


@lru_cache(maxsize=256)
def glob_regex(pattern: str) -> re.Pattern[str]:
    """A glob over the whole relative path: `*` and `?` stay inside one folder, `**` spans any.

    `**/x` also matches `x` at the root, and `docs/**` everything below `docs`.
    """
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        else:
            out.append(_glob_char(pattern, i))
            i += _glob_width(pattern, i)
    return re.compile("".join(out))


def _glob_char(pattern: str, i: int) -> str:
    char = pattern[i]
    if char == "*":
        return "[^/]*"
    if char == "?":
        return "[^/]"
    if char == "[":
        end = pattern.find("]", i + 2)
        if end != -1:
            body = pattern[i + 1 : end].replace("\\", "\\\\")
            return "[^" + body[1:] + "]" if body.startswith("!") else "[" + body + "]"
    return re.escape(char)


def _glob_width(pattern: str, i: int) -> int:
    if pattern[i] == "[":
        end = pattern.find("]", i + 2)
        if end != -1:
            return end - i + 1
    return 1


def read_source(
    collection: CollectionConfig, rel_path: str, max_bytes: int
) -> SourceText | Skipped:
    """Read one file as text; anything that makes it unusable comes back as `Skipped`."""
    path = collection.folder / rel_path
    try:
        special = special_file_reason(path.stat().st_mode)
        if special:
            return Skipped(collection.name, rel_path, special)
        # Non-blocking open and a second look at what was opened: a file swapped for a FIFO
        # after the stat would otherwise block this open (and the whole index build) forever.
        fd = os.open(path, os.O_RDONLY | _NONBLOCK | _NOCTTY)
        with open(fd, "rb") as handle:
            stat = os.fstat(fd)
            special = special_file_reason(stat.st_mode)
            if special:
                return Skipped(collection.name, rel_path, special)
            head = handle.read(max_bytes)
            digest = hashlib.sha256(head)
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError as exc:
        return Skipped(collection.name, rel_path, f"cannot read: {exc.strerror or exc}")
    decoded = decode_text(head, truncated=stat.st_size > len(head))
    if isinstance(decoded, str):
        return Skipped(collection.name, rel_path, decoded)
    text, notes = decoded
    if stat.st_size > len(head):
        notes = (*notes, f"truncated at {max_bytes} bytes")
    return SourceText(
        rel_path, text, digest.hexdigest(), stat.st_size, stat.st_mtime_ns, "; ".join(notes)
    )


def decode_text(data: bytes, truncated: bool = False) -> tuple[str, tuple[str, ...]] | str:
    """`(text, notes)`, or the reason the bytes are not usable text.

    A truncated prefix is cut back to its last line break so no line is half there.
    """
    if not data.strip():
        return "empty file" if not data else "empty file (only whitespace)"
    encoding, bom, notes = _sniff_encoding(data, truncated)
    if encoding is None:
        return notes[0]
    decoder = codecs.getincrementaldecoder(encoding)()
    try:
        # final=False lets a prefix end inside a multi-byte character.
        text = decoder.decode(data[len(bom) :], final=not truncated)
    except UnicodeDecodeError as exc:
        return f"cannot decode as {encoding}: {exc.reason} at byte {exc.start + len(bom)}"
    if truncated:
        text = _cut_at_line_break(text)
    text = _LINE_BREAK.sub("\n", text)
    if not text.strip():
        return "empty file (only whitespace)"
    if len(_CONTROL.findall(text, 0, _SNIFF_BYTES)) * 20 > min(len(text), _SNIFF_BYTES):
        return "binary file (mostly non-text characters)"
    return text, notes


def _sniff_encoding(data: bytes, truncated: bool) -> tuple[str | None, bytes, tuple[str, ...]]:
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return encoding, bom, (() if encoding == "utf-8" else (f"decoded as {encoding}",))
    if b"\x00" in data[:_SNIFF_BYTES]:
        return None, b"", ("binary file (NUL bytes)",)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if not truncated or exc.start < len(data) - 3:  # not a character cut by truncation
            return _single_byte_encoding(data)
    return "utf-8", b"", ()


def _single_byte_encoding(data: bytes) -> tuple[str, bytes, tuple[str, ...]]:
    # cp1252 and latin-1 agree outside 0x80-0x9f; there cp1252 has printable characters
    # (curly quotes, dashes) where latin-1 has C1 controls nobody types.
    if _CP1252_ONLY.search(data):
        try:
            data.decode("cp1252")
        except UnicodeDecodeError:
            pass
        else:
            return "cp1252", b"", ("not UTF-8; decoded as cp1252",)
    return "latin-1", b"", ("not UTF-8; decoded as latin-1",)


def _cut_at_line_break(text: str) -> str:
    cut = max(text.rfind("\n"), text.rfind("\r"))
    if cut == -1:
        return text
    if text[cut] == "\r" and cut + 1 < len(text) and text[cut + 1] == "\n":
        cut += 1
    return text[: cut + 1]
