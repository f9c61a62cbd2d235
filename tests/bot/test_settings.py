"""Settings: read from an explicit mapping, blank means unset, malformed values fail clearly."""

from __future__ import annotations

import pytest

from bot.settings import Settings, SettingsError
from retrieval.errors import DocbotError

FULL = {
    "SLACK_BOT_TOKEN": "xoxb-1-2-abc",
    "SLACK_SIGNING_SECRET": "s3cret",
    "SLACK_APP_TOKEN": "xapp-1-A1-2-def",
    "OPENAI_API_KEY": "sk-test",
    "OPENAI_BASE_URL": "http://127.0.0.1:9999/v1",
    "DOCBOT_SLACK_API_URL": "http://127.0.0.1:9998/api/",
}


def test_settings_from_env_reads_every_variable() -> None:
    settings = Settings.from_env(FULL)
    assert settings.bot_token() == "xoxb-1-2-abc"
    assert settings.signing_secret() == "s3cret"
    assert settings.app_token() == "xapp-1-A1-2-def"
    assert settings.openai_api_key is not None
    assert settings.openai_api_key.get_secret_value() == "sk-test"
    assert settings.openai_base_url == "http://127.0.0.1:9999/v1"
    assert settings.slack_api_url == "http://127.0.0.1:9998/api/"
    assert settings.socket_mode


def test_settings_from_env_ignores_unrelated_and_blank_variables() -> None:
    settings = Settings.from_env({"SLACK_APP_TOKEN": "  ", "HOME": "/root", "PATH": "/bin"})
    assert settings == Settings()
    assert not settings.socket_mode


def test_settings_secrets_never_show_in_repr() -> None:
    text = repr(Settings.from_env(FULL)) + str(Settings.from_env(FULL))
    for secret in ("xoxb-1-2-abc", "s3cret", "xapp-1-A1-2-def", "sk-test"):
        assert secret not in text


def test_settings_missing_signing_secret_says_where_to_find_it() -> None:
    with pytest.raises(SettingsError) as caught:
        Settings().signing_secret()
    assert "SLACK_SIGNING_SECRET is not set" in str(caught.value)
    assert "Basic Information" in str(caught.value)
    assert isinstance(caught.value, DocbotError)


def test_settings_missing_bot_token_says_where_to_find_it() -> None:
    with pytest.raises(SettingsError, match=r"SLACK_BOT_TOKEN is not set.*OAuth & Permissions"):
        Settings().bot_token()


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("SLACK_BOT_TOKEN", "xapp-1-wrong-kind", "SLACK_BOT_TOKEN: is not a bot token"),
        ("SLACK_APP_TOKEN", "xoxb-1-wrong-kind", "SLACK_APP_TOKEN: is not an app-level token"),
        ("DOCBOT_SLACK_API_URL", "localhost:3000", "DOCBOT_SLACK_API_URL: 'localhost:3000'"),
    ],
)
def test_settings_from_env_rejects_malformed_values(name: str, value: str, expected: str) -> None:
    with pytest.raises(SettingsError) as caught:
        Settings.from_env({name: value})
    assert expected in str(caught.value)
    assert "wrong-kind" not in str(caught.value)  # the secret itself is never echoed
