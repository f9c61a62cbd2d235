"""`owners:` per collection: user or user-group IDs, checked like channel IDs."""

from __future__ import annotations

from pathlib import Path

import pytest

from retrieval.config import load_config
from retrieval.errors import ConfigError

CONFIG = """\
state_dir: state
teams: [T0123ABC]
collections:
  - name: handbook
    path: handbook
  - name: payments
    path: payments
    access: private
    channels: [C0PAYMENTS]
    owners: {owners}
"""


def _load(tmp_path: Path, owners: str) -> tuple[str, ...]:
    for folder in ("handbook", "payments"):
        (tmp_path / folder).mkdir(exist_ok=True)
    path = tmp_path / "docbot.yml"
    path.write_text(CONFIG.format(owners=owners), encoding="utf-8")
    return load_config(path).collection("payments").owners


def test_config_owners_take_user_and_user_group_ids(tmp_path: Path) -> None:
    assert _load(tmp_path, '["<!subteam^S0123>", U0ABC, W0ENT]') == (
        "<!subteam^S0123>", "U0ABC", "W0ENT",
    )  # fmt: skip
    assert load_config(tmp_path / "docbot.yml").collection("handbook").owners == ()


@pytest.mark.parametrize(
    "owner", ['"@payments-team"', '"payments-team"', '"S0123"', '"<@U0ABC>"', '"u0abc"', "C0PAY"]
)
def test_config_owner_that_is_not_an_id_names_the_key_and_the_fix(
    tmp_path: Path, owner: str
) -> None:
    with pytest.raises(ConfigError) as info:
        _load(tmp_path, f"[{owner}]")
    message = str(info.value)
    assert "is not a user or user-group ID" in message
    assert "collections[1] (payments).owners" in message
    assert "<!subteam^S...>" in message and "docbot.yml" in message
