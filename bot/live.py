"""The configuration, answerer and channel policy a running `docbot serve` answers with.

Before each question the listeners ask `LiveRuntime.current()`: a stat of docbot.yml and of the
index manifest, and only when either changed are they read again and the pipeline rebuilt.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from bot.policy import ChannelPolicy
from bot.render.no_answer import OUT_OF_SERVICE
from grounding.answer import Answer, AnswerStatus
from grounding.generators.base import Closable
from grounding.progress import Report, ignore
from retrieval.artifact import watched_file
from retrieval.config import Config, load_config
from retrieval.errors import DocbotError
from retrieval.scopes import Scope

log = logging.getLogger("docbot.live")

# (device, inode, size, mtime in ns) of a file, or None when it does not exist. The inode
# changes on every atomic replace, so a rewrite within one mtime tick is still seen.
FileStamp = tuple[int, int, int, int] | None


class Answerer(Protocol):
    """The grounding pipeline as the Slack app sees it; `AnswerPipeline` conforms."""

    async def answer(
        self,
        question: str,
        scope: Scope,
        *,
        context: Sequence[str] = (),
        user_id: str | None = None,
    ) -> Answer: ...


@runtime_checkable
class LiveAnswerer(Protocol):
    """An Answerer that also reports its progress as it goes (AnswerPipeline conforms)."""

    async def answer_live(
        self,
        question: str,
        scope: Scope,
        *,
        context: Sequence[str] = (),
        user_id: str | None = None,
        report: Report = ignore,
    ) -> Answer: ...


async def ask(
    answerer: Answerer, question: str, scope: Scope, context: Sequence[str], user_id: str | None,
    report: Report,
) -> Answer:  # fmt: skip
    """The answer, with progress told to `report` when the answerer can report it."""
    if isinstance(answerer, LiveAnswerer):
        return await answerer.answer_live(
            question, scope, context=context, user_id=user_id, report=report
        )
    return await answerer.answer(question, scope, context=context, user_id=user_id)


@dataclass(frozen=True, slots=True)
class Live:
    """What one question is answered with: read together so they always match."""

    config: Config
    answerer: Answerer
    policy: ChannelPolicy


@dataclass(frozen=True, slots=True)
class Reload:
    """Where changes come from and how to build an answerer (index + pipeline) for a config.

    `load_answerer` raises DocbotError when the index is missing, damaged or stale for it."""

    config_path: Path
    load_answerer: Callable[[Config], Answerer]
    read_config: Callable[[Path], Config] = load_config


def file_stamp(path: Path) -> FileStamp:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def manifest_path(config: Config) -> Path:
    """The index's file replaced last, once a build or publish is complete (its manifest, or
    a published index's pointer): one in progress leaves it, and so what we load, untouched."""
    return watched_file(config)


class LiveRuntime:
    """The current `Live`; with a `Reload`, swapped for a fresh one when the files change.

    An invalid config keeps what was served before and logs what to fix, once per change. A
    valid new config always takes effect (it holds the access rules); when the index cannot be
    loaded for it, docbot answers nothing until `docbot index` is run, since the previous index
    was built under other rules. A damaged index under an unchanged config keeps the previous."""

    def __init__(self, live: Live, reload: Reload | None = None) -> None:
        self._live = live
        self._reload = reload
        self._seen = self._stamps(live.config)
        self._lock = asyncio.Lock()
        self._holders: dict[int, int] = {}  # id(answerer) -> turns holding it (`hold`)
        self._idle: dict[int, asyncio.Event] = {}  # set when the last holder of a retired one ends
        self._closing: set[asyncio.Task[None]] = set()  # kept until each has closed its answerer

    @contextlib.asynccontextmanager
    async def hold(self) -> AsyncIterator[Live]:
        """The current Live, for one turn: an answerer a reload replaces meanwhile is closed
        (its model client's connections) only once every turn holding it has ended."""
        live = await self.current()
        key = id(live.answerer)  # counted before any other task runs: no reload in between
        self._holders[key] = self._holders.get(key, 0) + 1
        try:
            yield live
        finally:
            self._holders[key] -= 1
            if not self._holders[key]:
                del self._holders[key]
                if key in self._idle:
                    self._idle.pop(key).set()

    @property
    def serving(self) -> bool:
        """False while every answer is an error because the index could not be loaded for a
        changed config (`Unavailable`); /readyz reports it."""
        return not isinstance(self._live.answerer, Unavailable)

    async def current(self) -> Live:
        if self._reload is None or self._stamps(self._live.config) == self._seen:
            return self._live
        async with self._lock:  # one reload at a time; the others then see it done
            if self._stamps(self._live.config) != self._seen:
                # Index.load reads files and builds structures: off the event loop.
                previous = self._live
                self._live, self._seen = await asyncio.to_thread(self._reloaded, previous)
                if self._live.answerer is not previous.answerer:
                    self._retire(previous.answerer)
        return self._live

    async def aclose(self, seconds: float) -> None:
        """At shutdown: close the answerer being served once the last turn holding it has ended,
        and wait up to `seconds` for it and any a reload replaced to be closed (a turn still
        running then is cut off with the loop, and its answerer's connections with it)."""
        self._retire(self._live.answerer)
        if not self._closing:
            return
        _, waiting = await asyncio.wait(tuple(self._closing), timeout=seconds)
        if waiting:
            log.warning("%d answerer(s) still in use after %.0fs: not closed", len(waiting),
                        seconds)  # fmt: skip

    def _retire(self, answerer: Answerer) -> None:
        """Close a replaced answerer once the turns holding it are done (at once if none is)."""
        if not isinstance(answerer, Closable):
            return
        idle = asyncio.Event()
        if id(answerer) in self._holders:
            self._idle[id(answerer)] = idle
        else:
            idle.set()
        task = asyncio.create_task(_close_when_idle(answerer, idle))
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    def _stamps(self, config: Config) -> tuple[FileStamp, FileStamp]:
        if self._reload is None:
            return (None, None)
        return file_stamp(self._reload.config_path), file_stamp(manifest_path(config))

    def _reloaded(self, previous: Live) -> tuple[Live, tuple[FileStamp, FileStamp]]:
        """The new Live and the stamps it was read at (taken before reading, so a change made
        during the read is seen by the next question)."""
        assert self._reload is not None
        config_stamp = file_stamp(self._reload.config_path)
        config = self._read_config(previous.config)
        index_stamp = file_stamp(manifest_path(config))
        if config == previous.config and index_stamp == self._seen[1]:
            return previous, (config_stamp, index_stamp)  # touched, not changed
        answerer = self._load_answerer(config, previous)
        policy = (
            previous.policy if config == previous.config else previous.policy.reconfigured(config)
        )
        return Live(config, answerer, policy), (config_stamp, index_stamp)

    def _read_config(self, previous: Config) -> Config:
        assert self._reload is not None
        path = self._reload.config_path
        try:
            return self._reload.read_config(path)
        except Exception as exc:
            _log_failure(
                exc, f"{path} changed but cannot be used, so docbot keeps answering with the "
                "previous configuration until the file is fixed (it is read again when it changes)",
            )  # fmt: skip
            return previous

    def _load_answerer(self, config: Config, previous: Live) -> Answerer:
        assert self._reload is not None
        try:
            answerer = self._reload.load_answerer(config)
        except Exception as exc:
            if config == previous.config:
                # Only the index changed (damaged, or caught mid-write): the previous index was
                # loaded under these same rules, so it is still safe to answer from.
                _log_failure(
                    exc, f"the index in {_where(config)} cannot be loaded, so docbot keeps "
                    "answering from the previous index; fix it with `docbot index`",
                )  # fmt: skip
                return previous.answerer
            # The rules changed and the index was not rebuilt for them: the previous index
            # may hold files the new config excludes or gives to other readers (a folder just
            # made private), so answering from it could show them. Fail closed until it is.
            _log_failure(
                exc, f"{self._reload.config_path} changed but docbot cannot answer under it, "
                "so it answers nothing until this is fixed (usually by running `docbot index`)",
            )  # fmt: skip
            return Unavailable(f"{type(exc).__name__}: {exc}")
        log.info("reloaded %s and the index in %s", self._reload.config_path, _where(config))
        return answerer


async def _close_when_idle(answerer: Closable, idle: asyncio.Event) -> None:
    await idle.wait()
    try:
        await answerer.aclose()
    except Exception:
        # Closing what nobody uses any more must not take the running bot down.
        log.exception("closing an answerer no longer served failed")
    else:
        log.info("closed an answerer no longer served (replaced by a reload, or at shutdown)")


class RuntimeCloser:
    """Bound to the app's LiveRuntime by build_app; `docbot serve` closes the answerer it
    serves through it at shutdown, after the drain (bot/serve.py)."""

    def __init__(self) -> None:
        self._runtime: LiveRuntime | None = None

    def bind(self, runtime: LiveRuntime) -> None:
        self._runtime = runtime

    async def close(self, seconds: float) -> None:
        if self._runtime is not None:
            await self._runtime.aclose(seconds)


class Unavailable:
    """The answerer after a config change docbot cannot serve yet: every answer is an error."""

    def __init__(self, detail: str) -> None:
        self._detail = detail

    async def answer(
        self,
        question: str,
        scope: Scope,
        *,
        context: Sequence[str] = (),
        user_id: str | None = None,
    ) -> Answer:
        return Answer(
            status=AnswerStatus.ERROR,
            question=question,
            scope=scope,
            message=OUT_OF_SERVICE,
            error_detail=self._detail,
        )


def _where(config: Config) -> Path:
    """The index's folder as the log names it (state_dir/index, or the published index_dir)."""
    return watched_file(config).parent


def _log_failure(exc: Exception, what: str) -> None:
    # The edge catches broadly: a reload must never take the running bot down. Docbot's own
    # errors say what to fix; anything else gets its traceback.
    if isinstance(exc, DocbotError):
        log.error("%s: %s", what, exc)
    else:
        log.exception("%s", what)
