"""How a strong model restates what it quotes, each read as its quote says it: a method named
`validate()` for ``validate(self, value)``, a class in the plural or qualified by its package,
"not X" for the evidence's "rather than X", "2.5 MB" for "2.5 megabytes", "Unless you change it,
..." for "By default", a signature's `name=8` as its default, a value named elsewhere by its
parameter, and connectives that are no content words. Made-up sentences, no benchmark item."""

from __future__ import annotations

from grounding.verification.identifiers import names_the_same
from grounding.verification.quotes import quote_form
from tests.grounding.support_checks import dropped, kept


def test_a_method_with_empty_parentheses_is_the_one_defined_with_parameters() -> None:
    evidence = "* ``check(self, value)``: check one value. * ``describe()``: say what is checked."
    kept("A checker implements `check()` and `describe()`.", evidence)
    bare = "The `.close` method releases the socket; call it when done."
    kept("Call `.close()` when done.", bare)
    assert "inspect()" in dropped("A checker implements `inspect()`.", evidence)


def test_a_class_in_the_plural_or_qualified_by_its_package_is_the_same_class() -> None:
    assert names_the_same("AsyncPool", "hooks of AsyncPools must be coroutines")
    assert names_the_same("vault.SecretError", "vault.connect(url) raises SecretError")
    assert names_the_same("vault.SecretError", "VAULT raises a SecretError")
    assert not names_the_same("vault.SecretError", "raises a SecretError")  # no such package
    assert not names_the_same("vault.KeyError", "VAULT raises a SecretError")
    assert not names_the_same("client.is_open", "use response.is_open")  # another owner


def test_a_negation_may_deny_what_the_evidence_sets_aside_with_rather_than() -> None:
    evidence = "Pass the region when you build the client, rather than passed to each upload call."
    kept("Give the region to the client when you build it, not to each upload call.", evidence)
    # The words after the claim's "not" are what the evidence affirms: still a negation added.
    assert "not" in dropped("The region should not be passed when you build the client.", evidence)


def test_a_size_unit_in_another_spelling_is_the_same_unit() -> None:
    evidence = "Attachments larger than 2.5 megabytes are stored on disk."
    kept("Attachments larger than 2.5 MB are stored on disk.", evidence)
    assert "gb" in dropped("Attachments larger than 2.5 GB are stored on disk.", evidence)


def test_a_leading_condition_may_restate_a_default() -> None:
    claim = "Unless you configure something else in your settings, jobs run in UTC."
    kept(claim, "By default jobs run in UTC.")
    # Without a default in the evidence the condition's words count as the claim's own.
    assert "content words" in dropped(claim, "Jobs run in UTC.")


def test_a_signature_declares_the_defaults_of_its_parameters() -> None:
    evidence = "def __init__(self, retries=3, strict=False):"
    kept("`retries` defaults to 3.", evidence)
    assert dropped("`retries` defaults to 5.", evidence)
    assert dropped("`strict` defaults to True.", evidence)
    # A call passes values; it declares no default.
    assert "default" in dropped("`retries` defaults to 3.", "client = Client(retries=3)")


def test_a_number_is_read_where_its_parameter_is_named() -> None:
    evidence = (
        "def __init__(self, min_words=4): ... The title must have at least %(min_words)d words."
    )
    kept("The title must have at least four words, since `min_words` defaults to 4.", evidence)


def test_a_connective_is_no_content_word_of_a_negation() -> None:
    evidence = "They are not in use. The exporter listens on them."
    kept("They are not in use, since the exporter listens on them.", evidence)


def test_inline_bullets_leave_one_space_in_quote_form() -> None:
    assert quote_form("* Error * ConnectError * ReadError") == "Error ConnectError ReadError"
