from django.urls import path

from annotation.audits import views

urlpatterns = [
    path("annotate/audits/<id:audit_id>/", views.rate, name="audit-rate"),
    path("annotate/audits/<id:audit_id>/guidelines/", views.guidelines, name="audit-guidelines"),
    path("annotate/audits/<id:audit_id>/<id:assignment_id>/submit/", views.submit, name="audit-submit"),
    path("annotate/audits/<id:audit_id>/<id:assignment_id>/skip/", views.skip, name="audit-skip"),
    path("annotate/audits/history/", views.history, name="audit-history"),
    path("annotate/audits/history/<id:rating_id>/edit/", views.edit, name="audit-edit"),
]
