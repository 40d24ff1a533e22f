"""Do the quotes a judge shows support their ticks? The figures from blind checkers' labels
(never part of `make test`).

    .venv/bin/python -m bench.quote_check [DIR/NAME]    # default tests/data/quote_checks/test_v6

A check is three files: `NAME_items.jsonl` (per shown quote: the key point, the verdict it backs,
the quote, which evidence rule(s) showed it, the answer's id, the point's gold status) and
`NAME_checker_a.jsonl`, `NAME_checker_b.jsonl` (per item: does the quote, read on its own,
support the verdict). Two rules' quotes for the same ticks are mixed and shuffled in one file,
so the checkers could not tell them apart: the comparison is side by side, from one reading.
Prints the table and writes it to docs/bench/quote_check.md.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

from sklearn.metrics import cohen_kappa_score as cohen_kappa

from bench.collect import publish
from bench.interview_signal import read_jsonl
from bench.machine import machine

DEFAULT = Path(__file__).resolve().parents[1] / "tests" / "data" / "quote_checks" / "test_v6"
OUT = Path("docs/bench/quote_check.md")


def summary(stem: Path) -> dict:
    items = read_jsonl(stem.with_name(stem.name + "_items.jsonl"))
    checks = {name: {r["item"]: bool(r["supports"]) for r in read_jsonl(stem.with_name(f"{stem.name}_checker_{name}.jsonl"))}
              for name in ("a", "b")}
    missing = [i["item"] for i in items if any(i["item"] not in c for c in checks.values())]
    if missing:
        raise SystemExit(f"{stem.name}: {len(missing)} items without both checkers' labels, e.g. {missing[0]}")
    a, b = ([checks[n][i["item"]] for i in items] for n in ("a", "b"))
    rules: dict[str, dict] = defaultdict(lambda: defaultdict(int))
    for item in items:
        right_tick = item["gold_status"] in ("covered", "partial")
        for rule in item["shown_by"]:
            r = rules[rule]
            r["ticks"] += 1
            r["a"] += checks["a"][item["item"]]
            r["b"] += checks["b"][item["item"]]
            r["right_ticks"] += right_tick
            r["right_a"] += right_tick and checks["a"][item["item"]]
            r["right_b"] += right_tick and checks["b"][item["item"]]
    return {"items": len(items), "agreement": sum(x == y for x, y in zip(a, b)) / len(items),
            "kappa": cohen_kappa(a, b), "rules": {k: dict(v) for k, v in rules.items()}}


def table(figures: dict) -> str:
    lines = ["| evidence rule | ticks | support, checker A | support, checker B | ticks the graders call right | support on those (A / B) |",
             "|---|---|---|---|---|---|"]
    for rule, r in figures["rules"].items():
        right = r["right_ticks"]
        lines.append(f"| {rule} | {r['ticks']} | {r['a'] / r['ticks']:.1%} | {r['b'] / r['ticks']:.1%} | {right} | "
                     f"{r['right_a'] / right:.1%} / {r['right_b'] / right:.1%} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    stem = Path(argv[0]) if argv else DEFAULT
    figures = summary(stem)
    report = "\n".join([
        "# Quotes that support their ticks",
        "",
        f"Command: `{' '.join(['.venv/bin/python -m bench.quote_check', *argv])}`  ",
        f"Machine: {machine()}  ",
        f"Check: `{stem.name}` ({figures['items']} quotes read by two blind checkers; they agree on "
        f"{figures['agreement']:.1%}, Cohen's kappa {figures['kappa']:.2f}).",
        "",
        table(figures),
        "",
    ])
    publish(report, OUT)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
