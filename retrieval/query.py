"""The question as the user typed it: checked once, the same way for the CLI and the bot."""

from __future__ import annotations

from retrieval.errors import InputError

MAX_QUESTION_CHARS = 4_000


def check_question(text: str) -> str:
    """The question stripped of surrounding whitespace; empty or overlong questions are refused."""
    question = text.strip()
    if not question:
        raise InputError(
            "the question is empty: write a question after the command, "
            "e.g. docbot ask 'how do I rotate the API key?'"
        )
    if len(question) > MAX_QUESTION_CHARS:
        raise InputError(
            f"the question is {len(question):,} characters long; the limit is "
            f"{MAX_QUESTION_CHARS:,}: ask about one thing at a time, or quote only the "
            "relevant part"
        )
    return question
