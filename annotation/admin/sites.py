"""The review site (``/review/``): the admin's flag review for researchers who hold the review permission.

Why a second admin site and not staff status: in this project staff users are admins of everything
(``core.roles`` gives them the admin role), so making a reviewer staff would open far more than the flags.
The review site runs the very same model admins (the same list, filters, page and actions as ``/admin/``)
with only the models a review needs: the flags and their review history, read-only ratings with their
edit history, and the reports the flags came from.
"""

from functools import update_wrapper

from django.contrib import admin
from django.contrib.auth.decorators import login_not_required
from django.core.exceptions import PermissionDenied
from django.utils.decorators import method_decorator
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.cache import never_cache

from annotation.admin.common import NoWrites
from annotation.admin.flags import QualityFlagAdmin, QualityFlagReviewAdmin
from annotation.admin.ratings import AnnotationAdmin, AnnotationEditAdmin, AnnotationEditInline
from annotation.admin.reports import AgreementReportAdmin
from annotation.models import AgreementReport, Annotation, AnnotationEdit, QualityFlag, QualityFlagReview
from annotation.review.flags import can_review_flags


class ReviewSite(admin.AdminSite):
    site_header = _("JAIML quality review")
    site_title = _("JAIML quality review")
    index_title = _("Quality flags and the ratings they are about")
    site_url = "/"

    def has_permission(self, request) -> bool:
        return request.user.is_active and can_review_flags(request.user)

    def admin_view(self, view, cacheable=False):
        """A signed-in user without the review permission gets the site's 403 page, not the admin's login form
        (which would ask them to log in as someone else); an anonymous user still goes to the login form."""
        checked = super().admin_view(view, cacheable)

        def inner(request, *args, **kwargs):
            _refuse_signed_in_non_reviewer(self, request)
            return checked(request, *args, **kwargs)

        return update_wrapper(inner, checked)

    @method_decorator(never_cache)
    @login_not_required
    def login(self, request, extra_context=None):
        if request.method == "GET":  # a POST is logging in as someone else: the form answers it
            _refuse_signed_in_non_reviewer(self, request)
        return super().login(request, extra_context)


def _refuse_signed_in_non_reviewer(site: ReviewSite, request) -> None:
    if request.user.is_authenticated and not site.has_permission(request):
        raise PermissionDenied(gettext("Reviewing quality flags needs the review permission."))


class _ReadOnlyForReviewers(NoWrites):
    """Reviewers read these; nobody changes them on the review site."""

    def has_module_permission(self, request) -> bool:
        return can_review_flags(request.user)

    def has_view_permission(self, request, obj=None) -> bool:
        return can_review_flags(request.user)


class ReviewEditInline(_ReadOnlyForReviewers, AnnotationEditInline):
    pass


class ReviewAnnotationAdmin(_ReadOnlyForReviewers, AnnotationAdmin):
    inlines = [ReviewEditInline]  # the rating's edit history


class ReviewAnnotationEditAdmin(_ReadOnlyForReviewers, AnnotationEditAdmin):
    pass


class ReviewAgreementReportAdmin(_ReadOnlyForReviewers, AgreementReportAdmin):
    pass


review_site = ReviewSite(name="review")
review_site.register(QualityFlag, QualityFlagAdmin)
review_site.register(QualityFlagReview, QualityFlagReviewAdmin)
review_site.register(Annotation, ReviewAnnotationAdmin)
review_site.register(AnnotationEdit, ReviewAnnotationEditAdmin)
review_site.register(AgreementReport, ReviewAgreementReportAdmin)
