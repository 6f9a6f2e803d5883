"""The statistics engine's reasons (why a κ, α or AC2 is undefined or fails), in the user's language.

The pure modules (``agreement_*``, ``weekly``, ``training``'s gold agreement) write their reasons
in plain English, and reports store them that way. ``translate_reason`` reads such a text piece by
piece ("; " separates the pieces, "... is undefined: " introduces an explanation) and renders every
piece it recognises through gettext with its numbers; a piece it does not recognise stays as it is.
The English templates below must match the f-strings of those modules (tests/annotation/
test_reason_text.py produces every reason the engine can give and checks that all of them are read).
"""

from __future__ import annotations

import re
from functools import cache

from django.utils.translation import gettext
from django.utils.translation import gettext_noop as _

# (template, is a prefix that introduces further pieces). Placeholders are %(name)s.
TEMPLATES: list[tuple[str, bool]] = [
    (_("kappa is undefined: "), True),
    (_("alpha is undefined: "), True),
    (_("AC2 is undefined: "), True),
    (_("95% CI unavailable: "), True),
    (_("no rater pair has a defined kappa: "), True),
    (_("none of this rater's pairs has a defined kappa: "), True),
    (_("no pair has a defined kappa in this week: "), True),
    (_("no item has two or more ratings, so there are no pairable values"), False),
    (_("expected disagreement is 0: every pairable rating is %(score)s, so alpha is undefined"), False),
    (_("expected disagreement is 0, so alpha is undefined"), False),
    (_("no item has two or more ratings, so there is nothing to resample"), False),
    (_("kappa is undefined on the full data, so it has no bootstrap interval"), False),
    (_("kappa was undefined in %(dropped)s of %(n)s bootstrap replicates (more than half)"), False),
    (_("%(dropped)s of %(n)s bootstrap replicates had an undefined kappa and were dropped"), False),
    (_("every bootstrap replicate lies on one side of the estimate, so BCa is undefined"), False),
    (_("the jackknife estimates do not vary, so the BCa acceleration is undefined"), False),
    (_("kappa is undefined when one of %(n)s item(s) is left out, so BCa has no acceleration"), False),
    (_("no item has two or more ratings, so observed agreement is undefined"), False),
    (_("chance agreement is 1, so AC2 is undefined"), False),
    (_("only %(n)s common item(s); at least %(needed)s needed"), False),
    (
        _(
            "expected disagreement is 0 (both raters gave the same single score, %(score)s, "
            "on all %(n)s common items), so kappa is undefined"
        ),
        False,
    ),
    (_("%(n)s pair(s) with expected disagreement 0 (both raters gave the same single score throughout)"), False),
    (_("%(n)s pair(s) with expected disagreement 0 (the same single score throughout)"), False),
    (_("%(n)s pair(s) with fewer than %(needed)s common items"), False),
    (_("no two raters rated a common item, so no pair kappa exists"), False),
    (_("this rater shares no item with any other rater"), False),
    (_("no item has two or more ratings, so there is no pair to compare"), False),
    (_("no item has two or more ratings, so no agreement statistic is defined"), False),
    (_("kappa %(kappa)s is below the threshold %(threshold)s"), False),
    (_("kappa %(kappa)s is below the minimum %(minimum)s"), False),
    (_("no ratings in this week"), False),
    (_("no other annotator rated the %(n)s item(s) rated in this week"), False),
    (_("no common items"), False),
    (_("no answered item"), False),
    (
        _(
            "Kappa is %(kappa)s although raters agree exactly on %(exact)s of rating pairs (%(within_1)s within "
            "one point): %(share)s of all ratings are %(top)s, and such skewed prevalence makes chance agreement "
            "high, which depresses kappa and alpha (the kappa paradox); Gwet's AC2, far less sensitive to "
            "prevalence, is %(ac2)s."
        ),
        False,
    ),
    (
        _(
            "Kappa is %(kappa)s although raters agree exactly on %(exact)s of rating pairs (%(within_1)s within "
            "one point): %(share)s of all ratings are %(top)s, and such skewed prevalence makes chance agreement "
            "high, which depresses kappa and alpha (the kappa paradox); Gwet's AC2 is undefined here."
        ),
        False,
    ),
]

SEPARATOR = "; "
_PLACEHOLDER = re.compile(r"%\((\w+)\)s")


@cache
def _patterns() -> list[tuple[str, re.Pattern]]:
    """Regexes of the English templates, longest first (a longer template is never cut by a shorter one)."""
    out = []
    for template, prefix in TEMPLATES:
        parts = _PLACEHOLDER.split(template)
        regex = "".join(re.escape(part) if i % 2 == 0 else rf"(?P<{part}>[^\s;]+)" for i, part in enumerate(parts))
        if not prefix:
            regex += rf"(?={re.escape(SEPARATOR)}|$)"
        out.append((template, re.compile(regex)))
    return sorted(out, key=lambda pattern: -len(pattern[1].pattern))


def translate_reason(text: str | None) -> str:
    """``text`` in the active language where its pieces are known; unknown pieces unchanged."""
    if not text:
        return text or ""
    out: list[str] = []
    pos = 0
    while pos < len(text):
        for template, regex in _patterns():
            found = regex.match(text, pos)
            if found:
                translated, fields = gettext(template), found.groupdict()
                out.append(translated % fields if fields else translated)
                pos = found.end()
                break
        else:  # not a piece we know: keep it up to the next separator
            end = text.find(SEPARATOR, pos)
            end = len(text) if end < 0 else end
            out.append(text[pos:end])
            pos = end
        if text.startswith(SEPARATOR, pos):
            out.append(SEPARATOR)
            pos += len(SEPARATOR)
    return "".join(out)
