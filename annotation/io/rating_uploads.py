"""Ratings files uploaded over HTTP (the API's ``annotations/import/`` and a batch page's upload).

An upload is kept under ``VAR_DIR/uploads/ratings`` first (a request body or a form's file, counted
as it streams in), then imported by ``annotations_import``, the service of ``manage.py
import_annotations``: every line is checked first, any problem stores nothing, and each problem is
located (file as the user named it, line, JSON path). A small file is imported while the client
waits; a large one (``is_large``, the same thresholds as the dialogue uploads) by a worker, as the
job ``annotation.ratings_upload``, which keeps the file until it ends and leaves its summary or its
problems in the job's result.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from pathlib import Path

from django.db import IntegrityError
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop, ngettext, pgettext

from annotation.io.import_rules import RULES, RatingOverrides
from annotation.io.imports import MAX_IGNORED_KEYS, ImportSummary, annotations_import, ignored_keys_text
from annotation.models import Batch, ImportOverrideRating
from core.job_display import register_job_display
from core.job_runner import JobRefused
from core.jobs import job_handler
from core.jsonl import InputError, Problem
from core.models import Job
from core.problem_text import problem_row
from core.services import job_enqueue
from core.uploads import NOTHING_KEPT, TextUpload, discard_on_end, stream_keep, upload_keep
from core.uploads import upload_discard as kept_discard

RATINGS_UPLOAD = "annotation.ratings_upload"
UPLOAD_SETTING = "UPLOAD_MAX_BYTES_RATINGS"
UPLOAD_FOLDER = Path("uploads") / "ratings"  # under VAR_DIR
DEFAULT_NAME = "ratings.jsonl"
# Above either a worker imports the file (as the dialogue uploads: annotation.workspace.uploads).
LARGE_UPLOAD_BYTES = 2 * 1024 * 1024
LARGE_UPLOAD_LINES = 5_000
# How each surface names the import's options in the problems' hints (msgids).
OPTION_NAMES = {
    "api": {
        "update": "update=true",
        "ignore_unknown_keys": "ignore_unknown_keys=true",
        "allow_over_quota": "allow_over_quota=true",
        "allow_unchosen_annotators": "allow_unchosen_annotators=true",
        "allow_unqualified_annotators": "allow_unqualified_annotators=true",
        "replace_web_ratings": "replace_web_ratings=true",
        "allow_closed_batch": "allow_closed_batch=true",
    },
    "page": {
        "update": gettext_noop("the option “Replace ratings that differ”"),
        "ignore_unknown_keys": gettext_noop("the option “Ignore unknown fields”"),
        "allow_over_quota": gettext_noop("the option “Allow more ratings than the quota”"),
        "allow_unchosen_annotators": gettext_noop("the option “Allow annotators not chosen for the batch”"),
        "allow_unqualified_annotators": gettext_noop("the option “Allow annotators without a valid qualification”"),
        "replace_web_ratings": gettext_noop("the option “Also replace ratings made on the web”"),
        "allow_closed_batch": gettext_noop("the option “Allow ratings in a closed batch”"),
    },
}


@dataclass(frozen=True)
class RuleOptions:
    """An upload's options beyond ``dry_run`` and ``update``: the overrides of the batch's rules
    (``annotation.io.import_rules``) with their reason, and whether unknown fields are ignored."""

    allow_over_quota: bool = False
    allow_unchosen_annotators: bool = False
    allow_unqualified_annotators: bool = False
    replace_web_ratings: bool = False
    allow_closed_batch: bool = False
    ignore_unknown_keys: bool = False
    reason: str = ""

    def params(self) -> dict:
        """As a job's params keep them."""
        return asdict(self)

    @classmethod
    def from_params(cls, params: dict) -> RuleOptions:
        """From a job's params: a flag is set only by ``true``; the reason only by a text."""
        values = {f.name: params.get(f.name) is True for f in fields(cls) if f.name != "reason"}
        reason = params.get("reason")
        return cls(**values, reason=reason if isinstance(reason, str) else "")

    def overrides(self, user, *, job_id=None) -> RatingOverrides:
        """The overrides as ``user`` asked for them (a job whose creator's account is gone names the job)."""
        return RatingOverrides(
            allow_over_quota=self.allow_over_quota,
            allow_unchosen_annotators=self.allow_unchosen_annotators,
            allow_unqualified_annotators=self.allow_unqualified_annotators,
            replace_web_ratings=self.replace_web_ratings,
            allow_closed_batch=self.allow_closed_batch,
            reason=self.reason,
            by=user,
            by_name="" if user is not None else f"job {job_id} (its creator's account was deleted)",
        )


class RatingsUpload(TextUpload):
    """A kept ratings file."""

    @property
    def is_large(self) -> bool:
        return self.size > LARGE_UPLOAD_BYTES or self.lines > LARGE_UPLOAD_LINES


class UploadRejected(Exception):
    """An upload that stored nothing: ``problems`` are rows (``core.problem_text.problem_row``), at most
    ``MAX_PROBLEMS``; ``total`` is how many were found."""

    def __init__(self, problems: list[dict], *, truncated: bool = False, total: int | None = None) -> None:
        self.problems = problems
        self.truncated = truncated
        self.total = max(total or 0, len(problems))
        super().__init__(f"{self.total} problem(s); nothing was stored")


def ratings_file_keep(uploaded) -> RatingsUpload:
    """Keep a form's uploaded file (a refused one raises its ``UploadTooLarge``)."""
    return RatingsUpload.of(upload_keep(uploaded, folder=UPLOAD_FOLDER, default_name=DEFAULT_NAME))


def ratings_body_keep(read, *, name: str = DEFAULT_NAME) -> RatingsUpload:
    """Keep a request body read with ``read(n)``; ``UploadTooLarge`` past its limit (nothing is kept)."""
    return RatingsUpload.of(stream_keep(read, folder=UPLOAD_FOLDER, name=name, setting=UPLOAD_SETTING))


def ratings_upload_discard(upload: RatingsUpload) -> None:
    kept_discard(upload.path, folder=UPLOAD_FOLDER)


def ratings_upload_import(
    *, upload: RatingsUpload, batch: Batch | None, user, dry_run: bool = False, update: bool = False,
    surface: str = "api", rules: RuleOptions | None = None, job_id=None,
) -> ImportSummary:  # fmt: skip
    """``annotations_import`` of a kept upload (restricted to ``batch`` when given); ``UploadRejected`` with every
    problem located as the user knows the file when anything is wrong: nothing is stored then. ``rules`` are the
    overrides (by ``user``, recorded with the import when they let anything in) and ``ignore_unknown_keys``."""
    rules = rules or RuleOptions()
    try:
        return annotations_import(
            paths=[upload.path], dry_run=dry_run, update=update, edited_by=user, batch=batch,
            option_names=OPTION_NAMES[surface], overrides=rules.overrides(user, job_id=job_id),
            ignore_unknown_keys=rules.ignore_unknown_keys, surface=surface, job_id=job_id,
            file_names={str(upload.path): upload.name},
        )  # fmt: skip
    except InputError as exc:
        names = {str(upload.path): upload.name}
        # In the file's order (the checks of the values come after the checks of each line's fields).
        ordered = sorted(exc.problems, key=lambda p: (p.file, p.line or 0))
        rows = [problem_row(p, names=names) for p in ordered]
        raise UploadRejected(rows, truncated=exc.truncated, total=exc.total) from None
    except IntegrityError:
        # Another request stored a rating of the same item and annotator, or deleted a dialogue, meanwhile.
        template = gettext_noop(
            "the stored ratings or dialogues changed while this file was being imported (another upload or a "
            "deletion at the same time); nothing was stored, upload the file again"
        )
        raise UploadRejected([problem_row(Problem.of(upload.name, None, "$", template))]) from None


def ratings_upload_enqueue(
    *, upload: RatingsUpload, batch: Batch | None, user, dry_run: bool = False, update: bool = False,
    surface: str = "api", rules: RuleOptions | None = None,
) -> Job:  # fmt: skip
    """The job importing a kept upload in the worker; the kept file is discarded when the job cannot be queued."""
    params = {"batch_id": batch.pk if batch is not None else None, **upload.job_params(), "dry_run": dry_run,
              "update": update, "surface": surface, **(rules or RuleOptions()).params()}  # fmt: skip
    try:
        return job_enqueue(kind=RATINGS_UPLOAD, params=params, user=user)
    except BaseException:
        ratings_upload_discard(upload)
        raise


@job_handler(
    RATINGS_UPLOAD,
    kept=NOTHING_KEPT,
    on_ended=discard_on_end(UPLOAD_FOLDER),
)
def ratings_upload(job, progress) -> dict:
    """Params ``{"batch_id" (or null: any batch), "file" (below VAR_DIR), "name" (the user's file name), "lines",
    "dry_run", "update", "surface" ("api" or "page": how the problems' hints name the options), and the
    ``RuleOptions``: "allow_over_quota", "allow_unchosen_annotators", "allow_unqualified_annotators",
    "replace_web_ratings", "allow_closed_batch", "ignore_unknown_keys" and "reason"}`` (a flag absent is
    false). The overrides are recorded as the job's creator's, with the job's id; the result says what they let
    in."""
    params = job.params
    batch = None
    if params.get("batch_id") is not None:
        batch = Batch.objects.filter(pk=params["batch_id"]).first()
        if batch is None:
            raise ValueError(f"params.batch_id: no batch with id {params['batch_id']!r} (deleted?)")
    surface = params.get("surface") if params.get("surface") in OPTION_NAMES else "api"
    upload = RatingsUpload.from_job(params, folder=UPLOAD_FOLDER)
    base = {"batch_id": batch.pk if batch else None, "batch_name": batch.name if batch else None, "file": upload.name}
    try:
        progress(0, max(upload.lines, 1), f"checking and storing {upload.lines} lines of {upload.name}", force=True)
        try:
            summary = ratings_upload_import(
                upload=upload, batch=batch, user=job.created_by, dry_run=params.get("dry_run") is True,
                update=params.get("update") is True, surface=surface, rules=RuleOptions.from_params(params),
                job_id=job.pk,
            )  # fmt: skip
        except UploadRejected as exc:
            # The runner saves this job object's result with the failure: the API and the batch page show them.
            job.result = {**base, "problems": exc.problems, "truncated": exc.truncated, "total": exc.total}
            raise JobRefused(f"{upload.name}: {exc.total} problem(s); nothing was stored") from None
        # (The dialogue uploads register how the pages show that message.)
        # No progress report after the import: it would check for a cancel request, and the ratings are stored.
    finally:
        ratings_upload_discard(upload)
    return {**base, **summary_counts(summary)}


def summary_counts(summary: ImportSummary) -> dict:
    """What an import did, as the API answers it and a job keeps it: the counts, the unknown fields ignored
    (the ``MAX_IGNORED_KEYS`` most frequent, with how many more), the ratings each override let past its rule
    (every rule, 0 when none) and the override's record (None in a dry run, or when nothing was overridden)."""
    ignored = list(summary.ignored_keys.items())
    override = None
    if summary.override_id is not None:
        override = {"id": summary.override_id, "by": summary.override_by, "reason": summary.override_reason}
    return {"created": summary.created, "updated": summary.updated, "unchanged": summary.unchanged,
            "users_created": summary.users_created, "dry_run": summary.dry_run,
            "ignored_keys": [{"key": key, "lines": n} for key, n in ignored[:MAX_IGNORED_KEYS]],
            "ignored_keys_more": max(0, len(ignored) - MAX_IGNORED_KEYS),
            "overridden": {str(rule): summary.overridden.get(str(rule), 0) for rule in RULES},
            "override": override}  # fmt: skip


def ratings_summary_text(result: dict) -> str:
    """What an upload of ratings did (or would do, in a dry run), in people's words."""
    values = {key: f"{result.get(key, 0):,}" for key in ("created", "updated", "unchanged", "users_created")}
    values["file"] = result.get("file") or DEFAULT_NAME
    if result.get("dry_run"):
        text = _(
            "Dry run of %(file)s, nothing was stored: %(created)s new ratings, %(updated)s to replace, "
            "%(unchanged)s stored already."
        )
    else:
        text = _("%(file)s: %(created)s ratings stored, %(updated)s replaced, %(unchanged)s stored already.")
    text %= values
    if n := result.get("users_created"):
        accounts = ngettext(
            "%(users_created)s annotator account was created for an annotator id seen only in the file.",
            "%(users_created)s annotator accounts were created for annotator ids seen only in the file.",
            n,
        )
        if result.get("dry_run"):
            accounts = ngettext(
                "%(users_created)s annotator account would be created.",
                "%(users_created)s annotator accounts would be created.",
                n,
            )
        text = pgettext("two sentences", "%(first)s %(second)s") % {"first": text, "second": accounts % values}
    for sentence in _rules_sentences(result):
        text = pgettext("two sentences", "%(first)s %(second)s") % {"first": text, "second": sentence}
    return text


def _rules_sentences(result: dict) -> list[str]:
    """What an upload's options let through: unknown fields ignored, overrides of the batch's rules (recorded)."""
    sentences = []
    ignored = {row["key"]: row["lines"] for row in result.get("ignored_keys") or [] if isinstance(row, dict)}
    if ignored:
        keys = ignored_keys_text(ignored)
        if more := result.get("ignored_keys_more"):
            keys = f"{keys}, +{more:,}"
        sentences.append(_("Unknown fields ignored: %(keys)s.") % {"keys": keys})
    sentence = overrides_sentence(result.get("overridden"), result.get("override"), dry_run=bool(result.get("dry_run")))
    if sentence:
        sentences.append(sentence)
    return sentences


def overrides_sentence(overridden: dict | None, override, *, dry_run: bool = False) -> str:
    """What the overrides of the batch's rules let in (``overridden``: ratings per rule) and their record
    (``override``: ``{id, by, reason}``, None when nothing was recorded), in people's words; "" without any."""
    overridden = {rule: n for rule, n in (overridden or {}).items() if n}
    if not overridden:
        return ""
    labels = dict(ImportOverrideRating.Rule.choices)
    rules = ", ".join(_("%(rule)s: %(n)s") % {"rule": labels.get(rule, rule), "n": f"{n:,}"}
                      for rule, n in overridden.items())  # fmt: skip
    if dry_run:
        return _("These ratings would pass the batch's rules by an override: %(rules)s (nothing is recorded "
                 "in a dry run).") % {"rules": rules}  # fmt: skip
    if isinstance(override, dict):
        return _("These ratings passed the batch's rules by an override: %(rules)s; recorded as import "
                 "override #%(id)s by %(by)s.") % {"rules": rules, "id": override.get("id"),
                                                    "by": override.get("by")}  # fmt: skip
    return _("These ratings passed the batch's rules by an override: %(rules)s.") % {"rules": rules}


def _job_summary(result: dict) -> tuple[str, str | None]:
    url = reverse("annotation:batch", args=[result["batch_id"]]) if result.get("batch_id") else None
    return ratings_summary_text(result), url


register_job_display(RATINGS_UPLOAD, gettext_lazy("Ratings upload"), _job_summary)
