"""The LLM judge keys each request by its bite, so behind vllm-router's consistent hashing
answers on one bite reach the replica that has that bite's prompt prefix cached."""

from coach.grading.llm_judge import LLMJudge
from serving.client import ROUTING_KEY_HEADER
from tests.grading.conftest import make_llm_client
from tests.serving.fake_llm import ok


def all_missing(points: int) -> dict:
    return {
        "key_points": [{"status": "missing", "quote": ""}] * points,
        "purpose": False, "purpose_quote": "", "mechanism": False, "mechanism_quote": "", "on_topic": True,
        "other_concept": "", "red_flag": "no", "red_flag_quote": "", "injection": False,
    }


async def test_each_grading_request_carries_its_bite_id(fake_llm, demo_catalog):
    kv, quant = demo_catalog.bites["kv-cache"], demo_catalog.bites["quantization-basics"]
    fake_llm.then(ok(all_missing(len(kv.key_points))), ok(all_missing(len(quant.key_points))),
                  ok(all_missing(len(kv.key_points))))
    async with make_llm_client(fake_llm.base_url) as client:
        judge = LLMJudge(client, max_tokens=64)
        await judge.judge(kv, "The cache keeps keys and values.")
        await judge.judge(quant, "Fewer bits per weight.")
        await judge.judge(kv, "Another answer on the same bite.")
    header = ROUTING_KEY_HEADER.lower()
    assert [h.get(header) for h in fake_llm.headers] == ["kv-cache", "quantization-basics", "kv-cache"]
