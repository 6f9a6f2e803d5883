from django.urls import path

from director.pages import views

app_name = "director"

urlpatterns = [
    path("research/director/", views.check_page, name="check"),
    path("research/director/verdict/", views.check_verdict, name="check-verdict"),
    path("research/director/sessions/", views.sessions_page, name="sessions"),
    path("research/director/sessions/<id:pk>/", views.session_page, name="session"),
    path("research/director/statistics/", views.stats_page, name="stats"),
    path("research/director/statistics.csv", views.stats_csv, name="stats-csv"),
    path("research/director/statistics/compare/", views.stats_compare, name="stats-compare"),
]
