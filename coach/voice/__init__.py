"""Spoken answers below any adapter: hint words and the spoken answer (`answer`), pace,
fillers and pauses (`delivery`), a member's delivery over time (`history`). See docs/voice.md."""
