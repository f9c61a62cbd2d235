"""A private document's canary never leaves its scope: not to the model, the answer or the logs.

Runs the real index (built in a tmp dir), the real pipeline and a recording generator that
repeats back everything it is given, so any leak into the packet would surface in the answer.
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path

import pytest

from grounding.answer import Answer, AnswerStatus
from grounding.evidence import PackPolicy
from grounding.generators.base import GenerationRequest
from grounding.pipeline import AnswerPipeline
from grounding.schema import GroundedResponse
from retrieval.config import Config, load_config
from retrieval.index import Index, build_index
from retrieval.links import url_resolver
from retrieval.scopes import ConversationKind, resolve_scope
from retrieval.tokens import TiktokenCounter
from tests.grounding.fakes import RecordingGenerator, response

CANARY = "zqxcanary4471lighthouse"
QUESTION = "How do I rotate the vault passphrase?"
PUBLIC_DOC = """# Vault

## Rotation

Rotate the vault passphrase with the `vault-rotate` command, then restart the workers.
"""
PRIVATE_DOC = f"""# Vault secrets

## Rotation

The vault passphrase rotation uses the master phrase {CANARY} and happens every quarter.
"""
# Other documents on both sides, so that BM25 statistics are meaningful in each scope.
FILLER = {
    "handbook/deploy.md": "# Deploy\n\nDeploys run from the main branch after review.\n",
    "handbook/onboarding.md": "# Onboarding\n\nNew engineers get a laptop and a buddy.\n",
    "handbook/style.md": "# Style\n\nFormat Python code with ruff before committing.\n",
    "secrets/payroll.md": "# Payroll\n\nSalaries are paid on the last working day.\n",
}
CONFIG = """\
state_dir: state
teams: [T0001]
collections:
  - name: handbook
    path: docs/handbook
    url: "https://git.example/handbook/{path}#L{start}-L{end}"
  - name: secrets
    path: docs/secrets
    access: private
    channels: [CSECRET01]
"""


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> Config:
    root = tmp_path_factory.mktemp("canary")
    (root / "docs" / "handbook").mkdir(parents=True)
    (root / "docs" / "secrets").mkdir(parents=True)
    (root / "docs" / "handbook" / "vault.md").write_text(PUBLIC_DOC, encoding="utf-8")
    (root / "docs" / "secrets" / "vault.md").write_text(PRIVATE_DOC, encoding="utf-8")
    for rel, text in FILLER.items():
        (root / "docs" / rel).write_text(text, encoding="utf-8")
    (root / "docbot.yml").write_text(CONFIG, encoding="utf-8")
    loaded = load_config(root / "docbot.yml")
    build_index(loaded)
    return loaded


def _echo(request: GenerationRequest) -> GroundedResponse:
    """Repeat every evidence item back as a claim: whatever reaches the model reaches the answer."""
    claims = [
        (item.chunk.text.strip().splitlines()[-1], [item.label]) for item in request.packet.items
    ]
    return response(*claims)


def _ask(config: Config, channel: str) -> tuple[Answer, RecordingGenerator]:
    index = Index.load(config)
    generator = RecordingGenerator([_echo])

    url_for = url_resolver(config)
    pipeline = AnswerPipeline(index, generator, TiktokenCounter(), PackPolicy(), url_for)
    scope = resolve_scope(config, "T0001", channel, ConversationKind.CHANNEL)
    return asyncio.run(pipeline.answer(QUESTION, scope, user_id="U1")), generator


def _everything_sent(generator: RecordingGenerator) -> str:
    return "\n".join(
        f"{r.prompt.instructions}\n{r.prompt.input}\n{r.packet!r}\n{r.correction}"
        for r in generator.requests
    )


def test_canary_never_leaves_the_private_scope(
    config: Config, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.DEBUG):
        answer, generator = _ask(config, "CPUBLIC01")
    assert answer.scope.collections == ("handbook",)
    assert answer.status is AnswerStatus.ANSWERED  # the public doc still answers
    assert generator.requests, "the public document should have reached the generator"
    assert CANARY not in _everything_sent(generator)
    assert CANARY not in json.dumps(answer.to_dict())
    assert all(r.collection == "handbook" for r in answer.retrieved)
    logged = "\n".join(f"{r.name} {r.getMessage()} {r.args!r}" for r in caplog.records)
    assert CANARY not in logged
    assert caplog.records, "the pipeline should have logged the answer"


def test_canary_reaches_the_channel_allowed_to_read_it(config: Config) -> None:
    answer, generator = _ask(config, "CSECRET01")
    assert answer.scope.collections == ("handbook", "secrets")
    assert CANARY in _everything_sent(generator)
    assert CANARY in json.dumps(answer.to_dict())
    assert any(source.collection == "secrets" for source in answer.sources)


def test_canary_state_dir_is_inside_the_tmp_tree(config: Config) -> None:
    # The index must be built where the test put it, never in the working directory.
    assert Path(config.state_dir).is_dir()
    assert "canary" in str(config.state_dir)
