"""The annotation REST API for scripts (DRF): batches, dialogues, annotations, reports, consensus, flags, jobs."""
