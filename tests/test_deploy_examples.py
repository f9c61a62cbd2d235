"""The deploy/ examples and docs/deploy.md name only what exists: every `docbot` command line in
them parses with the real CLI, the files the Dockerfile copies are in the repo, the variables
are ones docbot reads, the health check asks a path `docbot serve` serves, and the image runs as
a non-root user."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from slack_bolt.async_app import AsyncApp

from bot.cli import _parser
from bot.health import Readiness
from bot.metrics import Metrics
from bot.serve import http_app
from bot.settings import ENV_NAMES

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"
DOCKERFILE = (DEPLOY / "Dockerfile").read_text(encoding="utf-8")
UNITS = sorted(DEPLOY.glob("*.service"))
KNOWN_VARIABLES = {*ENV_NAMES, "DOCBOT_CONFIG"}


def _instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of a Dockerfile, continuation lines joined, comments dropped."""
    joined = re.sub(r"\\\n\s*", " ", text)
    lines = [line.strip() for line in joined.splitlines()]
    return [
        (line.split(None, 1)[0].upper(), line.split(None, 1)[1])
        for line in lines
        if line and not line.startswith("#")
    ]


def _docbot_argv(command: list[str]) -> list[str]:
    """The arguments after the `docbot` executable (a bare name or a venv path)."""
    (at,) = [i for i, word in enumerate(command) if Path(word).name == "docbot"]
    return command[at + 1 :]


def _parses(argv: list[str]) -> None:
    try:
        _parser().parse_args(argv)
    except SystemExit as exc:  # argparse's way of refusing a flag
        raise AssertionError(f"`docbot {shlex.join(argv)}` does not parse") from exc


def test_dockerfile_command_is_a_docbot_command_line_that_parses() -> None:
    (cmd,) = [args for op, args in _instructions(DOCKERFILE) if op == "CMD"]
    argv = _docbot_argv(json.loads(cmd))
    _parses(argv)
    assert argv[0] == "serve" and argv[argv.index("--host") + 1] == "0.0.0.0"


def test_dockerfile_healthcheck_asks_healthz_on_the_port_serve_listens_on() -> None:
    (cmd,) = [args for op, args in _instructions(DOCKERFILE) if op == "CMD"]
    port = _docbot_argv(json.loads(cmd))[-1]
    (check,) = [args for op, args in _instructions(DOCKERFILE) if op == "HEALTHCHECK"]
    assert f"http://127.0.0.1:{port}/healthz" in check
    assert ("EXPOSE", port) in _instructions(DOCKERFILE)


def test_dockerfile_copies_files_that_exist_and_runs_as_a_non_root_user() -> None:
    steps = _instructions(DOCKERFILE)
    for op, args in steps:
        if op == "COPY":
            *sources, _ = args.split()
            for source in sources:
                assert (ROOT / source).exists(), f"the Dockerfile copies {source}, not in the repo"
    users = [args for op, args in steps if op == "USER"]
    assert users and users[-1] not in ("root", "0"), "the image must end as a non-root user"
    last_user = max(i for i, (op, _) in enumerate(steps) if op == "USER")
    assert all(op != "RUN" for op, _ in steps[last_user:]), "nothing runs as root after USER"


@pytest.mark.parametrize("unit", UNITS, ids=lambda p: p.name)
def test_systemd_unit_runs_a_docbot_command_that_parses(unit: Path) -> None:
    text = unit.read_text(encoding="utf-8")
    (start,) = re.findall(r"^ExecStart=(.+)$", text, re.MULTILINE)
    _parses(_docbot_argv(shlex.split(start)))
    for variable in re.findall(r"^Environment=([A-Z_]+)=", text, re.MULTILINE):
        assert variable in KNOWN_VARIABLES


def test_environment_example_names_only_variables_docbot_reads() -> None:
    text = (DEPLOY / "docbot.env.example").read_text(encoding="utf-8")
    named = set(re.findall(r"^#?\s*([A-Z][A-Z0-9_]+)=", text, re.MULTILINE))
    assert named and named <= KNOWN_VARIABLES, named - KNOWN_VARIABLES
    assert {"SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "DOCBOT_DATABASE_URL"} <= named


def test_deploy_doc_command_lines_parse_and_its_links_exist() -> None:
    text = (ROOT / "docs" / "deploy.md").read_text(encoding="utf-8")
    blocks = "\n".join(re.findall(r"^ *```sh\n(.*?)^ *```$", text, re.MULTILINE | re.DOTALL))
    lines = re.findall(
        r"^ *(?:docker exec \S+ )?(docbot [^#\n]+?)\s*(?:#.*)?$", blocks, re.MULTILINE
    )
    assert len(lines) >= 4
    for line in lines:
        _parses(_docbot_argv(shlex.split(line)))
    for target in re.findall(r"\]\((\.\./deploy/[^)#]+)\)", text):
        assert (ROOT / "docs" / target).resolve().is_file(), target


def test_the_probe_paths_the_deploy_doc_names_are_served() -> None:
    app = AsyncApp(token="xoxb-deploy-test", signing_secret="s")
    web_app = http_app(app, "s", readiness=Readiness(), metrics=Metrics())
    served = {route.resource.canonical for route in web_app.router.routes() if route.resource}
    text = (ROOT / "docs" / "deploy.md").read_text(encoding="utf-8")
    named = set(re.findall(r"^\| `(/[a-z]+)` \|", text, re.MULTILINE))
    assert named == {"/healthz", "/readyz", "/metrics"} and named <= served
