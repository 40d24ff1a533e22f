"""The "explain it out loud" grader: one pipeline for Discord, the console and the CLI.

    grader = Grader.from_settings(settings, catalog, topics, llm_client_or_None)
    result = await grader.grade(answer, bite_id=None)   # Grade | OffTopic | GradeError
"""

from coach.grading.models import Grade, GradeError, GradeResult, KeyPointVerdict, OffTopic, Suggestion
from coach.grading.pipeline import Grader, GradingOutcome

__all__ = [
    "Grade", "GradeError", "GradeResult", "Grader", "GradingOutcome", "KeyPointVerdict", "OffTopic", "Suggestion",
]
