from django.urls import path

from annotation.collection import views_queue

urlpatterns = [
    path("annotate/", views_queue.queue, name="queue"),
    path("annotate/<int:batch_id>/", views_queue.rate, name="rate"),
    path("annotate/<int:batch_id>/<int:assignment_id>/submit/", views_queue.submit, name="submit"),
    path("annotate/<int:batch_id>/<int:assignment_id>/skip/", views_queue.skip, name="skip"),
    path("annotate/<int:batch_id>/<int:assignment_id>/comment/", views_queue.comment, name="comment"),
    path("annotate/skipped/<int:assignment_id>/reopen/", views_queue.unskip, name="unskip"),
    path("annotate/history/", views_queue.history, name="history"),
    path("annotate/history/<int:annotation_id>/edit/", views_queue.edit, name="edit"),
]
