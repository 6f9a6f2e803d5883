"""From ratings to results: the agreement engine (pure), the consensus merge, agreement reports and
weekly monitoring."""
