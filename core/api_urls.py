from django.urls import include, path

from core import api

urlpatterns = [
    path("me/", api.me, name="api-me"),
    path("annotation/", include("annotation.api.urls")),
]
