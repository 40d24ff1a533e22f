"""Spoken answers below any adapter: hint words and the spoken answer (`answer`), pace,
fillers and pauses (`delivery`). See docs/voice.md."""
