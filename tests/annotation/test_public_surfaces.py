"""The annotation app's public surfaces: command names and URLs stay as users and scripts know them."""

from django.core.management import get_commands
from django.urls import URLPattern, URLResolver, get_resolver

COMMANDS = {
    "create_judge_audit",
    "delete_batch",
    "expire_reservations",
    "export_annotations",
    "export_consensus",
    "export_template",
    "import_annotations",
    "import_dialogues",
    "import_gold",
    "import_spreadsheet",
    "kappa_calculator",
    "llm_rate",
    "merge_annotations",
    "validate_annotations",
}

URLS = {
    "annotation:audit-list": "research/audits/",
    "annotation:audit-create": "research/audits/new/",
    "annotation:audit-close": "research/audits/<id:audit_id>/close/",
    "annotation:audit-reopen": "research/audits/<id:audit_id>/reopen/",
    "annotation:audit-rate": "annotate/audits/<id:audit_id>/",
    "annotation:audit-guidelines": "annotate/audits/<id:audit_id>/guidelines/",
    "annotation:audit-submit": "annotate/audits/<id:audit_id>/<id:assignment_id>/submit/",
    "annotation:audit-skip": "annotate/audits/<id:audit_id>/<id:assignment_id>/skip/",
    "annotation:audit-history": "annotate/audits/history/",
    "annotation:audit-edit": "annotate/audits/history/<id:rating_id>/edit/",
    "annotation:queue": "annotate/",
    "annotation:rate": "annotate/<id:batch_id>/",
    "annotation:submit": "annotate/<id:batch_id>/<id:assignment_id>/submit/",
    "annotation:skip": "annotate/<id:batch_id>/<id:assignment_id>/skip/",
    "annotation:history": "annotate/history/",
    "annotation:edit": "annotate/history/<id:annotation_id>/edit/",
    "annotation:comment": "annotate/<id:batch_id>/<id:assignment_id>/comment/",
    "annotation:unskip": "annotate/skipped/<id:assignment_id>/reopen/",
    "annotation:guidelines": "guidelines/",
    "annotation:training": "training/",
    "annotation:practice": "training/practice/",
    "annotation:practice-feedback": "training/practice/<id:answer_id>/",
    "annotation:qualification": "training/qualification/",
    "annotation:qualification-start": "training/qualification/start/",
    "annotation:qualification-result": "training/qualification/<id:attempt_id>/",
    "annotation:gold-items": "training/gold/",
    "annotation:qualification-results": "training/results/",
    "annotation:requalification-start": "training/requalification/start/",
    "annotation:qualification-extend": "research/qualifications/<id:user_id>/extend/",
    "annotation:dashboard": "research/agreement/",
    "annotation:dashboard-ci-method": "research/agreement/ci-method/",
    "annotation:download-report-csv": "research/agreement/<id:pk>/report.csv",
    "annotation:download-report-xlsx": "research/agreement/<id:pk>/report.xlsx",
    "annotation:dashboard-recompute": "research/agreement/recompute/",
    "annotation:dashboard-llm-estimate": "research/agreement/llm/estimate/",
    "annotation:dashboard-llm-run": "research/agreement/llm/run/",
    "annotation:download-ratings": "research/agreement/<id:pk>/ratings.jsonl",
    "annotation:download-consensus": "research/agreement/<id:pk>/<str:part>.jsonl",
    "annotation:download-report": "research/agreement/<id:pk>/report.json",
    "annotation:download-ratings-xlsx": "research/agreement/<id:pk>/ratings.xlsx",
    "annotation:download-ratings-csv": "research/agreement/<id:pk>/ratings.csv",
    "annotation:download-consensus-xlsx": "research/agreement/<id:pk>/consensus.xlsx",
    "annotation:download-consensus-csv": "research/agreement/<id:pk>/consensus.csv",
    "annotation:download-rejected-csv": "research/agreement/<id:pk>/rejected.csv",
    "annotation:workspace": "research/batches/",
    "annotation:batch-create": "research/batches/new/",
    "annotation:batch": "research/batches/<id:pk>/",
    "annotation:batch-ratings": "research/batches/<id:pk>/ratings/",
    "annotation:batch-settings": "research/batches/<id:pk>/settings/",
    "annotation:items": "research/batches/<id:pk>/items/",
    "annotation:item": "research/batches/<id:pk>/items/<id:dialogue_pk>/",
    "annotation:adjudicate": "research/batches/<id:pk>/items/<id:dialogue_pk>/adjudicate/",
    "annotation:comment-resolve": "research/batches/<id:pk>/comments/<id:comment_pk>/resolve/",
    "annotation:activity": "research/batches/<id:pk>/activity/",
    "annotation:feedback": "feedback/",
    "annotation:feedback-overview": "feedback/<int:year>-<int:month>/",
    "annotation:feedback-print": "feedback/<int:year>-<int:month>/print/",
    "annotation:feedback-csv": "feedback/<int:year>-<int:month>/overview.csv",
    "annotation:feedback-prepare": "feedback/<int:year>-<int:month>/prepare/",
    "annotation:feedback-annotator": "feedback/<int:year>-<int:month>/annotators/<str:username>/",
    "annotation:sheet-template": "annotate/<id:batch_id>/sheet.xlsx",
    "annotation:sheet": "annotate/<id:batch_id>/sheet/",
    "annotation:batch-sheet-template": "research/batches/<id:pk>/sheet.xlsx",
    "annotation:batch-sheet": "research/batches/<id:pk>/sheet/",
    "annotation-api:batches": "api/v1/annotation/batches/",
    "annotation-api:batch": "api/v1/annotation/batches/<id:pk>/",
    "annotation-api:batch-dialogues": "api/v1/annotation/batches/<id:pk>/dialogues/",
    "annotation-api:batch-next": "api/v1/annotation/batches/<id:pk>/next/",
    "annotation-api:batch-reports": "api/v1/annotation/batches/<id:pk>/reports/",
    "annotation-api:batch-consensus": "api/v1/annotation/batches/<id:pk>/consensus/",
    "annotation-api:batch-export-ratings-jsonl": "api/v1/annotation/batches/<id:pk>/export/ratings.jsonl",
    "annotation-api:batch-export-ratings-csv": "api/v1/annotation/batches/<id:pk>/export/ratings.csv",
    "annotation-api:batch-export-consensus-jsonl": "api/v1/annotation/batches/<id:pk>/export/consensus.jsonl",
    "annotation-api:batch-export-consensus-csv": "api/v1/annotation/batches/<id:pk>/export/consensus.csv",
    "annotation-api:batch-export-rejected-jsonl": "api/v1/annotation/batches/<id:pk>/export/rejected.jsonl",
    "annotation-api:batch-export-rejected-csv": "api/v1/annotation/batches/<id:pk>/export/rejected.csv",
    "annotation-api:annotations": "api/v1/annotation/annotations/",
    "annotation-api:annotations-import": "api/v1/annotation/annotations/import/",
    "annotation-api:annotation": "api/v1/annotation/annotations/<id:pk>/",
    "annotation-api:assignment-skip": "api/v1/annotation/assignments/<id:pk>/skip/",
    "annotation-api:reports": "api/v1/annotation/reports/",
    "annotation-api:report": "api/v1/annotation/reports/<id:pk>/",
    "annotation-api:flags": "api/v1/annotation/flags/",
    "annotation-api:flag": "api/v1/annotation/flags/<id:pk>/",
    "annotation-api:jobs": "api/v1/annotation/jobs/",
    "annotation-api:job": "api/v1/annotation/jobs/<uuid:pk>/",
    # the review site's own login view (ReviewSite.login: a signed-in non-reviewer gets the 403 page)
    "review:login": "review/login/",
}


def _routes(patterns, prefix="", namespace=None):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from _routes(pattern.url_patterns, prefix + str(pattern.pattern), pattern.namespace or namespace)
        elif isinstance(pattern, URLPattern) and pattern.callback.__module__.startswith("annotation."):
            yield f"{namespace}:{pattern.name}", prefix + str(pattern.pattern)


def test_management_commands_keep_their_names():
    assert {name for name, app in get_commands().items() if app == "annotation"} == COMMANDS


def test_urls_keep_their_names_and_paths():
    assert dict(_routes(get_resolver().url_patterns)) == URLS
