"""Trial logs in and out: the JSONL trial format (pure parsing) and its import."""
