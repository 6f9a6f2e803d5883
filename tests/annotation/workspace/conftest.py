"""A batch with every kind of item the workspace shows, and clients for each role."""

import pytest
from django.core.management import call_command
from django.test import Client

from tests.annotation.conftest import dialogue, rating

HTMX = {"HX-Request": "true"}
ANNOTATORS = ("ann_a", "ann_b", "ann_c")


@pytest.fixture
def batch(jsonl):
    """Batch "ws" (quota 3, disputed from a spread of 2) of six items:

    - dialogue_000: three ratings, social 1 / 5 / 3 (spread 4: disputed)
    - dialogue_001: three ratings, social 2 / 3 / 2 (spread 1: not disputed)
    - dialogue_002: one rating (fewer than the quota)
    - dialogue_003: no rating
    - dialogue_004: three alike ratings, an open quality flag on one of them; its user text holds a keyword
    - dialogue_005: three ratings, avoidant 1 / 3 / 2 (spread 2: disputed), an open problem report
    """
    from annotation.models import Annotation, Batch, Dialogue, ItemComment, QualityFlag

    rows = [dialogue(i, user="特別なキーワードの質問" if i == 4 else f"質問 {i}") for i in range(6)]
    call_command("import_dialogues", str(jsonl(rows)), batch="ws")
    social = {0: (1, 5, 3), 1: (2, 3, 2)}
    avoidant = {5: (1, 3, 2)}
    ratings = []
    for i in (0, 1, 4, 5):
        for k, annotator in enumerate(ANNOTATORS):
            scores = (social.get(i, (2, 2, 2))[k], avoidant.get(i, (1, 1, 1))[k], 1, 1)
            ratings.append(rating(i, annotator, scores=scores, conf=(1, 1, 1, 1), seconds_spent=30 + k))
    ratings.append(rating(2, "ann_a", scores=(1, 1, 1, 1), conf=(1, 1, 1, 1)))
    call_command("import_annotations", str(jsonl(ratings)))
    item_4 = Dialogue.objects.get(external_id="dialogue_004")
    flagged = Annotation.objects.get(dialogue=item_4, annotator__username="ann_b")
    QualityFlag.objects.create(
        source=QualityFlag.Source.CONSISTENCY, kind="c1_low_social_high_self", dialogue=item_4, annotation=flagged,
        annotator=flagged.annotator, message="ann_b rated social low but self high",
    )  # fmt: skip
    ItemComment.objects.create(
        dialogue=Dialogue.objects.get(external_id="dialogue_005"), author=flagged.annotator, problem=True,
        text="応答が途中で切れています",
    )  # fmt: skip
    return Batch.objects.get(name="ws")


def item(external_id: str):
    from annotation.models import Dialogue

    return Dialogue.objects.get(external_id=external_id)


@pytest.fixture
def researcher_client(client, researcher):
    client.force_login(researcher)
    client.cookies["django_language"] = "en"  # assert on the English msgids whatever the catalogue holds
    return client


@pytest.fixture
def annotator_client(db):
    from tests.helpers import make_user

    client = Client()
    client.force_login(make_user("ann_visitor", "annotator"))
    return client


@pytest.fixture
def csrf_client(researcher):
    """A researcher whose POSTs must carry the CSRF token, as a browser's do."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(researcher)
    return client


@pytest.fixture
def agreed_batch(jsonl):
    """Batch "agreed": twelve items the three annotators rate alike (so nobody is left out of the consensus
    for low agreement), dialogue_120 with social 1 / 5 / 3 (rejected: spread too wide) and dialogue_121 with
    social 2 / 3 / 2 (merged: 2, mean 2.33)."""
    from annotation.models import Batch

    ids = [*range(100, 112), 120, 121]
    call_command("import_dialogues", str(jsonl([dialogue(i) for i in ids])), batch="agreed")
    ratings = []
    for i in ids:
        for k, annotator in enumerate(ANNOTATORS):
            level = 1 + i % 5
            social = {120: (1, 5, 3), 121: (2, 3, 2)}.get(i, (level,) * 3)[k]
            ratings.append(
                rating(i, annotator, scores=(social, level, 1 + (i + 2) % 5, 1 + (i + 1) % 5), conf=(1,) * 4)
            )
    call_command("import_annotations", str(jsonl(ratings)))
    return Batch.objects.get(name="agreed")
