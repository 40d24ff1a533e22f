"""Progress over time: a member's weeks and streak calendar, mastery of a track's bites, a
server's week. Pure rules in `rules`; reads from the store in `service`."""
