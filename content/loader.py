"""Load the authored tracks into an immutable catalog.

Layout: `content/tracks/<track-id>/track.yaml` (id, title, description) and one
`<bite-id>.yaml` per bite holding the bite's fields plus a `questions:` list.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Mapping

import yaml
from pydantic import ValidationError

from content.schema import Bite, Question, Track

TRACKS_DIR = Path(__file__).parent / "tracks"


def display_path(path: Path | str) -> str:
    """A path relative to the working directory when it lies below it: shorter messages."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


@dataclass(frozen=True)
class Problem:
    file: str
    item: str
    message: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "file", display_path(self.file))

    def __str__(self) -> str:
        return f"{self.file}: {self.item}: {self.message}"


class ContentError(Exception):
    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


@dataclass(frozen=True)
class Catalog:
    tracks: Mapping[str, Track]
    bites: Mapping[str, Bite]
    questions: Mapping[str, Question]
    source_files: Mapping[str, str] = field(default_factory=dict)  # item id -> file

    def bite(self, bite_id: str) -> Bite:
        return self.bites[bite_id]

    def questions_for(self, bite_id: str) -> list[Question]:
        return [q for q in self.questions.values() if q.bite_id == bite_id]

    def track_questions(self, track_id: str) -> tuple[Question, ...]:
        return self.tracks[track_id].questions

    def fingerprint(self) -> str:
        """Stable hash of the content; the retrieval index rebuilds when it changes."""
        import hashlib
        import json

        blob = json.dumps(export(self), sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()


def _read_yaml(path: Path, problems: list[Problem]) -> dict | None:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as error:
        problems.append(Problem(str(path), "-", f"not valid YAML: {error}"))
        return None
    if not isinstance(data, dict):
        problems.append(Problem(str(path), "-", "expected a mapping at the top level"))
        return None
    return data


def _schema_problems(path: Path, item: str, error: ValidationError) -> list[Problem]:
    out = []
    for e in error.errors():
        where = ".".join(str(x) for x in e["loc"]) or "-"
        out.append(Problem(str(path), item, f"{where}: {e['msg']}"))
    return out


def _load_bite_file(path: Path, track_id: str, problems: list[Problem]):
    data = _read_yaml(path, problems)
    if data is None:
        return None, []
    raw_questions = data.pop("questions", None) or []
    bite_id = str(data.get("id", path.stem))
    bite = None
    try:
        bite = Bite(**{**data, "track": track_id})
    except ValidationError as error:
        problems.extend(_schema_problems(path, bite_id, error))
    except TypeError as error:
        problems.append(Problem(str(path), bite_id, str(error)))
    questions = []
    if not isinstance(raw_questions, list):
        problems.append(Problem(str(path), bite_id, "questions: expected a list"))
        raw_questions = []
    for index, raw in enumerate(raw_questions):
        qid = str(raw.get("id", f"question #{index + 1}")) if isinstance(raw, dict) else f"question #{index + 1}"
        if not isinstance(raw, dict):
            problems.append(Problem(str(path), qid, "expected a mapping"))
            continue
        try:
            questions.append(Question(**{**raw, "bite_id": bite_id}))
        except ValidationError as error:
            problems.extend(_schema_problems(path, qid, error))
        except TypeError as error:  # e.g. a non-string key: "keywords must be strings"
            problems.append(Problem(str(path), qid, str(error)))
    return bite, questions


def load_collecting(root: Path | None = None) -> tuple[Catalog, list[Problem]]:
    """Load everything that parses; return the catalog and every schema problem found."""
    root = Path(root) if root else TRACKS_DIR
    problems: list[Problem] = []
    tracks: dict[str, Track] = {}
    bites: dict[str, Bite] = {}
    questions: dict[str, Question] = {}
    files: dict[str, str] = {}
    track_dirs = sorted(d for d in root.iterdir() if d.is_dir()) if root.is_dir() else []
    if not track_dirs:
        problems.append(Problem(str(root), "-", "no track folders found"))
    for track_dir in track_dirs:
        meta_path = track_dir / "track.yaml"
        meta = _read_yaml(meta_path, problems) if meta_path.exists() else None
        if meta is None:
            if not meta_path.exists():
                problems.append(Problem(str(meta_path), track_dir.name, "missing track.yaml"))
            continue
        track_bites, track_questions = [], []
        for path in sorted(track_dir.glob("*.yaml")):
            if path.name == "track.yaml":
                continue
            bite, qs = _load_bite_file(path, str(meta.get("id", track_dir.name)), problems)
            for item in ([bite] if bite else []) + qs:
                kind = "bite" if isinstance(item, Bite) else "question"
                registry = bites if kind == "bite" else questions
                if item.id in registry or item.id in files:
                    problems.append(Problem(str(path), item.id, f"duplicate id (also in {files[item.id]})"))
                    continue
                registry[item.id] = item
                files[item.id] = str(path)
            if bite:
                track_bites.append(bite)
            track_questions.extend(q for q in qs if files.get(q.id) == str(path))
        try:
            track = Track(**meta, bites=tuple(track_bites), questions=tuple(track_questions))
        except ValidationError as error:
            problems.extend(_schema_problems(meta_path, str(meta.get("id", track_dir.name)), error))
            continue
        tracks[track.id] = track
    catalog = Catalog(
        MappingProxyType(tracks), MappingProxyType(bites), MappingProxyType(questions), MappingProxyType(files)
    )
    return catalog, problems


def load_catalog(root: Path | None = None) -> Catalog:
    """Load and fail on any schema problem (semantic checks live in `content.validate`)."""
    catalog, problems = load_collecting(root)
    if problems:
        raise ContentError(problems)
    return catalog


@lru_cache(maxsize=1)
def default_catalog() -> Catalog:
    return load_catalog()


def export(catalog: Catalog) -> dict:
    """The `coach content export --json` shape."""
    return {
        "tracks": [
            {
                "id": t.id,
                "title": t.title,
                "bites": [b.model_dump(mode="json") for b in t.bites],
                "questions": [q.model_dump(mode="json") for q in t.questions],
            }
            for t in catalog.tracks.values()
        ]
    }
