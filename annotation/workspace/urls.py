from django.urls import path

from annotation.workspace import views

urlpatterns = [
    path("research/batches/", views.batch_list, name="workspace"),
]
