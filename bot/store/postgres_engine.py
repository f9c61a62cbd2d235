"""The PostgreSQL store's connection: SQLAlchemy's async engine over asyncpg, pooled, on an event
loop of its own, and the one place its failures become StoreError / StoreUnavailable.

The store contract is synchronous (the Slack app calls it through `asyncio.to_thread`), so each
call hands a coroutine to the engine's loop thread and waits for it; several threads share the
pool at once. A lost server is said once in the log when calls begin to fail and once when they
succeed again, never per call.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from collections.abc import Awaitable, Callable
from typing import TypeVar

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import (
    ArgumentError,
    DBAPIError,
    InterfaceError,
    OperationalError,
    SQLAlchemyError,
)
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from bot.store.contract import StoreError, StoreUnavailable

log = logging.getLogger("docbot.store")

T = TypeVar("T")

SCHEMES = ("postgresql", "postgres")
# SQLSTATE classes that mean "the server is not there for now": 08 connection exception,
# 57 operator intervention (shutting down, starting up, terminated by the administrator).
_UNAVAILABLE_STATES = ("08", "57")
_NO_DATABASE = "3D000"  # invalid_catalog_name
_LOGIN_REFUSED = ("28000", "28P01")  # invalid_authorization_specification, invalid_password
_CANNOT_CREATE = ("42501", "3F000")  # insufficient_privilege, invalid_schema_name (no USAGE)


def database_url(url: str) -> URL:
    """The engine URL for a `postgresql://user:password@host:port/db` URL. Its error messages
    never repeat the URL, which may hold a password."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise StoreError(
            "the database URL is not a URL: write it as postgresql://user:password@host:5432/db"
        ) from None
    if parsed.get_backend_name() not in SCHEMES:
        raise StoreError(
            f"the database URL names {parsed.get_backend_name()!r}, not PostgreSQL: write it "
            "as postgresql://user:password@host:5432/db (without it, docbot uses SQLite in "
            "state_dir)"
        )
    if not parsed.database:
        raise StoreError(f"the database URL {shown(parsed)} names no database: end it with /DBNAME")
    return parsed.set(drivername="postgresql+asyncpg")


def shown(url: URL) -> str:
    """The URL for a log line or an error: the password is masked."""
    return url.set(drivername="postgresql").render_as_string(hide_password=True)


def unavailable(exc: BaseException) -> bool:
    """Whether `exc` means the server cannot be reached now, rather than a bad statement."""
    if isinstance(exc, OSError | TimeoutError | concurrent.futures.TimeoutError):
        return True
    if not isinstance(exc, DBAPIError):
        return False
    if exc.connection_invalidated or isinstance(exc, OperationalError | InterfaceError):
        return True
    state = _sqlstate(exc)
    return isinstance(state, str) and state.startswith(_UNAVAILABLE_STATES)


def _sqlstate(exc: BaseException) -> str | None:
    orig = exc.orig if isinstance(exc, DBAPIError) else None
    state = getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None)
    return state if isinstance(state, str) else None


def _advice(exc: BaseException, url: URL) -> str:
    """What to do about a failure that is the database's setup, not an outage: the database
    missing, the login refused, no right to create docbot's tables. "" for anything else."""
    state, user, name = _sqlstate(exc), url.username or "USER", url.database or "DBNAME"
    where = "DOCBOT_DATABASE_URL (or database_url in docbot.yml)"
    if state == _NO_DATABASE:
        return (
            f" Create it (createdb {name}, or CREATE DATABASE {name} OWNER {user}, as a "
            f"PostgreSQL user who may create databases), or correct the database name at the "
            f"end of {where}."
        )
    if state in _LOGIN_REFUSED:
        return (
            f" Check the user and password in {where}, and that the server's pg_hba.conf "
            "admits this user from this host."
        )
    if state in _CANNOT_CREATE:
        return (
            f" docbot creates and upgrades its own tables, so {user} needs the right to: "
            f"GRANT USAGE, CREATE ON SCHEMA public TO {user} (as the schema's owner), or "
            f"make {user} the database's owner."
        )
    return ""


class Outage:
    """Says in the log when the server stops answering and when it answers again; once each."""

    def __init__(self, where: str) -> None:
        self._where = where
        self._lock = threading.Lock()
        self._failed = 0

    def lost(self, reason: str) -> None:
        with self._lock:
            self._failed += 1
            first = self._failed == 1
        if first:
            log.warning(
                "the answer store %s cannot be reached (%s): answers in progress are still "
                "posted, with their claims left open until it is back; new question events are "
                "left for Slack to deliver again (answered unclaimed on its last try)",
                self._where, reason,
            )  # fmt: skip

    def ok(self) -> None:
        with self._lock:
            failed, self._failed = self._failed, 0
        if failed:
            log.warning(
                "the answer store %s is reachable again (%d calls failed meanwhile)",
                self._where, failed,
            )  # fmt: skip


class Database:
    """One pooled engine on its own loop thread; `run` one transaction from any thread."""

    def __init__(self, url: URL, *, pool_size: int = 5, timeout_seconds: float = 5.0) -> None:
        self.shown = shown(url)
        self._url = url
        self._timeout = timeout_seconds
        self._outage = Outage(self.shown)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="docbot-postgres", daemon=True
        )
        self._closed = False
        # Until the server has answered once, the process is starting: nothing runs yet that
        # could reconnect, so a failure then is no outage but a start that did not happen.
        self._reached = False
        # Pre-ping: a connection the server dropped (a restart) is replaced on checkout, so
        # the first call after an outage succeeds instead of failing on a dead socket.
        self._engine: AsyncEngine = create_async_engine(
            url,
            pool_size=pool_size,
            max_overflow=pool_size,
            pool_pre_ping=True,
            pool_timeout=timeout_seconds,
            connect_args={"timeout": timeout_seconds, "command_timeout": timeout_seconds},
        )
        self._thread.start()

    def run(self, work: Callable[[AsyncConnection], Awaitable[T]]) -> T:
        """`work` in one transaction: committed when it returns, rolled back when it raises."""
        if self._closed:
            raise StoreError(f"{self.shown}: the answer store is closed.")
        future = asyncio.run_coroutine_threadsafe(self._transaction(work), self._loop)
        try:
            # The pool wait, the connect and the statements each have their own timeout; this
            # one only bounds their sum, so a call never hangs its thread.
            result = future.result(self._timeout * 4)
        except StoreError:
            raise
        except Exception as exc:
            future.cancel()
            raise self._translated(exc) from exc
        self._reached = True
        self._outage.ok()
        return result

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            asyncio.run_coroutine_threadsafe(self._engine.dispose(), self._loop).result(
                self._timeout
            )
        except Exception:  # a server already gone: its connections are dropped with the loop
            log.debug("closing the answer store's connections failed", exc_info=True)
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(self._timeout)
            if not self._thread.is_alive():
                self._loop.close()

    async def _transaction(self, work: Callable[[AsyncConnection], Awaitable[T]]) -> T:
        async with self._engine.begin() as conn:
            return await work(conn)

    def _translated(self, exc: Exception) -> StoreError:
        reason = _reason(exc)
        if unavailable(exc) and not self._reached:
            return StoreUnavailable(
                f"{self.shown}: the answer store cannot be reached ({reason}), so docbot did "
                "not start. Check that the PostgreSQL server is running and reachable from "
                "here, then start docbot again."
            )
        if unavailable(exc):
            self._outage.lost(reason)
            return StoreUnavailable(
                f"{self.shown}: the answer store cannot be reached ({reason}). Check that the "
                "PostgreSQL server is running and reachable; docbot reconnects on its own."
            )
        if isinstance(exc, SQLAlchemyError):
            advice = _advice(exc, self._url)
            return StoreError(f"{self.shown}: the answer store failed ({reason}).{advice}")
        raise exc


def _reason(exc: BaseException) -> str:
    """A one-line cause: the driver's message, without SQLAlchemy's statement dump."""
    inner = exc.orig if isinstance(exc, DBAPIError) and exc.orig is not None else exc
    text = str(inner).strip().splitlines()
    detail = text[0] if text else ""
    return f"{type(inner).__name__}: {detail}" if detail else type(inner).__name__
