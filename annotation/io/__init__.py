"""Reading and writing the annotation data: JSONL parsing with located problems and the record shapes
(pure), imports, exports and the bulk writes and deletions they use."""
