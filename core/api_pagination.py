"""The API's pages: a page size outside its range is a 400 naming the range, never silently capped.

DRF's ``PageNumberPagination`` quietly falls back to the default size for ``0`` or ``abc`` and caps
a 30-digit size at the maximum: a script asking for more than it gets would miss rows without knowing.
"""

from __future__ import annotations

from django.utils.translation import gettext
from rest_framework import exceptions
from rest_framework.pagination import PageNumberPagination

from core import query_params


class StrictPageNumberPagination(PageNumberPagination):
    page_size = 50
    max_page_size = 500

    def get_page_size(self, request):
        name = self.page_size_query_param
        try:
            return query_params.whole_number(
                request.query_params, name, default=self.page_size, minimum=1, maximum=self.max_page_size
            )
        except query_params.QueryParamError as exc:
            raise exceptions.ValidationError({name: [exc.translated(gettext)]}) from None
