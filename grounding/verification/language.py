"""Whether a claim is written in another language than its evidence (prompt rule 8 asks for the
question's language): such a claim is checked on what does not depend on the words (its quotes,
numbers, identifiers) and is shown with its quote so the reader can check the rest."""

from __future__ import annotations

import re

from grounding.generators.question import language

_CODE = re.compile(r"`[^`\n]*`")


def in_other_language(claim: str, evidence: str) -> bool:
    # Code spans are the same in every language; the prose around them tells the language.
    return language(_CODE.sub(" ", claim)) != language(_CODE.sub(" ", evidence))
