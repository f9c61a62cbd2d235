"""A claim in another language than its evidence has no word of it read, so the names it gives
(identifiers, code) are what tie it to its quotes: each must be in the quoted sentences or next
to them (a sentence each side, what earlier kept claims of the answer quoted, the headings),
not only somewhere in the cited items. An English claim's names are still checked on the
cited items whole: content coverage ties its words to the quotes. Made-up sentences, no
benchmark item."""

from __future__ import annotations

from grounding.verification import Support, check, verify
from tests.grounding.fakes import response
from tests.grounding.support_checks import one_item_packet

QUOTE = "It is up to the caller to close the valve."
ITEM = (
    "The `drain_tank` function empties the tank into the sink.\n\n"
    "The pump runs at night. The valve stays shut during the day. " + QUOTE
)


def _problem(claim: str, **fields: str) -> str | None:
    support = Support(QUOTE, ITEM, (QUOTE,), **fields)
    verdict = check(claim, support)
    return verdict.problem


def test_a_spanish_claim_naming_what_only_another_sentence_says_is_dropped() -> None:
    problem = _problem("`drain_tank` cierra la válvula automáticamente.")
    assert problem is not None
    assert "drain_tank" in problem
    assert "next to it" in problem


def test_a_chinese_claim_naming_what_only_another_sentence_says_is_dropped() -> None:
    problem = _problem("`drain_tank` 会自动关闭阀门。")
    assert problem is not None
    assert "drain_tank" in problem


def test_the_name_in_the_sentence_next_to_the_quote_is_kept() -> None:
    context = f"The valve of `drain_tank` stays shut during the day. {QUOTE}"
    assert _problem("Con `drain_tank`, cerrar la válvula te toca a ti.", context=context) is None


def test_the_name_an_earlier_kept_claim_quoted_is_kept() -> None:
    stated = "The `drain_tank` function empties the tank into the sink."
    assert _problem("Con `drain_tank`, cerrar la válvula te toca a ti.", stated=stated) is None


def test_the_name_in_a_heading_above_the_quote_is_kept() -> None:
    headings = "Tanks > `drain_tank`"
    assert _problem("Con `drain_tank`, cerrar la válvula te toca a ti.", headings=headings) is None


def test_an_english_claim_names_anything_its_cited_items_hold() -> None:
    assert _problem("With `drain_tank`, it is up to the caller to close the valve.") is None


def test_through_verify_only_the_claim_whose_name_sits_by_its_quote_is_kept() -> None:
    packet = one_item_packet(ITEM, path="tank.md")
    label = packet.items[0].label
    near = "La función `drain_tank` vacía el depósito en el fregadero."
    far = "`drain_tank` cierra la válvula automáticamente."
    first = "The `drain_tank` function empties the tank into the sink."
    answer = response((far, [label], [QUOTE]), (near, [label], [first]))
    verification = verify(answer, packet, str)
    assert [c.text for c in verification.claims] == [near]
    assert [d.text for d in verification.dropped] == [far]
    # Once an earlier kept claim has quoted the name's sentence, the far claim has it too.
    later = response((near, [label], [first]), (far, [label], [QUOTE]))
    assert len(verify(later, packet, str).claims) == 2
