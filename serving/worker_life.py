"""Worker processes that end with the process that started them, even a SIGKILLed one.

A pool's owner killed outright cannot shut its pool down: without this its workers would live
on, orphaned, holding memory and any inherited pipes (a parent waiting on the owner's stderr
would wait for them too). Used by the speech workers (serving/speech.py) and the picture
workers (bot/pictures/worker.py).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

WATCH_PARENT_S = 1.0


def end_with_parent(parent: int) -> None:
    """Linux signals this process when its parent dies (PR_SET_PDEATHSIG); elsewhere, and as a
    fallback, a thread notices the parent is gone within a second. `parent` is the owner's pid
    as the owner gave it: an owner that died while this worker was still starting up is noticed
    too (the worker's parent is by then someone else)."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM))  # PR_SET_PDEATHSIG = 1
        except (OSError, AttributeError):
            pass

    def watch() -> None:
        while True:
            if os.getppid() != parent:
                os._exit(0)
            time.sleep(WATCH_PARENT_S)

    if os.getppid() != parent:  # the owner died before the signal was asked for
        os._exit(0)
    threading.Thread(target=watch, name="watch-parent", daemon=True).start()
