"""Unpickling the index's large files (collection snapshots, token stores) quickly.

A snapshot unpickles into several objects per chunk, every one of which lives on. While they
are made, the cyclic garbage collector runs again and again (it is triggered by allocation
counts) and each run walks the growing heap: at 100k chunks that was most of the time, e.g.
0.75 s of a 40k-chunk snapshot's `pickle.loads`, 0.16 s with the collector paused. These files
hold no reference cycles to collect, so the collector is paused for the call.
"""

from __future__ import annotations

import gc
import pickle
from typing import Any


def loads(data: bytes) -> Any:
    """`pickle.loads(data)` with the cyclic garbage collector paused meanwhile."""
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        return pickle.loads(data)
    finally:
        if paused:
            gc.enable()
