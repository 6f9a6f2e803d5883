"""The researchers' agreement dashboard: what it shows (selectors), its views and URLs."""
