from django.urls import path

from annotation.collection import views_queue

urlpatterns = [
    path("annotate/", views_queue.queue, name="queue"),
    path("annotate/<id:batch_id>/", views_queue.rate, name="rate"),
    path("annotate/<id:batch_id>/<id:assignment_id>/submit/", views_queue.submit, name="submit"),
    path("annotate/<id:batch_id>/<id:assignment_id>/skip/", views_queue.skip, name="skip"),
    path("annotate/<id:batch_id>/<id:assignment_id>/comment/", views_queue.comment, name="comment"),
    path("annotate/skipped/<id:assignment_id>/reopen/", views_queue.unskip, name="unskip"),
    path("annotate/history/", views_queue.history, name="history"),
    path("annotate/history/<id:annotation_id>/edit/", views_queue.edit, name="edit"),
]
