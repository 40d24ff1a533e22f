"""Lookups in the content catalog that several services share."""

from __future__ import annotations

from coach.errors import InvalidRequest
from coach.results import QuestionView
from coach.timeutil import echo
from content import Catalog, Track


def bite_title(catalog: Catalog, bite_id: str) -> str:
    """The bite's title, or its id once the bite has left the catalog."""
    bite = catalog.bites.get(bite_id)
    return bite.title if bite else bite_id


def require_track(catalog: Catalog, track: str) -> Track:
    found = catalog.tracks.get(track)
    if found is None:
        known = ", ".join(sorted(catalog.tracks)) or "none"
        raise InvalidRequest(f"unknown track {echo(track)} (known: {known})")
    return found


def question_view(catalog: Catalog, question_id: str, order: list[int], position: int,
                  total: int) -> QuestionView | None:
    """The question as shown (options in the stored `order`), or None once it has left the catalog."""
    question = catalog.questions.get(question_id)
    if question is None:
        return None
    return QuestionView(
        question_id=question.id,
        bite_id=question.bite_id,
        bite_title=bite_title(catalog, question.bite_id),
        stem=question.stem,
        options=tuple(question.options[i] for i in order),
        position=position,
        total=total,
    )
