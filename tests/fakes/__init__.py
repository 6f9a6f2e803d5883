"""Test doubles of external services (real servers on 127.0.0.1, no internet)."""
