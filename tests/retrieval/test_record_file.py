"""retrieval/record_file.py, the container of the vectors and snapshot files: what it refuses,
with which words, and when (at opening for the part before the records, when read for one)."""

from __future__ import annotations

import hashlib
import io
import struct
from pathlib import Path

import pytest

from retrieval import record_file
from retrieval.errors import IndexNotBuiltError
from retrieval.record_file import BLAKE2B, CRC32, Layout, RecordFile, RecordFileError, Shape

FIX = "run `docbot index` again"
WHERE = "the test file"
RECORDS = [b"alpha", b"", b"a longer third record", b"four"]


class SampleFileError(RecordFileError):
    """What the test layouts raise."""


def _variable(fields: tuple[int, ...]) -> Shape:
    meta, count = fields
    return Shape(count=count, meta=meta, record=None)


def _fixed(fields: tuple[int, ...]) -> Shape:
    count, length = fields
    return Shape(count=count, meta=0, record=length)


VARIABLE = Layout(
    kind=b"docbot-test",
    version=3,
    fields=struct.Struct("<QQ"),
    shape=_variable,
    checksum=BLAKE2B,
    head_damaged="its header or table does not match its checksum",
    record="record",
    error=SampleFileError,
)
FIXED = Layout(
    kind=b"docbot-rows",
    version=1,
    fields=struct.Struct("<QQ"),
    shape=_fixed,
    checksum=CRC32,
    head_damaged="its table does not match its checksum",
    record="row",
    error=SampleFileError,
    padded=32,
)


def _variable_file(records: list[bytes] = RECORDS, meta: bytes = b"the meta") -> bytes:
    buffer = io.BytesIO()
    size, digest = record_file.write(
        buffer,
        VARIABLE,
        (len(meta), len(records)),
        meta,
        records,
        [BLAKE2B.of(record) for record in records],
        [len(record) for record in records],
    )
    data = buffer.getvalue()
    assert (size, digest) == (len(data), hashlib.sha256(data).hexdigest())
    return data


def _fixed_file(rows: list[bytes]) -> bytes:
    buffer = io.BytesIO()
    checksums = [b"".join(map(CRC32.of, rows))]
    record_file.write(buffer, FIXED, (len(rows), len(rows[0])), b"", [b"".join(rows)], checksums)
    return buffer.getvalue()


def _open(data: bytes, layout: Layout = VARIABLE, *, verified: bool = False) -> RecordFile:
    return RecordFile(data, layout, WHERE, FIX, verified=verified)


def _flipped(data: bytes, at: int) -> bytes:
    changed = bytearray(data)
    changed[at] ^= 0x01
    return bytes(changed)


def _resealed(data: bytes, at: int, value: bytes) -> bytes:
    """`data` with `value` written at `at` and the head's sha256 made to match again: a file
    the head's checksum cannot tell from a written one."""
    changed = bytearray(data)
    changed[at : at + len(value)] = value
    sha_at = len(data) - sum(map(len, RECORDS)) - 32
    changed[sha_at : sha_at + 32] = hashlib.sha256(changed[:sha_at]).digest()
    return bytes(changed)


def test_records_are_read_by_position_as_written() -> None:
    data = _variable_file()
    for verified in (False, True):
        opened = _open(data, verified=verified)
        assert opened.fields == (8, 4) and opened.count == 4 and bytes(opened.meta) == b"the meta"
        assert [bytes(opened.record(i)) for i in range(4)] == RECORDS
        assert data.startswith(b"docbot-test-3\n")
    assert [bytes(r) for r in _open(data, verified=True).unchecked(1, 4)] == RECORDS[1:]


def test_spans_copied_into_another_file_are_the_file_written_anew() -> None:
    opened = _open(_variable_file(), verified=True)
    first, rest = opened.span(0, 2), opened.span(2, 4)
    buffer = io.BytesIO()
    record_file.write(
        buffer,
        VARIABLE,
        (8, 4),
        b"the meta",
        [first.records, rest.records],
        [first.checksums, rest.checksums],
        (first.lengths or []) + (rest.lengths or []),
    )
    assert buffer.getvalue() == _variable_file()
    with pytest.raises(ValueError, match="only from a file whose sha256 was checked"):
        _open(_variable_file()).span(0, 2)


@pytest.mark.parametrize("cut", [0, 5, len(b"docbot-test-3\n") + 3, 40, 60])
def test_a_file_cut_short_before_its_records_is_refused_at_opening(cut: int) -> None:
    # 0 and 5: inside the magic; 17: inside the fields; 40 and 60: inside the table.
    with pytest.raises(SampleFileError, match=rf"^{WHERE} is damaged \(the file is cut short\): "):
        _open(_variable_file()[:cut])


def test_a_file_cut_inside_its_records_is_refused_at_opening() -> None:
    data = _variable_file()
    with pytest.raises(SampleFileError, match=r"is damaged \(its records are cut short or too"):
        _open(data[:-3])  # the table's last offset points past the end
    with pytest.raises(SampleFileError, match=r"is damaged \(its rows are cut short or too long"):
        _open(_fixed_file([b"abcd", b"efgh"])[:-1], FIXED)
    with pytest.raises(SampleFileError, match="too long"):
        _open(data + b"x")


def test_a_table_that_puts_a_record_past_the_end_is_refused_when_it_is_read() -> None:
    data = _variable_file()
    offsets_at = len(b"docbot-test-3\n") + 16 + 8
    # Record 1's end (and record 2's start) moved far past the end, the head resealed.
    changed = _resealed(data, offsets_at + 2 * 8, struct.pack("<Q", 10_000))
    opened = _open(changed)
    assert bytes(opened.record(0)) == RECORDS[0]
    for position in (1, 2):
        with pytest.raises(
            SampleFileError,
            match=rf"is damaged \(its table puts record {position} past the end of the file\): ",
        ):
            opened.record(position)
    assert bytes(opened.record(3)) == RECORDS[3]


def test_another_kind_of_file_and_another_version_are_refused_in_words() -> None:
    data = _variable_file()
    with pytest.raises(
        SampleFileError, match=rf"^{WHERE} was written by an incompatible docbot version: {FIX}$"
    ):
        _open(b"\x80\x05a pickle of an older docbot" + data)
    for version, which in ((2, "an older"), (12, "a newer")):
        other = data.replace(b"docbot-test-3\n", b"docbot-test-%d\n" % version, 1)
        with pytest.raises(SampleFileError, match=f"by {which}, incompatible docbot version"):
            _open(other)


def test_a_flipped_byte_in_a_record_is_refused_when_that_record_is_read() -> None:
    data = _variable_file()
    changed = _flipped(data, len(data) - len(RECORDS[3]) - 3)  # inside record 2
    opened = _open(changed)  # the head is intact
    assert [bytes(opened.record(i)) for i in (0, 1, 3)] == [RECORDS[0], RECORDS[1], RECORDS[3]]
    with pytest.raises(
        SampleFileError, match=rf"^{WHERE} is damaged \(record 2 does not match its checksum\): "
    ):
        opened.record(2)
    # Verified (its sha256 matched the manifest's), a record is not checked again.
    assert bytes(_open(changed, verified=True).record(2)) != RECORDS[2]


def test_a_flipped_byte_in_a_fixed_length_row_is_refused_by_its_check() -> None:
    data = _fixed_file([b"abcd", b"efgh", b"ijkl"])
    opened = _open(_flipped(data, len(data) - 6), FIXED)  # inside row 1
    opened.check(0, opened.record(0))
    with pytest.raises(SampleFileError, match=r"\(row 1 does not match its checksum\)"):
        opened.record(1)
    rows = [bytes(opened.records[4 * i : 4 * (i + 1)]) for i in range(3)]  # as read
    opened.check_each([2, 0, 2], [rows[2], rows[0], rows[2]])
    with pytest.raises(SampleFileError, match=r"\(row 1 does not match its checksum\)"):
        opened.check_each([0, 2, 1, 1], [rows[0], rows[2], rows[1], rows[1]])


@pytest.mark.parametrize("at", [len(b"docbot-test-3\n") + 20, 40, -sum(map(len, RECORDS)) - 2])
def test_a_flipped_byte_before_the_records_is_refused_at_opening(at: int) -> None:
    # In the meta part, the offsets, the head's sha256 itself.
    with pytest.raises(SampleFileError, match=r"\(its header or table does not match its check"):
        _open(_flipped(_variable_file(), at))
    _open(_flipped(_variable_file(), at), verified=True)  # verified: its sha256 was checked


def test_reading_checks_the_recorded_size_and_sha256(tmp_path: Path) -> None:
    path = tmp_path / "file"
    data = _variable_file()
    path.write_bytes(data)
    digest = hashlib.sha256(data).hexdigest()
    for mapped in (False, True):
        found = record_file.read(
            path, VARIABLE, WHERE, FIX, size=len(data), sha256=digest, mapped=mapped
        )
        assert bytes(found) == data
        with pytest.raises(
            SampleFileError, match=rf"\(it is {len(data)} bytes, not the 7 docbot index wrote\)"
        ):
            record_file.read(path, VARIABLE, WHERE, FIX, size=7, mapped=mapped)
    path.write_bytes(_flipped(data, len(data) - 1))
    with pytest.raises(SampleFileError, match=r"\(it has changed since docbot index wrote it\)"):
        record_file.read(path, VARIABLE, WHERE, FIX, size=len(data), sha256=digest)
    with pytest.raises(IndexNotBuiltError, match=rf"^{WHERE} is unreadable \(.*\): {FIX}$"):
        record_file.read(tmp_path / "missing", VARIABLE, WHERE, FIX, size=None)
    path.write_bytes(b"")
    empty = record_file.read(path, VARIABLE, WHERE, FIX, size=None, mapped=True)
    with pytest.raises(SampleFileError, match="cut short"):
        _open(bytes(empty))


def test_writing_refuses_records_that_do_not_fit_the_fields() -> None:
    with pytest.raises(ValueError, match="record lengths"):
        record_file.write(io.BytesIO(), VARIABLE, (0, 2), b"", [b"ab"], [b"x" * 32], [2])
    with pytest.raises(ValueError, match="checksums"):
        record_file.write(io.BytesIO(), VARIABLE, (0, 1), b"", [b"ab"], [b"x" * 15], [2])
    with pytest.raises(ValueError, match="bytes of records"):
        record_file.write(io.BytesIO(), FIXED, (2, 4), b"", [b"abcdefg"], [b"x" * 8])
