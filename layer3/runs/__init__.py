"""Layer3 evaluation runs (seed 002 §5.1, §6, §11.2): options, the resumable chunked run, its log."""
