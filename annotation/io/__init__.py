"""Reading and writing the annotation data: the record shapes of the seed's files with located problems
(pure), imports, exports and batch deletion; JSONL reading and bulk writes come from ``core``."""
