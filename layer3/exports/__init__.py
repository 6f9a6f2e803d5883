"""Exports of a batch's Layer3 results: JSON, CSV, Markdown and LaTeX (seed 002 §5), pure Python.

Modules:

- ``formats``: the public entry point, ``FORMATS``, ``MEDIA_TYPES``, ``export_filename`` and the
  ``iter_*`` formatters (generators of ``str`` chunks, trials read once);
- ``json_csv``: the raw exports, ``iter_json`` and ``iter_csv`` (``CSV_COLUMNS``);
- ``tables``: what the paper tables show and the number formats they share;
- ``markdown`` and ``latex``: the tables as GitHub Markdown and as booktabs LaTeX.
"""
