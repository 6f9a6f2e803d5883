from django.urls import path

from annotation.dashboard import downloads, views, views_ci

XLSX, CSV = {"file_format": "xlsx"}, {"file_format": "csv"}

urlpatterns = [
    path("research/agreement/", views.dashboard, name="dashboard"),
    path("research/agreement/recompute/", views.recompute, name="dashboard-recompute"),
    path("research/agreement/ci-method/", views_ci.ci_method_switch, name="dashboard-ci-method"),
    path("research/agreement/llm/estimate/", views.llm_estimate, name="dashboard-llm-estimate"),
    path("research/agreement/llm/run/", views.llm_run, name="dashboard-llm-run"),
    path("research/agreement/<id:pk>/ratings.jsonl", downloads.ratings, name="download-ratings"),
    path("research/agreement/<id:pk>/<str:part>.jsonl", downloads.consensus, name="download-consensus"),
    path("research/agreement/<id:pk>/report.json", downloads.report, name="download-report"),
    path("research/agreement/<id:pk>/report.xlsx", downloads.report_sheet, XLSX, name="download-report-xlsx"),
    path("research/agreement/<id:pk>/report.csv", downloads.report_sheet, CSV, name="download-report-csv"),
    path("research/agreement/<id:pk>/ratings.xlsx", downloads.ratings_sheet, XLSX, name="download-ratings-xlsx"),
    path("research/agreement/<id:pk>/ratings.csv", downloads.ratings_sheet, CSV, name="download-ratings-csv"),
    path(
        "research/agreement/<id:pk>/consensus.xlsx",
        downloads.consensus_sheet,
        {**XLSX, "part": "consensus"},
        name="download-consensus-xlsx",
    ),
    path(
        "research/agreement/<id:pk>/consensus.csv",
        downloads.consensus_sheet,
        {**CSV, "part": "consensus"},
        name="download-consensus-csv",
    ),
    path(
        "research/agreement/<id:pk>/rejected.csv",
        downloads.consensus_sheet,
        {**CSV, "part": "rejected"},
        name="download-rejected-csv",
    ),
]
