"""The parts of a quality flag's review page: the dialogue, every rating of the item, what the flag touches
and what accepting it does to the consensus. Every piece of data text is escaped (``format_html``)."""

from __future__ import annotations

from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from annotation.admin.common import local_time
from annotation.axes import AXES
from annotation.dashboard.flag_text import kind_label
from annotation.guidelines.scale import AXIS_NAMES
from annotation.models import Annotation, QualityFlag
from annotation.review.selectors import flag_exclusion


def _admin_url(site_name: str, name: str, *args) -> str | None:
    try:
        return reverse(f"{site_name}:{name}", args=args)
    except NoReverseMatch:  # the model is not on this admin site
        return None


def flag_item(flag: QualityFlag):
    """The dialogue a flag is about: its own, else its rating's (None for a flag on an annotator)."""
    if flag.dialogue_id is not None:
        return flag.dialogue
    return flag.annotation.dialogue if flag.annotation_id is not None else None


def flag_annotator(flag: QualityFlag):
    if flag.annotator_id is not None:
        return flag.annotator
    return flag.annotation.annotator if flag.annotation_id is not None else None


def dialogue_text(flag: QualityFlag) -> str:
    dialogue = flag_item(flag)
    if dialogue is None:
        return "—"
    speakers = {"user": _("User:"), "ai": _("AI:")}
    pairs = (
        (speakers.get(turn.get("speaker"), turn.get("speaker", "")), turn.get("text", "")) for turn in dialogue.context
    )
    turns = format_html_join("", '<p class="flag-turn"><b>{}</b> {}</p>', pairs)
    return format_html(
        '<div class="flag-dialogue" data-dialogue="{}">{}<p><b>{}</b> {}</p><p><b>{}</b> {}</p></div>',
        dialogue.external_id,
        turns,
        _("User:"),
        dialogue.user_text,
        _("AI:"),
        dialogue.response_text,
    )


def item_ratings(flag: QualityFlag, site_name: str) -> str:
    """Every rating of the flag's item, the flagged annotator's row marked."""
    dialogue = flag_item(flag)
    if dialogue is None:
        return "—"
    flagged = flag_annotator(flag)
    ratings = Annotation.objects.filter(dialogue=dialogue).select_related("annotator").order_by("annotator__username")
    head = format_html_join("", "<th>{}</th>", ((AXIS_NAMES[axis],) for axis in AXES))
    rows = []
    for rating in ratings:
        url = _admin_url(site_name, "annotation_annotation_change", rating.pk)
        who = rating.annotator.get_username()
        name = format_html('<a href="{}">{}</a>', url, who) if url else who
        cells = format_html_join(
            "",
            "<td>{} <small>({})</small></td>",
            ((getattr(rating, f"{axis}_score"), f"{getattr(rating, f'{axis}_confidence'):.2f}") for axis in AXES),
        )
        marked = flagged is not None and rating.annotator_id == flagged.pk
        rows.append(
            format_html(
                '<tr class="{}"><td>{}</td>{}<td>{}</td><td>{}</td></tr>',
                "flagged" if marked else "",
                name,
                cells,
                rating.get_source_display(),
                local_time(rating.created_at),
            )
        )
    if not rows:
        return _("No ratings of this item.")
    return format_html(
        '<table class="flag-ratings"><thead><tr><th>{}</th>{}<th>{}</th><th>{}</th></tr></thead><tbody>{}</tbody>'
        '</table><p class="help">{}</p>',
        _("annotator"),
        head,
        _("source"),
        _("timestamp"),
        format_html_join("", "{}", ((row,) for row in rows)),
        _("Score (confidence). The flagged annotator's row is marked."),
    )


def affected(flag: QualityFlag, site_name: str) -> str:
    """Links to the ratings the flag is about."""
    if flag.annotation_id is not None:
        url = _admin_url(site_name, "annotation_annotation_change", flag.annotation_id)
        label = f"{flag.annotation.dialogue.external_id} / {flag.annotation.annotator.get_username()}"
        return format_html('<a href="{}">{}</a>', url, label) if url else label
    changelist = _admin_url(site_name, "annotation_annotation_changelist")
    if changelist is None:
        return "—"
    dialogue = flag_item(flag)
    if dialogue is not None:
        return format_html('<a href="{}?q={}">{}</a>', changelist, dialogue.external_id, _("Every rating of this item"))
    if flag.annotator_id is not None:
        query = f"annotator__id__exact={flag.annotator_id}"
        if getattr(flag, "flag_batch", None):
            query += f"&dialogue__batch__id__exact={flag.flag_batch}"
        return format_html('<a href="{}?{}">{}</a>', changelist, query, _("This annotator's ratings in the batch"))
    return "—"


def other_flags(flag: QualityFlag, site_name: str) -> str:
    annotator = flag_annotator(flag)
    if annotator is None:
        return "—"
    others = list(
        QualityFlag.objects.filter(annotator=annotator).exclude(pk=flag.pk).order_by("-created_at", "-pk")[:20]
    )
    if not others:
        return _("None.")
    return format_html(
        '<ul class="flag-others">{}</ul>',
        format_html_join(
            "",
            '<li><a href="{}">{}</a> · {} · {}</li>',
            (
                (
                    _admin_url(site_name, "annotation_qualityflag_change", other.pk) or "#",
                    kind_label(other.kind),
                    AXIS_NAMES.get(other.axis, _("all axes")),
                    other.get_status_display(),
                )
                for other in others
            ),
        ),
    )


def consensus_effect(flag: QualityFlag) -> str:
    """What accepting the flag does (or does now, when accepted) to the consensus."""
    exclusion, count = flag_exclusion(flag)
    if exclusion is None:
        return _("Nothing: the flag names neither an annotator nor an item.")
    axes = _(", ").join(str(AXIS_NAMES[axis]) for axis in exclusion.axes)
    if exclusion.annotator is None:
        what = _("The item is rejected from the consensus on %(axes)s.") % {"axes": axes}
    elif exclusion.items is not None and len(exclusion.items) == 1 and (flag.annotation_id or flag.dialogue_id):
        what = _("%(annotator)s's rating of this item is left out of the consensus on %(axes)s.") % {
            "annotator": exclusion.annotator,
            "axes": axes,
        }
    else:
        what = ngettext(
            "%(annotator)s's ratings on %(axes)s are left out of the consensus (%(n)s rating).",
            "%(annotator)s's ratings on %(axes)s are left out of the consensus (%(n)s ratings).",
            count,
        ) % {"annotator": exclusion.annotator, "axes": axes, "n": count}
    if flag.status == QualityFlag.Status.ACCEPTED:
        return _("Accepted: %(what)s Dismiss or reopen the flag to put them back.") % {"what": what}
    return _("If accepted: %(what)s") % {"what": what}


def decision_preview(flags, status: str):
    """What the decision would do to the consensus and κ of the flags' batches, with each leaving item's reasons
    in words (``reasons_text``)."""
    # consensus (numpy) and the workspace: with the review page, not with the admin's autodiscovery (issue 31)
    from annotation.review.decision_preview import flag_decision_preview

    preview = flag_decision_preview(flags=flags, status=status)
    for batch in preview.batches:
        for item in batch.leaving:
            item.reasons_text = _reasons_text(item.reasons)
        for item in batch.changed:
            item.scores_text = _(", ").join(
                f"{AXIS_NAMES[axis]} {item.before.get(axis)} → {item.after.get(axis)}"
                for axis in AXES
                if item.before.get(axis) != item.after.get(axis)
            )
        batch.kappa_rows = [
            (AXIS_NAMES[axis], _kappa(old), _kappa(new), _delta(old, new)) for axis, old, new in batch.kappa
        ]
    return preview


def _reasons_text(reasons: dict) -> str:
    """The merge's reasons for rejecting an item, axes with the same reason named together."""
    from annotation.workspace.selectors_item import reject_reason_text

    by_text: dict[str, list[str]] = {}
    for axis in AXES:
        if axis in reasons:
            by_text.setdefault(reject_reason_text(reasons[axis]), []).append(axis)
    parts = []
    for text, axes in by_text.items():
        names = _("all axes") if len(axes) == len(AXES) else _(", ").join(str(AXIS_NAMES[axis]) for axis in axes)
        parts.append(f"{names}: {text}")
    return _("; ").join(parts)


def _kappa(value) -> str:
    return "—" if value is None else f"{value:.3f}"


def _delta(before, after) -> str:
    if before is None or after is None:
        return ""
    return f"{after - before:+.3f}"
