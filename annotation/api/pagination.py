from rest_framework.pagination import PageNumberPagination

MAX_PAGE_SIZE = 500


class Pages(PageNumberPagination):
    """``{count, next, previous, results}``; 50 per page, ``?page_size=`` up to 500."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE
