from core.api_pagination import StrictPageNumberPagination

MAX_PAGE_SIZE = 500


class Pages(StrictPageNumberPagination):
    """``{count, next, previous, results}``; 50 per page, ``?page_size=`` from 1 to 500 (else a 400)."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE
