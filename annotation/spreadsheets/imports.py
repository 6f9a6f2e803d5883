"""A filled rating sheet into the database: all or nothing, with every problem located.

``read_sheet`` checks the file and each row; this adds what only the database knows: whom and which
batch the sheet is for, whether each id is a dialogue of that batch, and whether the locked texts
are still the stored ones (edited in the sheet, or the dialogue changed since the sheet was made).
With no problem at all the ratings are stored in one transaction with ``source = spreadsheet``:
new ones count towards the queue's quota at once, a changed value goes through the edit history,
an unchanged one stays as it is (uploading the same sheet twice changes nothing), and a comment
becomes a comment on the item (once), as the reader gives it: neutralised when a spreadsheet could
take it for a formula (``annotation.spreadsheets.reader`` says the rule).

The template writes texts exactly; templates made before put a ``'`` before a formula-like text
(``=1+1`` as ``'=1+1``). Both are read: an id is looked up as written, else without that quote, and a
row's locked texts match the stored dialogue in either form.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from annotation.axes import AXES
from annotation.io.rating_store import ChangedRating, NewRating, ratings_store
from annotation.models import Annotation, Batch, Dialogue, ItemComment
from annotation.spreadsheets import layout
from annotation.spreadsheets import problems as msgids
from annotation.spreadsheets.layout import cell_text
from annotation.spreadsheets.problems import SheetProblem
from annotation.spreadsheets.reader import SheetContent, SheetRating, read_sheet
from core.roles import ANNOTATOR
from core.spreadsheet_cells import is_formula_like, xlsx_cell_text

_VALUE_FIELDS = [f"{axis}_score" for axis in AXES] + [f"{axis}_confidence" for axis in AXES]
_ID_COLUMN = layout.KEYS.index("id")


@dataclass
class SheetImportSummary:
    batch: str
    annotator: str
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    skipped: int = 0  # rows left blank (not rated)
    comments: int = 0
    dry_run: bool = False


@dataclass
class SheetRejected(Exception):
    """A sheet that stored nothing; ``problems`` say where and why."""

    problems: list[SheetProblem] = field(default_factory=list)

    def __str__(self) -> str:
        return f"{len(self.problems)} problem(s); nothing was stored:\n" + "\n".join(f"  {p}" for p in self.problems)


def sheet_import(*, path, name: str | None = None, annotator=None, dry_run: bool = False) -> SheetImportSummary:
    """Check and store the sheet at ``path``; ``annotator`` (a user) is required for a CSV, which names nobody.

    Raises ``SheetRejected`` with every problem when anything is wrong; nothing is stored then.
    """
    file = name or Path(path).name
    content = read_sheet(path, name=file)
    problems = list(content.problems)
    user = _annotator_of(content, annotator, file, problems)
    batch = _batch_of(content, file, problems)
    if user is not None and batch is not None:
        _may_rate(batch, user, file, problems)
    dialogues = _dialogues(content, batch, problems)
    if problems:
        raise SheetRejected(problems)
    summary = SheetImportSummary(batch=batch.name if batch else "", annotator=user.get_username(), dry_run=dry_run)
    summary.skipped = len(content.skipped_rows)
    new, changed, comments = _plan(content, dialogues, user, file, summary)
    if dry_run:
        return summary
    with transaction.atomic():
        ratings_store(new=new, changed=changed, source=Annotation.Source.SPREADSHEET, edited_by=user)
        ItemComment.objects.bulk_create(comments)
    return summary


def _problem(file: str, template: str, /, **params) -> SheetProblem:
    """A problem with the whole sheet: ``template`` (``annotation.spreadsheets.problems``) filled with ``params``."""
    return SheetProblem.of(file, None, None, None, "", template, **params)


def _id_problem(rating: SheetRating, template: str, /, **params) -> SheetProblem:
    """A problem with a rated row's id cell (named on the ratings sheet, a CSV's too)."""
    return SheetProblem.of(layout.RATINGS_SHEET, rating.row, layout.column_letter(_ID_COLUMN),
                           layout.HEADERS[_ID_COLUMN], rating.id[:80], template, **params)  # fmt: skip


def stored_text(cell: str) -> str:
    """A text cell as the database holds it: without the quote older templates put before a formula-like text."""
    return cell[1:] if cell.startswith("'") and is_formula_like(cell[1:]) else cell


def _annotator_of(content: SheetContent, annotator, file: str, problems: list) -> object | None:
    meta = content.meta
    named = stored_text(meta.annotator) if meta is not None and meta.annotator else None
    if annotator is None and named is None:
        if content.kind == "csv":
            problems.append(_problem(file, msgids.CSV_NAMES_NOBODY))
        return None
    if annotator is not None and named is not None and annotator.get_username() != named:
        problems.append(_problem(file, msgids.SHEET_OF_ANOTHER_ANNOTATOR, named=repr(named),
                                 annotator=repr(annotator.get_username())))  # fmt: skip
        return None
    user = annotator or get_user_model().objects.filter(username=named).first()
    if user is None:
        problems.append(_problem(file, msgids.ANNOTATOR_WITHOUT_ACCOUNT, annotator=repr(named)))
        return None
    if not user.groups.filter(name=ANNOTATOR).exists():
        problems.append(_problem(file, msgids.NOT_AN_ANNOTATOR, annotator=repr(user.get_username())))
        return None
    return user


def _batch_of(content: SheetContent, file: str, problems: list) -> Batch | None:
    meta = content.meta
    if meta is not None and meta.batch_id is not None:
        batch = Batch.objects.filter(pk=meta.batch_id).first()
        if batch is None:
            problems.append(_problem(file, msgids.BATCH_GONE, batch=repr(stored_text(meta.batch))))
        return batch
    ids = {text for rating in content.ratings for text in (rating.id, stored_text(rating.id))}
    names = sorted(set(Batch.objects.filter(dialogues__external_id__in=ids).values_list("name", flat=True)))
    if len(names) > 1:
        problems.append(_problem(file, msgids.SEVERAL_BATCHES, batches=", ".join(names)))
        return None
    return Batch.objects.get(name=names[0]) if names else None


def _may_rate(batch: Batch, user, file: str, problems: list) -> None:
    if batch.status == Batch.Status.CLOSED:
        problems.append(_problem(file, msgids.BATCH_CLOSED, batch=repr(batch.name)))
    elif batch.restricted and not batch.annotators.filter(pk=user.pk).exists():
        problems.append(_problem(file, msgids.BATCH_RESTRICTED, batch=repr(batch.name),
                                 annotator=repr(user.get_username())))  # fmt: skip


def _dialogues(content: SheetContent, batch: Batch | None, problems: list) -> dict[str, Dialogue]:
    """The rated rows' dialogues by id cell; a problem for each unknown id, other batch or changed text."""
    ids = {text for rating in content.ratings for text in (rating.id, stored_text(rating.id))}
    found = {
        d.external_id: d
        for d in Dialogue.objects.filter(external_id__in=ids).only(
            "pk", "external_id", "batch_id", "user_text", "response_text", "context"
        )
    }
    dialogues = {}
    for rating in content.ratings:
        dialogue = found.get(rating.id) or found.get(stored_text(rating.id))  # as written, else an older template's
        if dialogue is None:
            problems.append(_id_problem(rating, msgids.UNKNOWN_ID))
        elif batch is not None and dialogue.batch_id != batch.pk:
            problems.append(_id_problem(rating, msgids.OTHER_BATCH, batch=repr(batch.name)))
        elif _digest_of(rating) not in _stored_digests(dialogue):
            problems.append(_id_problem(rating, msgids.TEXTS_CHANGED_SINCE))
        else:
            dialogues[rating.id] = dialogue
    return dialogues


def _digest_of(rating: SheetRating) -> str:
    return layout.row_digest(rating.id, *rating.texts)


def _stored_digests(dialogue: Dialogue) -> tuple[str, str]:
    """The digest of the dialogue's row as the template writes it, and as older templates did (quoted)."""
    texts = (dialogue.external_id, layout.context_text(dialogue.context or []), dialogue.user_text,
             dialogue.response_text)  # fmt: skip
    exact = [cell_text(text, dialogue.external_id) for text in texts]
    return layout.row_digest(*exact), layout.row_digest(*(xlsx_cell_text(text) for text in texts))


def _plan(content: SheetContent, dialogues: dict, user, file: str, summary: SheetImportSummary):
    stored = {
        a.dialogue_id: a
        for a in Annotation.objects.filter(annotator=user, dialogue_id__in=[d.pk for d in dialogues.values()])
    }
    said = set(
        ItemComment.objects.filter(author=user, dialogue_id__in=[d.pk for d in dialogues.values()]).values_list(
            "dialogue_id", "text"
        )
    )
    now = timezone.now()
    new, changed, comments = [], [], []
    for rating in content.ratings:
        dialogue = dialogues[rating.id]
        values = {
            **{f"{a}_score": rating.scores[a] for a in AXES},
            **{f"{a}_confidence": rating.confidence[a] for a in AXES},
        }
        old = stored.get(dialogue.pk)
        before = {f: getattr(old, f) for f in _VALUE_FIELDS} if old is not None else None
        if old is None:
            new.append(NewRating(dialogue.pk, user.pk, tuple(values[f] for f in _VALUE_FIELDS), now))
        elif before == values:
            summary.unchanged += 1
        else:
            changed.append(ChangedRating(old.pk, before, values, f"spreadsheet {file} row {rating.row}"[:200]))
        if rating.comment and (dialogue.pk, rating.comment) not in said:
            comments.append(ItemComment(dialogue=dialogue, author=user, text=rating.comment, created_at=now))
            said.add((dialogue.pk, rating.comment))
    summary.created, summary.updated, summary.comments = len(new), len(changed), len(comments)
    return new, changed, comments
