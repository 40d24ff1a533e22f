"""`coach retrieve`: single and batch modes, through the handler with the shared
finder, and once end to end in a subprocess (the model loads once there)."""

import io
import json
import os
import subprocess
import sys
from argparse import Namespace
from pathlib import Path

from bot.cli.main import build_parser
from bot.cli.retrieval import retrieve_command, run

ROOT = Path(__file__).resolve().parents[2]


def call(finder, argv: list[str], stdin: str = "") -> tuple[int, str]:
    args = build_parser().parse_args(["retrieve", *argv])
    out = io.StringIO()
    code = run(args, finder, io.StringIO(stdin), out)
    return code, out.getvalue()


def test_single_text_json(mini_finder):
    code, out = call(mini_finder, ["--json", "--k", "2", "the pod is alive but not ready while weights load"])
    assert code == 0
    payload = json.loads(out)
    assert payload["on_topic"] is True
    assert [r["bite_id"] for r in payload["results"]][0] == "probes"
    assert len(payload["results"]) == 2
    assert set(payload["results"][0]) == {"bite_id", "title", "score"}
    assert out.count("\n") == 1


def test_single_text_human(mini_finder):
    code, out = call(mini_finder, ["asdf"])
    assert code == 0 and out.strip().endswith("off topic: about none of the bites")


def test_batch_mode_keeps_order_and_reports_bad_lines(mini_finder):
    lines = [
        json.dumps({"text": "we round weights to int4 with a scale per group"}),
        "{not json",
        json.dumps({"answer": "wrong field"}),
        json.dumps({"text": 42}),
        json.dumps({"text": ""}),
        json.dumps({"text": "new requests join the running batch after every decode step"}),
    ]
    code, out = call(mini_finder, ["--json", "--k", "1", "-"], "\n".join(lines) + "\n")
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    assert len(rows) == 6
    assert rows[0]["results"][0]["bite_id"] == "quantization"
    assert rows[1]["line"] == 2 and "JSON" in rows[1]["error"]
    assert rows[2] == {"error": 'expected an object with a "text" field', "line": 3}
    assert rows[3]["line"] == 4 and "string" in rows[3]["error"]
    assert rows[4] == {"results": [], "on_topic": False}
    assert rows[5]["results"][0]["bite_id"] == "batching"


def test_bad_k_and_empty_text_exit_non_zero(capsys):
    assert retrieve_command(Namespace(text="x", k=0, json=True)) == 2
    assert retrieve_command(Namespace(text="  ", k=3, json=True)) == 2
    assert "empty" in capsys.readouterr().err


def test_end_to_end_batch_in_a_subprocess(tmp_path):
    """The installed CLI against the shipped track, with the index under a scratch data dir."""
    stdin = "\n".join([
        json.dumps({"text": "so the kay vee cache keeps the keys and values of earlier tokens around"}),
        "oops",
        json.dumps({"text": "what's the weather tomorrow"}),
    ]) + "\n"
    env = {**os.environ, "DATA_DIR": str(tmp_path), "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "bot.cli", "retrieve", "--json", "--k", "2", "-"],
        input=stdin, capture_output=True, text=True, env=env, cwd=ROOT, timeout=600,
    )
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(rows) == 3
    assert rows[0]["results"][0]["bite_id"] == "kv-cache" and rows[0]["on_topic"] is True
    assert rows[1] == {"error": rows[1]["error"], "line": 2}
    assert rows[2]["on_topic"] is False
    assert (tmp_path / "index" / "meta.json").exists()
    assert "1 line(s) could not be processed" in done.stderr
