"""A claim in Chinese is checked on its numbers (issue 9): Chinese numerals before a classifier
("三个", "二十秒"), not only digits; "十分" ("very") and "第三方" ("third-party") are no counts.
Made-up sentences, no benchmark item."""

from __future__ import annotations

from tests.grounding.support_checks import other_language_dropped, other_language_problem

EVIDENCE = "There are currently two plugin hooks. A lock times out after 20 seconds."


def _problem(claim: str) -> str | None:
    return other_language_problem(claim, EVIDENCE)


def test_chinese_numerals_before_a_classifier_are_numbers() -> None:
    assert _problem("目前有两个插件钩子。") is None
    assert _problem("锁在二十秒后超时。") is None
    assert "number 3" in other_language_dropped("目前有三个插件钩子。", EVIDENCE)
    assert "number 30" in other_language_dropped("锁在三十秒后超时。", EVIDENCE)


def test_words_made_of_numerals_are_no_counts() -> None:
    assert _problem("插件钩子十分有用，目前有两个。") is None
    assert _problem("第三方插件钩子有两个。") is None


SCALED = (
    "The cache holds 120,000 entries. A batch sends 30,000 requests in 15,000 steps. "
    "The log keeps 1,050 lines for 300 days. A tenant may store 200,000,000 bytes."
)


def _scaled_problem(claim: str) -> str | None:
    return other_language_problem(claim, SCALED)


def test_a_scale_multiplies_what_comes_before_it() -> None:
    # 十二万 is (10 + 2) x 10,000; 一千零五十 is 1,000 + 50; 两亿 is 2 x 10^8.
    assert _scaled_problem("缓存可保存十二万个条目。") is None
    assert _scaled_problem("日志保留一千零五十行，保留三百天。") is None
    assert _scaled_problem("租户最多可存储两亿字节。") is None
    assert "number 110000" in other_language_dropped("缓存可保存十一万个条目。", SCALED)


def test_digits_before_a_scale_are_one_number() -> None:
    # 3万 is 30,000 (not a 3 and a 10,000); 1.5万 is 15,000; 1万2千 is 12,000.
    assert _scaled_problem("每批发送3万个请求，分1.5万步。") is None
    assert _scaled_problem("缓存可保存12万个条目。") is None
    assert "number 40000" in other_language_dropped("每批发送4万个请求。", SCALED)
    assert "number 12000" in other_language_dropped("缓存可保存1万2千个条目。", SCALED)


def test_digits_written_one_by_one_are_one_number() -> None:
    # 二〇二四 is 2024 (not a 4); 一〇二四 is 1024. Two digits side by side are a range as
    # often ("三四个", three or four), so they are not read as one number.
    evidence = "Support for the old API ends in 2024. A frame holds 1024 bytes."
    assert other_language_problem("旧 API 的支持在二〇二四年结束。", evidence) is None
    assert other_language_problem("一帧可容纳一〇二四字节。", evidence) is None
    assert "number 2025" in other_language_dropped("旧 API 的支持在二〇二五年结束。", evidence)
    assert other_language_problem("一帧可容纳三四个字节，共一〇二四字节。", evidence) is None
