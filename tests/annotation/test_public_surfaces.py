"""The annotation app's public surfaces: command names and URLs stay as users and scripts know them."""

from django.core.management import get_commands
from django.urls import URLPattern, URLResolver, get_resolver

COMMANDS = {
    "delete_batch",
    "expire_reservations",
    "export_annotations",
    "export_consensus",
    "import_annotations",
    "import_dialogues",
    "import_gold",
    "kappa_calculator",
    "merge_annotations",
    "validate_annotations",
}

URLS = {
    "annotation:queue": "annotate/",
    "annotation:rate": "annotate/<int:batch_id>/",
    "annotation:submit": "annotate/<int:batch_id>/<int:assignment_id>/submit/",
    "annotation:skip": "annotate/<int:batch_id>/<int:assignment_id>/skip/",
    "annotation:history": "annotate/history/",
    "annotation:edit": "annotate/history/<int:annotation_id>/edit/",
    "annotation:guidelines": "guidelines/",
    "annotation:training": "training/",
    "annotation:practice": "training/practice/",
    "annotation:practice-feedback": "training/practice/<int:answer_id>/",
    "annotation:qualification": "training/qualification/",
    "annotation:qualification-start": "training/qualification/start/",
    "annotation:qualification-result": "training/qualification/<int:attempt_id>/",
    "annotation:gold-items": "training/gold/",
    "annotation:qualification-results": "training/results/",
    "annotation:dashboard": "research/agreement/",
    "annotation:dashboard-recompute": "research/agreement/recompute/",
    "annotation:download-ratings": "research/agreement/<int:pk>/ratings.jsonl",
    "annotation:download-consensus": "research/agreement/<int:pk>/<str:part>.jsonl",
    "annotation:download-report": "research/agreement/<int:pk>/report.json",
    "annotation:workspace": "research/batches/",
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
