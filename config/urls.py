from csp.decorators import csp_update
from django.contrib import admin
from django.contrib.auth.decorators import login_not_required
from django.urls import include, path
from django.views.i18n import set_language
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerSplitView

from annotation.admin.sites import review_site
from core.api_docs import redoc_script_view
from core.permissions import IsResearcher

urlpatterns = [
    path("", include("core.urls")),
    path("", include("annotation.urls")),
    path("", include("layer3.panel.urls")),
    path("", include("director.pages.urls")),
    path("i18n/setlang/", login_not_required(set_language), name="set_language"),
    path("admin/", admin.site.urls),
    path("review/", review_site.urls),  # the admin's flag review for researchers with the review permission
    path("api/v1/", include("core.api_urls")),
    path("api/experiment/", include("layer3.api.urls")),
    path("api/director/", include("director.api.urls")),
    path("api/schema/", SpectacularAPIView.as_view(permission_classes=[IsResearcher]), name="api-schema"),
    # The documentation pages render with styles their scripts inject (Swagger UI, Redoc): inline styles
    # are allowed on these two pages only; scripts stay this site's own.
    path(
        "api/docs/",
        csp_update({"style-src": ["'unsafe-inline'"]})(
            SpectacularSwaggerSplitView.as_view(url_name="api-schema", permission_classes=[IsResearcher])
        ),
        name="api-docs",
    ),
    path(
        "api/redoc/",
        csp_update({"style-src": ["'unsafe-inline'"], "worker-src": ["blob:"]})(
            SpectacularRedocView.as_view(
                url_name="api-schema", permission_classes=[IsResearcher], template_name="core/redoc.html"
            )
        ),
        name="api-redoc",
    ),
    path("api/redoc/redoc.standalone.js", redoc_script_view, name="api-redoc-script"),
]
