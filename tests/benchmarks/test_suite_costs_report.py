"""benchmarks/suite_costs.py's report: the shared PostgreSQL server's CPU is said apart, and only
when a server ran."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.suite_costs import report


def _write(folder: Path, name: str, postgres_cpu: float | None) -> None:
    record = {
        "started": 0.0, "imported": 0.5, "ended": 10.0, "cpu": 2.0, "children_cpu": 1.0,
        "tests": [["tests/test_x.py::test_a", 1.0, 0.5, 0.0]], "postgres_cpu": postgres_cpu,
    }  # fmt: skip
    (folder / f"{name}.json").write_text(json.dumps(record), encoding="utf-8")


def test_report_says_the_shared_servers_cpu_from_the_controllers_record(tmp_path: Path) -> None:
    _write(tmp_path, "controller", 3.31)
    _write(tmp_path, "gw0", None)
    assert "the shared PostgreSQL server: 3.3 s CPU (not in the above)" in report(tmp_path)


def test_report_without_a_server_says_nothing_of_one(tmp_path: Path) -> None:
    _write(tmp_path, "controller", None)
    assert not [line for line in report(tmp_path) if "PostgreSQL" in line]
