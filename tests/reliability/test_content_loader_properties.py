"""Property tests over the content loader: whatever an author (or a broken editor)
puts in a track folder, loading never crashes — it returns a catalog and a list of
problems naming the file — and whatever loads cleanly renders within Discord's limits."""

from __future__ import annotations

import copy
import tempfile
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings, strategies as st

from bot.render import limits
from bot.render import messages as render
from content.loader import load_collecting

FIXTURE = Path(__file__).resolve().parents[1] / "e2e" / "tracks" / "inference"
TRACK_META = (FIXTURE / "track.yaml").read_text()
VALID_BITE = yaml.safe_load((FIXTURE / "kv-cache.yaml").read_text())

scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=300)
yaml_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=20) | st.integers(), inner, max_size=6),
    max_leaves=30,
)
bite_fields = st.sampled_from(sorted(k for k in VALID_BITE if k != "questions"))
question_fields = st.sampled_from(sorted(VALID_BITE["questions"][0]))


def load(files: dict[str, bytes]):
    with tempfile.TemporaryDirectory() as root:
        track = Path(root) / "inference"
        track.mkdir()
        (track / "track.yaml").write_text(TRACK_META)
        for name, data in files.items():
            (track / name).write_bytes(data)
        return load_collecting(Path(root))


def dump(document) -> bytes:
    return yaml.safe_dump(document, allow_unicode=True, sort_keys=False).encode()


def assert_loaded_cleanly_or_explained(catalog, problems) -> None:
    for problem in problems:
        assert str(problem), "every problem can be shown"
    if not problems:
        for bite in catalog.bites.values():
            for reply in (render.bite(bite), render.explain_prompt(bite)):
                assert limits.problems(reply) == [], (bite.id, limits.problems(reply))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=2000))
def test_arbitrary_bytes_never_crash_the_loader(data):
    catalog, problems = load({"junk.yaml": data})
    assert_loaded_cleanly_or_explained(catalog, problems)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(yaml_values)
def test_any_yaml_document_is_loaded_or_reported(document):
    catalog, problems = load({"kv-cache.yaml": dump(document)})
    assert_loaded_cleanly_or_explained(catalog, problems)
    assert problems or catalog.bites, "a file that loads cleanly holds a bite"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bite_fields, yaml_values, question_fields, yaml_values, st.booleans())
def test_one_bad_field_in_a_good_bite_is_reported_not_fatal(field, value, q_field, q_value, in_question):
    document = copy.deepcopy(VALID_BITE)
    if in_question:
        document["questions"][0][q_field] = q_value
    else:
        document[field] = value
    catalog, problems = load({"kv-cache.yaml": dump(document)})
    assert_loaded_cleanly_or_explained(catalog, problems)
    assert all("kv-cache.yaml" in str(p) for p in problems), "each problem names the file"


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(yaml_values, min_size=1, max_size=4))
def test_questions_that_are_not_mappings_or_have_odd_keys_are_reported(questions):
    document = copy.deepcopy(VALID_BITE)
    document["questions"] = questions
    catalog, problems = load({"kv-cache.yaml": dump(document)})
    assert_loaded_cleanly_or_explained(catalog, problems)
