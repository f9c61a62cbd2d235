"""A Chinese claim's negation (不, 无法, 没有, 未, 非, 别) is a negation: it agrees with a quote
that negates and disagrees with one that does not. Made-up sentences, no benchmark item."""

from __future__ import annotations

from grounding.verification import Support, check

DENIED = "The `vault` module does not support writing keys."
STATED = "The `vault` module supports writing keys."


def _problem(claim: str, quote: str) -> str | None:
    verdict = check(claim, Support(quote, quote, clauses=(quote,)))
    assert verdict.other_language, claim
    return verdict.problem


def test_a_chinese_negation_agrees_with_a_negating_quote() -> None:
    for claim in ("`vault` 模块不支持写入密钥。", "`vault` 模块无法写入密钥。"):
        assert _problem(claim, DENIED) is None, claim


def test_a_chinese_negation_against_a_plain_quote_is_dropped() -> None:
    for claim, quote in (
        ("`vault` 模块不支持写入密钥。", STATED),
        ("`vault` 模块支持写入密钥。", DENIED),
    ):
        problem = _problem(claim, quote)
        assert problem is not None and "negation" in problem, claim
