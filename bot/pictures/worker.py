"""What runs inside a picture worker process. Kept tiny: the pool pickles these by name."""

from __future__ import annotations

import gc
import os
import resource
import time
import tracemalloc

from serving.worker_life import end_with_parent


def init(nice: int = 0, parent: int | None = None) -> None:
    """The pool's initializer: the worker ends with the bot (even a SIGKILLed one), runs at a
    lower CPU priority (a render never holds up an interaction), and starts warm (imports,
    fonts, one render of each picture)."""
    end_with_parent(parent or os.getppid())
    if nice:
        try:
            os.nice(nice)
        except OSError:  # not permitted here: run at the bot's priority
            pass
    from bot.pictures import render

    render.warm()
    # What warming up loaded (matplotlib, fonts, caches) lives as long as the worker: frozen,
    # the collector never walks it again.
    gc.collect()
    gc.freeze()


def ping() -> int:
    """Returns the worker's pid once it has started (and warmed up)."""
    return os.getpid()


def render(data) -> bytes:
    """PNG bytes, with the render's own garbage collected before returning. A Figure is a web
    of reference cycles; left to the collector, a few renders' worth build up until a full
    collection walks them all inside one unlucky render (+100-150 ms every ninth map here)."""
    from bot.pictures import render as pictures

    png = pictures.render(data)
    gc.collect()
    return png


def measure(data, repeat: int) -> dict:
    """For the benchmark: `repeat` timed renders (wall clock, and this process's CPU time, which
    other work on the machine does not inflate), then one more under tracemalloc (Python
    allocations' peak during a render), and the worker's peak resident memory so far."""
    seconds, cpu_seconds = [], []
    size = 0
    for _ in range(repeat):
        started, cpu_started = time.perf_counter(), time.process_time()
        size = len(render(data))
        seconds.append(time.perf_counter() - started)
        cpu_seconds.append(time.process_time() - cpu_started)
    tracemalloc.start()
    try:
        render(data)
        _, traced_peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return {"seconds": seconds, "cpu_seconds": cpu_seconds, "bytes": size, "traced_peak": traced_peak,
            "max_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, "pid": os.getpid()}
