"""Monthly feedback per annotator (seed 000 B.3.2 月次フィードバック会議): selectors, compute, views, tasks."""
