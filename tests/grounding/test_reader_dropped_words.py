"""A foreign question's Latin words its reading leaves out because the evidence lacks them still
count as missing: the reading keeps a Spanish question's plain words only when the docs have
them, so "kubernetes" could never be a missing word of "¿cómo despliego django en kubernetes?"."""

from __future__ import annotations

from grounding.evidence import EvidencePacket
from grounding.generators.extractive import shared_embedder
from grounding.generators.question import ask
from grounding.generators.reading import read
from tests.grounding.test_reader import chunk
from tests.grounding.test_reader import packet as reader_packet

VOCABULARY = {"django", "deploy", "server", "timeout", "default"}
TIMEOUTS = "## Timeouts\n\nThe default timeout is 5 seconds. Pass `timeout=None` to wait forever.\n"


def packet(question: str) -> EvidencePacket:
    return reader_packet(question, chunk(TIMEOUTS, "timeouts.md", "Timeouts"))


def test_a_spanish_questions_plain_words_the_evidence_lacks_are_kept_aside() -> None:
    asked = ask("¿cómo despliego django en kubernetes?", VOCABULARY)
    assert asked.foreign and asked.reading == "django"
    # A Spanish word outside the word list ("despliego") is set aside as well: the list cannot
    # tell it from an English name the docs lack.
    assert asked.dropped == ("despliego", "kubernetes")


def test_listed_spanish_words_code_numbers_and_words_the_evidence_has_are_not_set_aside() -> None:
    asked = ask("¿cuál es el timeout de select_for_update en 5000?", VOCABULARY)
    assert asked.foreign and asked.reading == "timeout select_for_update 5000"
    assert asked.dropped == ()


def test_a_question_read_whole_sets_nothing_aside() -> None:
    assert ask("how do I deploy django on kubernetes?", VOCABULARY).dropped == ()
    assert ask("django 怎么用 kubernetes 部署?", VOCABULARY).dropped == ()


def test_a_word_set_aside_counts_among_the_missing_words() -> None:
    embedder = shared_embedder()
    plain = read(packet("¿cuál es el timeout?"), embedder)
    elsewhere = read(packet("¿cuál es el timeout en kubernetes?"), embedder)
    assert plain.asked.reading == elsewhere.asked.reading == "timeout"
    assert elsewhere.asked.dropped == ("kubernetes",)
    assert plain.missing_rare == 0.0 < elsewhere.missing_rare


def test_the_words_read_as_default_are_not_set_aside() -> None:
    # "por defecto" is read as "default": the reading holds it, so it is no missing word.
    for question in ("¿cuál es el timeout por defecto?", "¿cuál es el timeout predeterminado?"):
        asked = ask(question, VOCABULARY)
        assert asked.reading == "timeout default" and asked.dropped == (), question
    assert read(packet("¿cuál es el timeout por defecto?"), shared_embedder()).missing_rare == 0.0
