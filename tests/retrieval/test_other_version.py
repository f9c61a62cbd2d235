"""How an index file's format number is named next to this docbot's: older or newer."""

from __future__ import annotations

from retrieval.errors import other_version


def test_numbers_kept_as_text_compare_as_numbers() -> None:
    assert other_version("9", "10") == "an older"
    assert other_version("10", "9") == "a newer"


def test_integer_formats_and_unrecorded_ones() -> None:
    assert other_version(2, 3) == "an older"
    assert other_version(4, 3) == "a newer"
    assert other_version(None, 3) == "another"
    assert other_version(True, 3) == "another"
