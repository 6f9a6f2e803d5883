from django.urls import path

from annotation.activity import views

urlpatterns = [
    path("research/batches/<id:pk>/activity/", views.activity, name="activity"),
]
