"""The Director's REST API (issue #15): check a line, sessions and their turns, verdicts."""
