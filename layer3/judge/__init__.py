"""LLM-as-a-Judge for Layer3 (seed 002 §2.2.1, §2.2.3, §4.5): what is judged, and the judged metrics.

``items`` and ``summaries`` are pure; ``services`` sends the items of many trials through the
``llm`` gateway (prompt registry, cache, retries, budget, cost ledger) in one run per prompt.
"""
