"""Fixtures of the annotation API tests (helpers: ``tests.annotation.api.support``)."""

import pytest


@pytest.fixture
def qualified(db):
    from tests.helpers import make_qualified_annotator

    return make_qualified_annotator("ann_q1")


@pytest.fixture
def qualified_2(db):
    from tests.helpers import make_qualified_annotator

    return make_qualified_annotator("ann_q2")


@pytest.fixture
def res(researcher):
    from tests.annotation.api.support import logged_in

    return logged_in(researcher)


@pytest.fixture
def ann(qualified):
    from tests.annotation.api.support import logged_in

    return logged_in(qualified)


@pytest.fixture
def ann_2(qualified_2):
    from tests.annotation.api.support import logged_in

    return logged_in(qualified_2)


@pytest.fixture
def unqualified(db):
    from tests.helpers import make_user

    return make_user("ann_new", "annotator")
