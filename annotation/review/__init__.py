"""Researchers' review of a batch's items: adjudications of disputed axes and annotators' comments."""
