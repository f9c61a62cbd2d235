"""reST's code directives have one owner (retrieval.text.markup); each reader of them says which
kinds it takes, and these are the differences, pinned: the verifier reads sphinx.ext.doctest's
blocks as code lines, the answer-unit splitter takes a literalinclude as a code unit, the
chunker keeps all of them whole, and Slack's reply shows the code and doctest directives as code
blocks (bot/render/code_blocks.py)."""

from __future__ import annotations

import pytest

from bot.render.code_blocks import slack_code
from grounding.generators.segmentation import Markup, UnitKind, split_units
from grounding.verification.blocks import blocks
from retrieval.blocks import BlockKind
from retrieval.rest_blocks import rest_items
from retrieval.text.markup import (
    REST_CODE_DIRECTIVES,
    REST_DOCTEST_DIRECTIVES,
    REST_INCLUDE_DIRECTIVES,
    rest_code_directive,
)

CODE = ".. code-block:: sh\n\n   deployctl run --all\n"
DOCTEST = ".. testcode::\n\n   deployctl.run(all=True)\n"
INCLUDE = ".. literalinclude:: ../scripts/deploy.sh\n   :lines: 1-4\n"


@pytest.mark.parametrize(
    ("doctest", "include", "taken"),
    [
        (False, False, REST_CODE_DIRECTIVES),
        (True, False, REST_CODE_DIRECTIVES | REST_DOCTEST_DIRECTIVES),
        (False, True, REST_CODE_DIRECTIVES | REST_INCLUDE_DIRECTIVES),
    ],
)
def test_a_code_directive_pattern_takes_the_kinds_asked_for(
    doctest: bool, include: bool, taken: frozenset[str]
) -> None:
    pattern = rest_code_directive(doctest=doctest, include=include)
    every = REST_CODE_DIRECTIVES | REST_DOCTEST_DIRECTIVES | REST_INCLUDE_DIRECTIVES
    assert {name for name in every if pattern.match(f"  .. {name}:: python")} == taken
    assert not pattern.match(".. note::") and not pattern.match("code-block:: sh")
    assert not pattern.match(".. codes::") and not pattern.match(".. code-blocks::")


def test_the_verifier_reads_doctest_blocks_as_code_and_no_literalinclude() -> None:
    assert ("   deployctl run --all", True) in blocks(CODE)
    assert ("   deployctl.run(all=True)", True) in blocks(DOCTEST)
    assert not any(code for _, code in blocks(INCLUDE + "\n   Prose after it.\n"))


def test_the_unit_splitter_takes_a_literalinclude_as_code_and_no_doctest_block() -> None:
    def kinds(text: str) -> list[UnitKind]:
        return [unit.kind for unit in split_units(text, Markup.REST)]

    assert kinds(CODE) == [UnitKind.CODE]
    assert kinds(INCLUDE) == [UnitKind.CODE]
    assert UnitKind.CODE not in kinds(DOCTEST)


def test_the_chunker_keeps_every_kind_of_code_directive_whole_as_code() -> None:
    for text in (CODE, DOCTEST, INCLUDE):
        lines = text.splitlines()
        (block,) = rest_items(lines, 0, len(lines), titles=True)
        assert block.kind is BlockKind.CODE, text


def test_slack_shows_code_and_doctest_directives_as_code_blocks() -> None:
    assert slack_code(CODE) == "```\ndeployctl run --all\n```"
    assert slack_code(DOCTEST) == "```\ndeployctl.run(all=True)\n```"
    assert slack_code(INCLUDE) == INCLUDE  # no code of its own to show
