"""The index's top-level headings (a new assistant thread's suggested prompts) are worked out
once per load and per collection, not by a walk over the scope's chunks at each thread: the
same headings as that walk, only the scope's collections', and those of the load they come
from (a rebuild shows in the next load, never in one already serving)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.top_headings import Listing
from grounding.retriever import Headed, top_headings
from retrieval.config import Config
from retrieval.errors import IndexNotBuiltError
from retrieval.index import Index, build_index
from retrieval.scopes import ConversationKind, Scope, resolve_scope
from tests.retrieval.docs_tree import WordCounter
from tests.retrieval.test_scoped_load import three_collections


def _scope(config: Config, channel: str) -> Scope:
    return resolve_scope(config, "T1", channel, ConversationKind.CHANNEL)


def test_the_index_s_headings_are_the_walk_s_and_only_the_scope_s(tmp_path: Path) -> None:
    config = three_collections(tmp_path)
    index = Index.load(config)
    assert isinstance(index, Headed)
    ca, cb = _scope(config, "CA"), _scope(config, "CB")
    assert top_headings(index, ca, 8) == ("Deploy", "Payments keys", "Clients", "On-call")
    assert top_headings(index, cb, 8) == ("Deploy", "Team B", "Clients", "On-call")
    assert top_headings(index, ca, 2) == ("Deploy", "Payments keys")
    walk = Listing(Index.load(config))  # the benchmark's walk over the chunks
    assert not isinstance(walk, Headed)
    for scope in (ca, cb):  # asked again, from what the first call kept: the same
        assert top_headings(index, scope, 8) == top_headings(walk, scope, 8)


def test_a_loaded_index_keeps_its_own_headings_after_a_rebuild(tmp_path: Path) -> None:
    config = three_collections(tmp_path)
    serving = Index.load(config)
    ca = _scope(config, "CA")
    before = top_headings(serving, ca, 8)
    (tmp_path / "payments" / "cards.md").write_text(
        "# Card refunds\n\nRefund a card payment from the payments console within thirty "
        "days of the charge.\n",
        encoding="utf-8",
    )
    build_index(config, WordCounter())
    assert top_headings(serving, ca, 8) == before  # its generation's chunks, as its answers
    assert "Card refunds" in top_headings(Index.load(config), ca, 8)
    assert "Card refunds" not in top_headings(Index.load(config), _scope(config, "CB"), 8)


def test_headings_of_a_collection_not_in_the_index_say_to_run_docbot_index(
    tmp_path: Path,
) -> None:
    config = three_collections(tmp_path)
    with pytest.raises(IndexNotBuiltError, match="docbot index"):
        Index.load(config).top_level_headings("nowhere")
