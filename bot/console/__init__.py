"""The console front end: `coach chat`, the Discord commands in a terminal."""
