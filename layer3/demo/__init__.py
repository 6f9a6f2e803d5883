"""The Layer3 part of the demo data set: ``generator`` (pure, seeded trials) and ``load`` (import and evaluate)."""
