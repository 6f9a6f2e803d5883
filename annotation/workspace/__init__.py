"""Researchers' batch workspace: batches, uploads, settings, items, the item page and adjudication."""
