"""Judge audits (issue 18): people rate a stratified sample of the Layer3 LLM judge's verdicts.

``sampling`` (pure) draws the sample; ``services`` creates audits from the units Layer3 offers through
``core.judge_audits``; ``queue`` hands items to raters with the work queue's guarantees; the pages and
the calibration report sit beside them.
"""
