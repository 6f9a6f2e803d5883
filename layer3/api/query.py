"""The query parameters of the Layer3 API, declared once for the schema and the reading (``core.api_query``)."""

from __future__ import annotations

from django.utils.translation import gettext_noop

from core import api_query
from layer3.exports.formats import FORMATS
from layer3.statistics import CORRECTIONS, DEFAULT_FAMILY, parse_family

MAX_PAGE_SIZE = 500
MAX_PAGE = 10**9
FAMILY_MESSAGE = gettext_noop(
    "expected seed, tests-run or a whole number of tests from 1 (at most 18 digits), got %(value)s"
)

MODEL_CONFIG = api_query.Text(name="modelConfig", max_length=50, description="one model configuration only")
CORRECTION = api_query.Choice(name="correction", choices=tuple(CORRECTIONS), default="bonferroni")
FAMILY = api_query.Pattern(
    name="family",
    pattern=r"seed|tests-run|[1-9][0-9]{0,17}",
    reader=parse_family,
    message=FAMILY_MESSAGE,
    default=DEFAULT_FAMILY,
    description="the multiple-comparison family: seed (default: 11 metrics × the pairs of model configs, 110 for "
    "A–E, seed 002 §7.2), tests-run (the tests performed), or a whole number (e.g. 210 across layers)",
)

RESULTS = (
    MODEL_CONFIG,
    api_query.Flag(name="includeDetails", description="add each trial's stored metrics, paginated"),
    api_query.Integer(name="page", minimum=1, maximum=MAX_PAGE, default=1, description="details page (from 1)"),
    api_query.Integer(name="pageSize", minimum=1, maximum=MAX_PAGE_SIZE, default=100,
                      description=f"details per page (1 to {MAX_PAGE_SIZE}, default 100)"),
)  # fmt: skip
STATISTICS = (CORRECTION, FAMILY)
EXPORT = (
    api_query.Choice(name="format", choices=tuple(FORMATS), default="json"),
    api_query.Flag(name="includeRawData", description="json: add each trial's stored metrics"),
    MODEL_CONFIG,
    CORRECTION,
    FAMILY,
)
TRIALS = (api_query.Text(name="modelConfig", max_length=50, description="only this model config's trials"),)
