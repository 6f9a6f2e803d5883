from core.api_pagination import KeysetPagination

MAX_PAGE_SIZE = 1000


class Pages(KeysetPagination):
    """``{next, previous, results}`` in the view's ``ordering``; 50 per page, ``?page_size=`` from 1 to 1,000 (else a
    400); ``?cursor=`` from the ``next`` / ``previous`` links (``core.api_pagination.KeysetPagination``)."""

    page_size = 50
    max_page_size = MAX_PAGE_SIZE
