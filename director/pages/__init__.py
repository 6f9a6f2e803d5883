"""The Director's pages for researchers (issue #15): live check, sessions, statistics."""
