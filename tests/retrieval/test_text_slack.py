"""Slack markup read as words: one reading for questions from Slack and questions pasted into
the command line."""

from __future__ import annotations

from retrieval.text.slack import markup_words


def test_markup_words_drops_people_and_pings_and_keeps_what_names_a_thing() -> None:
    text = "<@U0BOB|bob> <!here> see <#C0OPS|ops> and <https://x.example/a|the runbook> <https://y.example>"
    assert markup_words(text).split() == [
        "see",
        "#ops",
        "and",
        "the",
        "runbook",
        "https://y.example",
    ]


def test_markup_words_reads_markup_before_undoing_slacks_escaping() -> None:
    # What the person typed as `<` arrives as `&lt;`: it is text, never markup.
    assert markup_words("is &lt;@U0BOB&gt; literal? a &amp;&amp; b, &amp;lt;") == (
        "is <@U0BOB> literal? a && b, &lt;"
    )
