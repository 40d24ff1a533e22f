"""`coach grade` (single and batch) and `coach grader compare`, run in-process through
`bot.cli.main` on the shipped track, as a user would call them."""

import asyncio
import io
import json
import socket
import threading

import pytest

from bot.cli.main import main
from tests.serving.fake_llm import FakeLLMServer, completion_body

from tests.grading.test_pipeline import CONTRACT_KEYS


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def env(monkeypatch, shipped_topics, shipped_data_dir, tmp_path):
    # shipped_topics has built the index under shipped_data_dir: the CLI loads it instead of rebuilding.
    monkeypatch.setenv("DATA_DIR", str(shipped_data_dir))
    monkeypatch.setenv("DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path / 'coach.db'}")
    # The LLM is enabled but nothing listens: the CLI must answer with the embedding grader.
    monkeypatch.setenv("LLM_ENABLED", "true")
    monkeypatch.setenv("LLM_BASE_URL", f"http://127.0.0.1:{closed_port()}/v1")
    monkeypatch.setenv("LLM_TIMEOUT_S", "2")
    return monkeypatch


def test_single_answer_json_with_the_llm_unreachable(env, capsys):
    answer = (
        "Prefill runs the whole prompt through the model in one parallel pass and fills the KV cache, and it is "
        "compute-bound. Decode then generates one token per step, which is memory-bandwidth-bound at small batch."
    )
    assert main(["grade", "--json", "--bite", "prefill-vs-decode", answer]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1
    body = json.loads(out[0])
    assert set(body) == CONTRACT_KEYS
    assert body["bite_id"] == "prefill-vs-decode" and body["grader"] == "embedding"
    assert 1 <= body["score"] <= 4


def test_empty_single_answer_is_an_error_on_stderr(env, capsys):
    assert main(["grade", "--json", "--bite", "kv-cache", "   "]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "empty" in captured.err


def test_batch_mode_answers_every_line_in_order(env, capsys):
    lines = [
        json.dumps({"answer": "Quantization stores weights as 4-bit integers with a scale per group, cutting memory.",
                    "bite": "quantization-basics"}),
        "this line is not JSON",
        json.dumps({"answer": "Continuous batching lets new requests join the running batch at every decode step."}),
        json.dumps({"bite": "kv-cache"}),
        "",  # blank lines are skipped, not answered
        json.dumps({"answer": "\u200b \x00", "bite": "kv-cache"}),
        json.dumps({"answer": "We went hiking in the Alps and the weather was lovely all week."}),
        json.dumps({"answer": "Keys and values are cached.", "bite": "no-such-bite"}),
    ]
    env.setattr("sys.stdin", io.StringIO("\n".join(lines) + "\n"))
    assert main(["grade", "--json", "-"]) == 0
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(out) == 7
    assert out[0]["bite_id"] == "quantization-basics" and set(out[0]) == CONTRACT_KEYS
    assert out[1]["line"] == 2 and "not valid JSON" in out[1]["error"]
    assert out[2]["bite_id"] == "continuous-batching"  # retrieved
    assert out[3] == {"error": '"answer" must be a string', "line": 4}
    assert out[4]["line"] == 6 and "empty" in out[4]["error"]
    assert out[5]["off_topic"] is True and out[5]["suggestions"]
    assert out[6]["line"] == 8 and "no-such-bite" in out[6]["error"]


class ThreadedFakeLLM:
    """The fake OpenAI-compatible server on its own loop, for the synchronous CLI test.
    It answers every grading with 'all missing', sized to the schema it is sent."""

    def __init__(self):
        self.server = FakeLLMServer(default=self._all_missing)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    @staticmethod
    async def _all_missing(exchange):
        n = exchange.body["response_format"]["json_schema"]["schema"]["properties"]["key_points"]["minItems"]
        verdict = {"key_points": [{"status": "missing", "quote": ""}] * n, "purpose": False, "purpose_quote": "",
                   "mechanism": False, "mechanism_quote": "", "on_topic": True, "other_concept": "",
                   "red_flag": "no", "red_flag_quote": "", "injection": False}
        await exchange.respond(200, completion_body(json.dumps(verdict)))

    def __enter__(self):
        self.thread.start()
        asyncio.run_coroutine_threadsafe(self.server.start(), self.loop).result(10)
        return self.server

    def __exit__(self, *exc):
        asyncio.run_coroutine_threadsafe(self.server.stop(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


def test_compare_reports_agreement_and_lists_disagreements(env, capsys):
    with ThreadedFakeLLM() as candidate:
        code = main(["grader", "compare", "--candidate", candidate.base_url, "--limit", "8", "--json"])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["baseline"] == "embedding" and report["answers"] == 8
    assert report["against_labels"]["candidate"]["graders"] == {"llm": 8}
    assert report["against_labels"]["baseline"]["graders"] == {"embedding": 8}
    assert set(report["agreement"]) == {"n", "qwk", "exact", "within_1"} and report["agreement"]["n"] == 8
    # The candidate says "nothing covered" to every answer: every answer the baseline scored above 0 disagrees.
    assert report["disagreements"] and all(d["candidate"] == 0 and d["baseline"] != 0 for d in report["disagreements"])
    assert "warning" not in report


def test_compare_refuses_the_test_split(env, capsys, tmp_path):
    test_file = tmp_path / "grading_blind_test.jsonl"
    test_file.write_text("")
    assert main(["grader", "compare", "--candidate", "http://127.0.0.1:9/v1", "--eval", str(test_file)]) == 1
    assert "bench.grading --test" in capsys.readouterr().err


def test_compare_also_regrades_stored_attempts_whose_text_was_kept(env, capsys, shipped_catalog, tmp_path):
    from coach.config import load_settings
    from coach.engine import Coach
    from coach.store.store import Store

    kept_answer = (
        "Streaming sends each token to the client as soon as it is generated, so the user sees text after "
        "the time to first token even though the total generation time is unchanged."
    )

    async def store_attempts():
        async with Store(f"sqlite+aiosqlite:///{tmp_path / 'coach.db'}") as store:
            await store.upgrade()
            coach = Coach(store, shipped_catalog, load_settings(_env_file=None))
            await coach.account.update_settings(1, keep_answers=True)
            await coach.progress.record_attempt(1, 9, "streaming-inference", 3, "embedding", 40, kept_answer)
            await coach.progress.record_attempt(2, 9, "streaming-inference", 1, "embedding", 40, "not kept: user 2 never opted in")

    asyncio.run(store_attempts())
    with ThreadedFakeLLM() as candidate:
        code = main(["grader", "compare", "--candidate", candidate.base_url, "--limit", "1", "--stored", "--json"])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["answers"] == 2  # one eval answer + the one stored attempt that kept its text
    stored = [d for d in report["disagreements"] if d["split"].startswith("stored:")]
    assert len(stored) == 1 and stored[0]["bite_id"] == "streaming-inference" and stored[0]["candidate"] == 0
    assert stored[0]["answer"] == kept_answer[:160]


def test_plain_text_rendering_shows_score_points_and_next_question():
    from bot.cli.output import grade_text
    from coach.grading.models import Grade, KeyPointVerdict, OffTopic, Suggestion

    grade = Grade(
        bite_id="kv-cache", title="The KV cache", score=2, grader="embedding", truncated=True,
        key_points=[KeyPointVerdict(point="Keys and values are stored.", status="covered", evidence="we store K and V"),
                    KeyPointVerdict(point="Memory grows with context.", status="missing")],
        red_flag=False, injection=False, feedback="What landed: ...", model_answer="So ...", follow_up="Why?",
    )
    text = grade_text(grade)
    assert text.splitlines()[0] == "The KV cache (kv-cache): 2/4  [grader: embedding]"
    assert "[x] Keys and values are stored." in text and "[ ] Memory grows with context." in text
    assert "cut to the length limit" in text and text.endswith("Next question: Why?")
    off = grade_text(OffTopic(suggestions=[Suggestion(bite_id="kv-cache", title="The KV cache", score=0.2)]))
    assert "Which one did you mean?" in off and "The KV cache (kv-cache)" in off


def test_qualify_prints_both_judges_and_grade_keeps_the_cpu_judge(env, capsys):
    """`coach grader qualify` against a model that hears nothing: the table, the verdict, exit 1;
    `coach grade` then reads the stored verdict and grades with the CPU judge, saying why."""
    with ThreadedFakeLLM() as model:
        assert main(["grader", "qualify", "--base-url", model.base_url]) == 1
        printed = capsys.readouterr().out
        assert "| figure | served model (grader#" in printed and "| QWK |" in printed
        assert "Verdict: **disqualified**" in printed and "2+ points from the gold" in printed
        asked = model.count("/v1/chat/completions")

        env.setenv("LLM_BASE_URL", model.base_url)
        assert main(["grade", "--json", "--bite", "kv-cache", GOOD_KV_ANSWER]) == 0
        captured = capsys.readouterr()
        assert json.loads(captured.out)["grader"] == "embedding"
        assert "the LLM is disqualified" in captured.err
        assert model.count("/v1/chat/completions") == asked, "a disqualified model is not asked to grade"


GOOD_KV_ANSWER = ("The KV cache keeps each layer's keys and values for the tokens already processed, so a decode "
                  "step computes them only for the new token; the cost is memory that grows with context and batch.")
