import pytest

from retrieval.text import count_words, normalize, split_sentences, spoken_to_written, windows


def test_split_sentences_on_punctuation_and_line_breaks():
    text = "Prefill is compute bound.  Decode is not!\nWhy? Bandwidth"
    assert split_sentences(text) == ["Prefill is compute bound.", "Decode is not!", "Why?", "Bandwidth"]


def test_split_sentences_keeps_decimals_and_drops_blanks():
    assert split_sentences("about 0.5 MB per token. \n\n  ") == ["about 0.5 MB per token."]
    assert split_sentences("") == []


def test_short_text_is_one_window():
    assert windows("  so um   the cache ", 10) == ["so um the cache"]
    assert windows("   ", 10) == []


def test_windows_respect_the_budget_and_overlap():
    text = " ".join(f"w{i}" for i in range(100))  # a run-on with no punctuation at all
    parts = windows(text, 20)
    assert all(count_words([p])[0] <= 20 for p in parts)
    words = [p.split() for p in parts]
    for before, after in zip(words, words[1:]):
        assert set(before) & set(after), "consecutive windows share words"
    assert words[0][0] == "w0" and words[-1][-1] == "w99"
    covered = {w for part in words for w in part}
    assert covered == set(text.split())


def test_windows_keep_sentences_whole_when_they_fit():
    text = "alpha beta gamma. delta epsilon. zeta eta theta. iota kappa."
    for part in windows(text, 6):
        assert not part.startswith(("beta", "gamma", "epsilon", "eta", "theta", "kappa"))


def test_max_windows_keeps_both_ends():
    text = " ".join(f"w{i}" for i in range(1000))
    parts = windows(text, 20, max_windows=5)
    assert len(parts) == 5
    assert parts[0].startswith("w0 ") and parts[-1].endswith("w999")


def test_normalize_collapses_whitespace():
    assert normalize(" a \n\t b ") == "a b"


@pytest.mark.parametrize(
    ("spoken", "written"),
    [
        ("um so the kay vee cache, uh, grows", "so the kv cache, grows"),
        ("v l l m pages the cache", "vllm pages the cache"),
        ("watch the tee tee eff tee on the g p u", "watch the ttft on the gpu"),
        ("the el el em server", "the llm server"),
    ],
)
def test_spoken_to_written_drops_fillers_and_joins_spelled_acronyms(spoken, written):
    assert spoken_to_written(spoken) == written


@pytest.mark.parametrize("text", ["i think you see why", "a b test", "p 99 latency", "an umbrella"])
def test_spoken_to_written_leaves_ordinary_words_alone(text):
    assert spoken_to_written(text) == text
