"""The batch page's judge-calibration cards (issue 18), from annotation's reports (pure Python).

One card per audit kind (GV, then W2WR), for the newest audit of that kind; the older audits stay
reachable as downloads. The figures are ``calibration_tables``', so the card rounds exactly as the
Markdown and LaTeX exports do. ``label_text`` turns a scale code (``not_relevant``) into the words
the page shows (the view passes gettext); everything else is data that the template escapes.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from layer3.exports.calibration_tables import (
    KIND_NAMES,
    annotator_rows,
    bias_rows,
    calibrated_judges,
    confusion,
    disagreements,
    headline,
    human_figures,
    judge_name,
    judge_rows,
    pair_rows,
    percent,
    rate,
)

KIND_ORDER = ("gv", "w2wr")


def _kind(report: dict) -> str:
    return str((report.get("audit") or {}).get("kind") or "")


def newest_by_kind(reports: list[dict]) -> tuple[list[dict], list[dict]]:
    """(the newest report of each kind, GV first; every other report, newest first). Reports come newest first."""
    newest: dict[str, dict] = {}
    older = []
    for report in reports:
        kind = _kind(report)
        if kind in newest:
            older.append(report)
        else:
            newest[kind] = report
    order = {kind: i for i, kind in enumerate(KIND_ORDER)}
    return sorted(newest.values(), key=lambda r: order.get(_kind(r), len(order))), older


def _shown_time(text: object) -> str:
    """``2026-12-01 09:30`` from an ISO time; the text as it is when it is not one."""
    text = str(text or "")
    return text[:16].replace("T", " ") if len(text) >= 16 and text[10:11] == "T" else text


def _aware_time(text: object) -> datetime | None:
    """The ISO time as an aware datetime (the page shows it in its own time zone); None if it is not one."""
    try:
        moment = datetime.fromisoformat(str(text or ""))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None


def audit_summary(report: dict) -> dict:
    audit = report.get("audit") or {}
    return {
        "id": audit.get("id"),
        "name": str(audit.get("name", "")),
        "kind": _kind(report),
        "kind_name": KIND_NAMES.get(_kind(report), _kind(report)),
        "created": _shown_time(audit.get("createdAt")),
        "created_at": _aware_time(audit.get("createdAt")),  # shown in the site's time zone by the template
        "created_iso": str(audit.get("createdAt") or ""),
    }


def _progress(audit: dict) -> dict:
    items = audit.get("items") or 0
    rated = audit.get("ratedItems") or 0
    return {
        "items": items,
        "rated": rated,
        "complete": audit.get("completeItems") or 0,
        "per_item": audit.get("perItem"),
        "requested": audit.get("requestedSize"),
        "ratings": audit.get("ratings") or 0,
        "annotators": [str(name) for name in audit.get("annotators") or ()],
        "percent": percent(rated / items) if items else None,
    }


def _judge_details(judge: dict, report: dict, label_text: Callable[[str], str]) -> dict:
    matrix = confusion(judge, report)
    return {
        "name": judge_name(judge),
        "annotators": annotator_rows(judge),
        "confusion": {
            "rows_are": matrix.rows_are,
            "columns_are": matrix.columns_are,
            "columns": [{"value": value, "label": label_text(label)} for value, label in matrix.labels],
            "rows": [
                {"value": value, "label": label_text(label), "cells": cells, "total": total}
                for (value, label), cells, total in matrix.rows
            ],
            "column_totals": matrix.column_totals,
            "total": matrix.total,
        },
        "bias": bias_rows(judge),
        "disagreements": [
            {
                "key": row.key,
                "trial_id": row.trial_id,
                "model_config": row.model_config,
                "judge_score": entry.get("judgeScore"),
                "judge_label": label_text(str(entry.get("judgeLabel") or "")),
                "humans": row.humans,
                "item": row.item,
                "concern": str((entry.get("context") or {}).get("concern") or ""),
                "reasoning": row.reasoning,
            }
            for row, entry in zip(disagreements(judge, report), judge.get("disagreements") or (), strict=True)
        ],
    }


def calibration_card(report: dict, label_text: Callable[[str], str] = str) -> dict:
    """Everything one card shows: headline, progress, agreement tables, heat map, bias, rate, disagreements."""
    audit = report.get("audit") or {}
    judges = judge_rows(report)
    return {
        "audit": audit_summary(report),
        "progress": _progress(audit),
        "headline": headline(report),
        "judges": judges,
        "has_floor": any(row.baseline for row in judges),
        "humans": human_figures(report),
        "pairs": pair_rows(report),
        "details": [_judge_details(judge, report, label_text) for judge in calibrated_judges(report)],
        "rate": rate(report),
        "scale": [{"value": value, "label": label_text(label)} for value, label in _scale(report)],
        "consensus": str(report.get("consensusRule") or ""),
    }


def _scale(report: dict) -> list[tuple[int, str]]:
    return [(point.get("value"), str(point.get("label", ""))) for point in report.get("scale") or ()]


def calibration_cards(reports: list[dict], label_text: Callable[[str], str] = str) -> dict:
    """``{"cards": [...], "older": [audit summaries]}`` for the batch page."""
    newest, older = newest_by_kind(reports)
    return {
        "cards": [calibration_card(report, label_text) for report in newest],
        "older": [audit_summary(report) for report in older],
    }
