from django.urls import path

from annotation.audits import views_research

urlpatterns = [
    path("research/audits/", views_research.audit_list, name="audit-list"),
    path("research/audits/new/", views_research.audit_create, name="audit-create"),
    path(
        "research/audits/<id:audit_id>/close/",
        views_research.audit_status,
        {"status": "closed"},
        name="audit-close",
    ),
    path(
        "research/audits/<id:audit_id>/reopen/",
        views_research.audit_status,
        {"status": "open"},
        name="audit-reopen",
    ),
]
