"""Where the test suite's time goes: per test, per file, per worker.

    python -m benchmarks.suite_costs [pytest arguments]   # e.g. tests/retrieval -n 0

Runs pytest (the pyproject.toml options, so two xdist workers by default) with this module as a
plugin in every process. Each process writes what it measured to a JSON file in a temporary
folder; then the totals print: every worker's start-up (interpreter to plugin, plugin to
collection), collection's wall and CPU, and each test's wall and CPU (setup, call and teardown;
the process's own CPU, every thread's, and its waited-for children's: `docbot` subprocesses, git).
Servers the tests start and do not wait for (PostgreSQL) are not counted. A test's wall minus its
CPU is time it waited: on a loaded machine also time it was not given a core.
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


def pytest_sessionfinish(session: pytest.Session) -> None:
    folder = os.environ.get(OUT_ENV)
    if not folder:
        return
    own, children = _cpu()
    record = {
        "started": _process_started(),
        "imported": _imported,
        **_marks,
        "ended": time.time(),
        "cpu": own,
        "children_cpu": children,
        "tests": _rows,
    }
    name = os.environ.get("PYTEST_XDIST_WORKER", "controller")
    (Path(folder) / f"{name}.json").write_text(json.dumps(record), encoding="utf-8")


def report(folder: Path) -> list[str]:
    """The lines printed for one run's JSON files."""
    lines, tests = [], []
    for path in sorted(folder.glob("*.json")):
        run: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        tests += [tuple(row) for row in run["tests"]]
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
