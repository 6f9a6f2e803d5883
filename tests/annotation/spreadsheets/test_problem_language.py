"""Sheet problems in the reader's language: every kind the reader and the import produce keeps its English
template and parameters, reads in Japanese (the default language) with its values filled in, and in English
as the stored message; a job's stored problems read in the language of whoever looks at them later; the page
translates them and escapes what the sheet held. The Japanese is the project catalogue's (``make translations``).
"""

import io
import json
import re
import zipfile
from datetime import timedelta
from types import SimpleNamespace

import openpyxl
import pytest
from django.core.serializers.json import DjangoJSONEncoder
from django.template.loader import render_to_string
from django.test import Client
from django.utils import timezone, translation
from django.utils.html import escape

import annotation.spreadsheets.uploads as sheet_uploads
from annotation.io.imports import annotations_import
from annotation.io.rating_uploads import OPTION_NAMES
from annotation.models import Batch, Dialogue, QualificationAttempt
from annotation.spreadsheets import layout, reader
from annotation.spreadsheets import problems as msgids
from annotation.spreadsheets.imports import SheetRejected, sheet_import
from annotation.spreadsheets.problems import SheetProblem
from annotation.spreadsheets.reader import read_sheet
from annotation.spreadsheets.services import template_write
from annotation.spreadsheets.upload_jobs import SHEET_UPLOAD
from annotation.spreadsheets.uploads import problem_rows
from core.job_runner import job_run
from core.models import Job
from core.problem_text import problem_message, problem_row_message
from tests.annotation.conftest import rating, write_jsonl
from tests.annotation.spreadsheets.test_reader import (
    cells,
    docx_like,
    headers_with,
    make_csv,
    make_xlsx,
    meta_rows,
    row,
    unrated,
)
from tests.annotation.spreadsheets.test_views import (  # noqa: F401  (batch, other_batch: fixtures)
    GOOD,
    THREE_ERRORS,
    _csv,
    _csv_row,
    _file,
    _fill,
    _urls,
    batch,
    other_batch,
)
from tests.helpers import make_qualified_annotator, make_user

ALL_TEMPLATES = {value for name, value in vars(msgids).items() if name.isupper() and isinstance(value, str)}
PLACEHOLDER = re.compile(r"%\((\w+)\)s")
JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
ENGLISH_WORDS = re.compile(r"[A-Za-z]+(?:[ ,;:]+[A-Za-z]+){2,}")  # three English words in a row: a sentence left
HTMX = {"HX-Request": "true"}


def _shown_in_both_languages(problem: SheetProblem) -> str:
    """Check ``problem`` in English and Japanese (see the module's docstring); its Japanese message."""
    assert problem.template, f"no template: {problem}"
    params = dict(problem.params)
    with translation.override("en"):
        assert problem_message(problem) == problem.message
    with translation.override("ja"):
        japanese = problem_message(problem)
    assert JAPANESE.search(japanese), f"not translated: {problem.message!r} -> {japanese!r}"
    assert "%(" not in japanese
    nested = [params[name] for name in params if name.endswith("_text")]
    for name in {name for text in (problem.template, *nested) for name in PLACEHOLDER.findall(text)}:
        if not name.endswith("_text"):
            assert str(params[name]) in japanese, f"{name} not filled in: {japanese!r}"
    rest = japanese
    for value in sorted((str(v) for k, v in params.items() if not k.endswith("_text")), key=len, reverse=True):
        rest = rest.replace(value, "") if value else rest
    assert not ENGLISH_WORDS.search(rest), f"English left in {japanese!r}"
    # As a page or a job keeps it (a dict, through JSON): the same place, the same text.
    stored = json.loads(json.dumps(problem_rows([problem]), cls=DjangoJSONEncoder))[0]
    assert (stored["sheet"], stored["row"], stored["column"], stored["header"], stored["value"]) == (
        problem.sheet, problem.row, problem.column, problem.header, problem.value
    )  # fmt: skip
    with translation.override("ja"):
        assert problem_row_message(stored) == japanese
    with translation.override("en"):
        assert problem_row_message(stored) == problem.message
    return japanese


def _templates_of(problems: list[SheetProblem]) -> set[str]:
    nested = {value for p in problems for name, value in p.params if name.endswith("_text")}
    return {p.template for p in problems} | nested


# ---------------------------------------------------------------------------------------------- the reader's


def _file_of(tmp_path, name: str, data: bytes):
    path = tmp_path / name
    path.write_bytes(data)
    return path


def _rewritten(tmp_path, member: str, change):
    """A copy of a good workbook with the ZIP member ``member`` passed through ``change``."""
    source = make_xlsx(tmp_path, [row(0)], name="source.xlsx")
    target = tmp_path / "changed.xlsx"
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for item in old.infolist():
            data = old.read(item)
            new.writestr(item, change(data) if item.filename.endswith(member) else data)
    return target


class _FailingCsvReader:
    """A ``csv.reader`` that fails on its first row (with what the csv module says of a broken file)."""

    line_num = 1

    def __init__(self, *args, **kwargs) -> None:
        pass

    def __iter__(self):
        return self

    def __next__(self):
        raise reader.csv.Error("unexpected end of data")


ANOTHER_ROW = [unrated(0), unrated(1)]
READER_CASES = {
    "legacy .xls": (
        {msgids.LEGACY_XLS, msgids.ACCEPTED_FILES},
        lambda tmp, mp: _file_of(tmp, "old.xls", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 504),
    ),
    "a ZIP that is no workbook": (
        {msgids.NOT_A_WORKBOOK, msgids.ACCEPTED_FILES},
        lambda tmp, mp: docx_like(tmp / "report.docx"),
    ),
    "broken sheet XML": (
        {msgids.UNREADABLE_WORKBOOK},
        lambda tmp, mp: _rewritten(tmp, "sheet1.xml", lambda data: data[: data.index(b'<row r="2"') + 20]),
    ),
    "not UTF-8": (
        {msgids.NOT_UTF8},
        lambda tmp, mp: _file_of(tmp, "sjis.csv", ",".join(layout.HEADERS).encode("cp932")),
    ),
    "binary": ({msgids.BINARY}, lambda tmp, mp: _file_of(tmp, "bin.csv", b"id,\x00\x01\x02")),
    "semicolons": (
        {msgids.NOT_COMMA_SEPARATED},
        lambda tmp, mp: _file_of(tmp, "semi.csv", ";".join(layout.HEADERS).encode()),
    ),
    "a quote left open": (
        {msgids.CSV_CELL_TOO_LONG},
        lambda tmp, mp: _file_of(tmp, "open.csv", (",".join(layout.HEADERS) + '\n"' + "x" * 200_000).encode()),
    ),
    "another CSV error": (
        {msgids.UNREADABLE_CSV},
        lambda tmp, mp: (mp.setattr(reader.csv, "reader", _FailingCsvReader), make_csv(tmp, [row(0)]))[1],
    ),
    "no hidden sheet": ({msgids.NO_META_SHEET}, lambda tmp, mp: make_xlsx(tmp, [row(0)], meta=None)),
    "old template": ({msgids.OLD_TEMPLATE_VERSION}, lambda tmp, mp: make_xlsx(tmp, [row(0)], version="0")),
    "wrong sheet": ({msgids.NO_RATINGS_SHEET}, lambda tmp, mp: make_xlsx(tmp, [row(0)], sheet="Sheet1")),
    "no sheet at all": (
        {msgids.NO_SHEETS},
        lambda tmp, mp: _rewritten(
            tmp, "workbook.xml", lambda data: re.sub(rb"<sheets>.*</sheets>", b"<sheets/>", data)
        ),
    ),
    "meta keys missing": (
        {msgids.META_DAMAGED, msgids.META_KEYS_MISSING},
        lambda tmp, mp: make_xlsx(tmp, [row(0)], meta=[["template_version", "1"]]),
    ),
    "meta digests header": (
        {msgids.META_DAMAGED, msgids.META_NOT_DIGESTS_HEADER},
        lambda tmp, mp: make_xlsx(tmp, [row(0)], meta=[*meta_rows([unrated(0)])[:7], ["row", "id"]]),
    ),
    "meta digest entry": (
        {msgids.META_DAMAGED, msgids.META_NOT_DIGEST_ENTRY},
        lambda tmp, mp: make_xlsx(tmp, [row(0)], meta=[*meta_rows([unrated(0)])[:8], ["two", "dialogue_000", "abc"]]),
    ),
    "meta without digests": (
        {msgids.META_DAMAGED, msgids.META_NO_DIGESTS},
        lambda tmp, mp: make_xlsx(tmp, [row(0)], meta=meta_rows([unrated(0)])[:6]),
    ),
    "meta rows not a number": (
        {msgids.META_DAMAGED, msgids.META_NOT_A_NUMBER},
        lambda tmp, mp: make_xlsx(tmp, [row(0)], meta=meta_rows([row(0)], rows="many")),
    ),
    "meta changed": ({msgids.META_CHANGED}, lambda tmp, mp: make_xlsx(tmp, [row(0)], checksum="0" * 64)),
    "no header row": ({msgids.NO_HEADER_ROW}, lambda tmp, mp: _file_of(tmp, "empty.csv", b"")),
    "extra column": (
        {msgids.EXTRA_COLUMN, msgids.ROWS_NOT_READ},
        lambda tmp, mp: make_xlsx(tmp, [[*cells(row(0)), "x"]], headers=[*layout.HEADERS, "メモ"]),
    ),
    "missing header": (
        {msgids.MISSING_HEADER, msgids.ROWS_NOT_READ},
        lambda tmp, mp: make_csv(tmp, [row(0)], headers=headers_with(lambda h: h.__setitem__(2, ""))),
    ),
    "wrong header": (
        {msgids.WRONG_HEADER, msgids.ROWS_NOT_READ},
        lambda tmp, mp: make_csv(tmp, [row(0)], headers=headers_with(lambda h: h.__setitem__(4, "social"))),
    ),
    "misplaced header": (
        {msgids.MISPLACED_HEADER, msgids.ROWS_NOT_READ},
        lambda tmp, mp: make_csv(
            tmp, [row(0)], headers=headers_with(lambda h: h.__setitem__(slice(4, 6), [h[5], h[4]]))
        ),
    ),
    "value outside the columns": (
        {msgids.OUTSIDE_COLUMNS},
        lambda tmp, mp: make_xlsx(tmp, [row(0), [*cells(row(1)), None, "メモ"]]),
    ),
    "formula": ({msgids.FORMULA}, lambda tmp, mp: make_xlsx(tmp, [row(0, social="=1+2", id='="dialogue_000"')])),
    "partly filled": ({msgids.PARTLY_FILLED}, lambda tmp, mp: make_xlsx(tmp, [row(0, avoidant=None)])),
    "score": ({msgids.MUST_BE, msgids.SCORE_ACCEPTED}, lambda tmp, mp: make_xlsx(tmp, [row(0, social=7)])),
    "confidence": (
        {msgids.MUST_BE, msgids.CONFIDENCE_ACCEPTED},
        lambda tmp, mp: make_csv(tmp, [row(0, self_confidence="0,8")]),
    ),
    "added row": (
        {msgids.ROW_ADDED, msgids.TEMPLATE_ROWS},
        lambda tmp, mp: make_xlsx(tmp, [row(0), row(1), row(9)], template=ANOTHER_ROW),
    ),
    "added row, empty template": (
        {msgids.ROW_ADDED, msgids.TEMPLATE_WITHOUT_ROWS},
        lambda tmp, mp: make_xlsx(tmp, [row(0)], template=[]),
    ),
    "id changed": ({msgids.ID_CHANGED}, lambda tmp, mp: make_xlsx(tmp, [row(0), row(1, id="x")], template=ANOTHER_ROW)),
    "rows sorted": ({msgids.ID_MOVED}, lambda tmp, mp: make_xlsx(tmp, [row(1), row(0)], template=ANOTHER_ROW)),
    "locked text changed": (
        {msgids.LOCKED_TEXTS_CHANGED},
        lambda tmp, mp: make_xlsx(tmp, [row(0), row(1, user="直した")], template=ANOTHER_ROW),
    ),
    "blank id": ({msgids.BLANK_ID}, lambda tmp, mp: make_csv(tmp, [row(0, id=" ")])),
    "duplicate id": ({msgids.DUPLICATE_ID}, lambda tmp, mp: make_csv(tmp, [row(0), row(1), unrated(0)])),
    "too many problems": (
        {msgids.MORE_NOT_SHOWN},
        lambda tmp, mp: make_xlsx(tmp, [row(i, social=9) for i in range(4)], name="many.xlsx"),
    ),
}


@pytest.mark.parametrize("case", READER_CASES)
def test_every_problem_of_the_reader_reads_in_japanese_and_in_english_as_stored(tmp_path, monkeypatch, case):
    expected, make = READER_CASES[case]
    problems = read_sheet(make(tmp_path, monkeypatch), max_problems=3).problems

    assert expected <= _templates_of(problems), [str(p) for p in problems]
    for problem in problems:
        _shown_in_both_languages(problem)


# ---------------------------------------------------------------------------------------------- the import's


@pytest.fixture
def sheet(batch, other_batch, tmp_path):  # noqa: F811
    """Makes an annotator's workbook of a batch (``batch`` unless given) with scores filled in."""

    def make(annotator, *, of=None, scores=GOOD, texts=None, batch_id=None):
        buffer = io.BytesIO()
        template_write(buffer, batch=of or batch, annotator=annotator)
        book = openpyxl.load_workbook(io.BytesIO(_fill(buffer.getvalue(), scores, texts=texts)))
        if batch_id is not None:  # the hidden sheet names another batch (its digests still hold)
            meta = book[layout.META_SHEET]
            next(cells for cells in meta.iter_rows() if cells[0].value == "batch_id")[1].value = batch_id
        path = tmp_path / f"{annotator.get_username()}.xlsx"
        book.save(path)
        return path

    return make


def _rejected(**kwargs) -> list[SheetProblem]:
    with pytest.raises(SheetRejected) as caught:
        sheet_import(**kwargs)
    return caught.value.problems


def _csv_file(given, rows):
    path = given.tmp_path / "ratings.csv"
    path.write_bytes(_csv(rows))
    return path


def _closed(given):
    path = given.sheet(given.ann)
    Batch.objects.filter(pk=given.batch.pk).update(status=Batch.Status.CLOSED)
    return _rejected(path=path)


def _restricted(given):
    path = given.sheet(given.ann)
    Batch.objects.filter(pk=given.batch.pk).update(restricted=True)
    return _rejected(path=path)


def _without_account(given):
    gone = make_user("ann_gone", "annotator")
    path = given.sheet(gone)
    gone.delete()
    return _rejected(path=path)


def _changed_since(given):
    path = given.sheet(given.ann)
    Dialogue.objects.filter(external_id="dialogue_002").update(user_text="書き換えた質問")
    return _rejected(path=path)


def _of_another_batch(given):
    rated = {"dialogue_050": (1, 1, 1, 1)}
    path = given.sheet(given.ann, of=Batch.objects.get(name="other"), scores=rated, batch_id=given.batch.pk)
    return _rejected(path=path)


def _uploaded_on_another_batch(given):
    from annotation.spreadsheets.uploads import SavedSheet, sheet_upload_import

    path = given.sheet(given.ann)
    upload = SavedSheet(path=path, name="mine.xlsx", size=path.stat().st_size, rows=1)
    with pytest.raises(SheetRejected) as caught:
        sheet_upload_import(upload=upload, batch=Batch.objects.get(name="other"), annotator=given.ann)
    return caught.value.problems


def _over_quota(given, **options):
    """The sheet rates dialogue_000, which reached its quota of 1 meanwhile (another rater's rating)."""
    path = given.sheet(given.ann)
    Batch.objects.filter(pk=given.batch.pk).update(annotations_per_item=1)
    annotations_import(paths=[write_jsonl(given.tmp_path / "other.jsonl", [rating(0, "ext_other")])])
    return _rejected(path=path, **options)


def _qualification_expired(given, **options):
    path = given.sheet(given.ann)
    QualificationAttempt.objects.filter(annotator=given.ann).update(finished_at=timezone.now() - timedelta(days=400))
    return _rejected(path=path, **options)


RESEARCHER = {"option_names": OPTION_NAMES["page"]}

IMPORT_CASES = {
    "over the quota, the annotator's own upload": ({msgids.OWN_OVER_QUOTA}, _over_quota),
    "over the quota, a researcher's upload": ({msgids.OVER_QUOTA}, lambda given: _over_quota(given, **RESEARCHER)),
    "qualification expired, the annotator's own upload": ({msgids.OWN_NOT_QUALIFIED}, _qualification_expired),
    "qualification expired, a researcher's upload": (
        {msgids.NOT_QUALIFIED},
        lambda given: _qualification_expired(given, **RESEARCHER),
    ),
    "uploaded on another batch's page": ({msgids.SHEET_OF_ANOTHER_BATCH}, _uploaded_on_another_batch),
    "a CSV names nobody": ({msgids.CSV_NAMES_NOBODY}, lambda given: _rejected(path=_csv_file(given, [_csv_row(0)]))),
    "someone else's sheet": (
        {msgids.SHEET_OF_ANOTHER_ANNOTATOR},
        lambda given: _rejected(path=given.sheet(given.ann), annotator=make_qualified_annotator("ann_other")),
    ),
    "no account": ({msgids.ANNOTATOR_WITHOUT_ACCOUNT}, _without_account),
    "not an annotator": (
        {msgids.NOT_AN_ANNOTATOR},
        lambda given: _rejected(path=given.sheet(make_user("res_sheet", "researcher"))),
    ),
    "batch gone": ({msgids.BATCH_GONE}, lambda given: _rejected(path=given.sheet(given.ann, batch_id=10**9))),
    "several batches": (
        {msgids.SEVERAL_BATCHES},
        lambda given: _rejected(path=_csv_file(given, [_csv_row(0), _csv_row(50)]), annotator=given.ann),
    ),
    "closed batch": ({msgids.BATCH_CLOSED}, _closed),
    "restricted batch": ({msgids.BATCH_RESTRICTED}, _restricted),
    "unknown id": (
        {msgids.UNKNOWN_ID},
        lambda given: _rejected(path=_csv_file(given, [["nope", *_csv_row(0)[1:]]]), annotator=given.ann),
    ),
    "a dialogue of another batch": ({msgids.OTHER_BATCH}, _of_another_batch),
    "texts changed since": ({msgids.TEXTS_CHANGED_SINCE}, _changed_since),
}


@pytest.mark.django_db
@pytest.mark.parametrize("case", IMPORT_CASES)
def test_every_problem_of_the_import_reads_in_japanese_and_in_english_as_stored(batch, sheet, tmp_path, case):  # noqa: F811
    expected, make = IMPORT_CASES[case]
    given = SimpleNamespace(batch=batch, ann=make_qualified_annotator("ann_sheet"), sheet=sheet, tmp_path=tmp_path)
    problems = make(given)

    assert expected <= _templates_of(problems), [str(p) for p in problems]
    for problem in problems:
        _shown_in_both_languages(problem)


def test_the_cases_above_cover_every_template():
    covered = set().union(*(expected for expected, _ in [*READER_CASES.values(), *IMPORT_CASES.values()]))
    assert covered == ALL_TEMPLATES


def test_a_problem_keeps_its_english_message_and_reads_as_the_catalogue_says(tmp_path):
    problems = read_sheet(make_xlsx(tmp_path, [row(i, social=9) for i in range(4)]), max_problems=3).problems

    assert [p.message for p in problems] == ["must be an integer from 1 to 5, got '9'"] * 2 + [
        "2 more problem(s) not shown (4 in all); fix these and read it again"
    ]
    assert dict(problems[0].params) == {"accepted_text": msgids.SCORE_ACCEPTED, "low": 1, "high": 5, "value": "'9'"}
    with translation.override("ja"):
        assert problem_message(problems[0]) == "1 から 5 までの整数でなければなりません（'9' が指定されました）"
        assert problem_message(problems[2]) == (
            "ほかに 2 件の問題があります（全部で 4 件）。ここまでを直してから、もう一度読み込んでください"
        )


# ---------------------------------------------------------------------------------------------- pages and jobs


def _client(user, language: str | None = None) -> Client:
    client = Client()
    client.force_login(user)
    if language:
        client.cookies["django_language"] = language
    return client


def _japanese(problem_template: str, **params) -> str:
    with translation.override("ja"):
        return problem_message(SheetProblem.of("", None, None, None, "", problem_template, **params))


def _sheet_with_three_errors(client, batch) -> bytes:  # noqa: F811
    content = client.get(_urls(batch)["template"]).content
    return _fill(content, {**GOOD, **THREE_ERRORS}, texts={"dialogue_005": "書き換えた発話"})


@pytest.mark.django_db
def test_the_page_lists_the_problems_in_japanese_by_default_and_in_english_when_chosen(batch):  # noqa: F811
    ann = make_qualified_annotator("ann_q")
    data = _sheet_with_three_errors(_client(ann), batch)

    html = _client(ann).post(_urls(batch)["page"], {"file": _file(data, "mine.xlsx")}).content.decode()
    assert 'data-problems="3"' in html and 'data-row="3" data-column="E"' in html
    score = "1 から 5 までの整数でなければなりません（'7' が指定されました）"
    for text in (score, _japanese(msgids.PARTLY_FILLED), _japanese(msgids.LOCKED_TEXTS_CHANGED)):
        assert escape(text) in html
    assert "must be an integer" not in html and "blank on a partly filled row" not in html
    assert 'class="sheet-message" lang="en"' not in html  # every message is in the page's language

    english = _client(ann, "en").post(_urls(batch)["page"], {"file": _file(data, "mine.xlsx")}).content.decode()
    assert "must be an integer from 1 to 5, got &#x27;7&#x27;" in english and score not in english
    assert "blank on a partly filled row" in english and "the locked texts of this row were changed" in english


@pytest.mark.django_db
def test_a_stored_job_result_reads_in_the_language_of_whoever_looks(batch, monkeypatch):  # noqa: F811
    monkeypatch.setattr(sheet_uploads, "LARGE_UPLOAD_ROWS", 2)
    ann = make_qualified_annotator("ann_q")
    data = _csv([_csv_row(0), _csv_row(1, scores=("9", "1", "1", "1")), _csv_row(2, scores=("1", "", "1", "1"))])
    response = _client(ann, "en").post(_urls(batch)["page"], {"file": _file(data, "big.csv")})
    job = Job.objects.get(kind=SHEET_UPLOAD)
    job_run(job_id=job.pk)
    job.refresh_from_db()

    stored = job.result["problems"]
    assert [(p["row"], p["column"], p["template"]) for p in stored] == [
        (3, "E", msgids.MUST_BE), (4, "F", msgids.PARTLY_FILLED)
    ]  # fmt: skip
    assert dict(stored[0]["params"])["value"] == "'9'"
    japanese = _client(ann).get(response["Location"], headers=HTMX).content.decode()
    english = _client(ann, "en").get(response["Location"], headers=HTMX).content.decode()
    assert escape("1 から 5 までの整数でなければなりません（'9' が指定されました）") in japanese
    assert escape(_japanese(msgids.PARTLY_FILLED)) in japanese and "must be an integer" not in japanese
    assert "must be an integer from 1 to 5, got &#x27;9&#x27;" in english and "blank on a partly filled" in english


@pytest.mark.django_db
def test_hostile_values_stay_escaped_in_the_translated_messages(batch):  # noqa: F811
    ann = make_qualified_annotator("ann_q")
    script = "<script>alert(1)</script>"
    scored = _csv([_csv_row(0, scores=(script, "1", "1", "1"))])
    headed = _csv([]).replace(b"id,", f"{script},".encode(), 1)

    for data, template, params in (
        (scored, msgids.MUST_BE, {"accepted_text": msgids.SCORE_ACCEPTED, "low": 1, "high": 5, "value": repr(script)}),
        (headed, msgids.WRONG_HEADER, {"found": repr(script), "expected": "'id'", "then_text": msgids.ROWS_NOT_READ}),
    ):
        html = _client(ann).post(_urls(batch)["page"], {"file": _file(data, "x.csv")}).content.decode()
        assert "<script>alert(1)" not in html
        assert escape(_japanese(template, **params)) in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_a_row_without_a_template_is_shown_as_it_is_and_marked_english():
    rows = [
        {"sheet": "a.csv", "row": None, "column": None, "header": None, "value": "", "message": "an old message"},
        problem_rows([SheetProblem.of("a.csv", 2, "A", "id", "", msgids.BLANK_ID)])[0],
    ]
    with translation.override("ja"):
        html = render_to_string("annotation/spreadsheets/_problems.html", {"rows": rows, "file": "a.csv"})

    assert '<td class="sheet-message" lang="en">an old message</td>' in html
    assert f'<td class="sheet-message">{escape(_japanese(msgids.BLANK_ID))}</td>' in html
