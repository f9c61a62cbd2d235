"""A code span that joins what the evidence writes apart: two lines of an example on one line
(`a = f(); b = g(a)`), or a command with an option documented on its own (`prog -m tool
--tidy`). Each part must be in the evidence; an invented part is still dropped. Made-up
sentences, no benchmark item."""

from __future__ import annotations

from tests.grounding.support_checks import dropped, kept

EXAMPLE = (
    'Pass a key to the kettle.\n\n```pycon\n>>> key = kettle.Key(name="ada")\n'
    ">>> pot = kettle.Pot(key=key)\n```"
)
COMMAND = (
    "Run the tool from the shell:\n\n    $ brew -m tea.tool leaves.json\n\n"
    ".. cmdoption:: --tidy\n\n   Sort the leaves by colour."
)


def test_two_statements_of_an_example_on_one_line_are_kept() -> None:
    kept(
        '`key = kettle.Key(name="ada"); pot = kettle.Pot(key=key)` passes a key to the kettle.',
        EXAMPLE,
    )


def test_a_statement_the_example_lacks_is_still_dropped() -> None:
    dropped(
        '`key = kettle.Key(name="ada"); pot = kettle.Pot(lid=key)` passes a key to the kettle.',
        EXAMPLE,
    )
    dropped(
        '`key = kettle.Key(name="bob"); pot = kettle.Pot(key=key)` passes a key to the kettle.',
        EXAMPLE,
    )


def test_a_command_with_a_documented_option_is_kept() -> None:
    kept("From the shell, `brew -m tea.tool --tidy` sorts the leaves by colour.", COMMAND)


def test_a_command_with_an_undocumented_option_or_program_is_dropped() -> None:
    dropped("From the shell, `brew -m tea.tool --neat` sorts the leaves by colour.", COMMAND)
    dropped("From the shell, `pour -m tea.tool --tidy` sorts the leaves by colour.", COMMAND)
