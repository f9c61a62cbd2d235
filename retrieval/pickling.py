"""Pickling the index's large files (collection snapshots' headers and chunks) quickly.

A snapshot unpickles into several objects per chunk, every one of which lives on, and pickling
one makes a tuple per chunk. Meanwhile the cyclic garbage collector runs again and again (it
is triggered by allocation counts) and each run walks the growing heap: at 100k chunks that
was most of the time, e.g. 0.75 s of a 40k-chunk snapshot's `pickle.loads`, 0.16 s with the
collector paused. These files hold no reference cycles to collect, so the collector is paused
for the call.
"""

from __future__ import annotations

import gc
import pickle
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


def loads(data: bytes) -> Any:
    """`pickle.loads(data)` with the cyclic garbage collector paused meanwhile."""
    with collector_paused():
        return pickle.loads(data)


def dumps(value: object) -> bytes:
    """`pickle.dumps(value)` (highest protocol) with the collector paused meanwhile."""
    with collector_paused():
        return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector paused meanwhile (for building many objects at once)."""
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()
