"""A count of what a claim's own code writes out: "two values, write `put(tags=['red',
'blue'])`" counts the list literal, as "two values: `red` and `blue`" counts its list. Made-up
sentences, no benchmark item."""

from __future__ import annotations

from grounding.verification.enumerations import literal_lengths
from tests.grounding.support_checks import dropped, kept

TAGS = (
    "To send several values for one field, pass a list: "
    "`store.put(fields={'tag': ['red', 'blue']})`."
)
MODES = "Pass `modes=('fast', 'safe', 'slow')` to the runner."


def test_a_count_of_a_list_literal_in_the_claims_code_is_kept() -> None:
    kept(
        "To send one field with two values, write `store.put(fields={'tag': ['red', 'blue']})`.",
        TAGS,
    )
    kept("Pass the three modes `modes=('fast', 'safe', 'slow')` to the runner.", MODES)


def test_a_count_the_literal_does_not_have_is_dropped() -> None:
    dropped(
        "To send one field with three values, write `store.put(fields={'tag': ['red', 'blue']})`.",
        TAGS,
    )
    dropped("Pass the two modes `modes=('fast', 'safe', 'slow')` to the runner.", MODES)


def test_a_count_the_quote_contradicts_is_dropped_whatever_the_code() -> None:
    quoted = "The runner has four modes; pass `modes=('fast', 'safe', 'slow')` to pick three."
    dropped("The runner has three modes: pass `modes=('fast', 'safe', 'slow')`.", quoted)


def test_literal_lengths_count_items_of_literals_not_call_arguments() -> None:
    assert literal_lengths("put(fields={'tag': ['red', 'blue']})") == {1, 2}
    assert literal_lengths("('a', 'b', 'c')") == {3}
    assert literal_lengths("[1, 2, 3,]") == {3}  # a trailing comma begins no item
    assert literal_lengths("['a,b', 'c']") == {2}  # a comma in a string is no separator
    assert literal_lengths("f(a, b)") == frozenset()  # a call's arguments
    assert literal_lengths("x = (a)") == frozenset()  # a parenthesis, not a tuple
    assert literal_lengths("(a,)") == {1}
