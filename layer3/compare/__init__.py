"""Two Layer3 runs of one batch, or two batches, side by side (issue 42): matching, reads, exports."""
