"""The per-server daily post: the rotation, post times and week starts (`rules`), the
schedule, picks and answers kept in the store (`service`), and who sends a post when several
bot processes run (`claims`)."""
