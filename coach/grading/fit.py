"""The fitted grader: every number the graders learn from data, in one artifact.

`coach grader fit` writes `grader_fit.json` beside this file, from
1. the dev split's gold labels: the score rule, i.e. the cut-offs under which the score
   function turns the gold key-point verdicts into the gold grades (the rubric's ceiling);
2. the dev split's answers: the embedding judge's five thresholds (covered, partial,
   purpose, red flag sure and possible), with that rule fixed;
3. the dev split's answers: the trained judge's thresholds (coach.grading.point_calibration),
   when the key-point model is present;
4. the interview follow-up dev sets (follow-up answers with the graders' labels): the
   follow-up reader's thresholds (coach.grading.followup_reader), with the key-point model.

The artifact is stamped with hashes of what it was fitted on. `coach content check`
and the test suite fail when the catalog's rubric or the dev file has changed since,
so a stale fit cannot ship. No fitted number lives in source.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from functools import cached_property
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from coach.grading.embedding_judge import EmbeddingThresholds, idf_texts
from coach.grading.red_flags import red_flag_texts
from coach.grading.scoring import ScoreRule

ARTIFACT = Path(__file__).with_name("grader_fit.json")
FORMAT_VERSION = 1


class MissingFit(RuntimeError):
    """The artifact is absent or unreadable: run `coach grader fit`."""


class GraderFit(BaseModel):
    model_config = ConfigDict(frozen=True)

    format: int = FORMAT_VERSION
    fitted_on: dict[str, str]  # catalog, dev, embedder -> fingerprint
    embedding: dict
    score: dict
    point: dict = {}  # the trained judge's thresholds (empty: no key-point model was fitted)
    combined: dict = {}  # the combined judge's cut-off (coach.grading.combined_judge), with `point`
    followup: dict = {}  # the follow-up reader's thresholds (coach.grading.followup_reader), with `point`
    figures: dict = {}  # what the fit measured on dev (reported, never read back)

    @property
    def rule(self) -> ScoreRule:
        return ScoreRule(**self.score)

    @property
    def thresholds(self) -> EmbeddingThresholds:
        return EmbeddingThresholds(**self.embedding)

    @property
    def short_words(self) -> int | None:
        """Up to how many words the combined judge reads the key points with the trained model."""
        return self.combined.get("short_words")

    @property
    def point_thresholds(self):
        from coach.grading.point_judge import PointThresholds

        return PointThresholds(**self.point) if self.point else None

    @property
    def followup_thresholds(self):
        from coach.grading.followup_reader import FollowUpThresholds

        return FollowUpThresholds(**self.followup) if self.followup else None

    @cached_property
    def version(self) -> str:
        """A short id for attempts: which fit graded them."""
        digest = hashlib.sha256(json.dumps(self.model_dump(exclude={"figures"}), sort_keys=True).encode())
        return digest.hexdigest()[:12]


def catalog_fingerprint(catalog) -> str:
    """Every catalog text a fitted number depends on: the rubric (points and their kinds),
    the red flag's texts, and the texts the token matcher reads (its IDF corpus, which holds
    the key points, phrasings and model answer the red flag is contrasted with)."""
    payload = [
        {
            "id": bite.id,
            "kinds": [p.kind for p in bite.key_points],
            "prompt": bite.prompt,  # its words weigh nothing in key-point matching
            "red_flag": red_flag_texts(bite),
            "texts": list(idf_texts(bite)),
        }
        for bite in sorted(catalog.bites.values(), key=lambda b: b.id)
    ]
    return hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]


def file_fingerprint(path: Path | tuple[Path, ...]) -> str:
    """A file's hash, or the files' together."""
    paths = path if isinstance(path, (tuple, list)) else (path,)
    digest = hashlib.sha256()
    for one in paths:
        digest.update(Path(one).read_bytes())
    return digest.hexdigest()[:16]


def rubric_version(bite) -> str:
    """A short id of one bite's rubric, stored with each attempt graded against it."""
    payload = [bite.purpose, bite.red_flag, [[p.point, p.kind] for p in bite.key_points]]
    return hashlib.sha256(json.dumps(payload, ensure_ascii=False).encode()).hexdigest()[:10]


def load_fit(path: Path = ARTIFACT) -> GraderFit:
    try:
        return GraderFit.model_validate_json(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise MissingFit(f"{path}: no usable grader fit ({error}); run `coach grader fit`") from None


def stale_reasons(fit: GraderFit, catalog, dev_path: Path | None, embedder_name: str | None = None,
                  followup_dev: tuple[Path, ...] | None = None) -> list[str]:
    """Why the artifact no longer matches its inputs (empty when it is current)."""
    reasons = []
    if followup_dev is not None and fit.followup and fit.fitted_on.get("followup_dev") != file_fingerprint(followup_dev):
        reasons.append("the interview follow-up dev sets changed since the grader was fitted")
    if fit.fitted_on.get("catalog") != catalog_fingerprint(catalog):
        reasons.append("the catalog's rubric or phrasings changed since the grader was fitted")
    if dev_path is not None and Path(dev_path).exists() and fit.fitted_on.get("dev") != file_fingerprint(dev_path):
        reasons.append(f"{dev_path} changed since the grader was fitted")
    if embedder_name is not None and fit.fitted_on.get("embedder") != embedder_name:
        reasons.append(f"the embedding model changed ({fit.fitted_on.get('embedder')} -> {embedder_name})")
    if fit.fitted_on.get("point_model", "") != point_model_fingerprint():
        reasons.append("the key-point model changed since the grader was fitted")
    return reasons


def point_model_fingerprint(path: Path | None = None) -> str:
    """The shipped key-point model's hash ("" when there is none)."""
    from coach.grading.point_model import ARTIFACT

    path = Path(path or ARTIFACT)
    return file_fingerprint(path) if path.exists() else ""


def save_fit(fit: GraderFit, path: Path = ARTIFACT) -> None:
    Path(path).write_text(json.dumps(fit.model_dump(), indent=1, sort_keys=True) + "\n", encoding="utf-8")


def build_fit(catalog, dev_path: Path, embedder_name: str, thresholds: EmbeddingThresholds, rule: ScoreRule,
              figures: dict, point=None, combined: dict | None = None, followup=None,
              followup_dev: tuple[Path, ...] = ()) -> GraderFit:
    fitted_on = {"catalog": catalog_fingerprint(catalog), "dev": file_fingerprint(dev_path), "embedder": embedder_name,
                 "point_model": point_model_fingerprint() if point is not None else ""}
    if followup is not None:
        fitted_on["followup_dev"] = file_fingerprint(followup_dev)
    return GraderFit(
        fitted_on=fitted_on,
        embedding={k: round(float(v), 4) for k, v in asdict(thresholds).items()},
        score={k: round(float(v), 4) for k, v in asdict(rule).items()},
        point={k: round(float(v), 4) for k, v in asdict(point).items()} if point is not None else {},
        combined=combined or {},
        followup={k: round(float(v), 4) for k, v in asdict(followup).items()} if followup is not None else {},
        figures=figures,
    )
