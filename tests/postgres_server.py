"""A real PostgreSQL server for the tests, started from the machine's own binaries.

`PostgresServer` is one cluster in a temporary folder: initdb (in a test session, a copy of the
session's one initdb'd template), then the server on a free port of 127.0.0.1 with its socket in
that folder (never /var/run/postgresql), durability off (a test cluster is thrown away), stopped
with `stop`. initdb and postgres refuse to run as root, so as root they run as the `postgres`
user that Debian's package creates.

The test session shares one server between its xdist workers (tests/conftest.py): the first
worker that needs it starts it under a file lock in a folder the controller made, each worker
uses a database of its own, and the controller stops the server when the session ends.
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import pwd
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncpg

from tests.ports import free_port

SHARED_DIR_ENV = "DOCBOT_TEST_POSTGRES_DIR"
# .ci/run sets this to "required": there a server that cannot start fails the run, not skips.
REQUIRED_ENV = "DOCBOT_TEST_POSTGRES"
SUPERUSER = "docbot"
BIN_GLOBS = ("/usr/lib/postgresql/*/bin", "/usr/local/pgsql/bin", "/usr/local/bin")


class Unavailable(Exception):
    """No PostgreSQL server can be started here; the message says why."""


def find_bin_dir() -> Path:
    """The folder with initdb and pg_ctl: PATH first, then Debian's and source installs'."""
    found = shutil.which("pg_ctl")
    candidates = [Path(found).resolve().parent] if found else []
    for pattern in BIN_GLOBS:
        root = Path(pattern.split("*")[0])
        if "*" in pattern:
            # The newest version first: /usr/lib/postgresql/16/bin before 15.
            versions = sorted(root.glob("*/bin"), key=lambda p: _version(p.parent.name))
            candidates += reversed(versions)
        else:
            candidates.append(root)
    for folder in candidates:
        if (folder / "initdb").exists() and (folder / "pg_ctl").exists():
            return folder
    raise Unavailable(
        "no PostgreSQL binaries (initdb, pg_ctl) on PATH, in /usr/lib/postgresql/*/bin or "
        "/usr/local/bin: install PostgreSQL (Debian: apt-get install postgresql)"
    )


def _version(name: str) -> tuple[int, ...]:
    return tuple(int(part) for part in name.split(".") if part.isdigit())


def _run_as() -> dict[str, Any]:
    """subprocess arguments that drop root for initdb and postgres, which refuse it."""
    if os.geteuid() != 0:
        return {}
    try:
        user = pwd.getpwnam("postgres")
    except KeyError:
        raise Unavailable(
            "running as root, and there is no 'postgres' user to run the server as: install "
            "Debian's postgresql package (it creates the user) or run the tests as another user"
        ) from None
    return {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}


@dataclass
class PostgresServer:
    root: Path
    bin_dir: Path
    port: int = 0

    @property
    def data(self) -> Path:
        return self.root / "data"

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def init(self) -> None:
        """A new cluster in `data`: in a test session a copy of the session's template (initdb
        takes ~0.7 s of CPU and ~2 s, a copy a fraction), else initdb's own."""
        self.root.mkdir(parents=True, exist_ok=True)
        as_user = _run_as()
        if as_user:
            os.chown(self.root, as_user["user"], as_user["group"])
        template = _session_template(self.bin_dir)
        if template is None:
            self.initdb()
        else:  # as the server's user, who owns the template: the copy is theirs too
            self._command("cp", "-R", "-p", str(template), str(self.data))

    def initdb(self) -> None:
        self._run(
            "initdb", "-D", str(self.data), "-U", SUPERUSER, "--auth=trust", "--no-sync",
            "--encoding=UTF8", "--locale=C",
        )  # fmt: skip

    def start(self) -> None:
        """Start on a free port (the same one again after a `stop`)."""
        self.port = self.port or free_port()
        options = " ".join(
            f"-c {setting}"
            for setting in (
                f"port={self.port}", "listen_addresses=127.0.0.1",
                f"unix_socket_directories={self.root}", "fsync=off", "synchronous_commit=off",
                "full_page_writes=off", "max_connections=300", "shared_buffers=16MB",
            )
        )  # fmt: skip
        log = self.root / "server.log"
        self._run("pg_ctl", "-D", str(self.data), "-l", str(log), "-w", "-t", "60",
                  "-o", options, "start")  # fmt: skip

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "-t", "60", "stop")

    def remove(self) -> None:
        """Stop the server if it runs, and delete its folder."""
        try:
            if (self.data / "postmaster.pid").exists():
                self.stop()
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    def create_database(self, name: str) -> str:
        """A new, empty database (dropped first if a crashed run left it); its URL."""

        async def create() -> None:
            conn = await asyncpg.connect(self.url())
            try:
                await conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
                await conn.execute(f'CREATE DATABASE "{name}"')
            finally:
                await conn.close()

        asyncio.run(create())
        return self.url(name)

    def _run(self, program: str, *args: str) -> None:
        self._command(str(self.bin_dir / program), *args)

    def _command(self, program: str, *args: str) -> None:
        done = subprocess.run(
            [program, *args], capture_output=True, text=True,
            cwd=self.root, timeout=120, check=False, **_run_as(),
        )  # fmt: skip
        if done.returncode != 0:
            log = self.root / "server.log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise Unavailable(
                f"{Path(program).name} {' '.join(args[-1:])} failed ({done.returncode}): "
                f"{(done.stderr or done.stdout).strip()[-2000:]}\n{tail}"
            )


def private_server(root: Path | None = None) -> PostgresServer:
    """A started server in `root` (by default a new temporary folder: pytest's tmp_path is
    closed to the `postgres` user); the caller stops it, and `remove`s a temporary one."""
    bin_dir = find_bin_dir()
    if root is None:
        root = Path(tempfile.mkdtemp(prefix="docbot-pg-"))
    server = PostgresServer(root, bin_dir)
    try:
        server.init()
        server.start()
    except BaseException:
        server.remove()
        raise
    return server


def _session_template(bin_dir: Path) -> Path | None:
    """The data folder of the session's initdb'd cluster, which every server of the session
    copies (made by the first that asks, under a file lock); None outside a test session (a
    benchmark's server runs initdb itself)."""
    folder = os.environ.get(SHARED_DIR_ENV)
    if folder is None:
        return None
    shared = Path(folder)
    with (shared / "template.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        template = PostgresServer(shared / "template", bin_dir)
        ready = shared / "template.ready"
        if not ready.exists():
            shutil.rmtree(template.root, ignore_errors=True)  # a half-made one
            template.root.mkdir()
            as_user = _run_as()
            if as_user:
                os.chown(template.root, as_user["user"], as_user["group"])
            template.initdb()
            ready.touch()
        return template.data


def make_shared_dir() -> None:
    """In the controller, before xdist starts its workers (who inherit the environment)."""
    if SHARED_DIR_ENV not in os.environ:
        folder = tempfile.mkdtemp(prefix="docbot-pg-session-")
        os.chmod(folder, 0o711)  # the `postgres` user passes through to its cluster folder
        os.environ[SHARED_DIR_ENV] = folder


def shared_server() -> PostgresServer:
    """The session's server, started by whichever worker asks first; Unavailable (the same
    reason for every worker, tried once) when it cannot start."""
    shared = Path(os.environ[SHARED_DIR_ENV])
    with (shared / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        state = shared / "server.json"
        failed = shared / "failed"
        if failed.exists():
            raise Unavailable(failed.read_text())
        if state.exists():
            saved = json.loads(state.read_text())
            return PostgresServer(Path(saved["root"]), Path(saved["bin_dir"]), saved["port"])
        try:
            server = private_server(shared / "cluster")
        except Unavailable as exc:
            failed.write_text(str(exc))
            raise
        state.write_text(
            json.dumps({"root": str(server.root), "bin_dir": str(server.bin_dir),
                        "port": server.port})
        )  # fmt: skip
        return server


def stop_shared_server() -> None:
    """In the controller, after every worker is done: stop the server if one was started."""
    folder = os.environ.get(SHARED_DIR_ENV)
    if folder is None:
        return
    state = Path(folder) / "server.json"
    try:
        if state.exists():
            saved = json.loads(state.read_text())
            PostgresServer(Path(saved["root"]), Path(saved["bin_dir"]), saved["port"]).stop()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
