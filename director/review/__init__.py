"""The Director's LLM review (seed 004 §7): five aspects scored 1–5, their average judged (pure, no Django).

``scores`` parses the validated reply of the ``director.review`` prompt, judges the average against the
rule set's ``review`` thresholds and combines statuses (``worse``).
"""
