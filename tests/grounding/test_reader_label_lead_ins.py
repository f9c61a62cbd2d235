"""A lead-in that is only a label ("Usage example:", "For example::") is no claim of its own.

The reader quotes code with the sentence that leads into it, and each code block is a claim of
its own. A lead-in of a word or two says nothing the code does not: shown alone as a claim
(or left alone when the verifier drops the code) it answers nothing. A lead-in that says what
the code does stays.
"""

from __future__ import annotations

from grounding.generators.extractive import ExtractiveGenerator
from tests.grounding.test_reader import chunk, generate

LABELLED = """\
Thread pools
============

The pool runs calls on worker threads.

For example::

    with ThreadPoolExecutor(max_workers=4) as pool:
        pool.submit(work)
"""
EXPLAINED = """\
Thread pools
============

To run calls on four worker threads, create the pool with ``max_workers``::

    with ThreadPoolExecutor(max_workers=4) as pool:
        pool.submit(work)
"""
ALWAYS = ExtractiveGenerator(threshold=0.0)


def claims(question: str, text: str) -> list[str]:
    doc = chunk(text, "library/pools.rst", "Thread pools")
    return [c.text for c in generate(question, doc, generator=ALWAYS).response.claims]


def test_a_label_lead_in_is_not_a_claim_but_its_code_is() -> None:
    texts = claims("ThreadPoolExecutor max_workers submit example", LABELLED)
    assert any("ThreadPoolExecutor(max_workers=4)" in t for t in texts), texts
    assert "For example::" not in texts and "For example:" not in texts


def test_a_lead_in_that_says_what_the_code_does_stays() -> None:
    texts = claims("ThreadPoolExecutor max_workers submit example", EXPLAINED)
    assert any(t.startswith("To run calls on four worker threads") for t in texts), texts
    assert any("ThreadPoolExecutor(max_workers=4)" in t for t in texts), texts
