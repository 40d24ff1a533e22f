"""Stitch the per-benchmark sections (docs/bench/*.md, each written by its own script)
into docs/benchmarks.md. Run after any benchmark: `python bench/collect.py`."""

from __future__ import annotations

from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs"
ORDER = ["retrieval", "grading", "grading_speed", "injection_probe", "serving", "router", "bot_load", "bot_capacity", "store", "pictures", "speech", "soak", "restart_sweep"]

HEADER = """# Benchmarks

Measured on this project's development machine (2 cores, 24 GiB, no GPU) unless a
section says otherwise. Each section names the command that reproduces it and was
written by that command; `make bench` runs them all and this file is stitched from
`docs/bench/*.md` by `python bench/collect.py`. Benchmarks never run inside `make test`.
Claims of progress are `test`-split numbers; thresholds were calibrated on `dev` only.
"""


def publish(report: str, out: Path) -> None:
    """Print a benchmark's report and write it where collect() picks it up."""
    print(report)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report)


def demote(markdown: str) -> str:
    """Shift a section's headings so its top heading sits at level 2 under this file's title."""
    lines = markdown.splitlines()
    levels = [len(line) - len(line.lstrip("#")) for line in lines if line.startswith("#")]
    shift = 2 - min(levels) if levels else 0
    return "\n".join("#" * shift + line if line.startswith("#") and shift > 0 else line for line in lines)


def main() -> None:
    sections = {p.stem: p.read_text().strip() for p in sorted((DOCS / "bench").glob("*.md"))}
    names = [n for n in ORDER if n in sections] + sorted(set(sections) - set(ORDER))
    body = "\n\n".join(demote(sections[n]) for n in names)
    (DOCS / "benchmarks.md").write_text(HEADER + "\n" + body + "\n")
    print(f"docs/benchmarks.md: {', '.join(names)}")


if __name__ == "__main__":
    main()
