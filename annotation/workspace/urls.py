"""Researchers' batch workspace: batches, uploads, settings, items, the item page and adjudication."""

from django.urls import path

from annotation.workspace import views, views_items

urlpatterns = [
    path("research/batches/", views.batch_list, name="workspace"),
    path("research/batches/new/", views.batch_create, name="batch-create"),
    path("research/batches/<id:pk>/", views.batch_detail, name="batch"),
    path("research/batches/<id:pk>/ratings/", views.batch_ratings_upload, name="batch-ratings"),
    path("research/batches/<id:pk>/settings/", views.batch_settings, name="batch-settings"),
    path("research/batches/<id:pk>/items/", views_items.items, name="items"),
    path("research/batches/<id:pk>/items/<id:dialogue_pk>/", views_items.item, name="item"),
    path("research/batches/<id:pk>/items/<id:dialogue_pk>/adjudicate/", views_items.adjudicate, name="adjudicate"),
    path(
        "research/batches/<id:pk>/comments/<id:comment_pk>/resolve/",
        views_items.comment_resolve,
        name="comment-resolve",
    ),
]
