"""A member's progress: XP amounts (`xp`), the streak rule (`streaks`), FSRS spaced review
(`review`), and recording graded explanations, stats, the leaderboard, reminders (`service`)."""
