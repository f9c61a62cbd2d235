"""What a probe prints when run by a fresh interpreter: how tests see which modules a cold
process imports (nothing this test process has loaded already is shared with it)."""

from __future__ import annotations

import subprocess
import sys


def fresh_process_prints(probe: str, timeout: float = 120) -> str:
    """The stdout of `python -c probe` in a new process, which must exit 0."""
    return subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=timeout
    ).stdout
