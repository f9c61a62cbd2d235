"""Secrets and endpoints from the environment; read once, by the composition root only.

Values are validated here so a pasted-in-the-wrong-variable token fails at start-up, not mid-answer.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, SecretStr, ValidationError, field_validator

from retrieval.errors import ConfigError

# Environment variable -> Settings field.
ENV_NAMES: dict[str, str] = {
    "SLACK_BOT_TOKEN": "slack_bot_token",
    "SLACK_SIGNING_SECRET": "slack_signing_secret",
    "SLACK_APP_TOKEN": "slack_app_token",
    "OPENAI_API_KEY": "openai_api_key",
    "OPENAI_BASE_URL": "openai_base_url",
    "DOCBOT_SLACK_API_URL": "slack_api_url",
    "DOCBOT_DATABASE_URL": "database_url",
}


class SettingsError(ConfigError):
    """An environment variable docbot needs is missing or malformed."""


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    slack_bot_token: SecretStr | None = None
    slack_signing_secret: SecretStr | None = None
    slack_app_token: SecretStr | None = None
    openai_api_key: SecretStr | None = None
    openai_base_url: str | None = None
    slack_api_url: str | None = None
    # The PostgreSQL answer store (postgresql://user:password@host/db); wins over docbot.yml's
    # database_url. Secret: it may hold the password.
    database_url: SecretStr | None = None

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> Settings:
        """Blank variables count as unset: `export SLACK_APP_TOKEN=` must not mean Socket Mode."""
        values = {
            field: environ[name].strip()
            for name, field in ENV_NAMES.items()
            if environ.get(name, "").strip()
        }
        try:
            return cls.model_validate(values)
        except ValidationError as exc:
            raise SettingsError(_describe(exc)) from None

    @field_validator("slack_bot_token")
    @classmethod
    def _bot_token(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and not value.get_secret_value().startswith("xoxb-"):
            raise ValueError(
                "is not a bot token (xoxb-...): copy the Bot User OAuth Token from "
                "OAuth & Permissions of your Slack app"
            )
        return value

    @field_validator("slack_app_token")
    @classmethod
    def _app_token(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and not value.get_secret_value().startswith("xapp-"):
            raise ValueError(
                "is not an app-level token (xapp-...): create one with the connections:write "
                "scope under Basic Information > App-Level Tokens, or unset it to serve over HTTP"
            )
        return value

    @field_validator("openai_base_url", "slack_api_url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("https://", "http://")):
            raise ValueError(f"{value!r} is not an http(s) URL")
        return value

    @field_validator("database_url")
    @classmethod
    def _database_url(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and not value.get_secret_value().startswith(
            ("postgresql://", "postgres://")
        ):
            raise ValueError(
                "is not a PostgreSQL URL: write postgresql://user:password@host:5432/dbname, "
                "or unset it to keep the answer store in SQLite in state_dir"
            )
        return value

    @property
    def socket_mode(self) -> bool:
        return self.slack_app_token is not None

    def bot_token(self) -> str:
        if self.slack_bot_token is None:
            raise SettingsError(
                "SLACK_BOT_TOKEN is not set: copy the Bot User OAuth Token (xoxb-...) from "
                "OAuth & Permissions of your Slack app"
            )
        return self.slack_bot_token.get_secret_value()

    def signing_secret(self) -> str:
        if self.slack_signing_secret is None:
            raise SettingsError(
                "SLACK_SIGNING_SECRET is not set: copy it from Basic Information of your Slack app "
                "(or set SLACK_APP_TOKEN to use Socket Mode, which needs no signing secret)"
            )
        return self.slack_signing_secret.get_secret_value()

    def app_token(self) -> str:
        if self.slack_app_token is None:
            raise SettingsError(
                "SLACK_APP_TOKEN is not set: Socket Mode needs an app-level token (xapp-...)"
            )
        return self.slack_app_token.get_secret_value()


def _describe(exc: ValidationError) -> str:
    by_field = {field: name for name, field in ENV_NAMES.items()}
    lines = ["invalid environment:"]
    for error in exc.errors():
        field = str(error["loc"][0]) if error["loc"] else ""
        message = str(error["msg"]).removeprefix("Value error, ")
        lines.append(f"  {by_field.get(field, field)}: {message}")
    return "\n".join(lines)
