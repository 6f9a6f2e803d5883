"""What a rating sheet upload reports: ``SheetProblem`` and the English templates of its messages (pure Python).

A problem is located by sheet, row, column letter and header. Its ``message`` is English: the commands
print it. Made with ``SheetProblem.of`` it also keeps its template (a msgid) and parameters, so that the
pages show it in the reader's language (``core.problem_text``), a job's stored result too, in the language
of whoever looks at it later. A ``*_text`` parameter is a template itself (an accepted value, a reason),
filled with the other parameters and translated one level deep; the others (values from the sheet,
names, numbers) are shown as they are. The templates are marked with core.jsonl's no-op
``gettext_noop`` so that ``makemessages`` finds them without Django being imported here.

The reader's problems come first, then those only the database finds (``annotation.spreadsheets.imports``).
"""

from __future__ import annotations

from dataclasses import dataclass

from core.jsonl import fill, gettext_noop


@dataclass(frozen=True)
class SheetProblem:
    sheet: str  # sheet name, or the file name (CSV, and problems with the whole file)
    row: int | None  # 1-based spreadsheet row (header = 1); None for file-level problems
    column: str | None  # column letter, e.g. "E"
    header: str | None  # that column's header text (the expected one)
    value: str  # the offending value as text ("" when blank), shortened
    message: str  # in English: what is wrong and what is accepted
    template: str = ""  # the message's English template (a msgid), when made with ``of``
    params: tuple[tuple[str, object], ...] = ()

    @classmethod
    def of(cls, sheet, row, column, header, value, template: str, /, **params) -> SheetProblem:
        """A problem whose message is ``template`` filled with ``params`` (``*_text`` ones are templates too)."""
        return cls(sheet, row, column, header, value, fill(template, params), template, tuple(params.items()))

    def __str__(self) -> str:
        where = self.sheet
        if self.row is not None:
            where += f"!{self.column}{self.row}" if self.column else f" row {self.row}"
        if self.header:
            where += f" ({self.header})"
        return f"{where}: {self.message}"


# ---------------------------------------------------------------------------------------------- the file

ACCEPTED_FILES = gettext_noop("accepted: .xlsx (Excel, Google Sheets, LibreOffice) or UTF-8 CSV")  # accepted_text
LEGACY_XLS = gettext_noop(
    "not a spreadsheet this site reads: a legacy Excel .xls file; save it as .xlsx (%(accepted_text)s)"
)
NOT_A_WORKBOOK = gettext_noop(
    "not a spreadsheet: a ZIP file that is not an Excel workbook (%(reason)s); %(accepted_text)s"
)
UNREADABLE_WORKBOOK = gettext_noop("the workbook could not be read (%(reason)s); save it again as .xlsx")
NOT_UTF8 = gettext_noop(
    "not a spreadsheet: neither an .xlsx workbook nor UTF-8 text (byte %(byte)s at byte %(position)s; a CSV "
    "from Excel must be saved as 'CSV UTF-8'); %(accepted_text)s"
)
BINARY = gettext_noop("not a spreadsheet: a binary file (it holds NUL bytes); %(accepted_text)s")
NOT_COMMA_SEPARATED = gettext_noop("not comma-separated (tabs or semicolons found): save as CSV with commas, UTF-8")
CSV_CELL_TOO_LONG = gettext_noop(
    "not a readable CSV near line %(line)s: a cell longer than %(limit)s characters (is a quote left open?); "
    "%(accepted_text)s"
)
UNREADABLE_CSV = gettext_noop("not a readable CSV near line %(line)s: %(reason)s; %(accepted_text)s")
MORE_NOT_SHOWN = gettext_noop("%(more)s more problem(s) not shown (%(total)s in all); fix these and read it again")

# ---------------------------------------------------------------------------------------------- the workbook

NO_META_SHEET = gettext_noop(
    "no hidden sheet %(meta)s: the file was not made from the downloaded template, or was rewritten by a tool "
    "that drops hidden sheets; ids and locked texts cannot be checked. Fill the downloaded template"
)
OLD_TEMPLATE_VERSION = gettext_noop(
    "template version %(found)s, but this site reads version %(expected)s; download a new template and copy "
    "your ratings into it"
)
NO_RATINGS_SHEET = gettext_noop(
    "wrong sheet: no sheet named %(expected)s (found: %(found)s); rate in the template's sheet"
)
NO_SHEETS = gettext_noop("wrong sheet: no sheet named %(expected)s (found: none); rate in the template's sheet")
META_DAMAGED = gettext_noop(
    "the hidden sheet %(meta)s is damaged (%(damage_text)s); ids and locked texts cannot be checked. Fill a "
    "freshly downloaded template"
)
META_KEYS_MISSING = gettext_noop("no %(keys)s")  # damage_text
META_NOT_DIGESTS_HEADER = gettext_noop("row %(row)s is not the header %(header)s")  # damage_text
META_NOT_DIGEST_ENTRY = gettext_noop("row %(row)s is not a %(header)s entry")  # damage_text
META_NO_DIGESTS = gettext_noop("no %(header)s table of row digests")  # damage_text
META_NOT_A_NUMBER = gettext_noop("%(key)s is not a number")  # damage_text
META_CHANGED = gettext_noop(
    "the hidden sheet %(meta)s was changed: its checksum or row count does not match its rows; fill a freshly "
    "downloaded template"
)

# ---------------------------------------------------------------------------------------------- the header row

ROWS_NOT_READ = gettext_noop("the data rows are not read until the headers are the template's")  # then_text
NO_HEADER_ROW = gettext_noop(
    "no header row: row 1 must hold the template's %(count)s headers, from %(first)s (column A)"
)
EXTRA_COLUMN = gettext_noop(
    "extra column %(found)s: the template's columns end at %(last)s (%(last_header)s); delete it; %(then_text)s"
)
MISSING_HEADER = gettext_noop("missing header: expected %(expected)s; %(then_text)s")
WRONG_HEADER = gettext_noop("header %(found)s should be %(expected)s; %(then_text)s")
MISPLACED_HEADER = gettext_noop(
    "header %(found)s should be %(expected)s (%(found)s belongs in column %(column)s); %(then_text)s"
)

# ---------------------------------------------------------------------------------------------- a data row

OUTSIDE_COLUMNS = gettext_noop("a value outside the template's columns (they end at %(last)s); move it to the comment")
FORMULA = gettext_noop("a formula (%(formula)s); type the value itself")
PARTLY_FILLED = gettext_noop("blank on a partly filled row: rate all four axes or leave all four blank")
MUST_BE = gettext_noop("must be %(accepted_text)s, got %(value)s")  # as the JSONL imports say it
SCORE_ACCEPTED = gettext_noop("an integer from %(low)s to %(high)s")  # accepted_text
CONFIDENCE_ACCEPTED = gettext_noop("a number from %(low)s to %(high)s (blank means %(default)s)")  # accepted_text
ROW_ADDED = gettext_noop(
    "a row the template did not have (%(rows_text)s); rows cannot be added: delete it, or rate the dialogue "
    "in the row the template gave it"
)
TEMPLATE_ROWS = gettext_noop("its rows are 2 to %(last_row)s")  # rows_text
TEMPLATE_WITHOUT_ROWS = gettext_noop("it had no rows")  # rows_text
ID_CHANGED = gettext_noop("id changed (the template had %(template_id)s); ids are locked: restore it")
ID_MOVED = gettext_noop(
    "id changed (the template had %(template_id)s here, and %(id)s on row %(moved_from)s): do not sort, move "
    "or delete rows; leave a row's scores blank to skip it"
)
LOCKED_TEXTS_CHANGED = gettext_noop(
    "the locked texts of this row were changed (context, user or response); restore them: only the scores, "
    "confidences and comment may be edited"
)
BLANK_ID = gettext_noop("the id is blank; every rated row needs its dialogue's id from the template")
DUPLICATE_ID = gettext_noop("duplicate id %(id)s (first on row %(first)s); give each once")

# ---------------------------------------------------------------------------------------------- the database

CSV_NAMES_NOBODY = gettext_noop("a CSV does not say whose ratings it holds; give the annotator")
SHEET_OF_ANOTHER_ANNOTATOR = gettext_noop(
    "this sheet was made for %(named)s, not for %(annotator)s; upload your own sheet"
)
ANNOTATOR_WITHOUT_ACCOUNT = gettext_noop("the sheet's annotator %(annotator)s has no account here")
NOT_AN_ANNOTATOR = gettext_noop("%(annotator)s does not have the annotator role")
BATCH_GONE = gettext_noop("the sheet's batch %(batch)s no longer exists")
SEVERAL_BATCHES = gettext_noop("the rows hold dialogues of several batches (%(batches)s); one sheet holds one batch")
BATCH_CLOSED = gettext_noop("batch %(batch)s is closed; it takes no more ratings")
BATCH_RESTRICTED = gettext_noop("batch %(batch)s is open only to its chosen annotators and %(annotator)s is not one")
UNKNOWN_ID = gettext_noop("unknown dialogue id: not a dialogue stored here")
OTHER_BATCH = gettext_noop("a dialogue of another batch, not of %(batch)s")
TEXTS_CHANGED_SINCE = gettext_noop(
    "the texts of this row differ from the stored dialogue (edited in the sheet, or the dialogue was changed "
    "since the sheet was made); download a new sheet"
)

# annotation.spreadsheets.uploads: a sheet uploaded on another batch's page
SHEET_OF_ANOTHER_BATCH = gettext_noop(
    "this is a sheet of batch %(batch)s, not of %(page_batch)s; upload it on that batch's page"
)

# annotation.spreadsheets.imports: the batch's rules (annotation.io.import_rules) on the sheet's new ratings. A
# researcher's upload (and the command) names the override (option_text); an annotator's own offers none.
OVER_QUOTA = gettext_noop(
    "dialogue %(id)s would have %(total)s ratings, more than the quota of batch %(batch)s (%(quota)s per item; "
    "%(stored)s stored or reserved in the queue): the queue never hands an item out beyond its quota. Leave this "
    "row's scores blank, raise the quota in the batch's settings, or add %(option_text)s with a reason"
)
NOT_QUALIFIED = gettext_noop(
    "%(annotator)s %(state_text)s (%(n)s new rating(s) in this sheet): the queue hands items only to qualified "
    "annotators. Let them pass the qualification test on the training page, or add %(option_text)s with a reason"
)
OWN_OVER_QUOTA = gettext_noop(
    "dialogue %(id)s reached the quota of batch %(batch)s (%(quota)s rating(s) per item) after this sheet was "
    "made: others rated or reserved it meanwhile, and the queue never hands an item out beyond its quota. "
    "Nothing was stored: leave this row's scores blank and upload the sheet again, or ask a researcher to upload it"
)
OWN_NOT_QUALIFIED = gettext_noop(
    "%(annotator)s %(state_text)s, and the queue hands items only to qualified annotators: the %(n)s new "
    "rating(s) of this sheet cannot be stored. Nothing was stored: pass the qualification test again on the "
    "training page and upload the sheet again, or ask a researcher to upload it"
)
