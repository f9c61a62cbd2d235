"""A code span a claim rebuilds from an example's lines: the example's comments ("# ...") are
left out, the quoted line is inside the span and the span's words are the quote's; a module
the example imports from qualifies its names (`kettle.boil` of ``from kettle import boil``).
Made-up sentences, no benchmark item."""

from __future__ import annotations

from grounding.verification import Support, check

EXAMPLE = """Raise the pool size in the options::

    "POOL": {
        # ...
        "size": 8,
        # ...
    }

The pool then keeps eight kettles warm.
"""
QUOTED = '"size": 8,'

IMPORTED = """Boil with the context manager::

    from kettle import boil

    with boil(water):
        pour()
"""


def _problem(claim: str, quoted: str, cited: str) -> str | None:
    return check(claim, Support(quoted, cited)).problem


def test_an_example_rebuilt_on_one_line_without_its_comments_is_kept() -> None:
    for claim in (
        'The size goes in `POOL`, e.g. `"POOL": {"size": 8}`.',
        'Set it in `"POOL": {"size": 8}`.',
    ):
        assert _problem(claim, QUOTED, EXAMPLE) is None, claim


def test_a_rebuilt_example_with_another_value_or_key_is_dropped() -> None:
    for claim in (
        'The size goes in `POOL`, e.g. `"POOL": {"size": 9}`.',
        'The size goes in `POOL`, e.g. `"POOL": {"limit": 8}`.',
    ):
        assert _problem(claim, QUOTED, EXAMPLE) is not None, claim


def test_a_span_that_holds_no_quoted_line_brings_no_words() -> None:
    # `"POOL"` is in the example, but the quoted line is not in the span: "goes" and "pool"
    # are not in the quoted sentence, so the claim is not covered.
    problem = _problem("The pool size goes under `POOL` somewhere.", QUOTED, EXAMPLE)
    assert problem is not None and "content words" in problem


def test_a_name_qualified_by_the_module_its_example_imports_it_from_is_kept() -> None:
    quoted = "with boil(water):"
    assert _problem("Use `kettle.boil`: `with boil(water): pour()`.", quoted, IMPORTED) is None
    problem = _problem("Use `teapot.boil`: `with boil(water): pour()`.", quoted, IMPORTED)
    assert problem is not None and "teapot.boil" in problem
