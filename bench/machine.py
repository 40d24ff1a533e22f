"""What the machine a benchmark ran on is: its CPU, and one line for a report."""

from __future__ import annotations

import os
import platform
from pathlib import Path


def cpu_model() -> str:
    return next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                 if line.startswith("model name")), platform.processor() or "unknown CPU")


def machine() -> str:
    cpu = cpu_model()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores ({cpu}), no GPU, load average {load:.1f} at start"


def proc_stat(pid: int | str) -> list[str]:
    """/proc/PID/stat as fields numbered as in proc(5) from 1 (pid, comm, state, ppid, ...,
    utime=14, stime=15, cutime=16, cstime=17) at index n-1; the name may hold spaces."""
    text = Path(f"/proc/{pid}/stat").read_text()
    return [text[:text.index(" (")], text[text.index(" (") + 2:text.rindex(")")]] + text[text.rindex(")") + 2:].split()
