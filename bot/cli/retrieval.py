"""`coach retrieve [--json] [--k N] TEXT|-`: which bites a text is about.

With `-`, reads JSON Lines `{"text": ...}` from stdin and writes one JSON object
per input line, in order; a line that cannot be processed yields
`{"error": ..., "line": N}` and the run goes on. The model loads once.
"""

from __future__ import annotations

import json
import sys
from typing import TextIO


def build_finder():
    from coach.config import get_settings
    from coach.topics import TopicFinder
    from content import default_catalog

    return TopicFinder.from_settings(get_settings(), default_catalog())


def retrieve_command(args) -> int:
    if args.k < 1:
        print("coach retrieve: --k must be at least 1", file=sys.stderr)
        return 2
    if args.text != "-" and not args.text.strip():
        print("coach retrieve: TEXT is empty (use - to read JSON Lines from stdin)", file=sys.stderr)
        return 2
    return run(args, build_finder(), sys.stdin, sys.stdout)


def run(args, finder, stdin: TextIO, stdout: TextIO) -> int:
    """The command body, given a TopicFinder (tests pass one they share)."""
    if args.text == "-":
        return _batch(finder, args.k, stdin, stdout)
    result = finder.find(args.text, args.k)
    if args.json:
        stdout.write(json.dumps(result.to_json(), ensure_ascii=False) + "\n")
    else:
        for hit in result.results:
            stdout.write(f"{hit.score:.3f}  {hit.bite_id}  ({hit.title})\n")
        stdout.write("on topic\n" if result.on_topic else "off topic: about none of the bites\n")
    return 0


def _text_of(line: str) -> str:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as error:
        raise ValueError(f"not valid JSON: {error.msg}") from None
    if not isinstance(record, dict) or "text" not in record:
        raise ValueError('expected an object with a "text" field')
    if not isinstance(record["text"], str):
        raise ValueError('"text" must be a string')
    return record["text"]


def _batch(finder, k: int, stdin: TextIO, stdout: TextIO) -> int:
    failures = 0
    for number, line in enumerate(stdin, start=1):
        try:
            out = finder.find(_text_of(line), k).to_json()
        except ValueError as error:
            failures += 1
            out = {"error": str(error), "line": number}
        stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
        stdout.flush()
    # Bad lines are reported in place; the run itself succeeded.
    if failures:
        print(f"coach retrieve: {failures} line(s) could not be processed", file=sys.stderr)
    return 0
