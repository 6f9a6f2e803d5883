"""Bulk imports of the seed A.3 JSONL files into the database.

Validation runs over every line of every file first; if anything is wrong nothing is stored.
Storing is one transaction of bulk inserts/updates; re-importing the same files changes nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from operator import itemgetter
from pathlib import Path

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from annotation.axes import AXES
from annotation.io.import_rules import (
    RULE_OPTIONS,
    RULES,
    WEB_RATING,
    WEB_RATING_NO_UPDATE,
    RatingOverrides,
    batch_rules_check,
    overridden_text,
    override_record,
    reason_problem,
)
from annotation.io.rating_store import (
    INSERT_BATCH,
    VALUE_FIELDS,
    ChangedRating,
    NewRating,
    imported_annotators_create,
    ratings_store,
)
from annotation.io.records import (
    MAX_PROBLEMS,
    AnnotationRecord,
    DialogueRecord,
    InputError,
    Problem,
    ProblemLog,
    UnknownKeys,
    load_annotations,
    load_dialogues,
    readable_paths,
)
from annotation.models import (
    Annotation,
    Batch,
    Dialogue,
    DialogueRevision,
    ImportOverride,
    ImportOverrideRating,
    QualityFlag,
)
from core.bulk import bulk_insert, existing_values, values_in
from core.jsonl import check_batch_name, fill, report_files_without_records
from core.roles import ANNOTATOR

CHUNK = 5_000
BY_BATCH = 1_000  # from this many dialogue ids on, a batch's dialogues are read whole rather than id by id


@dataclass
class ImportSummary:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    users_created: int = 0
    dry_run: bool = False
    # Top-level keys left out (ignore_unknown_keys): key → lines that had it, the most frequent first.
    ignored_keys: dict[str, int] = field(default_factory=dict)
    # Ratings imports: {rule: ratings an override let past it} (annotation.io.import_rules), and its record.
    overridden: dict[str, int] = field(default_factory=dict)
    override_id: int | None = None
    override_by: str = ""
    override_reason: str = ""

    def __str__(self) -> str:
        verb = "would create" if self.dry_run else "created"
        text = f"{verb} {self.created}, updated {self.updated}, unchanged {self.unchanged}"
        if self.users_created:
            text += f", new annotator accounts {self.users_created}"
        if self.ignored_keys:
            text += "; unknown fields ignored: " + ignored_keys_text(self.ignored_keys)
        return text + overridden_text(
            self.overridden, override_id=self.override_id, by=self.override_by, reason=self.override_reason
        )


SHOWN_KEYS = 20  # ignored keys a summary names (the API and the job list up to MAX_IGNORED_KEYS)
MAX_IGNORED_KEYS = 50


def ignored_keys_text(counts: dict[str, int], limit: int = SHOWN_KEYS) -> str:
    """``note ×3, extra ×1`` (and how many more keys), for the command's output and the summaries."""
    shown = [f"{key} ×{n:,}" for key, n in list(counts.items())[:limit]]
    if len(counts) > limit:
        shown.append(f"+{len(counts) - limit:,}")
    return ", ".join(shown)


def _chunks(items: Sequence, size: int = CHUNK) -> Iterable[Sequence]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


# How the import command names the options that the problems' hints mention.
COMMAND_OPTIONS = {
    "update": "--update",
    "force_text_change": "--force-text-change",
    "ignore_unknown_keys": "--ignore-unknown-keys",
    "allow_over_quota": "--allow-over-quota",
    "allow_unchosen_annotators": "--allow-unchosen-annotators",
    "allow_unqualified_annotators": "--allow-unqualified-annotators",
    "replace_web_ratings": "--replace-web-ratings",
    "allow_closed_batch": "--allow-closed-batch",
}


def dialogues_import(
    *,
    paths: Sequence[str | Path],
    batch_name: str,
    dry_run: bool = False,
    update: bool = False,
    force_text_change: bool = False,
    option_names: dict[str, str] | None = None,
    ignore_unknown_keys: bool = False,
) -> ImportSummary:
    """Store dialogues; with ``update``, replace changed ones.

    The text of a dialogue that already has ratings changes only with ``force_text_change``: the
    old text is kept (``DialogueRevision``) and each of its ratings gets a quality flag for review.
    ``option_names`` names ``update``, ``force_text_change`` and ``ignore_unknown_keys`` as the caller
    offers them (msgids; the command's ``--update`` and so on by default) in the problems' hints. A
    top-level key beyond the format's fields is a problem of its line, unless ``ignore_unknown_keys``:
    then it is left out and counted (``summary.ignored_keys``). An id that a spreadsheet would run as a
    formula, or that holds a control character, is refused (``core.names.id_problem``).
    """
    options = {**COMMAND_OPTIONS, **(option_names or {})}
    log = ProblemLog()
    check_batch_name(batch_name, log, limit=Batch._meta.get_field("name").max_length)
    readable = readable_paths(paths, log)
    unknown_keys = UnknownKeys(ignore=ignore_unknown_keys, option_text=options["ignore_unknown_keys"])
    records = load_dialogues(readable, log=log, unknown_keys=unknown_keys)
    report_files_without_records(
        readable, records, log, empty=gettext_noop("no dialogues in this file (it is empty or has only blank lines)")
    )
    existing = existing_values(
        Dialogue, "external_id", [r.id for r in records], ["id", "user_text", "response_text", "context"]
    )
    summary = ImportSummary(dry_run=dry_run, ignored_keys=dict(unknown_keys.counts.most_common()))
    new: list[DialogueRecord] = []
    changed: list[tuple[int, DialogueRecord]] = []
    for record in records:
        stored = existing.get(record.id)
        if stored is None:
            new.append(record)
        elif stored[1:] == (record.user, record.response, record.context):
            summary.unchanged += 1
        elif update:
            changed.append((stored[0], record))
        else:
            template = gettext_noop(
                "dialogue %(id)s already exists with different text or context; use %(option_text)s to replace it"
            )
            hint = {"option_text": options["update"]}
            log.add(Problem.of(record.file, record.line, "$.id", template, id=repr(record.id), **hint))
    log.raise_if_any()
    rated = _ratings_of([pk for pk, _record in changed])
    if not force_text_change:
        for pk, record in changed:
            if rated.get(pk):
                template = gettext_noop(
                    "dialogue %(id)s has %(n)s rating(s) of its present text; add %(option_text)s to change "
                    "it anyway (the old text is kept and the ratings are flagged for review)"
                )
                found = {"id": repr(record.id), "n": len(rated[pk]), "option_text": options["force_text_change"]}
                log.add(Problem.of(record.file, record.line, "$", template, **found))
        log.raise_if_any()
    summary.created, summary.updated = len(new), len(changed)
    if dry_run:
        return summary
    if not new and not changed:
        return summary  # nothing to store: no batch is created for it
    with transaction.atomic():
        batch, _ = Batch.objects.get_or_create(name=batch_name)
        now = timezone.now()
        encode = json.JSONEncoder(ensure_ascii=False).encode
        bulk_insert(
            Dialogue,
            ["external_id", "user_text", "response_text", "context", "batch", "created_at"],
            ((r.id, r.user, r.response, encode(r.context), batch.pk, now) for r in new),  # queue entries: a trigger
        )
        _keep_old_texts(changed, existing, rated, now=now)
        Dialogue.objects.bulk_update(
            [Dialogue(pk=pk, user_text=r.user, response_text=r.response, context=r.context) for pk, r in changed],
            ["user_text", "response_text", "context"],
            batch_size=INSERT_BATCH,
        )
    return summary


def _ratings_of(dialogue_ids: list[int]) -> dict[int, list[tuple[int, int]]]:
    """``{dialogue id: [(rating id, annotator id), ...]}`` for the dialogues that have ratings."""
    found: dict[int, list[tuple[int, int]]] = {}
    for pk, dialogue_id, annotator_id in values_in(
        Annotation, ("id", "dialogue", "annotator"), {"dialogue": dialogue_ids}
    ):
        found.setdefault(dialogue_id, []).append((pk, annotator_id))
    return found


def _keep_old_texts(changed, existing: dict, rated: dict, *, now) -> None:
    """A revision with the old text of every changed dialogue; a review flag on each rating of it."""
    revisions, flags = [], []
    for pk, record in changed:
        _pk, user, response, context = existing[record.id]
        source = f"import_dialogues {Path(record.file).name}:{record.line}"[:300]
        ratings = rated.get(pk, [])
        revisions.append(
            DialogueRevision(
                dialogue_id=pk,
                changed_at=now,
                source=source,
                user_text=user,
                response_text=response,
                context=context,
                ratings=len(ratings),
            )
        )
        flags += [
            QualityFlag(
                source=QualityFlag.Source.TEXT_CHANGE,
                kind="text_changed",
                dialogue_id=pk,
                annotation_id=rating_id,
                annotator_id=annotator_id,
                message=f"The text of {record.id} changed after this rating ({source}); check that the rating "
                "still fits the new text, then accept or dismiss this flag.",
            )
            for rating_id, annotator_id in ratings
        ]
    DialogueRevision.objects.bulk_create(revisions, batch_size=INSERT_BATCH)
    QualityFlag.objects.bulk_create(flags, batch_size=INSERT_BATCH)


def _values_of(record: AnnotationRecord) -> dict:
    values = {f"{axis}_score": record.scores[axis] for axis in AXES}
    values.update({f"{axis}_confidence": record.confidence[axis] for axis in AXES})
    return values


_VALUE_FIELDS = VALUE_FIELDS


def annotations_import(
    *,
    paths: Sequence[str | Path],
    dry_run: bool = False,
    update: bool = False,
    edited_by=None,
    batch: Batch | None = None,
    option_names: dict[str, str] | None = None,
    overrides: RatingOverrides | None = None,
    ignore_unknown_keys: bool = False,
    surface: str = ImportOverride.Surface.COMMAND,
    job_id=None,
    file_names: dict[str, str] | None = None,
) -> ImportSummary:
    """Store the ratings of seed A.3 output files: all or nothing, every problem located (file, line, JSON path).

    The command reads the files it is given; the API and the batch page keep an uploaded file first
    (``annotation.io.rating_uploads``) and pass its path. ``batch`` restricts the import to that batch's
    dialogues: a rating of another batch's dialogue is a problem of its line. ``option_names`` names the
    options as the caller offers them (msgids; the command's ``--update`` and so on by default) in the hints.

    The ratings obey their batches' rules (``annotation.io.import_rules``: a closed batch takes none, quota,
    chosen annotators, qualification, and ``update`` never replaces a rating made on the web) unless
    ``overrides`` lets them past with a reason: what it let in is recorded (``ImportOverride``, through
    ``surface``, by ``job_id``'s worker when given) in the same transaction. A top-level key beyond the format's
    fields is a problem of its line, unless ``ignore_unknown_keys``: then it is left out and counted
    (``summary.ignored_keys``). ``file_names`` maps a file's path as read to the name its user knows (for the
    record).
    """
    options = {**COMMAND_OPTIONS, **(option_names or {})}
    overrides = overrides or RatingOverrides()
    chosen = overrides.chosen
    if (found := reason_problem(overrides.reason, [options[RULE_OPTIONS[rule]] for rule in chosen])) is not None:
        raise ValueError(fill(*found))  # the interfaces ask for a reason first: this is a caller's mistake
    log = ProblemLog()
    readable = readable_paths(paths, log)
    unknown_keys = UnknownKeys(ignore=ignore_unknown_keys, option_text=options["ignore_unknown_keys"])
    records = load_annotations(readable, log=log, unknown_keys=unknown_keys)
    report_files_without_records(
        readable, records, log, empty=gettext_noop("no ratings in this file (it is empty or has only blank lines)")
    )

    dialogue_pks, dialogue_batches = _dialogues_of(records, batch)
    user_model = get_user_model()
    names = sorted({r.annotator_id for r in records})
    users: dict[str, int] = {}
    for chunk in _chunks(names):
        users.update(user_model.objects.filter(username__in=chunk).values_list("username", "pk"))
    annotator_pks = set(
        user_model.objects.filter(pk__in=list(users.values()), groups__name=ANNOTATOR).values_list("pk", flat=True)
    )
    _check_dialogues_and_annotators(records, log, dialogue_pks, dialogue_batches, batch, users, annotator_pks)
    if log:  # the lines that can be checked further still are: every problem is listed at once
        records = [r for r in records if _checkable(r, dialogue_pks, dialogue_batches, batch, users, annotator_pks)]

    existing: dict[tuple[int, str], tuple] = {}
    pk_to_name = {pk: name for name, pk in users.items()}
    rows = values_in(
        Annotation,
        ("id", "dialogue", "annotator", "source", *_VALUE_FIELDS),
        {"dialogue": sorted({dialogue_pks[r.id] for r in records}), "annotator": list(pk_to_name)},
    )
    for pk, dialogue_pk, annotator_pk, source, *values in rows if pk_to_name else ():
        existing[(dialogue_pk, pk_to_name[annotator_pk])] = (pk, dict(zip(_VALUE_FIELDS, values, strict=True)), source)

    summary = ImportSummary(dry_run=dry_run, ignored_keys=dict(unknown_keys.counts.most_common()))
    new: list[AnnotationRecord] = []
    changed: list[tuple[int, dict, AnnotationRecord]] = []
    replaced: list[tuple[int, AnnotationRecord]] = []  # web ratings replaced (replace_web_ratings)
    for record in records:
        stored = existing.get((dialogue_pks[record.id], record.annotator_id)) if existing else None
        if stored is None:
            new.append(record)
            continue
        values = _values_of(record)
        web = stored[2] == Annotation.Source.WEB
        if stored[1] == values:
            summary.unchanged += 1
        elif update and (not web or overrides.replace_web_ratings):
            changed.append((stored[0], stored[1], record))
            if web:
                replaced.append((stored[0], record))
        else:
            found = {"annotator": repr(record.annotator_id), "id": repr(record.id), "option_text": options["update"]}
            if web:
                template = WEB_RATING if update else WEB_RATING_NO_UPDATE
                found = {**found, "option_text": options["replace_web_ratings"], "update_text": options["update"]}
            else:
                template = gettext_noop(
                    "%(annotator)s already rated %(id)s differently; use %(option_text)s to replace the stored "
                    "rating (the old values go to the edit history)"
                )
            log.add(Problem.of(record.file, record.line, "$", template, **found))
    rule_options = {name: options[name] for name in RULE_OPTIONS.values()}
    rules_of = partial(batch_rules_check, new=new, changed=[r for _pk, _old, r in changed], dialogue_pks=dialogue_pks,
                       dialogue_batches=dialogue_batches, users=users, overrides=overrides,
                       options=rule_options)  # fmt: skip
    if log or dry_run:  # the rules' problems are listed with the others; an import checks them as it stores
        checked = rules_of()
        log.extend(checked.problems)
        log.raise_if_any()
        summary.overridden = _counts(checked.allowed, replaced)
    missing_users = [name for name in names if name not in users]
    summary.created, summary.updated, summary.users_created = len(new), len(changed), len(missing_users)
    if dry_run:
        return summary

    with transaction.atomic():
        checked = rules_of(quota=None)  # the annotators' rules first; the quota once the ratings are stored
        _raise_problems(checked.problems)
        user_pks = dict(users)
        user_pks.update(imported_annotators_create(missing_users))
        scores_of, confidence_of = itemgetter(*AXES), itemgetter(*AXES)
        replaced_pks = {pk for pk, _record in replaced}
        ratings_store(
            new=[
                NewRating(
                    dialogue_pks[r.id],
                    user_pks[r.annotator_id],
                    scores_of(r.scores) + confidence_of(r.confidence),
                    r.timestamp,
                    r.seconds_spent,
                )
                for r in new
            ],
            changed=[
                ChangedRating(pk, old, _values_of(r), _edit_reason(r, pk in replaced_pks, overrides.reason))
                for pk, old, r in changed
            ],
            source=Annotation.Source.IMPORT,
            edited_by=edited_by,
        )
        quota_checked = rules_of(quota="after")
        _raise_problems(quota_checked.problems)  # rolls the ratings back
        checked.allowed[ImportOverrideRating.Rule.QUOTA] = quota_checked.allowed[ImportOverrideRating.Rule.QUOTA]
        summary.overridden = _counts(checked.allowed, replaced)
        names_of = file_names or {}
        record = override_record(
            overrides=overrides, allowed=checked.allowed, replaced=replaced, user_pks=user_pks, batch=batch,
            batch_names=_batch_names({dialogue_batches[r.id] for lines in checked.allowed.values() for r, _d in lines}
                                     | {dialogue_batches[r.id] for _pk, r in replaced}),
            files=[names_of.get(str(p), Path(p).name) for p in readable], surface=surface, job_id=job_id,
            line_names=names_of,
        )  # fmt: skip
        if record is not None:
            summary.override_id, summary.override_by, summary.override_reason = record.pk, record.by_name, record.reason
    return summary


def _raise_problems(problems: list[Problem]) -> None:
    if problems:
        raise InputError(problems[:MAX_PROBLEMS], truncated=len(problems) > MAX_PROBLEMS, total=len(problems))


def _checkable(record, dialogue_pks, dialogue_batches, batch, users, annotator_pks) -> bool:
    """Whether a rating's dialogue is known (in ``batch``, when given) and its account, if any, an annotator's."""
    if record.id not in dialogue_pks or (batch is not None and dialogue_batches[record.id] != batch.pk):
        return False
    return record.annotator_id not in users or users[record.annotator_id] in annotator_pks


def _counts(allowed: dict, replaced: list) -> dict[str, int]:
    """{rule: ratings it let in} of the rules overridden, in ``RULES`` order."""
    counts = {rule: len(allowed[rule]) for rule in RULES if allowed.get(rule)}
    if replaced:
        counts[ImportOverrideRating.Rule.WEB_RATINGS] = len(replaced)
    return {str(rule): n for rule, n in counts.items()}


def _edit_reason(record: AnnotationRecord, web: bool, reason: str) -> str:
    """The edit history's reason of a rating an import replaced (a web rating's says why it was allowed)."""
    where = f"{Path(record.file).name}:{record.line}"
    if web:
        return f"import --update --replace-web-ratings {where}: {reason.strip()}"[:200]
    return f"import --update {where}"[:200]


def _batch_names(pks: set[int]) -> list[str]:
    return list(Batch.objects.filter(pk__in=pks).values_list("name", flat=True)) if pks else []


def _dialogues_of(records: Sequence[AnnotationRecord], batch: Batch | None) -> tuple[dict[str, int], dict[str, int]]:
    """``({external id: pk}, {external id: batch pk})`` of the records' dialogues that are stored.

    Restricted to a batch, a large file's dialogues are read by batch (one index range instead of an
    index probe per id), and only the ids not among them are looked up one by one, to name the batch
    they belong to.
    """
    wanted = sorted({r.id for r in records})
    pks: dict[str, int] = {}
    batches: dict[str, int] = {}
    if batch is not None and len(wanted) >= BY_BATCH:
        wanted_set = set(wanted)
        for external_id, pk in (
            Dialogue.objects.filter(batch=batch).values_list("external_id", "id").iterator(chunk_size=CHUNK)
        ):
            if external_id in wanted_set:
                pks[external_id] = pk
                batches[external_id] = batch.pk
        wanted = [external_id for external_id in wanted if external_id not in pks]
    if wanted:
        for external_id, pk, batch_pk in values_in(Dialogue, ("external_id", "id", "batch"), {"external_id": wanted}):
            pks[external_id] = pk
            batches[external_id] = batch_pk
    return pks, batches


def _check_dialogues_and_annotators(records, log, dialogue_pks, dialogue_batches, batch, users, annotator_pks) -> None:
    """Problems of ratings of unknown dialogues (or, for ``batch``, of another batch's) and of accounts that are
    not annotators (once per account)."""
    other_batches: dict[int, str] = {}
    if batch is not None:
        elsewhere = {pk for pk in dialogue_batches.values() if pk != batch.pk}
        other_batches = dict(Batch.objects.filter(pk__in=elsewhere).values_list("pk", "name")) if elsewhere else {}
    reported: set[str] = set()
    for record in records:
        if record.id not in dialogue_pks:
            template = gettext_noop("unknown dialogue id %(id)s; import the dialogues first (import_dialogues)")
            log.add(Problem.of(record.file, record.line, "$.id", template, id=repr(record.id)))
        elif batch is not None and dialogue_batches[record.id] != batch.pk:
            template = gettext_noop(
                "dialogue %(id)s belongs to batch %(other)s, not to batch %(batch)s; "
                "upload its ratings to its own batch"
            )
            names = {"other": repr(other_batches.get(dialogue_batches[record.id], "?")), "batch": repr(batch.name)}
            log.add(Problem.of(record.file, record.line, "$.id", template, id=repr(record.id), **names))
        name = record.annotator_id
        if name in users and users[name] not in annotator_pks and name not in reported:
            reported.add(name)
            template = gettext_noop(
                "%(name)s is an existing account without the annotator role; "
                "give it the role in admin or use another annotator_id"
            )
            log.add(Problem.of(record.file, record.line, "$.annotator_id", template, name=repr(name)))
