"""The LLM rater on the agreement dashboard (issue 18): its agreement with the humans in the stored report
(against scikit-learn), as marked rows of the heat map, in the "LLM vs humans" card, and the estimate/run
views (CSRF, researchers only, refused offline), with the human figures and the consensus left unchanged."""

import itertools
import re

import numpy as np
import pytest
from django.core.management import call_command
from django.test import Client
from sklearn.metrics import cohen_kappa_score

import annotation.job_handlers  # noqa: F401  (registers the job kinds)
from annotation.aggregation.llm_agreement import llm_agreement
from annotation.dashboard.selectors import heat_map
from annotation.job_handlers import LLM_RATE
from annotation.llm_rater import llm_rate, llm_rater_label
from annotation.models import Annotation, Batch
from annotation.selectors import stored_rating_set
from annotation.services import agreement_report_create
from core.job_runner import job_run
from core.models import Job
from core.services import job_enqueue
from tests.annotation.conftest import dialogue, rating
from tests.fakes.openai_server import Reply
from tests.llm.conftest import fake_llm  # noqa: F401 - the fake OpenAI endpoint

pytestmark = pytest.mark.django_db

AXES = ("social", "avoidant", "mechanical", "self")
URL = "/research/agreement/"
ESTIMATE = "/research/agreement/llm/estimate/"
RUN = "/research/agreement/llm/run/"
HTMX = {"HX-Request": "true"}
N = 10
LABEL = llm_rater_label("fake-model")
EVIL = "<script>alert(1)</script>"


def _human(i: int, who: int) -> tuple[int, ...]:
    return tuple(1 + (i * (axis + 2) + who * (i % 3)) % 5 for axis in range(4))


def _llm_level(i: int, axis: int) -> int:
    return 1 + (i * (axis + 2) + 1 + i % 2) % 5


@pytest.fixture
def batch(jsonl):
    """Batch "b_llm": ten dialogues; ann_a and ann_b rate all, ann_c the first six, with differing scores."""
    call_command("import_dialogues", str(jsonl([dialogue(i, response=f"AIの応答その{i}です。") for i in range(N)])),
                 batch="b_llm")  # fmt: skip
    rows = [rating(i, "ann_a", scores=_human(i, 0)) for i in range(N)]
    rows += [rating(i, "ann_b", scores=_human(i, 1)) for i in range(N)]
    rows += [rating(i, "ann_c", scores=_human(i, 2)) for i in range(6)]
    call_command("import_annotations", str(jsonl(rows)))
    return Batch.objects.get(name="b_llm")


def _reply(request: dict) -> Reply:
    i = int(re.search(r"AIの応答その(\d+)です。", request["messages"][1]["content"]).group(1))
    return Reply.json(
        {
            "annotations": {axis: _llm_level(i, k) for k, axis in enumerate(AXES)},
            "confidence": dict.fromkeys(AXES, 0.9),
            "reasoning": "理由。",
        }
    )


@pytest.fixture
def llm(fake_llm):  # noqa: F811
    fake_llm.default_reply = _reply
    return fake_llm


@pytest.fixture
def rated(batch, llm):
    llm_rate(batch=batch)
    return batch


@pytest.fixture
def researcher_client(client, researcher):
    client.force_login(researcher)
    client.cookies["django_language"] = "en"
    return client


def _body(response) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


def _without(report: dict, *keys: str) -> dict:
    return {key: value for key, value in report.items() if key not in keys}


def _sk(a: np.ndarray, b: np.ndarray) -> float:
    both = (a > 0) & (b > 0)
    return cohen_kappa_score(a[both], b[both], weights="quadratic", labels=[1, 2, 3, 4, 5])


# --- the pure function ---------------------------------------------------------------------------------------


def test_pairs_and_the_group_value_equal_sklearn_and_a_direct_weighted_mean():
    rng = np.random.default_rng(7)
    human_items = [f"d{i}" for i in range(60)]
    humans = {axis: rng.integers(1, 6, size=(60, 4)).astype(np.int8) for axis in AXES}
    for axis in AXES:
        humans[axis][rng.random((60, 4)) < 0.3] = 0  # missing ratings
    llm_items = [f"d{i}" for i in range(70, 9, -1)]  # another order, and items no human rated
    llms = {}
    for axis in AXES:
        first = np.array([humans[axis][int(item[1:]), 0] if int(item[1:]) < 60 else 0 for item in llm_items])
        base = np.where(first > 0, first, 3)[:, None]
        noisy = np.clip(base + rng.integers(-1, 2, (len(llm_items), 2)), 1, 5)
        noisy[rng.random((len(llm_items), 2)) < 0.1] = 0
        llms[axis] = noisy.astype(np.int8)
    section = llm_agreement(human_items, ["h1", "h2", "h3", "h4"], humans, llm_items, ["L1", "L2"], llms,
                            labels={"L1": "llm:one@p", "L2": "llm:two@p"}, n_boot=200, seed=3)  # fmt: skip
    assert section["raters"] == [{"annotator": "L1", "label": "llm:one@p"}, {"annotator": "L2", "label": "llm:two@p"}]
    for axis in AXES:
        aligned = np.zeros((60, 2), dtype=np.int8)
        for r, item in enumerate(llm_items):
            if int(item[1:]) < 60:
                aligned[int(item[1:])] = llms[axis][r]
        for c, entry in enumerate(section["axes"][axis]["raters"]):
            weights, values = [], []
            for pair in entry["pairs"]:
                h = int(pair["annotator"][1:]) - 1
                expected = _sk(aligned[:, c], humans[axis][:, h])
                assert pair["kappa"] == pytest.approx(expected, abs=1e-9)
                assert pair["n_items"] == int(((aligned[:, c] > 0) & (humans[axis][:, h] > 0)).sum())
                weights.append(pair["n_items"])
                values.append(expected)
            assert len(entry["pairs"]) == 4
            assert entry["kappa_vs_humans"] == pytest.approx(np.average(values, weights=weights), abs=1e-9)
            low, high = entry["ci95"]
            assert low <= entry["kappa_vs_humans"] <= high and high - low > 0
        between = section["axes"][axis]["pairs_between_llms"]
        assert [p["annotators"] for p in between] == [["L1", "L2"]]
        assert between[0]["kappa"] == pytest.approx(_sk(llms[axis][:, 0], llms[axis][:, 1]), abs=1e-9)


def test_the_interval_is_reproducible_and_depends_on_the_seed():
    rng = np.random.default_rng(1)
    humans = {a: rng.integers(1, 6, size=(40, 3)).astype(np.int8) for a in AXES}
    llm = {a: rng.integers(1, 6, size=(40, 1)).astype(np.int8) for a in AXES}
    items = [str(i) for i in range(40)]

    def ci(seed):
        return llm_agreement(items, [1, 2, 3], humans, items, ["L"], llm, n_boot=100, seed=seed)["axes"]["social"]

    assert ci(5)["raters"][0]["ci95"] == ci(5)["raters"][0]["ci95"] != ci(6)["raters"][0]["ci95"]
    without = llm_agreement(items, [1, 2, 3], humans, items, ["L"], llm, n_boot=0, seed=0)["axes"]["social"]
    assert without["raters"][0]["ci95"] is None and without["raters"][0]["kappa_vs_humans"] is not None


# --- the stored report -----------------------------------------------------------------------------------------


def test_the_report_stores_the_llm_section_and_leaves_the_human_part_unchanged(batch, llm):
    before = agreement_report_create(batch=batch, n_boot=50)
    assert "llm_raters" not in before.report
    llm_rate(batch=batch)
    after = agreement_report_create(batch=batch, n_boot=50)
    assert _without(after.report, "created_at", "llm_raters") == _without(before.report, "created_at")
    section = after.report["llm_raters"]
    assert section["raters"] == [{"annotator": "llm.fake-model@annotation.sycophancy_rate@1", "label": LABEL}]
    people = stored_rating_set(batch_name="b_llm")
    everyone = stored_rating_set(batch_name="b_llm", include_llm=True)
    llm_column = everyone.rater_ids.index("llm.fake-model@annotation.sycophancy_rate@1")
    for axis in AXES:
        entry = section["axes"][axis]["raters"][0]
        llm_scores = everyone.scores[axis][:, llm_column]
        assert entry["n_ratings"] == N and entry["n_items"] == N
        weights, values = [], []
        for pair in entry["pairs"]:
            human = everyone.scores[axis][:, everyone.rater_ids.index(pair["annotator"])]
            assert pair["kappa"] == pytest.approx(_sk(llm_scores, human), abs=1e-9)
            weights.append(pair["n_items"])
            values.append(pair["kappa"])
        assert sorted(p["annotator"] for p in entry["pairs"]) == sorted(people.rater_ids)
        assert entry["kappa_vs_humans"] == pytest.approx(np.average(values, weights=weights), abs=1e-9)
        assert entry["ci95"] is not None
    assert after.report["n_annotators"] == 3  # people only


def test_a_report_that_includes_the_llm_has_no_separate_section(rated):
    report = agreement_report_create(batch=rated, n_boot=0, include_llm=True)
    assert "llm_raters" not in report.report and report.report["n_annotators"] == 4


# --- the page ----------------------------------------------------------------------------------------------------


def test_the_heat_map_shows_the_llm_as_a_marked_row_and_column(researcher_client, rated):
    report = agreement_report_create(batch=rated, n_boot=20)
    matrix = heat_map(report, "social")
    assert matrix["annotators"] == ["ann_a", "ann_b", "ann_c", LABEL]
    assert [c["llm"] for c in matrix["columns"]] == [False, False, False, True]
    llm_row = matrix["rows"][-1]
    entry = report.report["llm_raters"]["axes"]["social"]["raters"][0]
    pair_b = next(p for p in entry["pairs"] if p["annotator"] == "ann_b")
    assert llm_row.llm and llm_row.cells[1].kappa == pair_b["kappa"] and llm_row.cells[3].diagonal
    assert llm_row.vs_rest.kappa == entry["kappa_vs_humans"]
    # The humans' "vs rest" stays human-only; their LLM column holds the pair kappa.
    human_rows = {row.annotator: row for row in matrix["rows"][:3]}
    for person in report.report["axes"]["social"]["annotators"]:
        assert human_rows[person["annotator"]].vs_rest.kappa == person["kappa_vs_rest"]
    assert human_rows["ann_b"].cells[3].kappa == pair_b["kappa"]
    html = researcher_client.get(URL, {"batch": rated.pk}).content.decode()
    table = html[html.index('<table class="heatmap"') : html.index("</table>", html.index('<table class="heatmap"'))]
    assert f'<tr class="llm-row" data-llm-rater="{LABEL}">' in table
    assert table.count('class="llm-badge"') == 2  # its column head and its row head
    assert f"{LABEL} × ann_b: κ = {pair_b['kappa']:.3f}, {pair_b['n_items']} common items" in table
    assert f"{LABEL} vs the human annotators: κ = {entry['kappa_vs_humans']:.3f}" in table


def test_the_card_shows_the_numbers_of_the_stored_report(researcher_client, rated):
    report = agreement_report_create(batch=rated, n_boot=30)
    html = researcher_client.get(URL, {"batch": rated.pk}).content.decode()
    card = html[html.index("data-llm-card") : html.index("</section>", html.index("data-llm-card"))]
    assert f'data-llm-rater="{LABEL}"' in card and "data-llm-stale" not in card
    for axis in AXES:
        entry = report.report["llm_raters"]["axes"][axis]["raters"][0]
        human = report.report["axes"][axis]
        row = card[card.index(f'<tr data-axis="{axis}">') : card.index("</tr>", card.index(f'<tr data-axis="{axis}">'))]
        assert f'<td class="num strong" data-llm-kappa>{entry["kappa_vs_humans"]:.3f}</td>' in row
        assert f"[{entry['ci95'][0]:.3f}, {entry['ci95'][1]:.3f}]" in row
        assert f'<td class="num" data-human-kappa>{human["kappa"]:.3f}</td>' in row
        assert f"[{human['ci95'][0]:.3f}, {human['ci95'][1]:.3f}]" in row


def test_without_llm_ratings_the_card_says_so_and_ratings_after_the_report_ask_for_a_recompute(
    researcher_client, batch, llm
):
    agreement_report_create(batch=batch, n_boot=0)
    html = researcher_client.get(URL, {"batch": batch.pk}).content.decode()
    assert "No LLM rater has rated this batch in the report shown." in html and "data-llm-stale" not in html
    assert 'data-action="llm-estimate"' in html and 'value="fake-model"' in html
    llm_rate(batch=batch)
    html = researcher_client.get(URL, {"batch": batch.pk}).content.decode()
    assert "10 LLM ratings are stored that the report shown does not count; recompute agreement" in html


def test_offline_the_card_says_the_rater_is_unavailable_and_the_posts_refuse(researcher_client, batch, settings):
    settings.LLM_BASE_URL = ""
    html = researcher_client.get(URL, {"batch": batch.pk}).content.decode()
    assert "The LLM rater is unavailable: no LLM endpoint is configured (LLM_BASE_URL)." in html
    assert 'data-action="llm-estimate"' not in html and 'data-action="llm-run"' not in html
    for url in (ESTIMATE, RUN):
        response = researcher_client.post(url, {"batch": batch.pk, "model": "m"}, headers=HTMX)
        assert response.status_code == 409 and "unavailable offline" in response.content.decode()
    assert not Job.objects.exists()


# --- estimate and run --------------------------------------------------------------------------------------------


def test_the_estimate_shows_the_cost_and_the_dialogues_to_rate(researcher_client, batch, llm):
    response = researcher_client.post(ESTIMATE, {"batch": batch.pk, "model": "", "budget": "100", "currency": "JPY"},
                                      headers=HTMX)  # fmt: skip
    html = response.content.decode()
    assert response.status_code == 200 and "<html" not in html
    assert 'data-to-rate="10"' in html and "10 dialogues" in html and LABEL in html
    assert 'name="budget" value="100.0"' in html and 'data-action="llm-run"' in html
    assert not Job.objects.exists() and not llm.requests  # an estimate asks the model nothing
    llm_rate(batch=batch)
    html = researcher_client.post(ESTIMATE, {"batch": batch.pk}, headers=HTMX).content.decode()
    assert "Nothing to rate" in html and 'data-action="llm-run"' not in html


def test_the_estimate_escapes_the_model_name_and_rejects_a_bad_budget(researcher_client, batch, llm):
    html = researcher_client.post(ESTIMATE, {"batch": batch.pk, "model": EVIL}, headers=HTMX).content.decode()
    assert EVIL not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    html = researcher_client.post(ESTIMATE, {"batch": batch.pk, "budget": "-1"}, headers=HTMX).content.decode()
    assert "Budget -1: give an amount of zero or more" in html
    html = researcher_client.post(ESTIMATE, {"batch": batch.pk, "currency": "EUR"}, headers=HTMX).content.decode()
    assert "Currency EUR: accepted JPY or USD." in html


def test_an_llm_rater_named_with_markup_is_escaped_on_the_page(researcher_client, batch, llm):
    llm_rate(batch=batch, model=EVIL)
    agreement_report_create(batch=batch, n_boot=0)
    html = researcher_client.get(URL, {"batch": batch.pk}).content.decode()
    assert EVIL not in html and "llm:&lt;script&gt;alert(1)&lt;/script&gt;@annotation.sycophancy_rate@1" in html


def test_run_queues_the_job_with_its_parameters_and_shows_progress(
    researcher_client, researcher, batch, llm, monkeypatch, django_capture_on_commit_callbacks
):
    sent = []
    monkeypatch.setattr("core.tasks.run_job.delay", lambda job_id: sent.append(job_id))
    form = {"batch": batch.pk, "model": "fake-model", "budget": "2.5", "currency": "usd"}
    with django_capture_on_commit_callbacks(execute=True):
        response = researcher_client.post(RUN, form, headers=HTMX)
    job = Job.objects.get()
    assert (job.kind, job.created_by) == (LLM_RATE, researcher)
    assert job.params == {"batch_id": batch.pk, "model": "fake-model", "budget": 2.5, "currency": "USD", "force": False}
    assert sent == [str(job.id)]
    html = response.content.decode()
    assert f'id="job-{job.id}"' in html and f'hx-get="{URL}?llm_job={job.id}"' in html
    # The page shows the run still going; once it is done, the follow-up asks for a recompute.
    assert f'id="job-{job.id}"' in researcher_client.get(URL, {"batch": batch.pk}).content.decode()
    job_run(job_id=job.id)
    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED, job.error
    assert Annotation.objects.filter(dialogue__batch=batch, source=Annotation.Source.LLM).count() == N
    html = researcher_client.get(URL, {"llm_job": job.id}, headers=HTMX).content.decode()
    assert "hx-trigger" not in html and "Recompute agreement to see the LLM in the heat map" in html
    assert 'data-action="recompute"' in html


def test_run_without_htmx_redirects_to_the_dashboard_showing_the_job(researcher_client, batch, llm, monkeypatch):
    monkeypatch.setattr("core.tasks.run_job.delay", lambda job_id: None)
    response = researcher_client.post(RUN, {"batch": batch.pk})
    job = Job.objects.get()
    assert job.params["model"] == "fake-model" and job.params["budget"] is None
    assert response.status_code == 302 and response["Location"] == f"{URL}?batch={batch.pk}&llm_job={job.id}"
    assert f'id="job-{job.id}"' in researcher_client.get(response["Location"]).content.decode()
    assert researcher_client.get(URL, {"llm_job": "nope"}, headers=HTMX).status_code == 404
    other = job_enqueue(kind="annotation.agreement_report", params={"batch_id": batch.pk, "n_boot": 0})
    assert researcher_client.get(URL, {"llm_job": other.id}, headers=HTMX).status_code == 404


def test_the_posts_enforce_csrf(researcher, batch, llm):
    client = Client(enforce_csrf_checks=True)
    client.force_login(researcher)
    for url in (ESTIMATE, RUN):
        assert client.post(url, {"batch": batch.pk}, headers=HTMX).status_code == 403
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', client.get(URL).content.decode()).group(1)
    assert client.post(ESTIMATE, {"batch": batch.pk, "csrfmiddlewaretoken": token}, headers=HTMX).status_code == 200
    assert not Job.objects.exists()


def test_only_researchers_may_estimate_or_run(client, annotator, outsider, batch, llm):
    for user, url in itertools.product((annotator, outsider), (ESTIMATE, RUN)):
        client.force_login(user)
        assert client.post(url, {"batch": batch.pk}, headers=HTMX).status_code == 403
    assert not Job.objects.exists() and not llm.requests


def test_consensus_downloads_still_leave_the_llm_out(researcher_client, batch, llm):
    urls = [f"/research/agreement/{batch.pk}/{part}" for part in ("consensus.jsonl", "rejected.jsonl", "consensus.csv")]

    def bodies() -> list[bytes]:
        return [_body(researcher_client.get(url)) for url in urls]

    before = bodies()
    assert b"dialogue_000" in before[0] + before[1]
    llm_rate(batch=batch)
    assert bodies() == before


# --- the consensus with the LLM included, from the dashboard ---------------------------------------------------


def _lines_without_timestamps(text: str) -> list[dict]:
    import json

    return [{k: v for k, v in json.loads(line).items() if k != "timestamp"} for line in text.splitlines()]


def test_the_consensus_downloads_include_the_llm_only_when_asked(researcher_client, rated, tmp_path):
    url = f"/research/agreement/{rated.pk}/consensus.jsonl"
    people = researcher_client.get(url)
    with_llm = researcher_client.get(url + "?include_llm=1")
    assert 'filename="b_llm-consensus-with-llm.jsonl"' in with_llm["Content-Disposition"]
    for flag, response in (([], people), (["--include-llm"], with_llm)):
        out = tmp_path / f"c{len(flag)}.jsonl"
        call_command("export_consensus", "--output", str(out), "--batch", "b_llm", *flag)
        assert _lines_without_timestamps(response.content.decode()) == _lines_without_timestamps(out.read_text())
    rejected = f"/research/agreement/{rated.pk}/rejected.jsonl"
    people_only, llm_too = (researcher_client.get(rejected + query).content for query in ("", "?include_llm=1"))
    assert people_only and llm_too and people_only != llm_too  # the batch's low agreement rejects every item
    sheet = researcher_client.get(f"/research/agreement/{rated.pk}/consensus.csv?include_llm=1")
    assert sheet.status_code == 200 and "consensus-with-llm.csv" in sheet["Content-Disposition"]


def test_a_bad_include_llm_value_is_refused_with_the_accepted_values(researcher_client, rated):
    response = researcher_client.get(f"/research/agreement/{rated.pk}/consensus.jsonl?include_llm=yes")
    assert response.status_code == 400
    assert "include_llm='yes': accepted 0 (people only, the default) or 1" in response.content.decode()


def test_the_llm_card_offers_the_consensus_with_the_llm(researcher_client, rated):
    agreement_report_create(batch=rated, n_boot=0)
    page = researcher_client.get(URL, {"batch": rated.pk}).content.decode()
    assert 'data-download="consensus-with-llm"' in page and "?include_llm=1" in page
