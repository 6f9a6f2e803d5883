"""A filled rating sheet into the database: all or nothing, with every problem located.

``read_sheet`` checks the file and each row; this adds what only the database knows: whom and which
batch the sheet is for (a closed batch, or one for other chosen annotators, takes no sheet), whether
each id is a dialogue of that batch, and whether the locked texts are still the stored ones (edited in
the sheet, or the dialogue changed since the sheet was made). The sheet's new ratings obey the batch's
quota and the qualification as every import's do (``annotation.io.import_rules``, counted the same way:
the quota once the ratings are stored, in the same transaction, so that the queue cannot hand an item out
between the check and the commit): each rating past the quota is a problem of its row's id cell, an
annotator without a valid qualification a problem of the whole sheet. A researcher's upload may override
either with a reason (recorded as an ``ImportOverride``); an annotator's own upload offers no override, and
its problems say what happened and whom to ask.

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
from functools import partial
from pathlib import Path

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from annotation.axes import AXES
from annotation.io.import_rules import (
    RULE_OPTIONS,
    RatingOverrides,
    Violation,
    batch_rules_check,
    override_record,
    reason_problem,
)
from annotation.io.rating_store import ChangedRating, NewRating, ratings_store
from annotation.io.records import AnnotationRecord
from annotation.models import Annotation, Batch, Dialogue, ImportOverride, ImportOverrideRating, ItemComment
from annotation.spreadsheets import layout
from annotation.spreadsheets import problems as msgids
from annotation.spreadsheets.layout import cell_text
from annotation.spreadsheets.problems import SheetProblem
from annotation.spreadsheets.reader import SheetContent, SheetRating, read_sheet
from core.jsonl import fill
from core.roles import ANNOTATOR
from core.spreadsheet_cells import is_formula_like, xlsx_cell_text

_VALUE_FIELDS = [f"{axis}_score" for axis in AXES] + [f"{axis}_confidence" for axis in AXES]
_ID_COLUMN = layout.KEYS.index("id")
Rule = ImportOverrideRating.Rule
# The batch's rules a sheet's ratings are checked against by ``import_rules`` (the closed batch and the chosen
# annotators are the whole sheet's: ``_may_rate``), and their options (a researcher's upload may override them).
SHEET_RULES = (Rule.QUOTA, Rule.QUALIFICATION)
SHEET_OPTIONS = tuple(RULE_OPTIONS[rule] for rule in SHEET_RULES)  # allow_over_quota, allow_unqualified_annotators


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
    # {rule: new ratings an override let past it} (in a dry run: would), and the override's record.
    overridden: dict[str, int] = field(default_factory=dict)
    override_id: int | None = None
    override_by: str = ""
    override_reason: str = ""


@dataclass
class SheetRejected(Exception):
    """A sheet that stored nothing; ``problems`` say where and why."""

    problems: list[SheetProblem] = field(default_factory=list)

    def __str__(self) -> str:
        return f"{len(self.problems)} problem(s); nothing was stored:\n" + "\n".join(f"  {p}" for p in self.problems)


def sheet_import(
    *,
    path,
    name: str | None = None,
    annotator=None,
    dry_run: bool = False,
    overrides: RatingOverrides | None = None,
    option_names: dict[str, str] | None = None,
    surface: str = ImportOverride.Surface.SHEET,
    job_id=None,
) -> SheetImportSummary:
    """Check and store the sheet at ``path``; ``annotator`` (a user) is required for a CSV, which names nobody.

    ``option_names`` names the overrides of the batch's rules as the caller offers them (msgids of
    ``SHEET_OPTIONS``), for the problems' hints; None (an annotator's own upload) offers none: the problems
    then say what happened and that the annotator may leave those rows blank or ask a researcher.
    ``overrides`` lets the sheet's new ratings past the quota or the qualification with a reason (by a
    researcher): what they let in is recorded through ``surface`` (by ``job_id``'s worker when given).

    Raises ``SheetRejected`` with every problem when anything is wrong; nothing is stored then.
    """
    overrides = overrides or RatingOverrides()
    _check_overrides(overrides, option_names)
    file = name or Path(path).name
    content = read_sheet(path, name=file)
    problems = list(content.problems)
    user = _annotator_of(content, annotator, file, problems)
    batch = _batch_of(content, file, problems)
    if user is not None and batch is not None:
        _may_rate(batch, user, file, problems)
    dialogues = _dialogues(content, batch, problems)
    summary = SheetImportSummary(batch=batch.name if batch else "", annotator=user.get_username() if user else "",
                                 dry_run=dry_run)  # fmt: skip
    summary.skipped = len(content.skipped_rows)
    if problems:
        if user is not None and dialogues:  # the rules' problems are listed with the others
            plan = _plan(content, dialogues, user, file, summary)
            problems += _rules(plan, user, file, overrides, option_names)(quota="before").problems
        raise SheetRejected(problems)
    plan = _plan(content, dialogues, user, file, summary)
    rules_of = _rules(plan, user, file, overrides, option_names)
    if dry_run:
        checked = rules_of(quota="before")
        _raise_if_any(checked.problems)
        summary.overridden = {str(rule): n for rule, n in checked.counts().items()}
        return summary
    with transaction.atomic():
        checked = rules_of(quota=None)  # the qualification first; the quota once the ratings are stored
        _raise_if_any(checked.problems)
        ratings_store(new=plan.new, changed=plan.changed, source=Annotation.Source.SPREADSHEET, edited_by=user)
        ItemComment.objects.bulk_create(plan.comments)
        quota_checked = rules_of(quota="after")
        _raise_if_any(quota_checked.problems)  # rolls the ratings back
        checked.allowed[Rule.QUOTA] = quota_checked.allowed[Rule.QUOTA]
        summary.overridden = {str(rule): n for rule, n in checked.counts().items()}
        record = override_record(
            overrides=overrides, allowed=checked.allowed, replaced=[], user_pks={user.get_username(): user.pk},
            batch=batch, batch_names=[batch.name], files=[file], surface=surface, job_id=job_id,
            where=partial(_where, file, content.kind),
        )  # fmt: skip
        if record is not None:
            summary.override_id, summary.override_by, summary.override_reason = record.pk, record.by_name, record.reason
    return summary


def _check_overrides(overrides: RatingOverrides, option_names: dict[str, str] | None) -> None:
    """A sheet is let past the quota and the qualification only, by a caller that offers them, with a reason
    (the interfaces ask for it first: anything else is a caller's mistake)."""
    chosen = [RULE_OPTIONS[rule] for rule in overrides.chosen]
    if not chosen:
        return
    if option_names is None or not set(chosen) <= set(SHEET_OPTIONS):
        raise ValueError(f"a sheet's import offers {', '.join(SHEET_OPTIONS)} to a researcher only; got {chosen}")
    if (found := reason_problem(overrides.reason, [option_names[name] for name in chosen])) is not None:
        raise ValueError(fill(*found))


def _raise_if_any(problems: list[SheetProblem]) -> None:
    if problems:
        raise SheetRejected(problems)


def _where(file: str, kind: str, record: AnnotationRecord) -> str:
    """Where a rating an override let in came from, for its record: the file, its sheet and row."""
    return f"{file} row {record.line}" if kind == "csv" else f"{file} {layout.RATINGS_SHEET}!{record.line}"


def _rules(plan: _Plan, user, file: str, overrides: RatingOverrides, option_names: dict[str, str] | None):
    """``batch_rules_check`` of the sheet's new ratings (call it with ``quota``), its problems in the sheet's
    terms."""
    return partial(
        batch_rules_check, new=plan.records, dialogue_pks=plan.dialogue_pks, dialogue_batches=plan.dialogue_batches,
        users={user.get_username(): user.pk}, overrides=overrides, rules=SHEET_RULES,
        describe=partial(_rule_problem, file, option_names),
    )  # fmt: skip


def _rule_problem(file: str, option_names: dict[str, str] | None, violation: Violation) -> SheetProblem:
    """A rule the sheet's new ratings break, said in the sheet's terms: a rating past the quota on its row's id
    cell, the annotator's qualification of the whole sheet; with the override a researcher may choose, or
    (``option_names`` None: the annotator's own upload) what happened and whom to ask."""
    found = {key: value for key, value in violation.found.items() if key != "state"}
    own = option_names is None
    if violation.rule == Rule.QUOTA:
        record = violation.record
        if own:
            found = {key: found[key] for key in ("id", "batch", "quota")}
        else:
            found = {key: value for key, value in found.items() if key != "new"}  # one rating per item in a sheet
            found["option_text"] = option_names[RULE_OPTIONS[Rule.QUOTA]]
        template = msgids.OWN_OVER_QUOTA if own else msgids.OVER_QUOTA
        return SheetProblem.of(layout.RATINGS_SHEET, record.line, layout.column_letter(_ID_COLUMN),
                               layout.HEADERS[_ID_COLUMN], record.id[:80], template, **found)  # fmt: skip
    if not own:
        found["option_text"] = option_names[RULE_OPTIONS[Rule.QUALIFICATION]]
    return _problem(file, msgids.OWN_NOT_QUALIFIED if own else msgids.NOT_QUALIFIED, **found)


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


@dataclass
class _Plan:
    """What storing the sheet would do: the new ratings (``new``, and as the import rules read them:
    ``records``, one per row, with the dialogues' pks and batches by external id), the changed ones and the
    comments."""

    new: list[NewRating] = field(default_factory=list)
    records: list[AnnotationRecord] = field(default_factory=list)
    dialogue_pks: dict[str, int] = field(default_factory=dict)
    dialogue_batches: dict[str, int] = field(default_factory=dict)
    changed: list[ChangedRating] = field(default_factory=list)
    comments: list[ItemComment] = field(default_factory=list)


def _plan(content: SheetContent, dialogues: dict, user, file: str, summary: SheetImportSummary) -> _Plan:
    """The plan of the rows whose dialogue is known (every row, when the sheet has no problem)."""
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
    plan = _Plan()
    for rating in content.ratings:
        dialogue = dialogues.get(rating.id)
        if dialogue is None:
            continue  # a problem of its own
        values = {
            **{f"{a}_score": rating.scores[a] for a in AXES},
            **{f"{a}_confidence": rating.confidence[a] for a in AXES},
        }
        old = stored.get(dialogue.pk)
        before = {f: getattr(old, f) for f in _VALUE_FIELDS} if old is not None else None
        if old is None:
            plan.new.append(NewRating(dialogue.pk, user.pk, tuple(values[f] for f in _VALUE_FIELDS), now))
            plan.records.append(AnnotationRecord(
                dialogue.external_id, user.get_username(), now, dict(rating.scores), dict(rating.confidence),
                file=layout.RATINGS_SHEET, line=rating.row,
            ))  # fmt: skip
            plan.dialogue_pks[dialogue.external_id] = dialogue.pk
            plan.dialogue_batches[dialogue.external_id] = dialogue.batch_id
        elif before == values:
            summary.unchanged += 1
        else:
            plan.changed.append(ChangedRating(old.pk, before, values, f"spreadsheet {file} row {rating.row}"[:200]))
        if rating.comment and (dialogue.pk, rating.comment) not in said:
            plan.comments.append(ItemComment(dialogue=dialogue, author=user, text=rating.comment, created_at=now))
            said.add((dialogue.pk, rating.comment))
    summary.created, summary.updated, summary.comments = len(plan.new), len(plan.changed), len(plan.comments)
    return plan
