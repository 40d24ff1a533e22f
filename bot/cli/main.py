"""`coach`: the command-line adapter. Each subcommand lazily imports its handler so
`coach content check` does not load torch, and `coach chat` starts fast."""

from __future__ import annotations

import argparse
import importlib
import sys

# command path -> "module:function"; each function takes the parsed args and returns an exit code.
HANDLERS = {
    "run": "bot.runner:run_command",
    "chat": "bot.console.chat:chat_command",
    "content check": "bot.cli.content:check_command",
    "content export": "bot.cli.content:export_command",
    "content reports": "bot.cli.content:reports_command",
    "retrieve": "bot.cli.retrieval:retrieve_command",
    "grade": "bot.cli.grading:grade_command",
    "interview": "bot.cli.interview:interview_command",
    "transcribe": "bot.cli.voice:transcribe_command",
    "grader compare": "bot.cli.grading:compare_command",
    "grader fit": "bot.cli.fit:fit_command",
    "grader qualify": "bot.cli.grading:qualify_command",
    "grader train": "bot.cli.fit:train_command",
    "grader train-net": "bot.cli.fit:train_net_command",
    "llm serve": "bot.cli.llm:serve_command",
    "db upgrade": "bot.cli.db:upgrade_command",
    "stats": "bot.cli.stats:stats_command",
}


from bot.cli.fit import DEFAULT_DEV  # noqa: E402  (no heavy imports: paths only)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="coach", description="Interview Coach: ML-engineering interview practice.")
    sub = parser.add_subparsers(dest="command", required=True)

    sub.add_parser("run", help="start the bot (Discord if DISCORD_TOKEN is set, else the console)")
    sub.add_parser("chat", help="the console adapter: the Discord commands in a terminal")

    content = sub.add_parser("content", help="authored content").add_subparsers(dest="sub", required=True)
    content.add_parser("check", help="validate every track")
    export = content.add_parser("export", help="print the catalog")
    export.add_argument("--json", action="store_true", required=True)
    content.add_parser("reports", help="list 'report this question' notes").add_argument("--json", action="store_true")

    retrieve = sub.add_parser("retrieve", help="which bite is this text about")
    retrieve.add_argument("--json", action="store_true")
    retrieve.add_argument("--k", type=int, default=3)
    retrieve.add_argument("text", help="the text, or - for JSON Lines on stdin")

    grade = sub.add_parser("grade", help="grade a spoken-style answer, typed or recorded")
    grade.add_argument("--json", action="store_true")
    grade.add_argument("--bite", default=None)
    grade.add_argument("--audio", default=None, metavar="FILE",
                       help="grade a recording (any common audio format): transcribed locally, then graded")
    grade.add_argument("answer", nargs="?", default=None, help="the answer, or - for JSON Lines on stdin")

    interview = sub.add_parser("interview", help="a scripted mock interview: each turn's verdict and the scorecard")
    interview.add_argument("--json", action="store_true")
    interview.add_argument("script", nargs="?", default="-",
                           help='JSON Lines: {"bite": ID}, then {"answer": ...} or "idk" per turn (default: stdin)')

    transcribe = sub.add_parser("transcribe", help="print the transcript of a recording (local speech-to-text)")
    transcribe.add_argument("file", help="the recording (ogg, mp3, m4a, wav, webm, ...)")
    transcribe.add_argument("--bite", default=None, help="bias recognition toward this bite's terms")
    transcribe.add_argument("--json", action="store_true",
                            help='print {"transcript", "bite_id", "delivery", "decode_s"}')

    grader = sub.add_parser("grader", help="grader tools").add_subparsers(dest="sub", required=True)
    compare = grader.add_parser("compare", help="shadow-compare two graders on the eval set")
    compare.add_argument("--candidate", required=True)
    compare.add_argument("--baseline", default=None)
    compare.add_argument("--eval", default=None,
                         help="eval set (JSON Lines); default: the blind dev split. Test figures come only "
                              "from `python -m bench.grading --test`")
    compare.add_argument("--stored", action="store_true", help="also re-grade stored attempts that kept their text")
    compare.add_argument("--limit", type=int, default=None, help="only the first N eval answers (a quick check)")
    compare.add_argument("--json", action="store_true")
    qualify = grader.add_parser("qualify", help="qualify the served LLM against the CPU judge (stored for the bot)")
    qualify.add_argument("--base-url", default=None, help="the LLM server (default: LLM_BASE_URL)")
    qualify.add_argument("--all", action="store_true", help="judge every answer (default: stop once it cannot pass)")
    qualify.add_argument("--json", action="store_true")
    fit = grader.add_parser("fit", help="fit the graders' numbers on dev into the shipped artifact")
    fit.add_argument("--dev", default=str(DEFAULT_DEV), help="the dev split (never test)")
    fit.add_argument("--out", default=None, help="where to write (default: the packaged artifact)")
    fit.add_argument("--json", action="store_true")

    train = grader.add_parser("train", help="train the key-point model from content/judge (needs the train extra)")
    train.add_argument("--out", default=None, help="where to write (default: the packaged artifact)")
    train.add_argument("--seed", type=int, default=None)
    train.add_argument("--epochs", type=int, default=None)
    train.add_argument("--json", action="store_true")
    net = grader.add_parser("train-net", help="train the injection net's learned tier from content/judge/injection")
    net.add_argument("--out", default=None, help="where to write (default: the packaged artifact)")
    net.add_argument("--json", action="store_true")

    llm = sub.add_parser("llm", help="the local LLM server").add_subparsers(dest="sub", required=True)
    serve = llm.add_parser("serve", help="start the local vLLM server with the packaged small model")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--host", default="127.0.0.1")

    db = sub.add_parser("db", help="the database").add_subparsers(dest="sub", required=True)
    db.add_parser("upgrade", help="apply migrations")

    stats = sub.add_parser("stats", help="draw /stats, the bite map or the server's week to a PNG file")
    stats.add_argument("--png", required=True, metavar="OUT.png", help="where to write the picture")
    stats.add_argument("--user", type=int, default=None, help="whose progress (default: the console's user)")
    stats.add_argument("--guild", type=int, default=None, help="which server (default: the console's)")
    which = stats.add_mutually_exclusive_group()
    which.add_argument("--map", action="store_true", help="the bite map of a track (/stats view:map)")
    which.add_argument("--week", action="store_true", help="the server's week (posted with its first daily post)")
    stats.add_argument("--track", default=None, help="with --map: which track (default: the first)")
    stats.add_argument("--start", default=None, metavar="YYYY-MM-DD",
                       help="with --week: the week's first day (default: the last whole week)")
    stats.add_argument("--name", default=None, help="the display name to show (default: you / member ID)")
    stats.add_argument("--server", default=None, help="with --week: the server's name to show")
    stats.add_argument("--json", action="store_true", help='print {"png", "bytes", "description", "text"}')
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    key = " ".join(x for x in (args.command, getattr(args, "sub", None)) if x)
    module_name, func_name = HANDLERS[key].split(":")
    try:
        handler = getattr(importlib.import_module(module_name), func_name)
        return int(handler(args) or 0)
    except KeyboardInterrupt:
        return 130
    except SystemExit:
        raise
    except Exception as error:  # last resort: a clear line on stderr, never a traceback dump
        print(f"coach {key}: error: {error}", file=sys.stderr)
        return 1

