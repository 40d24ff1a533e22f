"""The embedding judge's evidence: the quote shown beside a tick is the sentence that carries the
point, as the answer says it."""

from coach.grading import injection

ANSWER = (
    "Serving big models is mostly about memory on the GPU, and the KV cache is where most of it goes in practice. "
    "What it holds is the key and value vectors for every token generated so far, at every layer of the model, so "
    "nothing about the prefix is recomputed. The price is memory growing linearly with the sequence length and with "
    "the number of sequences in the batch."
)


def test_the_quote_is_the_sentence_that_makes_the_point_not_its_neighbour(embedding_judge, shipped_catalog):
    bite = shipped_catalog.bites["kv-cache"]
    verdicts = embedding_judge.judge(bite, ANSWER, injection.check(ANSWER))
    stores, _, cost = verdicts.key_points[:3]
    assert stores.status == "covered" and cost.status == "covered"
    # The first sentence shares the point's words ("KV cache", "memory") without making it; a quote
    # that drags it in shows the member filler as the reason for a tick.
    assert stores.evidence == ("What it holds is the key and value vectors for every token generated so far, at "
                               "every layer of the model, so nothing about the prefix is recomputed")
    assert cost.evidence.startswith("The price is memory growing linearly")


def test_a_quote_from_a_dictated_answer_is_the_answers_own_span(embedding_judge, shipped_catalog):
    # Without punctuation the answer is read in word windows; the quote is still text the member said.
    answer = ("so   basically when you decode you keep the keys and the values of all the earlier tokens for each layer "
              "around in memory and then every new step you only project the newest token and its query attends over "
              "everything cached which is why it is fast but the memory grows with sequence length and with the batch")
    verdicts = embedding_judge.judge(shipped_catalog.bites["kv-cache"], answer, injection.check(answer))
    quotes = [kp.evidence for kp in verdicts.key_points if kp.status != "missing"]
    assert quotes and all(quote in answer for quote in quotes)
    assert all(len(quote.split()) <= 20 for quote in quotes)  # a window, not the whole answer
