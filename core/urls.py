from django.contrib.auth import views as auth_views
from django.urls import path

from core import token_views, views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("favicon.ico", views.favicon, name="favicon"),
    path("login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("system/", views.system, name="system"),
    path("system/worker-check/", views.worker_check, name="worker-check"),
    path("jobs/<uuid:job_id>/", views.job_detail, name="job-detail"),
    path("jobs/<uuid:job_id>/cancel/", views.job_cancel_view, name="job-cancel"),
    path("account/tokens/", token_views.tokens, name="api-tokens"),
    path("account/tokens/<id:token_id>/revoke/", token_views.token_revoke_view, name="api-token-revoke"),
]
