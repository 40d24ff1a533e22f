"""How the command line prints a grade for a person (the `--json` forms print the Grade's own
JSON): one place, used by `coach grade` typed and recorded."""

from __future__ import annotations

from coach.grading.models import GradeError, OffTopic


def grade_text(result) -> str:
    if isinstance(result, OffTopic):
        lines = [result.message] + [f"  - {s.title} ({s.bite_id})" for s in result.suggestions]
        return "\n".join(lines)
    if isinstance(result, GradeError):
        return result.message
    marks = {"covered": "[x]", "partial": "[~]", "missing": "[ ]", "wrong": "[!]"}
    lines = [f"{result.title} ({result.bite_id}): {result.score}/4  [grader: {result.grader}]"]
    lines += [f"  {marks[kp.status]} {kp.point}" for kp in result.key_points]
    if result.truncated:
        lines.append("(your answer was cut to the length limit)")
    lines += ["", result.feedback, "", "Model answer:", result.model_answer, "", f"Next question: {result.follow_up}"]
    return "\n".join(lines)
