"""Per-annotator activity of a batch: ratings per day, time per item, skip rate, agreement with the rest."""
