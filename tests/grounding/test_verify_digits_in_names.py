"""Digits inside a name are no number: `base64`, `sha256`, `stage3` or `0003_rename` give the
evidence no 64, 256 or 3 for a claim's count, and a name's version (`HTTP/1.1`, `utf8`) must
be in the evidence, in a name or alone. Made-up sentences, no benchmark item."""

from __future__ import annotations

from grounding.verification.anchors import terms
from tests.grounding.support_checks import one_item_packet, verify_quoting

ENCODER = one_item_packet(
    "The encoder writes `base64` text to the log, hashed with `sha256`.\n\n"
    "Each worker runs the `stage3` hook once, then the migration `0003_rename` is applied.\n\n"
    "Requests go out over HTTP/2 when the server supports it. Files are read as UTF-8.\n\n"
    "The tool needs Python 3.11 or later.\n",
    path="encoder.md",
)
WRITES = "The encoder writes `base64` text to the log, hashed with `sha256`."
HOOK = "Each worker runs the `stage3` hook once, then the migration `0003_rename` is applied."
HTTP = "Requests go out over HTTP/2 when the server supports it."
UTF = "Files are read as UTF-8."
PYTHON = "The tool needs Python 3.11 or later."


def test_a_names_digits_are_no_count_of_the_evidence() -> None:
    assert not verify_quoting(
        ENCODER, "The encoder writes 64 lines of text to the log.", WRITES
    ).claims
    assert not verify_quoting(ENCODER, "Each worker runs three hooks.", HOOK).claims
    assert not verify_quoting(ENCODER, "The encoder hashes the log 256 times.", WRITES).claims
    assert verify_quoting(ENCODER, "The encoder writes `base64` text to the log.", WRITES).claims


def test_a_names_version_must_be_in_the_evidence() -> None:
    assert verify_quoting(ENCODER, "Requests use HTTP/2 when a server supports it.", HTTP).claims
    assert not verify_quoting(
        ENCODER, "Requests use HTTP/1.1 when the server supports it.", HTTP
    ).claims
    assert verify_quoting(ENCODER, "Files are read as UTF-8.", UTF).claims
    assert not verify_quoting(ENCODER, "Files are read as UTF-16.", UTF).claims
    assert verify_quoting(ENCODER, "The tool needs Python 3.11 or later.", PYTHON).claims
    assert not verify_quoting(ENCODER, "The tool needs Python 3.12 or later.", PYTHON).claims


def test_names_with_digits_read_as_words_and_marked_digits() -> None:
    assert terms("`http2` and HTTP/2") == terms("http2 and http2")
    assert "2" not in terms("Pass `http2=True`.") and "3" not in terms("run `0003_rename`")
    # Digits before letters stay a quantity, and Chinese numerals keep their digits.
    assert "100" in terms("a 100ms timeout") and "3rd" in terms("the 3rd step")
    assert "3" in terms("第3步")


def test_a_names_digits_written_apart_from_the_same_word_are_its_number() -> None:
    assert verify_quoting(
        ENCODER, "Requests go out over HTTP 2 when a server supports it.", HTTP
    ).claims
    assert verify_quoting(ENCODER, "Each worker runs the stage 3 hook once.", HOOK).claims
    assert verify_quoting(
        ENCODER, "Then the migration 0003 is applied, after the hook.", HOOK
    ).claims
    # Not after another word: `base64` is still no 64 of "64 lines".
    assert not verify_quoting(ENCODER, "The encoder writes 64 lines to the log.", WRITES).claims
