"""statsmodels' ``multipletests`` as the reference, without the ``gc.collect()`` its Holm branch makes on
every call: in a test process with Django and the app loaded that collection takes about 0.25 s, most of
a property test's time. Collecting garbage frees memory and changes no result."""

import gc
from unittest import mock

from statsmodels.stats import multitest


def multipletests(*args, **kwargs):
    with mock.patch.object(gc, "collect", lambda generation=2: 0):
        return multitest.multipletests(*args, **kwargs)
