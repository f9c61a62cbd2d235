"""A claim in another language than its evidence writes `True` and `False` as code: they must be
the literals its quotes give, as an English claim's must, not a literal found elsewhere in the
cited item ("默认是 `True`" quoting "Default: ``False``" in an item that says "set to ``True``"
further down). Made-up sentences, no benchmark item."""

from __future__ import annotations

from tests.grounding.support_checks import one_item_packet, verify_quoting

ITEM = (
    "STRICT_PATHS\n------------\n\n"
    "Default: ``False``\n\n"
    "Whether the loader rejects paths outside the project.\n\n"
    "If this is set to ``True``, a path outside the project raises ``PathError``.\n"
)
DEFAULT = "Default: ``False``"
WHETHER = "Whether the loader rejects paths outside the project."
PACKET = one_item_packet(ITEM, path="settings.rst")


def test_a_swapped_literal_in_chinese_or_spanish_is_dropped() -> None:
    for claim in ("`STRICT_PATHS` 默认是 `True`。", "`STRICT_PATHS` vale `True` por omisión."):
        result = verify_quoting(PACKET, claim, DEFAULT, WHETHER)
        assert not result.claims, claim
        assert "'tru'" in result.dropped[0].detail


def test_the_literal_its_quotes_give_is_kept() -> None:
    for claim in ("`STRICT_PATHS` 默认是 `False`。", "`STRICT_PATHS` vale `False` por omisión."):
        assert verify_quoting(PACKET, claim, DEFAULT, WHETHER).claims, claim
