"""The batch's rules for imported ratings, and the explicit overrides that let an import past them.

The web queue (``annotation.collection.queue``) hands an annotator an item only when

* the batch is open (a closed batch hands nothing out and is in nobody's list);
* the item's ratings and open reservations are under the batch's quota (``Batch.annotations_per_item``);
* the batch is open to every annotator, or the annotator is one of those chosen for it (``Batch.restricted``);
* the annotator holds a valid qualification (``annotation.collection.qualification``: passed, not expired).

A ratings import applies the same rules to every rating it would add (``import_annotations``, the API's
``annotations/import/``, a batch page's upload and the job behind large uploads; a rating sheet, through
``annotation.spreadsheets.imports``, the quota and the qualification: it checks the batch and the chosen
annotators of the whole sheet itself): counted over the people's ratings already stored (an LLM rater's take
no slot, as in the queue), the queue's open reservations (each will become a rating; a reservation of the
file's own annotator on the item is closed by the import instead) and the new ratings of the files. A rating
that is already stored (unchanged, or replaced with ``update``) adds nothing and is not checked again, but
for the closed batch: a closed batch takes no new rating and no changed one (re-importing what is stored
changes nothing and is accepted). A fifth rule protects people's work: ``update`` never replaces a rating made
on the web (``Annotation.source``).

Each rule has its own option (``RatingOverrides``); any override needs a reason, and what it let in is
recorded in the import's transaction (``ImportOverride``, with the ratings and lines it let in): who, when,
through which surface, why. Without the option each violation is a located problem and nothing is stored.
The rules find the violations (``Violation``: the rule, the line, what was found); the caller says them in
its own terms (``describe``: a JSONL file's line and JSON path by default, a sheet's row and column).

Placeholder accounts (made by an import for an annotator id seen only in files: flagged ``imported``, no usable
password) stand for raters outside this site. They cannot log in, so they can neither take the qualification
test nor be handed items: the qualification rule does not apply to them (their ratings are marked
``source = import``). The quota and the chosen-annotators rule apply to them as to anyone; a placeholder that
is given a password becomes a live annotator, and the qualification rule applies from then on.

The quota is counted as the queue counts it (``QueueEntry.taken_count``). A dry run counts before storing; an
import checks once its ratings are stored, in the same transaction, over the recounted and (on PostgreSQL)
locked queue entries, so the queue cannot hand an item out between the check and the commit
(``_over_quota_after_store``); over the quota, the transaction is rolled back. SQLite runs one write transaction at
a time.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import is_password_usable
from django.db import connection
from django.utils import timezone

from annotation.collection.qualification import State, qualifications_of
from annotation.collection.queue import recount_taken
from annotation.io.records import AnnotationRecord, Problem
from annotation.models import (
    Annotation,
    AnnotatorProfile,
    Assignment,
    Batch,
    ImportOverride,
    ImportOverrideRating,
    QueueEntry,
)
from core.bulk import values_in
from core.jsonl import gettext_noop

CHUNK = 5_000
Rule = ImportOverrideRating.Rule
RULES = tuple(Rule.values)  # quota, chosen_annotators, qualification, web_ratings, closed_batch
# The rules ``batch_rules_check`` checks (``update`` over a web rating is the import's own check).
BATCH_RULES = (Rule.CLOSED_BATCH, Rule.QUOTA, Rule.CHOSEN_ANNOTATORS, Rule.QUALIFICATION)
# The option that overrides each rule, as the service and the API name it.
RULE_OPTIONS = {
    Rule.CLOSED_BATCH: "allow_closed_batch",
    Rule.QUOTA: "allow_over_quota",
    Rule.CHOSEN_ANNOTATORS: "allow_unchosen_annotators",
    Rule.QUALIFICATION: "allow_unqualified_annotators",
    Rule.WEB_RATINGS: "replace_web_ratings",
}

MAX_REASON = 500
# A reason: at least one character that is not a space, and no control character but tab and line breaks.
_ALLOWED = r"[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]"  # any character but a control (tab and line breaks are fine)
REASON_PATTERN = rf"^{_ALLOWED}*[^\s\x00-\x1f\x7f-\x9f]{_ALLOWED}*$"
_REASON = re.compile(REASON_PATTERN)

REASON_MISSING = gettext_noop(
    "give a reason for the override (%(options)s): it is recorded with your name, and the import is refused without one"
)
REASON_TOO_LONG = gettext_noop("the reason has %(length)s characters; at most %(limit)s fit")
REASON_CONTROL = gettext_noop(
    "the reason holds a control character (only tabs and line breaks may be in it); write it as plain text"
)
WEB_NEEDS_UPDATE = gettext_noop(
    "%(option_text)s replaces ratings made on the web only together with %(update_text)s; add that too"
)

OVER_QUOTA = gettext_noop(
    "dialogue %(id)s would have %(total)s ratings, more than the quota of batch %(batch)s (%(quota)s per item; "
    "%(stored)s stored or reserved in the queue, %(new)s new in this import): the queue never hands an item out "
    "beyond its quota. Leave ratings out, raise the quota in the batch's settings, or add %(option_text)s with "
    "a reason"
)
NOT_CHOSEN = gettext_noop(
    "%(annotator)s is not among the annotators chosen for batch %(batch)s (%(n)s new rating(s) in this import): "
    "the batch is for its chosen annotators only, as in the queue. Choose them in the batch's settings, or add "
    "%(option_text)s with a reason"
)
NOT_QUALIFIED = gettext_noop(
    "%(annotator)s %(state_text)s (%(n)s new rating(s) in this import): the queue hands items only to qualified "
    "annotators. Let them pass the qualification test on the training page, or add %(option_text)s with a reason"
)
STATE_TEXTS = {
    "none": gettext_noop("has not passed the qualification test"),
    "expired": gettext_noop("has a qualification that expired on %(expired)s"),
    "inactive": gettext_noop("is an inactive account"),
}
CLOSED_BATCH = gettext_noop(
    "batch %(batch)s is closed (%(n)s new or changed rating(s) in this import): a closed batch takes no more "
    "ratings, as the queue hands none of its items out. Reopen it in the batch's settings, or add %(option_text)s "
    "with a reason"
)
WEB_RATING = gettext_noop(
    "%(annotator)s rated %(id)s on the web and this line differs: an import never replaces a rating made on "
    "the web unless asked by name. Leave the line out, or add %(option_text)s with a reason (the old values "
    "go to the edit history)"
)
WEB_RATING_NO_UPDATE = gettext_noop(
    "%(annotator)s rated %(id)s on the web, differently: a rating made on the web is replaced only with "
    "%(update_text)s and %(option_text)s together, with a reason (the old values go to the edit history)"
)


@dataclass(frozen=True)
class RatingOverrides:
    """The explicit options that let an import past the batch's rules, and who asks why.

    ``by`` is the account that asked (the request's or the job's user; None on the command line) and
    ``by_name`` how the record names them (the account's name, or the command line's system user).
    """

    allow_over_quota: bool = False
    allow_unchosen_annotators: bool = False
    allow_unqualified_annotators: bool = False
    replace_web_ratings: bool = False
    allow_closed_batch: bool = False
    reason: str = ""
    by: object = None
    by_name: str = ""

    def allows(self, rule: str) -> bool:
        return bool(getattr(self, RULE_OPTIONS[rule]))

    @property
    def chosen(self) -> list[str]:
        """The rules overridden, in ``RULES`` order."""
        return [rule for rule in RULES if self.allows(rule)]

    def who(self) -> str:
        if self.by is not None:
            return self.by.get_username()
        return self.by_name or "?"


def reason_problem(reason: str, overrides: Sequence[str]) -> tuple[str, dict] | None:
    """Why ``reason`` cannot go with the options ``overrides`` (their names as the caller offers them), as a
    template (a msgid) and its parameters; None when it can (or when nothing is overridden)."""
    if not overrides:
        return None
    text = reason.strip()
    if not text:
        return REASON_MISSING, {"options": ", ".join(overrides)}
    if len(reason) > MAX_REASON:
        return REASON_TOO_LONG, {"length": len(reason), "limit": MAX_REASON}
    if not _REASON.match(reason):
        return REASON_CONTROL, {}
    return None


# --------------------------------------------------------------------------- the rules of the queue


@dataclass(frozen=True)
class Violation:
    """A rule broken by an import's new ratings, not overridden: the rule, the line it is reported at (the
    rating past the quota; an annotator's or a batch's first line, for all of theirs) and what was found (the
    parameters of its message: ``id``, ``total``, ``batch``, ``quota``, ``stored``, ``new`` for the quota;
    ``annotator``, ``batch``, ``n`` for the chosen annotators; ``annotator``, ``state`` (a key of
    ``STATE_TEXTS``), ``state_text``, ``n`` and maybe ``expired`` for the qualification; ``batch``, ``n`` for a
    closed batch)."""

    rule: str
    record: AnnotationRecord
    found: dict


# How a JSONL import reports each rule: its message and the JSON path it points at.
_JSONL = {
    Rule.QUOTA: (OVER_QUOTA, "$.id"),
    Rule.CHOSEN_ANNOTATORS: (NOT_CHOSEN, "$.annotator_id"),
    Rule.QUALIFICATION: (NOT_QUALIFIED, "$.annotator_id"),
    Rule.CLOSED_BATCH: (CLOSED_BATCH, "$.id"),
}


def jsonl_problem(violation: Violation, *, options: dict[str, str]) -> Problem:
    """A violation as a JSONL import says it: the file's line and JSON path, the rule and the option that
    overrides it, as ``options`` names it."""
    template, path = _JSONL[violation.rule]
    found = {key: value for key, value in violation.found.items() if key != "state"}
    record = violation.record
    return Problem.of(record.file, record.line, path, template, **found,
                      option_text=options[RULE_OPTIONS[violation.rule]])  # fmt: skip


@dataclass
class RuleCheck:
    """What the batch's rules found in an import's new ratings: the problems (rules not overridden, as
    ``describe`` says them), and for each rule overridden the lines it let in (record, dialogue pk)."""

    problems: list = field(default_factory=list)
    allowed: dict[str, list[tuple[AnnotationRecord, int]]] = field(default_factory=lambda: defaultdict(list))

    def counts(self) -> dict[str, int]:
        return {rule: len(self.allowed[rule]) for rule in RULES if self.allowed.get(rule)}


@dataclass(frozen=True)
class _Account:
    pk: int
    placeholder: bool  # an account an import made (no usable password): not a live annotator
    active: bool


def batch_rules_check(
    *,
    new: Sequence[AnnotationRecord],
    dialogue_pks: dict[str, int],
    dialogue_batches: dict[str, int],
    users: dict[str, int],
    overrides: RatingOverrides,
    options: dict[str, str] | None = None,
    quota: str | None = "before",
    changed: Sequence[AnnotationRecord] = (),
    rules: Sequence[str] = BATCH_RULES,
    describe: Callable[[Violation], object] | None = None,
) -> RuleCheck:
    """Check the ratings an import would add against their batches' rules: closed batch, quota, chosen
    annotators and qualification (those of ``rules``).

    ``new`` are the records that would become new ratings, in file order, ``changed`` those that would replace a
    stored rating (only a closed batch refuses them); ``users`` the annotator ids that have an account
    (``{name: pk}``; the others get placeholder accounts). ``describe`` says each violation as a problem; by
    default ``jsonl_problem``, with the override options named as ``options`` names them (msgids). ``quota``:
    ``"before"`` the ratings are stored (a dry run, or a file with other problems: the queue's counts as they
    are), ``"after"`` (inside the storing transaction, once ``ratings_store`` has stored them: the counts of the
    items, locked; the quota only), or None (not checked).
    """
    check = RuleCheck()
    if not new and not changed:
        return check
    report = describe or partial(jsonl_problem, options=options or {})
    batches = {
        pk: (name, limit, restricted, status)
        for pk, name, limit, restricted, status in Batch.objects.filter(
            pk__in={dialogue_batches[r.id] for r in (*new, *changed)}
        ).values_list("pk", "name", "annotations_per_item", "restricted", "status")
    }
    violations: list[Violation] = []
    if quota is not None and Rule.QUOTA in rules and new:
        by_dialogue: dict[int, list[AnnotationRecord]] = defaultdict(list)
        for record in new:
            by_dialogue[dialogue_pks[record.id]].append(record)
        if quota == "after":
            quotas = [(pk, limit) for pk, (_name, limit, _restricted, _status) in batches.items()]
            over = _over_quota_after_store(sorted(by_dialogue), quotas)
            base = {pk: n - len(by_dialogue[pk]) for pk, n in over.items()}
            by_dialogue = {pk: by_dialogue[pk] for pk in base}  # the others are within their quota
        else:
            base = _taken_before(sorted(by_dialogue), {(dialogue_pks[r.id], users[r.annotator_id])
                                                       for r in new if r.annotator_id in users})  # fmt: skip
        _quota(check, violations, by_dialogue, base, dialogue_batches, batches, overrides)
    if quota != "after":  # the other rules were checked before the ratings were stored
        if Rule.CLOSED_BATCH in rules:
            _closed(check, violations, [*new, *changed], dialogue_pks, dialogue_batches, batches, overrides)
        if Rule.CHOSEN_ANNOTATORS in rules:
            _chosen(check, violations, new, dialogue_pks, dialogue_batches, batches, users, overrides)
        if Rule.QUALIFICATION in rules:
            _qualification(check, violations, new, dialogue_pks, users, overrides)
    check.problems = [report(violation) for violation in violations]
    return check


def _taken_before(dialogue_ids: list[int], new_pairs: set[tuple[int, int]]) -> dict[int, int]:
    """Per item, what the queue counts now (``QueueEntry.taken_count``: people's ratings and open reservations),
    less the open reservations of the import's own annotators on it (the import closes them: their rating is
    the new one)."""
    taken = dict(values_in(QueueEntry, ("dialogue", "taken_count"), {"dialogue": dialogue_ids}))
    annotators = sorted({annotator for _dialogue, annotator in new_pairs})
    if annotators:
        reserved = values_in(Assignment, ("dialogue", "annotator"),
                             {"annotator": annotators, "status": [Assignment.Status.RESERVED.value]})  # fmt: skip
        for pair in reserved:
            if pair in new_pairs and taken.get(pair[0]):
                taken[pair[0]] -= 1
    return taken


def _over_quota_after_store(dialogue_ids: list[int], batches: list[tuple[int, int]]) -> dict[int, int]:
    """The items over their batch's quota once the import's ratings are stored (in its transaction), with their
    ratings and open reservations; ``batches`` are (pk, quota) of the items' batches.

    ``ratings_store`` has recounted the items (the reservations the import closed no longer count). On
    PostgreSQL that statement locked every entry whose count it changed, but a reservation that committed
    while it waited for such a row is missing from the count it wrote; counted once more, now that no
    reservation of these items can be in flight, the counts are exact, and they hold until the commit: the
    queue skips locked entries, and an entry whose count did not change already counts this import's rating
    (it took its annotator's reservation's slot).
    """
    if connection.vendor == "postgresql":
        recount_taken(dialogue_ids)
    wanted = set(dialogue_ids)
    over = {}
    for batch_pk, quota in batches:  # the index of the queue (batch, taken_count, ...): the items over quota only
        rows = QueueEntry.objects.filter(batch_id=batch_pk, taken_count__gt=quota).values_list("pk", "taken_count")
        over.update((pk, n) for pk, n in rows if pk in wanted)
    return over


def _quota(check, violations, by_dialogue, base, dialogue_batches, batches, overrides) -> None:
    for dialogue_id, records in by_dialogue.items():
        name, quota, _restricted, _status = batches[dialogue_batches[records[0].id]]
        stored = base.get(dialogue_id, 0)
        total = stored + len(records)
        if total <= quota:
            continue
        for index, record in enumerate(records, start=1):
            if stored + index <= quota:
                continue  # the first ones fit: only the ratings past the quota are over it
            if overrides.allow_over_quota:
                check.allowed[Rule.QUOTA].append((record, dialogue_id))
                continue
            found = {"id": repr(record.id), "total": total, "batch": repr(name), "quota": quota, "stored": stored,
                     "new": len(records)}  # fmt: skip
            violations.append(Violation(Rule.QUOTA, record, found))


def _closed(check, violations, records, dialogue_pks, dialogue_batches, batches, overrides) -> None:
    """A closed batch takes no new rating and no changed one: one problem per batch, at its first line."""
    closed = {pk for pk, (_name, _quota, _restricted, status) in batches.items() if status == Batch.Status.CLOSED}
    lines: dict[int, list[AnnotationRecord]] = defaultdict(list)
    for record in records:
        if dialogue_batches[record.id] in closed:
            lines[dialogue_batches[record.id]].append(record)
    for batch_pk, batch_records in lines.items():
        if overrides.allow_closed_batch:
            check.allowed[Rule.CLOSED_BATCH] += [(r, dialogue_pks[r.id]) for r in batch_records]
            continue
        first = min(batch_records, key=lambda r: (r.file, r.line))
        found = {"batch": repr(batches[batch_pk][0]), "n": len(batch_records)}
        violations.append(Violation(Rule.CLOSED_BATCH, first, found))


def _chosen(check, violations, new, dialogue_pks, dialogue_batches, batches, users, overrides) -> None:
    restricted = [pk for pk, (_name, _quota, only_chosen, _status) in batches.items() if only_chosen]
    if not restricted:
        return
    chosen = set(Batch.annotators.through.objects.filter(batch_id__in=restricted).values_list("batch_id", "user_id"))
    lines: dict[tuple[str, int], list[AnnotationRecord]] = defaultdict(list)
    for record in new:
        batch_pk = dialogue_batches[record.id]
        if batch_pk in restricted and (batch_pk, users.get(record.annotator_id)) not in chosen:
            lines[(record.annotator_id, batch_pk)].append(record)
    for (annotator, batch_pk), records in lines.items():
        if overrides.allow_unchosen_annotators:
            check.allowed[Rule.CHOSEN_ANNOTATORS] += [(r, dialogue_pks[r.id]) for r in records]
            continue
        found = {"annotator": repr(annotator), "batch": repr(batches[batch_pk][0]), "n": len(records)}
        violations.append(Violation(Rule.CHOSEN_ANNOTATORS, records[0], found))


def _accounts(pks: list[int]) -> tuple[list, dict[int, _Account]]:
    users = list(get_user_model().objects.filter(pk__in=pks).only("pk", "password", "is_active", "is_staff"))
    imported = set(AnnotatorProfile.objects.filter(user_id__in=pks, imported=True).values_list("user_id", flat=True))
    accounts = {
        u.pk: _Account(u.pk, placeholder=u.pk in imported and not is_password_usable(u.password), active=u.is_active)
        for u in users
    }
    return users, accounts


def _qualification(check, violations, new, dialogue_pks, users, overrides) -> None:
    """Live annotators only: an account the file names that is not a placeholder (see the module doc)."""
    lines: dict[str, list[AnnotationRecord]] = defaultdict(list)
    for record in new:
        if record.annotator_id in users:
            lines[record.annotator_id].append(record)
    if not lines:
        return
    user_rows, accounts = _accounts([users[name] for name in lines])
    live = [u for u in user_rows if not accounts[u.pk].placeholder]
    qualifications = qualifications_of(live)
    for name, records in lines.items():
        pk = users[name]
        if pk not in qualifications or qualifications[pk].qualified:
            continue  # a placeholder, or qualified
        if overrides.allow_unqualified_annotators:
            check.allowed[Rule.QUALIFICATION] += [(r, dialogue_pks[r.id]) for r in records]
            continue
        qualification = qualifications[pk]
        params = {}
        if not accounts[pk].active:
            state = "inactive"
        elif qualification.state is State.EXPIRED:
            state = "expired"
            params["expired"] = timezone.localdate(qualification.expires).isoformat()
        else:
            state = "none"
        found = {"annotator": repr(name), "state": state, "state_text": STATE_TEXTS[state], "n": len(records),
                 **params}  # fmt: skip
        violations.append(Violation(Rule.QUALIFICATION, records[0], found))


# --------------------------------------------------------------------------- the record of an override


def override_record(
    *,
    overrides: RatingOverrides,
    allowed: dict[str, list[tuple[AnnotationRecord, int]]],
    replaced: Sequence[tuple[int, AnnotationRecord]],
    user_pks: dict[str, int],
    batch: Batch | None,
    batch_names: Sequence[str],
    files: Sequence[str],
    surface: str,
    job_id=None,
    line_names: dict[str, str] | None = None,
    where: Callable[[AnnotationRecord], str] | None = None,
) -> ImportOverride | None:
    """Record what the overrides let in (call inside the import's transaction, after the ratings are stored):
    the ratings past each rule (``allowed``) and the web ratings replaced (``replaced``: rating pk, record).
    None when nothing was overridden. Each rating's line is ``file:line``, with ``line_names`` mapping a file's
    path as read to the name its user knows, or what ``where`` says of its record (a sheet's row)."""
    counts = {rule: len(allowed[rule]) for rule in RULES if allowed.get(rule)}
    if replaced:
        counts[Rule.WEB_RATINGS] = len(replaced)
    if not counts:
        return None
    record = ImportOverride.objects.create(
        created_by=overrides.by,
        by_name=overrides.who()[:200],
        reason=overrides.reason.strip(),
        surface=surface,
        job_id=job_id,
        batch=batch,
        batch_names=", ".join(sorted(batch_names))[:500],
        files=", ".join(files)[:500],
        counts=counts,
    )
    pairs = {(dialogue_pk, user_pks[r.annotator_id]) for rule in counts if rule != Rule.WEB_RATINGS
             for r, dialogue_pk in allowed[rule]}  # fmt: skip
    pks = {}
    if pairs:
        rows = values_in(
            Annotation, ("id", "dialogue", "annotator"),
            {"dialogue": sorted({d for d, _a in pairs}), "annotator": sorted({a for _d, a in pairs})},
        )  # fmt: skip
        pks = {(d, a): pk for pk, d, a in rows if (d, a) in pairs}
    names = line_names or {}

    def line_of(r: AnnotationRecord) -> str:
        return (where(r) if where is not None else f"{names.get(r.file, r.file)}:{r.line}")[-300:]

    links = [
        ImportOverrideRating(override=record, annotation_id=pks[(dialogue_pk, user_pks[r.annotator_id])],
                             rule=rule, line=line_of(r))
        for rule in counts if rule != Rule.WEB_RATINGS for r, dialogue_pk in allowed[rule]
    ]  # fmt: skip
    links += [ImportOverrideRating(override=record, annotation_id=pk, rule=Rule.WEB_RATINGS, line=line_of(r))
              for pk, r in replaced]  # fmt: skip
    ImportOverrideRating.objects.bulk_create(links, batch_size=2_000)
    return record


def overridden_text(overridden: dict, *, override_id: int | None, by: str, reason: str) -> str:
    """What the overrides let in, as the commands say it: "; batch rules overridden (quota 2 rating(s)), recorded
    as import override #7 by alice: ..." (or what would be, in a dry run); "" when nothing was overridden."""
    if not overridden:
        return ""
    allowed = ", ".join(f"{rule} {n}" for rule, n in overridden.items())
    if override_id is not None:
        recorded = f"recorded as import override #{override_id} by {by}: {reason}"
        return f"; batch rules overridden ({allowed} rating(s)), {recorded}"
    return f"; batch rules that would be overridden: {allowed} rating(s) (nothing recorded)"
