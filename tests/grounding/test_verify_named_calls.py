"""A name the evidence documents, written as code the way a claim writes it: qualified by the
module the docs document (`shelf.which(cmd)` of ".. module:: shelf" and ``which(cmd, path=None)``),
or called on an instance of its class (`q.join()` of ``Queue.join()``). A keyword must come with
the value the evidence gives it. Made-up sentences, no benchmark item."""

from __future__ import annotations

from tests.grounding.support_checks import dropped, kept

SHELF = (
    ":mod:`shelf` --- Finding programs\n\n.. module:: shelf\n\n"
    ".. function:: which(cmd, path=None)\n\n   Return the path of the program *cmd*."
)
QUEUE = (
    ".. method:: Queue.join()\n\n   Blocks until every item is done. Pass `strict=True` to check."
)


def test_a_documented_name_qualified_or_called_as_a_claim_writes_it_is_kept() -> None:
    kept("`shelf.which(cmd)` returns the path of the program *cmd*.", SHELF)
    kept("`shelf.which` returns the path of the program.", SHELF)
    kept("`q.join()` blocks until every item is done.", QUEUE)
    kept("`q.join(strict=True)` blocks until every item is done.", QUEUE)


def test_an_invented_name_keyword_or_value_is_still_dropped() -> None:
    dropped("`shelf.find(cmd)` returns the path of the program.", SHELF)
    dropped("`shelf.which(cmd, strict=True)` returns the path of the program.", SHELF)
    dropped("`q.join(strict=False)` blocks until every item is done.", QUEUE)
    dropped("`tools.which(cmd)` returns the path of the program.", SHELF)
    dropped("`w.join()` blocks until every item is done.", QUEUE)


LEDGER = (
    ":mod:`ledger` --- Bookkeeping\n\n:class:`Tally` objects\n\n"
    "A tally tool is provided to count things quickly."
)


def test_a_class_qualified_by_the_module_the_evidence_documents_is_kept() -> None:
    # The evidence never writes `ledger.X`, but documents the module ledger.
    kept("Use `ledger.Tally`, a tool to count things quickly.", LEDGER)
    dropped("Use `abacus.Tally`, a tool to count things quickly.", LEDGER)
    dropped("Use `ledger.Counter`, a tool to count things quickly.", LEDGER)
