from django.urls import path

from core import api

urlpatterns = [
    path("me/", api.me, name="api-me"),
]
