"""The seed's annotation guidelines (axis definitions, levels, markers, examples, edge cases as data files),
their loader and the rating scale built from them, and the guidelines page."""
