"""The rating sheet in the browser: the annotator's own (under /annotate/) and the researchers' (any annotator's)."""

from django.urls import path

from annotation.spreadsheets import views

urlpatterns = [
    path("annotate/<id:batch_id>/sheet.xlsx", views.annotator_template, name="sheet-template"),
    path("annotate/<id:batch_id>/sheet/", views.annotator_sheet, name="sheet"),
    path("research/batches/<id:pk>/sheet.xlsx", views.batch_template, name="batch-sheet-template"),
    path("research/batches/<id:pk>/sheet/", views.batch_sheet, name="batch-sheet"),
]
