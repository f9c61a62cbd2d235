"""The search tokenizer (retrieval.text.SEARCH): identifiers, stopwords, stemming, CJK bigrams."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from threading import Barrier

import pytest

from retrieval.text import (
    SEARCH_STOPWORDS,
    STOPWORDS,
    SnowballStemmer,
    Tokenizer,
    camel_parts,
    cjk_bigrams,
    tokenize,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Parts are stemmed like words (`redirects` -> redirect); the whole stays as written.
        ("follow_redirects", ["follow_redirects", "follow", "redirect"]),
        ("getUserName", ["getusername", "get", "user", "name"]),
        ("HTTPServer", ["httpserver", "http", "server"]),
        ("httpx.Client", ["httpx.client", "httpx", "client"]),
        ("__init__", ["__init__", "init"]),
        ("Timeouts", ["timeout"]),
    ],
)
def test_tokenize_splits_code_identifiers_keeping_the_whole(text: str, expected: list[str]) -> None:
    assert tokenize(text) == expected


def test_tokenize_casefolds_and_applies_nfkc() -> None:
    # Full-width letters and the ligature fold to plain ASCII; ß casefolds to ss (both forms
    # then stem alike).
    assert Tokenizer(stem=None)("ＡＰＩ ﬁle STRASSE Straße") == [
        "api",
        "file",
        "strasse",
        "strasse",
    ]
    assert tokenize("STRASSE Straße") == ["strass", "strass"]


def test_tokenize_drops_english_stopwords_but_keeps_negation() -> None:
    assert tokenize("How do I rotate the key? Do not restart it") == [
        "rotat",
        "key",
        "not",
        "restart",
    ]


def test_tokenize_keeps_version_numbers_whole_and_in_parts() -> None:
    assert tokenize("Python 3.11.") == ["python", "3.11", "3", "11"]


def test_tokenize_makes_overlapping_bigrams_of_cjk_runs() -> None:
    assert tokenize("配置文件") == ["配置", "置文", "文件"]
    assert tokenize("東") == ["東"]
    assert tokenize("Python的文档") == ["python", "的文", "文档"]
    assert tokenize("한국어 문서") == ["한국", "국어", "문서"]
    assert tokenize("カタカナ") == ["カタ", "タカ", "カナ"]


def test_tokenize_a_chinese_question_shares_terms_with_chinese_text() -> None:
    document = set(tokenize("如何轮换支付接口的密钥"))
    question = set(tokenize("轮换密钥"))
    assert document & question == {"轮换", "密钥"}


def test_tokenize_documents_and_queries_identically() -> None:
    text = "Use `httpx.Client(follow_redirects=True)` for HTTPServer tests."
    assert tokenize(text) == tokenize(text)
    assert set(tokenize("follow redirects")) <= set(tokenize(text))


def test_tokenize_ignores_punctuation_and_empty_input() -> None:
    assert tokenize("") == []
    assert tokenize("  ... --- !!! __ ") == []


def test_tokenizer_memo_is_bounded_and_does_not_change_results() -> None:
    tokenizer = Tokenizer(memo_size=4)  # every call below evicts
    first = tokenizer("alpha beta gammaDelta")
    for i in range(50):
        tokenizer(f"word{i} " * 3)
    assert tokenizer("alpha beta gammaDelta") == first


def test_tokenizer_options_change_only_what_they_name() -> None:
    assert Tokenizer(stopwords=frozenset())("the key") == ["the", "key"]
    assert Tokenizer(keep_dotted=False)("httpx.Client") == ["httpx", "client"]
    assert Tokenizer(stem=lambda t: t.rstrip("s"))("keys") == ["key"]
    assert Tokenizer(stem=None)("rotating keys") == ["rotating", "keys"]


def test_tokenize_stems_english_words_so_forms_of_a_word_meet() -> None:
    assert tokenize("rotating the signing secrets") == tokenize("rotate signed secret")
    assert tokenize("configuration") == tokenize("configured") == ["configur"]


def test_tokenize_never_stems_identifier_wholes_numbers_or_cjk() -> None:
    assert tokenize("is_active") == ["is_active", "activ"]
    assert tokenize("maxRetries") == ["maxretries", "max", "retri"]
    assert tokenize("os.path.joins") == ["os.path.joins", "os", "path", "join"]
    assert tokenize("sha256 1990s") == ["sha256", "1990s"]
    assert tokenize("配置文件") == Tokenizer(stem=None)("配置文件")


def test_snowball_stemmer_gives_each_thread_its_own_stemmer() -> None:
    # PyStemmer objects are not thread-safe: concurrent queries must not share one.
    stemmer = SnowballStemmer("english")
    barrier = Barrier(3)

    def used_in_a_thread(_: int) -> tuple[int, str]:
        barrier.wait()  # all three threads alive at once, so none can reuse another's slot
        return id(stemmer.current()), stemmer("rotating")

    with ThreadPoolExecutor(max_workers=3) as pool:
        seen = list(pool.map(used_in_a_thread, range(3)))
    assert len({ident for ident, _ in seen}) == 3
    assert {word for _, word in seen} == {"rotat"}
    assert stemmer.current() is stemmer.current()


def test_camel_parts_splits_at_case_changes() -> None:
    assert camel_parts("getUserName") == ["get", "User", "Name"]
    assert camel_parts("HTTPServer") == ["HTTP", "Server"]
    assert camel_parts("utf8Decoder") == ["utf8", "Decoder"]
    assert camel_parts("ÉcoleNormale") == ["École", "Normale"]
    assert camel_parts("lower") == ["lower"]


def test_cjk_bigrams_of_one_char_is_a_unigram() -> None:
    assert cjk_bigrams("中") == ["中"]
    assert cjk_bigrams("中文字") == ["中文", "文字"]


def test_tokenize_drops_the_commonest_function_words_but_keeps_negations() -> None:
    tokens = tokenize("The client does not retry before the timeout")
    assert "the" not in tokens and "does" not in tokens
    assert {"not", "befor"} <= set(tokens)  # kept (stemmed): measured, they tell questions apart
    assert SEARCH_STOPWORDS < STOPWORDS
