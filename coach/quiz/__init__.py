"""Quiz and review sessions: drawing and shuffling questions (`rules`), sessions kept in
the store (`service`)."""
