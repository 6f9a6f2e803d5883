from django.urls import path

from director.api import views

urlpatterns = [
    path("check", views.check, name="director-api-check"),
    path("sessions", views.sessions, name="director-api-sessions"),
    path("sessions/<id:session_id>", views.session_detail, name="director-api-session"),
    path("sessions/<id:session_id>/turns", views.turns, name="director-api-turns"),
    path("verdicts", views.verdicts, name="director-api-verdicts"),
]
