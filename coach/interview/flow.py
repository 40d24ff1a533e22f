"""A mock interview, turn by turn, for every front end (Discord, the console, `coach interview`):
pick the bites, ask, grade each answer through the one grading pipeline (a first answer as an
explanation, a follow-up against its key point), choose the next follow-up, and build the
scorecard. State lives in the database (coach/interview/service.py); this holds none."""

from __future__ import annotations

import random
from dataclasses import dataclass

from coach.grading.models import GradeError
from coach.history.rules import WEAK_BELOW
from coach.interview.rules import (
    MAX_QUESTIONS, Scorecard, Turn, coaching_lines, current_statuses, first_answer_status, follow_up_point,
    question_card, turn_line,
)
from coach.interview.service import AlreadyOpen, InterviewService, InterviewState

DEFAULT_QUESTIONS = 2
# Typed instead of pressing the button ("I don't know" in a modal, `idk` in the console).
PASS_WORDS = frozenset({"idk", "i don't know", "i dont know", "i do not know", "pass", "no idea"})


@dataclass(frozen=True)
class Step:
    """What the member is shown after an action."""

    state: InterviewState
    outcome: str  # asked | finished | duplicate | bad_input | already_open
    line: str = ""  # the one-line verdict of the turn just answered
    grader: str = ""  # which judge graded it
    message: str = ""  # for bad input
    scorecard: Scorecard | None = None

    @property
    def asking(self):
        return self.state.asking if self.state.open else None


def is_pass(text: str) -> bool:
    return " ".join((text or "").lower().replace("’", "'").split()).strip(" .!") in PASS_WORDS


class InterviewFlow:
    def __init__(self, coach, grader):
        self.coach, self.catalog, self.grader = coach, coach.catalog, grader
        self.service: InterviewService = coach.interviews

    async def pick_bites(self, user_id: int, track: str, count: int, first: str | None = None) -> list[str]:
        """`first` (the topic asked for), then the member's weakest bites as an interviewer would
        pick them (as the bite map's "next to study"): reviews due first, then weak practised bites,
        then new ones, then the rest, spread over tags (one bite per first tag while others are left)."""
        count = max(1, min(MAX_QUESTIONS, count))
        mastery = await self.coach.history.mastery_map(user_id, track)
        now = mastery.as_of or self.coach.now()
        # New bites in an order of the member's and the day's, so two interviews differ.
        shuffle = random.Random(f"{user_id}:{now.date()}")
        fresh = {b.bite_id: shuffle.random() for b in mastery.bites}

        def rank(b):
            if b.due is not None and b.due <= now:
                return (0, b.due.timestamp(), b.bite_id)
            if b.mastery is None:
                return (2, fresh[b.bite_id], b.bite_id)
            return (1 if b.mastery < WEAK_BELOW else 3, b.mastery, b.bite_id)

        chosen = [first] if first else []
        groups = {self.catalog.bites[first].tags[0] if self.catalog.bites[first].tags else "other"} if first else set()
        ordered = sorted((b for b in mastery.bites if b.bite_id not in chosen), key=rank)
        for spread in (True, False):
            for b in ordered:
                if len(chosen) >= count:
                    return chosen
                if b.bite_id not in chosen and (not spread or b.group not in groups):
                    chosen.append(b.bite_id)
                    groups.add(b.group)
        return chosen

    async def start(self, user_id: int, guild_id: int, track: str, count: int = DEFAULT_QUESTIONS,
                    first: str | None = None) -> Step:
        bite_ids = await self.pick_bites(user_id, track, count, first)
        try:
            state = await self.service.start(user_id, guild_id, track, bite_ids)
        except AlreadyOpen as open_one:
            return Step(open_one.state, "already_open")
        return Step(state, "asked")

    def question_text(self, state: InterviewState) -> str:
        """What the interviewer is asking now ("" once it is over)."""
        if state.asking is None:
            return ""
        question, point = state.asking
        bite = self.catalog.bites[state.bite_ids[question]]
        return bite.prompt if point is None else bite.key_points[point].follow_up

    async def answer(self, user_id: int, interview_id: int, turn_no: int, text: str, *, spoken: bool = False) -> Step:
        """Grade the answer to turn `turn_no` and move on. A typed "I don't know" passes."""
        if is_pass(text):
            return await self.pass_turn(user_id, interview_id, turn_no)
        state = await self._current(user_id, interview_id)
        if not state.open or state.turn != turn_no:
            return self.where(state)
        question, point = state.asking
        bite_id = state.bite_ids[question]
        if point is None:
            result = await self.grader.grade_and_record(
                self.coach.progress, user_id, state.guild_id, text, bite_id, f"interview:{interview_id}:{turn_no}")
            if isinstance(result, GradeError):
                return Step(state, "bad_input", message=result.message)
            statuses = tuple("missing" if result.off_topic else kp.status for kp in result.key_points)
            turn = Turn(turn_no, question, None, self.question_text(state), await self._kept(user_id, text), False,
                        statuses, score=result.score, red_flag=result.red_flag, injection=result.injection,
                        grader=result.grader)
            line = turn_line(first_answer_status(result.score))
        else:
            result = await self.grader.grade_point(text, bite_id, point)
            if isinstance(result, GradeError):
                return Step(state, "bad_input", message=result.message)
            turn = Turn(turn_no, question, point, self.question_text(state), await self._kept(user_id, text), False,
                        (result.status,), red_flag=result.red_flag, injection=result.injection, grader=result.grader)
            line = turn_line(result.status)
        return await self._advance(state, turn, line)

    async def pass_turn(self, user_id: int, interview_id: int, turn_no: int) -> Step:
        """"I don't know": as in a real interview, the interviewer moves on to the next question."""
        state = await self._current(user_id, interview_id)
        if not state.open or state.turn != turn_no:
            return self.where(state)
        question, point = state.asking
        size = 1 if point is not None else len(self.catalog.bites[state.bite_ids[question]].key_points)
        turn = Turn(turn_no, question, point, self.question_text(state), None, True, ("missing",) * size,
                    score=0 if point is None else None)
        return await self._advance(state, turn, "passed")

    async def end(self, user_id: int, interview_id: int) -> Step:
        """"End interview": the scorecard of what was answered."""
        state = await self._current(user_id, interview_id)
        if state.open:
            state = await self.service.close(interview_id, user_id, state.turn, "ended")
        return Step(state, "finished", scorecard=self.scorecard(state))

    async def open_for(self, user_id: int) -> Step | None:
        """The member's open interview (or the one that just ran out of time, with its scorecard)."""
        lapsed = await self.service.lapse(user_id)
        if lapsed is not None:
            return Step(lapsed, "finished", scorecard=self.scorecard(lapsed))
        state = await self.service.open_for(user_id)
        return Step(state, "asked") if state is not None else None

    def scorecard(self, state: InterviewState) -> Scorecard:
        bites = [self.catalog.bites[b] for b in state.bite_ids if b in self.catalog.bites]
        cards = [question_card(bite, list(state.turns), q) for q, bite in enumerate(bites)]
        return Scorecard(tuple(cards), state.signal, tuple(coaching_lines(bites, cards)), xp=state.xp,
                         ended=state.status)

    # --- steps -----------------------------------------------------------------------

    async def _current(self, user_id: int, interview_id: int) -> InterviewState:
        state = await self.service.get(interview_id, user_id)
        if state.open and self.coach.now() >= state.expires_at():
            state = await self.service.close(interview_id, user_id, state.turn, "expired")
        return state

    def where(self, state: InterviewState) -> Step:
        """A turn that is no longer current: the scorecard when it is over, else where it stands."""
        if not state.open:
            return Step(state, "finished", scorecard=self.scorecard(state))
        return Step(state, "duplicate")

    async def _kept(self, user_id: int, text: str) -> str | None:
        return text if (await self.coach.account.get_settings(user_id)).keep_answers else None

    async def _advance(self, state: InterviewState, turn: Turn, line: str) -> Step:
        turns = [*state.turns, turn]
        question = turn.question
        bite = self.catalog.bites[state.bite_ids[question]]
        asked = [t.point for t in turns if t.question == question and t.point is not None]
        point = None if turn.passed else follow_up_point(bite, current_statuses(bite, turns, question), asked)
        if point is not None:
            asking = (question, point)
        elif question + 1 < len(state.bite_ids):
            asking = (question + 1, None)
        else:
            asking = None
        new_state, stored = await self.service.record(state.interview_id, state.user_id, state.turn, turn, asking)
        if not stored:
            return self.where(new_state)
        if not new_state.open:
            return Step(new_state, "finished", line=line, grader=turn.grader, scorecard=self.scorecard(new_state))
        return Step(new_state, "asked", line=line, grader=turn.grader)
