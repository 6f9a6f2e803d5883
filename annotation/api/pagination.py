from django.utils.translation import gettext
from rest_framework.pagination import PageNumberPagination

from annotation.api.errors import invalid
from core import query_params

MAX_PAGE_SIZE = 500


class Pages(PageNumberPagination):
    """``{count, next, previous, results}``; 50 per page, ``?page_size=`` from 1 to 500.

    Any other ``page_size`` (``0``, ``abc``, a 30-digit number) is a 400 naming the range, rather than
    DRF's silent default or cap: a script asking for more than it gets would miss rows without knowing.
    """

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE

    def get_page_size(self, request):
        name = self.page_size_query_param
        try:
            return query_params.whole_number(
                request.query_params, name, default=self.page_size, minimum=1, maximum=self.max_page_size
            )
        except query_params.QueryParamError as exc:
            raise invalid(name, exc.translated(gettext)) from None
