"""The syllabus check (issue #20): each Inference-syllabus topic's title and one-line
summary, written by a helper who saw only the title (tests/data/README-retrieval.md),
must land on its bite. The four topics the track once lacked are checked one by one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "data"
ROWS = [json.loads(line) for line in (DATA / "retrieval_syllabus.jsonl").read_text().splitlines() if line.strip()]
ADDED_FOR_THE_SYLLABUS = ("event-stream-inference", "inference-throughput-planning", "serverless-inference",
                          "real-time-endpoint-deployment")


@pytest.mark.parametrize("bite_id", ADDED_FOR_THE_SYLLABUS)
def test_each_once_missing_topic_finds_its_new_bite(shipped_topics, bite_id):
    (row,) = [r for r in ROWS if r["bite_id"] == bite_id and r["kind"] == "title_summary"]
    result = shipped_topics.find(row["text"], k=3)
    assert result.on_topic and result.best.bite_id == bite_id, [h.bite_id for h in result.results]


def test_the_syllabus_set_covers_every_shipped_bite_and_mostly_lands(shipped_topics):
    # The Inference syllabus: every bite of that track, and the two that moved to the LLM track (#29).
    catalog = shipped_topics.catalog
    inference = {b.id for b in catalog.bites.values() if b.track == "inference"}
    assert {r["bite_id"] for r in ROWS} == inference | {"maximum-likelihood", "knowledge-distillation"}
    titles = [r for r in ROWS if r["kind"] == "title_summary"]
    found = [shipped_topics.find(r["text"], k=1) for r in titles]
    assert all(f.on_topic for f in found), [r["bite_id"] for f, r in zip(found, titles) if not f.on_topic]
    top1 = sum(f.best.bite_id == r["bite_id"] for f, r in zip(found, titles)) / len(titles)
    assert top1 >= 0.9, top1
