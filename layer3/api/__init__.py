"""The seed's Layer3 REST API (002 §5) under /api/experiment/batch/<batchId>/ (researcher role)."""
