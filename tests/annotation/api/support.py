"""Helpers of the annotation API tests: clients by role, batches with dialogues, token calls."""

from django.test import Client

from annotation.models import Batch, Dialogue
from core.api_tokens import token_create

API = "/api/v1/annotation/"
SCORES = {"social": 4, "avoidant": 1, "mechanical": 2, "self": 1}
CONFIDENCE = {"social": 0.9, "avoidant": 0.8, "mechanical": 0.7, "self": 1.0}
# What a ratings import answers besides its counts when no option was needed: nothing ignored, nothing overridden.
NOTHING_OVERRIDDEN = {
    "ignored_keys": [],
    "ignored_keys_more": 0,
    "overridden": {"quota": 0, "chosen_annotators": 0, "qualification": 0, "web_ratings": 0, "closed_batch": 0},
    "override": None,
}


def make_batch(name: str = "pilot", n_items: int = 3, quota: int = 3, **settings) -> Batch:
    batch = Batch.objects.create(name=name, annotations_per_item=quota, **settings)
    Dialogue.objects.bulk_create(
        Dialogue(
            external_id=f"{name}_{i:03d}",
            user_text=f"質問 {i}",
            response_text=f"回答 {i}",
            context=[{"turn": -1, "speaker": "ai", "text": "前の応答"}],
            batch=batch,
        )
        for i in range(n_items)
    )
    return batch


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def token_client(user) -> Client:
    """A script's client: no session, ``Authorization: Token <key>``, CSRF enforced (and not needed)."""
    _token, key = token_create(user=user, name="script")
    return Client(enforce_csrf_checks=True, headers={"Authorization": f"Token {key}"})


def walk(client, url: str) -> list[dict]:
    """Every row of a list, following its ``next`` links page by page (as a script does)."""
    rows = []
    while url:
        response = client.get(url)
        assert response.status_code == 200, response.content
        body = response.json()
        assert set(body) == {"next", "previous", "results"}
        rows += body["results"]
        url = body["next"]
    return rows


def post(client, url, body=None):
    return client.post(url, body if body is not None else {}, content_type="application/json")


def patch(client, url, body):
    return client.patch(url, body, content_type="application/json")
