"""The track we ship passes its own validator and meets the issue's coverage bar."""

from __future__ import annotations

import json
import subprocess
import sys
import re
from collections import Counter
from pathlib import Path

from content import default_catalog, load_catalog
from content.validate import check

REQUIRED_TOPICS = {
    "kv-cache", "paged-attention", "dynamic-batching", "continuous-batching", "prefix-caching",
    "quantization-basics", "int8-outliers", "validating-quantized-models", "speculative-decoding",
    "moe-routing", "tensor-vs-pipeline-parallelism", "flash-attention", "online-vs-batch-inference",
    "streaming-inference", "serverless-cold-starts", "cpu-vs-gpu-serving", "right-sizing-instances",
    "autoscaling-endpoints", "containerized-rest-api", "readiness-vs-liveness", "flask-gunicorn-vs-triton",
    "nvidia-triton", "onnx-runtime", "model-compilation", "ttft-vs-tpot", "speeding-up-detection",
    "classifier-free-guidance", "few-shot-prompting", "central-limit-theorem", "maximum-likelihood",
}


def test_shipped_content_has_no_problems():
    _, problems = check()
    assert [str(p) for p in problems] == []


def test_inference_track_covers_the_syllabus():
    catalog = load_catalog()
    track = catalog.tracks["inference"]
    assert len(track.bites) >= 42
    assert len(track.questions) >= 120
    # The first syllabus stays covered; its MLE bite moved to the LLM track (#29, content/REVIEW.md).
    assert REQUIRED_TOPICS <= set(catalog.bites)
    assert {b for b in REQUIRED_TOPICS if catalog.bites[b].track != "inference"} == {"maximum-likelihood"}
    per_bite = Counter(q.bite_id for q in track.questions)
    assert all(2 <= per_bite[b.id] <= 4 for b in track.bites), per_bite


def run_coach(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], capture_output=True, text=True, timeout=120)


def test_cli_check_passes_and_export_has_the_contract_shape():
    checked = run_coach("content", "check")
    assert checked.returncode == 0, checked.stderr
    exported = run_coach("content", "export", "--json")
    assert exported.returncode == 0, exported.stderr
    data = json.loads(exported.stdout)
    track = next(t for t in data["tracks"] if t["id"] == "inference")
    assert set(track) == {"id", "title", "bites", "questions"}
    bite = track["bites"][0]
    assert {"id", "track", "title", "prompt", "tags", "summary", "explainer", "tests", "purpose", "key_points",
            "red_flag", "red_flag_phrasings", "model_answer", "phrasings", "sample_answers", "related"} == set(bite)
    assert set(bite["key_points"][0]) == {"point", "kind", "coaching", "follow_up"}
    question = track["questions"][0]
    assert {"id", "bite_id", "stem", "options", "answer", "explanation", "distractor_notes"} == set(question)


def test_every_shipped_bite_says_its_red_flag_and_its_topic_in_spoken_words():
    # Retrieval indexes the phrasings and the red-flag detector contrasts the two lists:
    # a bite without them is found and graded less well.
    thin = [b.id for b in default_catalog().bites.values() if len(b.red_flag_phrasings) < 4 or len(b.phrasings) < 6]
    assert thin == []


def test_every_shipped_bite_has_sample_answers_for_retrieval():
    # Retrieval's examples of how candidates answer, right or wrong: without them the
    # retriever misses answers that never name the topic (docs/bench/retrieval.md).
    thin = [b.id for b in default_catalog().bites.values() if len(b.sample_answers) < 12]
    assert thin == []


def test_every_question_has_a_second_reader_record():
    review = (Path(__file__).resolve().parents[2] / "content" / "REVIEW.md").read_text()
    recorded = set(re.findall(r"^\| ([a-z0-9-]+-q\d) \| (?:ok|fixed) \|", review, flags=re.M))
    assert set(load_catalog().questions) - recorded == set()
