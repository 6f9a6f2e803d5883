"""The Director's files: utterance lines in, verdict lines out (``utterances``, pure)."""
