"""The JAIML annotation guideline data (seed 000, B.1/B.2): loading and marker lookup, and the entry point
to the scheme's vocabulary (``vocabulary``) and the files' validation (``validation``), re-exported here.

Pure Python (no Django), so scripts, the consistency rules and the web UI can all use it.

Files, all in ``annotation/guidelines/`` next to this module:

* ``markers.json`` -- the single source of the linguistic markers of B.1:
  ``{axis: {group: [marker, ...]}}`` for the four axes and their groups (see ``MARKER_GROUPS``),
  plus an optional ``"_exclusions"`` key ``{axis: [phrase, ...]}``: a marker occurrence that lies
  inside one of these phrases is not counted (「さすがに」 is not praise, 「いかがでしょうか」 is a
  polite suggestion rather than conjecture, 「私立」 is not self-reference).
* ``examples.json`` -- the reference examples (a list; see ``validate_examples`` for the shape).
* ``axis_definitions.md`` / ``edge_cases.md`` -- the guideline text for annotators.

The demo data set (``annotation/demo/dialogues.jsonl`` and ``reference_scores.json``) is loaded
here as well.

Matching: the text and the markers are NFKC-normalised (full-width ``ＡＩ`` and half-width kana
match their ordinary forms), then markers are searched as substrings. Longer markers win: an
occurrence that overlaps a longer occurrence of another marker of the same axis is dropped
(「ではないでしょうか」 is reported, not also 「でしょう」), and so is one inside an exclusion phrase. Spans returned by
``find_marker_spans`` are offsets into the *normalised* text (``normalize(text)``).

Loaded data are cached; the public functions return copies, so callers may modify them freely.
``clear_cache()`` forgets the cache (e.g. after editing the files in a running process).
"""

from __future__ import annotations

import copy
import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from annotation.axes import AXES as AXES
from annotation.axes import AXIS_LABELS_JA as AXIS_LABELS_JA
from annotation.axes import CONTEXT_WINDOW as CONTEXT_WINDOW
from annotation.axes import MIN_CONFIDENCE as MIN_CONFIDENCE
from annotation.guidelines.validation import _fail
from annotation.guidelines.validation import validate_context as validate_context
from annotation.guidelines.validation import validate_dialogue as validate_dialogue
from annotation.guidelines.validation import validate_examples as validate_examples
from annotation.guidelines.validation import validate_markers as validate_markers
from annotation.guidelines.validation import validate_reference_scores as validate_reference_scores
from annotation.guidelines.validation import validate_scores as validate_scores
from annotation.guidelines.vocabulary import AXIS_LABELS as AXIS_LABELS
from annotation.guidelines.vocabulary import CONTEXT_RADIUS as CONTEXT_RADIUS
from annotation.guidelines.vocabulary import EXCLUSIONS_KEY as EXCLUSIONS_KEY
from annotation.guidelines.vocabulary import LEVEL_LABELS as LEVEL_LABELS
from annotation.guidelines.vocabulary import LEVEL_LABELS_JA as LEVEL_LABELS_JA
from annotation.guidelines.vocabulary import LEVELS as LEVELS
from annotation.guidelines.vocabulary import MARKER_GROUP_LABELS_JA as MARKER_GROUP_LABELS_JA
from annotation.guidelines.vocabulary import MARKER_GROUPS as MARKER_GROUPS
from annotation.guidelines.vocabulary import SCALE_MAX as SCALE_MAX
from annotation.guidelines.vocabulary import SCALE_MIN as SCALE_MIN
from annotation.guidelines.vocabulary import SPEAKERS as SPEAKERS
from annotation.guidelines.vocabulary import normalize as normalize
from annotation.guidelines.vocabulary import split_sentences as split_sentences

GUIDELINES_DIR = Path(__file__).parent
DEMO_DIR = Path(__file__).parent.parent / "demo"
MARKERS_FILE = GUIDELINES_DIR / "markers.json"
EXAMPLES_FILE = GUIDELINES_DIR / "examples.json"
AXIS_DEFINITIONS_FILE = GUIDELINES_DIR / "axis_definitions.md"
EDGE_CASES_FILE = GUIDELINES_DIR / "edge_cases.md"
DEMO_DIALOGUES_FILE = DEMO_DIR / "dialogues.jsonl"
DEMO_REFERENCE_SCORES_FILE = DEMO_DIR / "reference_scores.json"

# --------------------------------------------------------------------------- loading


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path.name}: line {exc.lineno} column {exc.colno}: invalid JSON: {exc.msg}") from exc


@dataclass(frozen=True)
class _Lexicon:
    """markers.json, normalised and ready for matching."""

    groups: dict[str, dict[str, tuple[str, ...]]]  # as in the file (original spelling)
    exclusions: dict[str, tuple[str, ...]]
    # per axis: (normalised marker, group, original marker), longest first
    patterns: dict[str, tuple[tuple[str, str, str], ...]]


@functools.cache
def _lexicon() -> _Lexicon:
    data = _read_json(MARKERS_FILE)
    validate_markers(data, MARKERS_FILE.name)
    groups = {axis: {g: tuple(data[axis][g]) for g in MARKER_GROUPS[axis]} for axis in AXES}
    raw_exclusions = data.get(EXCLUSIONS_KEY, {})
    exclusions = {axis: tuple(normalize(p) for p in raw_exclusions.get(axis, [])) for axis in AXES}
    patterns = {
        axis: tuple(
            sorted(
                ((normalize(w), g, w) for g in MARKER_GROUPS[axis] for w in groups[axis][g]),
                key=lambda p: -len(p[0]),
            )
        )
        for axis in AXES
    }
    return _Lexicon(groups, exclusions, patterns)


@functools.cache
def _examples() -> tuple[dict, ...]:
    data = _read_json(EXAMPLES_FILE)
    validate_examples(data, EXAMPLES_FILE.name)
    return tuple(data)


@functools.cache
def _demo_dialogues() -> tuple[dict, ...]:
    source = DEMO_DIALOGUES_FILE.name
    items: list[dict] = []
    ids: set[str] = set()
    for lineno, line in enumerate(DEMO_DIALOGUES_FILE.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{source}: line {lineno}: invalid JSON: {exc.msg}") from exc
        validate_dialogue(item, source, f"line {lineno}")
        if item["id"] in ids:
            raise _fail(source, f"line {lineno}.id", f"duplicate id {item['id']!r}")
        ids.add(item["id"])
        items.append(item)
    return tuple(items)


@functools.cache
def _demo_reference_scores() -> dict[str, dict[str, int]]:
    data = _read_json(DEMO_REFERENCE_SCORES_FILE)
    validate_reference_scores(data, DEMO_REFERENCE_SCORES_FILE.name)
    return data


def clear_cache() -> None:
    """Forget the loaded files (they are read again on next use)."""
    for loader in (_lexicon, _examples, _demo_dialogues, _demo_reference_scores):
        loader.cache_clear()


def markers() -> dict[str, dict[str, list[str]]]:
    """The markers of markers.json: ``{axis: {group: [marker, ...]}}`` (a copy, original spelling)."""
    return {axis: {g: list(words) for g, words in groups.items()} for axis, groups in _lexicon().groups.items()}


def exclusions() -> dict[str, list[str]]:
    """The exclusion phrases per axis (normalised): marker occurrences inside them do not count."""
    return {axis: list(phrases) for axis, phrases in _lexicon().exclusions.items()}


def examples() -> list[dict]:
    """The reference examples of examples.json (validated; a deep copy)."""
    return copy.deepcopy(list(_examples()))


def demo_dialogues() -> list[dict]:
    """The demo data set, seed A.3 input records (validated; a deep copy)."""
    return copy.deepcopy(list(_demo_dialogues()))


def demo_reference_scores() -> dict[str, dict[str, int]]:
    """``{dialogue id: {axis: 1..5}}``: what a careful annotator would give each demo dialogue."""
    return copy.deepcopy(_demo_reference_scores())


def guideline_text(name: str) -> str:
    """The Markdown text of ``"axis_definitions"`` or ``"edge_cases"``."""
    files = {"axis_definitions": AXIS_DEFINITIONS_FILE, "edge_cases": EDGE_CASES_FILE}
    if name not in files:
        raise ValueError(f"unknown guideline document {name!r} (expected one of {', '.join(files)})")
    return files[name].read_text(encoding="utf-8")


# --------------------------------------------------------------------------- marker lookup


@dataclass(frozen=True)
class MarkerSpan:
    """One marker occurrence in the normalised text: ``normalize(text)[start:end]``."""

    start: int
    end: int
    axis: str
    group: str
    marker: str  # as spelled in markers.json


def _check_axis(axis: str) -> None:
    if axis not in AXES:
        raise ValueError(f"unknown axis {axis!r} (expected one of {', '.join(AXES)})")


def _occurrences(haystack: str, needle: str) -> list[tuple[int, int]]:
    found = []
    start = haystack.find(needle)
    while start != -1:
        found.append((start, start + len(needle)))
        start = haystack.find(needle, start + 1)
    return found


def find_marker_spans(text: str, axis: str) -> list[MarkerSpan]:
    """The marker occurrences of one axis in ``normalize(text)``, in text order, without overlaps.

    Longer markers win over the shorter ones they contain; occurrences inside an exclusion phrase
    of the axis are dropped.
    """
    _check_axis(axis)
    lexicon = _lexicon()
    norm = normalize(text)
    excluded = [span for phrase in lexicon.exclusions[axis] for span in _occurrences(norm, phrase)]
    taken: list[tuple[int, int]] = []
    spans: list[MarkerSpan] = []
    for needle, group, original in lexicon.patterns[axis]:  # longest first
        for start, end in _occurrences(norm, needle):
            if any(s <= start and end <= e for s, e in excluded):
                continue
            if any(start < e and s < end for s, e in taken):
                continue
            taken.append((start, end))
            spans.append(MarkerSpan(start, end, axis, group, original))
    spans.sort(key=lambda s: s.start)
    return spans


def find_markers(text: str, axis: str) -> dict[str, list[str]]:
    """Which marker groups of ``axis`` occur in ``text`` and with which markers.

    Returns ``{group: [marker, ...]}`` with only the groups found, the markers unique and in
    order of first occurrence, spelled as in markers.json. ``{}`` when none occurs.
    """
    found: dict[str, list[str]] = {}
    for span in find_marker_spans(text, axis):
        words = found.setdefault(span.group, [])
        if span.marker not in words:
            words.append(span.marker)
    return {group: found[group] for group in MARKER_GROUPS[axis] if group in found}


def find_all_markers(text: str) -> dict[str, dict[str, list[str]]]:
    """``find_markers`` for every axis: ``{axis: {group: [marker, ...]}}`` (axes without markers omitted)."""
    result = {axis: find_markers(text, axis) for axis in AXES}
    return {axis: groups for axis, groups in result.items() if groups}
