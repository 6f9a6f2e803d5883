"""How verdicts change under another rule set: the Markdown report of ``director_replay`` (pure).

For tuning over-sensitivity before a rule change ships: the statuses under each rule set, how many
utterances each rule flagged (WARN / RETRY) under each, the transition table (baseline status ×
new status) and every utterance whose status or findings changed, with the findings that appeared
or disappeared and their evidence. First, the settings that differ between the two rule sets
(``director.rules.diff``: thresholds, word lists, messages, review and session limits, characters and
their personas), or a note that they were not compared (a baseline of stored verdicts has none).
Every text from the data is escaped (``core.markdown_text``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from core.markdown_text import escape_markdown

STATUSES = ("PASS", "WARN", "RETRY", "MODIFY")
TEXT_CHARS = 120  # of an utterance quoted in the list of changes


@dataclass(frozen=True)
class RuleSide:
    label: str  # the file (or "stored verdicts")
    version: str
    content_hash: str


@dataclass(frozen=True)
class ReplayLine:
    id: str
    speaker: str
    text: str
    baseline: dict  # verdict dict (status, findings, ...)
    new: dict


def _finding_keys(verdict: dict) -> Counter:
    """Findings compared by rule, status and evidence text (messages may differ by language or wording)."""
    return Counter(
        (f["rule"], f["status"], tuple(e.get("text", "") for e in f.get("evidence", ()))) for f in verdict["findings"]
    )


def _rule_counts(lines: Sequence[ReplayLine], side: str) -> Counter:
    """``(rule, status) -> utterances`` with at least one such finding."""
    counts: Counter = Counter()
    for line in lines:
        counts.update({(f["rule"], f["status"]) for f in getattr(line, side)["findings"]})
    return counts


def changed(line: ReplayLine) -> bool:
    return line.baseline["status"] != line.new["status"] or _finding_keys(line.baseline) != _finding_keys(line.new)


def _row(cells) -> str:
    return "| " + " | ".join(str(cell) for cell in cells) + " |\n"


def _describe(finding_key: tuple) -> str:
    rule, status, evidence = finding_key
    quoted = ", ".join(f"「{escape_markdown(text)}」" for text in evidence if text)
    return f"{escape_markdown(rule)} {status}" + (f" ({quoted})" if quoted else "")


def _setting(change) -> str:
    """One ``director.rules.diff.SettingChange`` as a Markdown list item."""
    if change.kind == "value":
        detail = f"{escape_markdown(change.before)} → {escape_markdown(change.after)}"
    elif change.kind in ("added", "removed"):
        value = change.after if change.kind == "added" else change.before
        detail = change.kind + (f" ({escape_markdown(value)})" if value else "")
    elif change.kind == "items":
        parts = [f"{label} {', '.join(escape_markdown(item) for item in items)}"
                 for label, items in (("added", change.added), ("removed", change.removed)) if items]  # fmt: skip
        detail = "; ".join(parts)
    elif change.kind == "order":
        detail = "the same items in another order"
    else:
        detail = "changed"
    return f"- {escape_markdown(change.path)}: {detail}\n"


def iter_report(
    lines: Sequence[ReplayLine], *, baseline: RuleSide, new: RuleSide, settings: Sequence | None = None
) -> Iterator[str]:
    """The report as Markdown chunks; ``settings``: the changed settings (``settings_diff``), None when the
    baseline is no rule set."""
    yield "# Director replay\n\n"
    for name, side in (("Baseline", baseline), ("New", new)):
        yield (
            f"- {name}: {escape_markdown(side.label)}, rules version {escape_markdown(side.version)} "
            f"(hash `{side.content_hash[:12]}`)\n"
        )
    changes = [line for line in lines if changed(line)]
    yield f"- Utterances: {len(lines)}; changed: {len(changes)}\n\n"

    yield "## Changed settings\n\n"
    if settings is None:
        yield "Not compared: the baseline is stored verdicts, not a rule set.\n\n"
    elif not settings:
        yield "None: the two rule sets have the same settings.\n\n"
    else:
        yield "".join(_setting(change) for change in settings) + "\n"

    yield "## Statuses\n\n"
    before = Counter(line.baseline["status"] for line in lines)
    after = Counter(line.new["status"] for line in lines)
    yield _row(["Status", "Baseline", "New", "Change"])
    yield _row([":---", "---:", "---:", "---:"])
    for status in STATUSES:
        yield _row([status, before[status], after[status], f"{after[status] - before[status]:+d}"])

    yield "\n## Utterances flagged per rule\n\n"
    old_rules, new_rules = _rule_counts(lines, "baseline"), _rule_counts(lines, "new")
    rules = sorted({rule for rule, _status in old_rules} | {rule for rule, _status in new_rules})
    yield _row(["Rule", "Baseline WARN", "Baseline RETRY", "New WARN", "New RETRY"])
    yield _row([":---", "---:", "---:", "---:", "---:"])
    for rule in rules:
        yield _row(
            [escape_markdown(rule)]
            + [counts[(rule, status)] for counts in (old_rules, new_rules) for status in ("WARN", "RETRY")]
        )
    if not rules:
        yield "\nNo rule flagged any utterance under either rule set.\n"

    yield "\n## Transitions (rows: baseline, columns: new)\n\n"
    transitions = Counter((line.baseline["status"], line.new["status"]) for line in lines)
    yield _row(["Baseline \\\\ New", *STATUSES, "Total"])
    yield _row([":---", *("---:" for _ in STATUSES), "---:"])
    for old in STATUSES:
        yield _row([old, *(transitions[(old, status)] for status in STATUSES), before[old]])

    yield f"\n## Changed utterances ({len(changes)})\n\n"
    if not changes:
        yield "None: every utterance keeps its status and findings.\n"
    for line in changes:
        text = line.text if len(line.text) <= TEXT_CHARS else line.text[:TEXT_CHARS] + "…"
        yield (
            f"- `{escape_markdown(line.id).replace('`', '')}` ({escape_markdown(line.speaker)}): "
            f"**{line.baseline['status']} → {line.new['status']}** — {escape_markdown(text)}\n"
        )
        old_keys, new_keys = _finding_keys(line.baseline), _finding_keys(line.new)
        gone, came = old_keys - new_keys, new_keys - old_keys
        if gone:
            yield "  - no longer: " + "; ".join(_describe(key) for key in sorted(gone)) + "\n"
        if came:
            yield "  - now: " + "; ".join(_describe(key) for key in sorted(came)) + "\n"
