"""The three ways docbot reads text (search, the extractive generator, the verifier) come from one
tokenizer; each test pins one deliberate difference between them and says why it exists."""

from __future__ import annotations

from retrieval.text import (
    ANSWER_TERMS,
    CLAIM_WORDS,
    EVIDENCE_WORDS,
    SEARCH,
    Tokenizer,
    fold_word,
    light_stem,
)
from retrieval.text.stemmers import SnowballStemmer


def test_search_keeps_numbers_and_letters_together_the_generator_keeps_the_whole_name() -> None:
    # Search indexes `3.11` and its parts, so "python 3" finds "Python 3.11". The generator
    # matches one sentence against a question: `HTTP/3` must not meet the 3 of `3.11`, so a
    # name with digits is kept whole and its digit parts dropped.
    assert SEARCH("HTTP/3 and 3.11") == ["http", "3", "3.11", "3", "11"]
    assert ANSWER_TERMS("HTTP/3 and 3.11") == ["http/3", "http", "3.11"]
    assert SEARCH("sha256") == ["sha256"]
    assert ANSWER_TERMS("sha256") == ["sha256", "sha"]


def test_the_generator_drops_question_wording_that_search_keeps() -> None:
    # "How do I get ..." wraps what is asked; matched against one answer unit it is noise, while
    # search keeps "get" (it was measured to cost nothing there).
    assert "get" in SEARCH("How do I get the key?")
    assert ANSWER_TERMS("How do I get the key?") == ["key"]
    # Single letters say nothing about a sentence; search keeps them (`x` in `x = 1`).
    assert SEARCH("x y") == ["x", "y"]
    assert ANSWER_TERMS("x y") == []


def test_the_generator_joins_shorthands_to_the_words_docs_spell_out() -> None:
    # People type "docs" and "config"; documentation says "documentation" and "configuration".
    assert ANSWER_TERMS("docs config") == ANSWER_TERMS("documentation configuration")
    assert SEARCH("docs") != SEARCH("documentation")


def test_the_generator_splits_cjk_questions_at_question_words() -> None:
    # "如何回滚部署" (how to roll back a deployment) asks about 回滚部署, not about 如何 or 何回.
    assert SEARCH("如何回滚部署")[:2] == ["如何", "何回"]
    assert ANSWER_TERMS("如何回滚部署") == ["回滚", "滚部", "部署"]


def test_the_verifier_keeps_words_that_state_a_fact_and_cjk_runs_whole() -> None:
    # A claim that adds "must" or "only" says more than its evidence: they are content words.
    assert CLAIM_WORDS("The request must only retry") == ["request", "must", "only", "retry"]
    # A claim quotes CJK text; it is found as a substring, so the run stays whole.
    assert CLAIM_WORDS("回滚部署") == ["回滚部署"]
    # Words of letters only: numbers and identifiers are checked verbatim elsewhere.
    assert CLAIM_WORDS("retry_count 3 times") == ["retry", "count", "tim"]
    assert EVIDENCE_WORDS("the key") == ["the", "key"]


def test_each_reader_has_the_stemmer_it_was_measured_best_with() -> None:
    assert SEARCH("configuration") == ["configur"]  # Snowball: recall@5 +0.019 on SQuAD
    # The generator's and the verifier's light folders keep fewer forms apart than Snowball
    # merges: each alternative lost refusals or support checks when measured.
    assert light_stem("configuration") == "configurat"
    assert fold_word("configured") == fold_word("configure") == "configur"
    assert SnowballStemmer("english")("rotating") == "rotat"


def test_every_configuration_reads_compatibility_forms_as_plain_letters() -> None:
    # NFKC everywhere: a ligature or a full-width name in a question meets the plain spelling.
    for tokenizer in (SEARCH, ANSWER_TERMS, CLAIM_WORDS):
        assert tokenizer("ＡＰＩ ﬁle") == tokenizer("API file")


def test_one_tokenizer_class_builds_every_configuration() -> None:
    for tokenizer in (SEARCH, ANSWER_TERMS, CLAIM_WORDS, EVIDENCE_WORDS):
        assert isinstance(tokenizer, Tokenizer)
