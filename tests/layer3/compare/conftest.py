"""The comparison tests' batch (tests/layer3/conftest.py's trials, imported as batch ``b``) and a signed-in
researcher's client."""

import pytest
from django.core.management import call_command


@pytest.fixture
def batch(trials_file, settings, tmp_path):
    from layer3.models import Batch  # the models load once Django is set up, after the conftests

    settings.VAR_DIR = tmp_path
    call_command("import_trials", str(trials_file), "--batch", "b", "--experiment", "exp-1")
    return Batch.objects.get(name="b")


@pytest.fixture
def researcher_client(client, researcher):
    client.force_login(researcher)
    return client
