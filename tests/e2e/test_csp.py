"""Every page, as every role that has it, loads under the Content-Security-Policy without a violation."""

import json

from django.core.management import call_command

from annotation.axes import AXES
from annotation.models import Annotation, Batch
from core.demo import credentials_path
from tests.e2e.conftest import log_in

# Collects every violation the browser reports, from the first script on.
WATCH = """
window.__csp = [];
document.addEventListener('securitypolicyviolation', function (e) {
  var where = (e.sourceFile || '') + ':' + e.lineNumber;
  window.__csp.push(e.violatedDirective + ' ' + (e.blockedURI || 'inline') + ' ' + where);
});
"""

PAGES = {
    "annotator1": ["/", "/annotate/", "/annotate/{batch}/", "/annotate/history/", "/annotate/history/{rating}/edit/",
                   "/guidelines/", "/training/", "/training/practice/", "/training/qualification/"],
    "researcher": ["/", "/guidelines/", "/research/agreement/", "/research/agreement/?batch={batch}",
                    "/training/gold/", "/training/results/", "/system/"],
    "admin": ["/", "/system/", "/admin/", "/admin/annotation/dialogue/", "/admin/annotation/qualityflag/",
              "/admin/axes/accessattempt/", "/admin/annotation/annotation/{rating}/change/"],
}  # fmt: skip


def _rate_one(batch, username: str) -> None:
    from django.contrib.auth import get_user_model

    from annotation.collection.queue import assignment_next, rating_submit

    user = get_user_model().objects.get(username=username)
    assignment = assignment_next(batch=batch, annotator=user)
    scores, confidence = dict.fromkeys(AXES, 2), dict.fromkeys(AXES, 1.0)
    rating_submit(batch_id=batch.pk, assignment_id=assignment.pk, annotator=user, scores=scores, confidence=confidence)


def _violations_on(page, url: str) -> list[str]:
    violations: list[str] = []
    page.on("console", lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None)
    response = page.goto(url)
    page.wait_for_load_state("networkidle")
    assert response.status < 400, f"{url} answered {response.status}"
    assert "default-src 'self'" in response.headers.get("content-security-policy", ""), url
    cache_control = {part.strip() for part in response.headers.get("cache-control", "").split(",")}
    assert {"private", "no-store"} <= cache_control, url
    return violations + page.evaluate("window.__csp")


def test_no_page_violates_the_content_security_policy(page, settings, transactional_db):
    settings.DEBUG = True  # the demo data, and django-htmx's debug script, as `make run` serves them
    call_command("load_demo")
    passwords = json.loads(credentials_path().read_text())
    page.context.add_init_script(WATCH)
    batch = Batch.objects.order_by("pk").first()
    values = {"batch": batch.pk}
    _rate_one(batch, "annotator1")  # so that their history and its edit page have a rating

    anonymous = page.goto("/login/")
    assert "script-src 'self'" in anonymous.headers["content-security-policy"]
    found = {}
    for user, urls in PAGES.items():
        log_in(page, user, passwords[user])
        own = Annotation.objects.filter(annotator__username=user).first() or Annotation.objects.first()
        values["rating"] = own.pk  # admins open anyone's rating in Django admin
        for template in urls:
            url = template.format(**values)
            violations = _violations_on(page, url)
            if violations:
                found[f"{user} {url}"] = violations
        page.goto("/")
        page.locator('form[action="/logout/"] button').click()
        page.wait_for_load_state("networkidle")
    assert not found, found
