"""One line describing the machine a benchmark ran on."""

from __future__ import annotations

import os
import platform
from pathlib import Path


def machine() -> str:
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor() or "unknown CPU")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores ({cpu}), no GPU, load average {load:.1f} at start"
