from __future__ import annotations

from pathlib import Path

import pytest

from retrieval.config import load_config
from retrieval.errors import ConfigError
from retrieval.links import source_url

VALID = """\
state_dir: state
teams: [T0123ABC]
collections:
  - name: handbook
    path: handbook
    url: "https://git.example.com/handbook/blob/main/{path}#L{start}-L{end}"
  - name: payments
    path: payments
    access: private
    channels: [C0PAYMENTS]
conversations:
  dm: none
answer:
  evidence_tokens: 2000
"""


def _write(tmp_path: Path, text: str) -> Path:
    (tmp_path / "handbook").mkdir(exist_ok=True)
    (tmp_path / "payments").mkdir(exist_ok=True)
    path = tmp_path / "docbot.yml"
    path.write_text(text, encoding="utf-8")
    return path


def _error(tmp_path: Path, text: str) -> str:
    with pytest.raises(ConfigError) as info:
        load_config(_write(tmp_path, text))
    return str(info.value)


def test_config_valid_file_resolves_paths_relative_to_the_file(tmp_path: Path) -> None:
    config = load_config(_write(tmp_path, VALID))
    assert config.state_dir == (tmp_path / "state").resolve()
    assert config.collection("handbook").path == (tmp_path / "handbook").resolve()
    assert config.collection("payments").channels == ("C0PAYMENTS",)
    assert config.conversations.dm == "none"
    assert config.conversations.external == "none"
    assert config.answer.evidence_tokens == 2000
    assert config.answer.per_source_limit == 2


def test_config_unknown_key_names_file_and_key(tmp_path: Path) -> None:
    message = _error(tmp_path, VALID.replace("  dm: none", "  dm: none\n  dms: public"))
    assert "docbot.yml" in message
    assert "conversations.dms" in message
    assert "unknown key" in message


def test_config_unknown_key_inside_a_collection_names_the_collection(tmp_path: Path) -> None:
    message = _error(
        tmp_path, VALID.replace("    path: payments", "    path: payments\n    acess: x")
    )
    assert "collections[1] (payments).acess" in message


def test_config_duplicate_collection_name(tmp_path: Path) -> None:
    message = _error(tmp_path, VALID.replace("name: payments", "name: handbook"))
    assert "two collections are named 'handbook'" in message


def test_config_private_collection_without_channels(tmp_path: Path) -> None:
    message = _error(tmp_path, VALID.replace("    channels: [C0PAYMENTS]\n", ""))
    assert "private but lists no channels" in message
    assert "collections[1] (payments)" in message


def test_config_channel_name_instead_of_id(tmp_path: Path) -> None:
    message = _error(tmp_path, VALID.replace("C0PAYMENTS", '"payments"'))
    assert "'payments' is not a channel ID" in message
    assert "collections[1] (payments).channels" in message


def test_config_missing_folder(tmp_path: Path) -> None:
    path = _write(tmp_path, VALID.replace("path: payments", "path: nowhere"))
    with pytest.raises(
        ConfigError, match=r"collections\[1\]\.path: folder .*nowhere does not exist"
    ):
        load_config(path)


def test_config_path_naming_a_file_says_it_must_be_a_folder(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("# Notes\n", encoding="utf-8")
    message = _error(tmp_path, VALID.replace("path: payments", "path: notes.md"))
    assert "collections[1].path: " in message
    assert "notes.md is a file, not a folder" in message
    assert "does not exist" not in message


def test_config_empty_include(tmp_path: Path) -> None:
    message = _error(
        tmp_path, VALID.replace("    path: handbook\n", "    path: handbook\n    include: []\n")
    )
    assert "include is empty" in message


def test_config_missing_file_says_how_to_select_one(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="DOCBOT_CONFIG"):
        load_config(tmp_path / "absent.yml")


def test_config_invalid_yaml(tmp_path: Path) -> None:
    assert "not valid YAML" in _error(tmp_path, "teams: [T1\n")


def test_config_invalid_yaml_names_the_line_in_the_file_not_a_unicode_string(
    tmp_path: Path,
) -> None:
    """A mis-indented key: the error points at its line and column of docbot.yml, in the
    file's name, not PyYAML's `in "<unicode string>"`."""
    text = "teams: [T1]\ncollections:\n  - name: a\n    path: docs\n   bad: indent\n"
    message = _error(tmp_path, text)
    assert message.startswith(f"{tmp_path / 'docbot.yml'}, line 5, column 4: not valid YAML: ")
    assert "expected <block end>, but found '<block mapping start>'" in message
    assert "(while parsing a block collection that starts at line 3)" in message
    assert "unicode string" not in message
    assert "check the indentation and quoting" in message


def test_config_empty_file_says_it_is_empty(tmp_path: Path) -> None:
    message = _error(tmp_path, "# nothing yet\n")
    assert message == (
        f"{tmp_path / 'docbot.yml'}: the file is empty: it needs at least `teams:` and "
        "`collections:` (docs/configuration.md shows a complete example)"
    )


def test_config_wrong_type_is_explained(tmp_path: Path) -> None:
    message = _error(tmp_path, VALID.replace("evidence_tokens: 2000", "evidence_tokens: lots"))
    assert "answer.evidence_tokens" in message


def test_config_url_template_with_unknown_placeholder(tmp_path: Path) -> None:
    message = _error(tmp_path, VALID.replace("#L{start}-L{end}", "#L{first}"))
    assert "placeholders" in message


def test_source_url_fills_the_template(tmp_path: Path) -> None:
    config = load_config(_write(tmp_path, VALID))
    url = source_url(config.collection("handbook"), "ops/deploy guide.md", 40, 52)
    assert url == "https://git.example.com/handbook/blob/main/ops/deploy%20guide.md#L40-L52"
    assert source_url(config.collection("payments"), "a.md", 1, 2) is None


def _lines(tmp_path: Path, text: str) -> list[str]:
    """The error lines after the `invalid configuration:` header, without their indent."""
    header, *lines = _error(tmp_path, text).splitlines()
    assert header.endswith("docbot.yml: invalid configuration:")
    return [line.strip() for line in lines]


ONE_COLLECTION = """\
teams: [T0123ABC]
collections:
  - name: handbook
    path: handbook
"""


def test_config_missing_teams_says_what_to_list_with_an_example(tmp_path: Path) -> None:
    assert _lines(tmp_path, ONE_COLLECTION.replace("teams: [T0123ABC]\n", "")) == [
        "teams: missing: list the Slack workspace IDs docbot serves, e.g. teams: [T0123ABC]"
    ]


def test_config_teams_as_a_single_string_must_be_a_list(tmp_path: Path) -> None:
    assert _lines(tmp_path, ONE_COLLECTION.replace("[T0123ABC]", "T0123ABC")) == [
        "teams: must be a list (got 'T0123ABC'), e.g. teams: [T0123ABC]"
    ]


def test_config_empty_lists_say_what_belongs_in_them(tmp_path: Path) -> None:
    assert _lines(tmp_path, "teams: []\ncollections: []\n") == [
        "teams: empty: list the Slack workspace IDs docbot serves, e.g. teams: [T0123ABC]",
        "collections: empty: list the folders of documents docbot answers from, "
        "e.g. collections: [{name: handbook, path: docs}]",
    ]


def test_config_bad_access_names_the_choices_and_no_false_empty_list(tmp_path: Path) -> None:
    text = ONE_COLLECTION + "    access: secret\n"

    assert _lines(tmp_path, text) == [
        "collections[0] (handbook).access: must be one of public, private (got 'secret')"
    ]


def test_config_bad_collection_name_says_which_characters_are_allowed(tmp_path: Path) -> None:
    assert _lines(tmp_path, ONE_COLLECTION.replace("name: handbook", 'name: "a b"')) == [
        "collections[0] (a b).name: must be a letter or digit followed by letters, digits, "
        "'_', '.' or '-' (got 'a b'), e.g. name: handbook"
    ]


def test_config_collection_without_path_says_what_the_path_is(tmp_path: Path) -> None:
    # A collection's source is `path:`, `git:` or `site:`, so a missing path names all three.
    assert _lines(tmp_path, ONE_COLLECTION.replace("    path: handbook\n", "")) == [
        "collections[0] (handbook): collection 'handbook' names no source: add `path: <folder>` "
        "(a local folder, relative to this file), `git: <repository URL>` or "
        "`site: <docs website URL>`"
    ]


def test_config_collection_given_as_a_bare_name_must_be_a_mapping(tmp_path: Path) -> None:
    assert _lines(tmp_path, "teams: [T0123ABC]\ncollections: [handbook]\n") == [
        "collections[0]: must be a mapping of keys to values (got 'handbook'), "
        "e.g. collections: [{name: handbook, path: docs}]"
    ]


def test_config_numbers_and_switches_say_the_range_and_an_example(tmp_path: Path) -> None:
    text = ONE_COLLECTION + (
        "answer:\n  evidence_tokens: lots\n  k: 0\n  max_retries: 11\n  timeout_seconds: 0\n"
        "  neighbours: maybe\n  reasoning_effort: max\n  min_score: many\n"
        "search:\n  chunk_tokens: 3.5\n"
    )

    assert sorted(_lines(tmp_path, text)) == [
        "answer.evidence_tokens: must be a whole number (got 'lots'), e.g. evidence_tokens: 3000",
        "answer.k: must be at least 1 (got 0), e.g. k: 12",
        "answer.max_retries: must be at most 10 (got 11), e.g. max_retries: 2",
        "answer.min_score: must be a number (got 'many'), e.g. min_score: 0.0",
        "answer.neighbours: must be true or false (got 'maybe'), e.g. neighbours: true",
        "answer.reasoning_effort: must be one of minimal, low, medium, high (got 'max')",
        "answer.timeout_seconds: must be more than 0 (got 0), e.g. timeout_seconds: 30.0",
        "search.chunk_tokens: must be a whole number (got 3.5), e.g. chunk_tokens: 350",
    ]


def test_config_team_that_is_not_text_keeps_only_the_entrys_error(tmp_path: Path) -> None:
    assert _lines(tmp_path, ONE_COLLECTION.replace("[T0123ABC]", "[5]")) == [
        "teams[0]: must be text (got 5), e.g. teams: [T0123ABC]"
    ]
