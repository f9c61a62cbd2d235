"""A claim in Chinese is checked on its numbers (issue 9): Chinese numerals before a classifier
("三个", "二十秒"), not only digits; "十分" ("very") and "第三方" ("third-party") are no counts.
Made-up sentences, no benchmark item."""

from __future__ import annotations

from grounding.verification import Support, check

EVIDENCE = "There are currently two plugin hooks. A lock times out after 20 seconds."


def _problem(claim: str) -> str | None:
    verdict = check(claim, Support(EVIDENCE, EVIDENCE))
    assert verdict.other_language, claim
    return verdict.problem


def test_chinese_numerals_before_a_classifier_are_numbers() -> None:
    assert _problem("目前有两个插件钩子。") is None
    assert _problem("锁在二十秒后超时。") is None
    problem = _problem("目前有三个插件钩子。")
    assert problem is not None and "number 3" in problem
    problem = _problem("锁在三十秒后超时。")
    assert problem is not None and "number 30" in problem


def test_words_made_of_numerals_are_no_counts() -> None:
    assert _problem("插件钩子十分有用，目前有两个。") is None
    assert _problem("第三方插件钩子有两个。") is None
