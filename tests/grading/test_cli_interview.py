"""`coach interview --json`: a scripted interview through the same flow as /interview, in-process
through `bot.cli.main` on the shipped track, with the LLM unreachable (the CPU judge grades)."""

import json

from bot.cli.main import main
from tests.grading.test_cli_grading import env  # noqa: F401 - the CLI's environment fixture

SCRIPT = [
    {"bite": "kv-cache"},
    {"answer": "um it caches some stuff from earlier tokens so generation is faster"},
    {"answer": "It holds the key and value vectors of every previous token, at every layer."},
    "idk",
]


def run(tmp_path, capsys, lines):
    script = tmp_path / "script.jsonl"
    script.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code = main(["interview", "--json", str(script)])
    captured = capsys.readouterr()
    return code, [json.loads(line) for line in captured.out.splitlines()], captured.err


def test_a_scripted_interview_prints_each_turn_and_the_scorecard(env, tmp_path, capsys):  # noqa: F811
    code, out, _ = run(tmp_path, capsys, [json.dumps(item) for item in SCRIPT])
    assert code == 0
    first, follow_up, passed, card = out
    assert first["turn"] == 0 and first["point"] is None and first["grader"] == "embedding"
    assert first["verdict"] == "missed" and first["score"] <= 1
    assert follow_up["point"] == 0 and follow_up["asked"] == "What exactly sits in the cache, and for which layers?"
    assert follow_up["verdict"] == "landed" and follow_up["status"] == "covered"
    assert passed["verdict"] == "passed"
    points = card["scorecard"]["questions"][0]["points"]
    assert points[0]["outcome"] == "rescued" and card["scorecard"]["signal"] in ("lean_no", "strong_no")
    assert card["scorecard"]["xp"] == 5


def test_a_script_that_stops_early_still_gets_its_scorecard(env, tmp_path, capsys):  # noqa: F811
    code, out, _ = run(tmp_path, capsys, [json.dumps(item) for item in SCRIPT[:2]])
    assert code == 0 and out[-1]["scorecard"]["ended"] == "ended"


def test_a_bad_script_names_its_line(env, tmp_path, capsys):  # noqa: F811
    code, out, err = run(tmp_path, capsys, ['{"bite": "kv-cache"}', '{"text": "no answer field"}'])
    assert code == 2 and out == [] and "line 2" in err
    code, _, err = run(tmp_path, capsys, ['{"bite": "no-such-bite"}', '"idk"'])
    assert code == 2 and "no bite called 'no-such-bite'" in err
    code, _, err = run(tmp_path, capsys, ['{"bite": "kv-cache"}', '{"answer": "   "}'])
    assert code == 2 and "empty" in err
