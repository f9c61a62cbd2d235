"""Where the test suite's time goes: per test, per file, per worker.

    python -m benchmarks.suite_costs [pytest arguments]   # e.g. tests/retrieval -n 0

Runs pytest (the pyproject.toml options, so two xdist workers by default) with this module as a
plugin in every process. Each process writes what it measured to a JSON file in a temporary
folder; then the totals print: every worker's start-up (interpreter to plugin, plugin to
collection), collection's wall and CPU, and each test's wall and CPU (setup, call and teardown;
the process's own CPU, every thread's, and its waited-for children's: `docbot` subprocesses, git).
Servers the tests start and do not wait for (PostgreSQL) are not in any process's figure; the
session's shared PostgreSQL server (tests/postgres_server.py) is read apart at the session's end:
its postmaster and the backends it has reaped, one per connection the tests made (a test's own
servers, `private_postgres`, are not counted). A test's wall minus its CPU is time it waited: on
a loaded machine also time it was not given a core.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Generator, Sequence
from pathlib import Path
from typing import Any

import pytest

OUT_ENV = "DOCBOT_SUITE_COSTS"
POSTGRES_DIR_ENV = "DOCBOT_TEST_POSTGRES_DIR"  # tests/postgres_server.py's shared folder
PLUGIN = "benchmarks.suite_costs"
TOP = 25

_imported = time.time()
_marks: dict[str, float] = {}
_rows: list[tuple[str, float, float, float]] = []


def _cpu() -> tuple[float, float]:
    """This process's CPU (every thread) and its waited-for children's, in seconds."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


def _process_started() -> float:
    """When this process started (epoch seconds), from /proc."""
    ticks = int(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19])
    uptime = float(Path("/proc/uptime").read_text().split()[0])
    return time.time() - uptime + ticks / os.sysconf("SC_CLK_TCK")


@pytest.hookimpl(hookwrapper=True)
def pytest_collection(session: pytest.Session) -> Generator[None, None, None]:
    _marks["collect_start"], _marks["collect_cpu_start"] = time.time(), _cpu()[0]
    yield
    _marks["collect_end"], _marks["collect_cpu_end"] = time.time(), _cpu()[0]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, None, None]:
    wall, (own, children) = time.time(), _cpu()
    yield
    after_own, after_children = _cpu()
    _rows.append((item.nodeid, time.time() - wall, after_own - own, after_children - children))


def _postgres_cpu() -> float | None:
    """The session's shared PostgreSQL server's CPU so far, in seconds (the postmaster and its
    reaped children: every backend that served a connection, and ended); None if none started."""
    shared = os.environ.get(POSTGRES_DIR_ENV)
    state = Path(shared) / "server.json" if shared else None
    if state is None or not state.exists():
        return None
    root = Path(json.loads(state.read_text(encoding="utf-8"))["root"])
    try:
        pid = int((root / "data" / "postmaster.pid").read_text().split()[0])
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, ValueError, IndexError):
        return None
    # utime, stime, cutime, cstime: the fields 14-17 of proc(5), 11-14 after the name.
    return sum(int(tick) for tick in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def pytest_sessionfinish(session: pytest.Session) -> None:
    folder = os.environ.get(OUT_ENV)
    if not folder:
        return
    own, children = _cpu()
    name = os.environ.get("PYTEST_XDIST_WORKER", "controller")
    record = {
        "started": _process_started(),
        "imported": _imported,
        **_marks,
        "ended": time.time(),
        "cpu": own,
        "children_cpu": children,
        "tests": _rows,
        # The controller's session ends after every worker's, before the server is stopped.
        "postgres_cpu": _postgres_cpu() if name == "controller" else None,
    }
    (Path(folder) / f"{name}.json").write_text(json.dumps(record), encoding="utf-8")


def report(folder: Path) -> list[str]:
    """The lines printed for one run's JSON files."""
    lines, tests, postgres = [], [], None
    for path in sorted(folder.glob("*.json")):
        run: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        tests += [tuple(row) for row in run["tests"]]
        postgres = run.get("postgres_cpu") if postgres is None else postgres
        line = (
            f"{path.stem}: {run['ended'] - run['started']:.1f} s alive, CPU {run['cpu']:.1f} s "
            f"(+ {run['children_cpu']:.1f} s waited-for children)"
        )
        if "collect_start" in run:
            line += (
                f"; start-up {run['imported'] - run['started']:.2f} s to the plugin, "
                f"{run['collect_start'] - run['imported']:.2f} s to collection; collection "
                f"{run['collect_end'] - run['collect_start']:.2f} s wall, "
                f"{run['collect_cpu_end'] - run['collect_cpu_start']:.2f} s CPU; "
                f"{len(run['tests'])} tests"
            )
        lines.append(line)
    wall = sum(t[1] for t in tests)
    own = sum(t[2] for t in tests)
    children = sum(t[3] for t in tests)
    lines.append(
        f"{len(tests)} tests: {wall:.1f} s wall, {own:.1f} s CPU + {children:.1f} s children's"
    )
    if postgres is not None:
        lines.append(f"the shared PostgreSQL server: {postgres:.1f} s CPU (not in the above)")
    files: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    for nodeid, t_wall, t_own, t_children in tests:
        totals = files[nodeid.split("::")[0]]
        totals[0] += t_wall
        totals[1] += t_own + t_children
        totals[2] += 1
    lines.append(f"files by CPU (wall, CPU, tests), top {TOP}:")
    for name, (f_wall, f_cpu, count) in sorted(files.items(), key=lambda kv: -kv[1][1])[:TOP]:
        lines.append(f"  {f_wall:7.2f} {f_cpu:7.2f} {count:5.0f}  {name}")
    lines.append(f"tests by CPU (wall, CPU, children's CPU), top {TOP}:")
    for nodeid, t_wall, t_own, t_children in sorted(tests, key=lambda t: -(t[2] + t[3]))[:TOP]:
        lines.append(f"  {t_wall:7.2f} {t_own + t_children:7.2f} {t_children:7.2f}  {nodeid}")
    lines.append(f"tests by waiting, wall - CPU (wall, CPU), top {TOP}:")
    waited = sorted(tests, key=lambda t: t[2] + t[3] - t[1])
    for nodeid, t_wall, t_own, t_children in waited[:TOP]:
        lines.append(f"  {t_wall:7.2f} {t_own + t_children:7.2f}  {nodeid}")
    return lines


def main(argv: Sequence[str]) -> int:
    with tempfile.TemporaryDirectory(prefix="docbot-suite-costs-") as folder:
        load = os.getloadavg()[0]
        started = time.time()
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-p", PLUGIN, *argv],
            env=os.environ | {OUT_ENV: folder},
            check=False,
        )
        print(
            f"pytest exit {done.returncode}: {time.time() - started:.1f} s wall; load average "
            f"{load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end"
        )
        print("\n".join(report(Path(folder))))
    return done.returncode


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
