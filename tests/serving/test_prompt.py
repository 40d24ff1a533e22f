import pytest

from serving.prompt import PromptLayout

PREFIX = "You grade interview answers.\nRubric: judge each key point."


def test_static_prefix_is_the_byte_identical_first_message():
    layout = PromptLayout(PREFIX)
    first = layout.messages("Bite: KV cache", "Answer: it caches keys")
    second = layout.messages("Bite: paged attention", "Answer: something else")
    assert first[0] == second[0] == {"role": "system", "content": PREFIX}
    assert layout.prefix_messages() == [first[0]]


def test_context_comes_before_the_user_content_which_is_last():
    messages = PromptLayout(PREFIX).messages("CONTEXT-X", "USER-Y")
    assert [m["role"] for m in messages] == ["system", "user"]
    last = messages[-1]["content"]
    assert last.index("CONTEXT-X") < last.index("USER-Y")
    assert last.endswith("USER-Y")


@pytest.mark.parametrize("prefix", ["", "   \n"])
def test_empty_prefix_is_rejected(prefix):
    with pytest.raises(ValueError):
        PromptLayout(prefix)
