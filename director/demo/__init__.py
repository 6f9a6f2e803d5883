"""The Director part of the demo data set: ``dialogue`` (a recorded dialogue, pure data) and ``load`` (replay it)."""
