"""The JAIML annotation guideline data (seed 000, B.1/B.2): loading, validation and marker lookup.

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
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from annotation.axes import AXES as AXES
from annotation.axes import AXIS_LABELS_JA as AXIS_LABELS_JA
from annotation.axes import CONTEXT_WINDOW as CONTEXT_WINDOW
from annotation.axes import MAX_CONTEXT_OFFSET, SCORE_LABELS, SCORES
from annotation.axes import MIN_CONFIDENCE as MIN_CONFIDENCE

GUIDELINES_DIR = Path(__file__).parent
DEMO_DIR = Path(__file__).parent.parent / "demo"
MARKERS_FILE = GUIDELINES_DIR / "markers.json"
EXAMPLES_FILE = GUIDELINES_DIR / "examples.json"
AXIS_DEFINITIONS_FILE = GUIDELINES_DIR / "axis_definitions.md"
EDGE_CASES_FILE = GUIDELINES_DIR / "edge_cases.md"
DEMO_DIALOGUES_FILE = DEMO_DIR / "dialogues.jsonl"
DEMO_REFERENCE_SCORES_FILE = DEMO_DIR / "reference_scores.json"

AXIS_LABELS: dict[str, str] = {
    "social": "Social ingratiation",
    "avoidant": "Avoidant ingratiation",
    "mechanical": "Mechanical ingratiation",
    "self": "Self-ingratiation",
}
MARKER_GROUPS: dict[str, tuple[str, ...]] = {
    "social": ("praise", "intensifier", "agreement"),
    "avoidant": ("conjecture", "conditional", "hedge"),
    "mechanical": ("formula", "meta"),
    "self": ("self_reference", "capability", "comparative"),
}
MARKER_GROUP_LABELS_JA: dict[str, str] = {
    "praise": "賞賛語",
    "intensifier": "強調副詞",
    "agreement": "同意構文",
    "conjecture": "推量表現",
    "conditional": "条件節",
    "hedge": "ヘッジ表現",
    "formula": "定型句",
    "meta": "メタ言語",
    "self_reference": "自己参照語",
    "capability": "能力表現",
    "comparative": "比較優位",
}
EXCLUSIONS_KEY = "_exclusions"

# Seed A.4; the scheme itself (axes, scale, thresholds) lives in annotation.axes.
LEVELS: tuple[int, ...] = SCORES
SCALE_MIN = min(SCORES)
SCALE_MAX = max(SCORES)
LEVEL_LABELS: dict[int, str] = SCORE_LABELS
LEVEL_LABELS_JA: dict[int, str] = {1: "なし", 2: "わずか", 3: "中程度", 4: "強い", 5: "極度"}
CONTEXT_RADIUS = MAX_CONTEXT_OFFSET  # context "turn" offsets are -3..-1 (before) and +1..+3 (after)
SPEAKERS: tuple[str, ...] = ("user", "ai")

_EXAMPLE_KEYS_REQUIRED = ("id", "axis", "user", "response", "context", "expected", "explanation")
_EXAMPLE_KEYS_OPTIONAL = ("expected_flags",)
_RULE_ID = re.compile(r"^C\d{3}$")
_SENTENCE_END = re.compile(r"(?<=[。！？!?])|\n+")


# --------------------------------------------------------------------------- text helpers


def normalize(text: str) -> str:
    """NFKC normalisation, applied to texts and markers before matching."""
    return unicodedata.normalize("NFKC", text)


def split_sentences(text: str) -> list[str]:
    """Split a (normalised) Japanese text into sentences at 。！？!? and line breaks; drops empty pieces.

    A closing bracket or quote right after the end mark stays with its sentence (「…。」).
    """
    text = normalize(text)
    sentences: list[str] = []
    for piece in _SENTENCE_END.split(text):
        piece = piece.strip()
        if not piece:
            continue
        # 「〜です。」 -> the closing 」 belongs to the previous sentence.
        while sentences and piece[0] in "」』)）】\"'":
            sentences[-1] += piece[0]
            piece = piece[1:].strip()
            if not piece:
                break
        if piece:
            sentences.append(piece)
    return sentences


# --------------------------------------------------------------------------- validation


def _fail(source: str, path: str, problem: str) -> ValueError:
    return ValueError(f"{source}: {path}: {problem}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_text(value: Any, source: str, path: str) -> None:
    if not isinstance(value, str) or not value.strip():
        raise _fail(source, path, f"expected a non-empty string, got {value!r}")


def validate_markers(data: Any, source: str = "markers.json") -> None:
    """Check the shape of markers.json; raise ValueError naming the file and the JSON path."""
    if not isinstance(data, dict):
        raise _fail(source, "$", "expected an object {axis: {group: [markers]}}")
    unknown = sorted(set(data) - set(AXES) - {EXCLUSIONS_KEY})
    if unknown:
        raise _fail(source, f"$.{unknown[0]}", f"unknown axis (expected one of {', '.join(AXES)})")
    for axis in AXES:
        groups = data.get(axis)
        if not isinstance(groups, dict):
            raise _fail(source, f"$.{axis}", "missing or not an object {group: [markers]}")
        expected = MARKER_GROUPS[axis]
        extra = sorted(set(groups) - set(expected))
        if extra:
            raise _fail(source, f"$.{axis}.{extra[0]}", f"unknown group (expected {', '.join(expected)})")
        seen: dict[str, str] = {}
        for group in expected:
            words = groups.get(group)
            if not isinstance(words, list) or not words:
                raise _fail(source, f"$.{axis}.{group}", "missing or not a non-empty list of strings")
            for i, word in enumerate(words):
                path = f"$.{axis}.{group}[{i}]"
                _check_text(word, source, path)
                if word != word.strip():
                    raise _fail(source, path, f"marker {word!r} has surrounding whitespace")
                key = normalize(word)
                if key in seen:
                    raise _fail(source, path, f"duplicate marker {word!r} (already in {seen[key]})")
                seen[key] = f"$.{axis}.{group}"
    exclusions = data.get(EXCLUSIONS_KEY, {})
    if not isinstance(exclusions, dict):
        raise _fail(source, f"$.{EXCLUSIONS_KEY}", "expected an object {axis: [phrases]}")
    for axis, phrases in exclusions.items():
        path = f"$.{EXCLUSIONS_KEY}.{axis}"
        if axis not in AXES:
            raise _fail(source, path, f"unknown axis (expected one of {', '.join(AXES)})")
        if not isinstance(phrases, list):
            raise _fail(source, path, "expected a list of strings")
        for i, phrase in enumerate(phrases):
            _check_text(phrase, source, f"{path}[{i}]")


def validate_context(context: Any, source: str, path: str) -> None:
    """Check a seed A.3 context list: turns -3..-1 / +1..+3 (unique), speaker user|ai, non-empty text."""
    if not isinstance(context, list):
        raise _fail(source, path, "expected a list of {turn, speaker, text}")
    turns: set[int] = set()
    for i, item in enumerate(context):
        item_path = f"{path}[{i}]"
        if not isinstance(item, dict):
            raise _fail(source, item_path, "expected an object {turn, speaker, text}")
        extra = sorted(set(item) - {"turn", "speaker", "text"})
        if extra:
            raise _fail(source, f"{item_path}.{extra[0]}", "unknown key")
        turn = item.get("turn")
        if not _is_int(turn) or turn == 0 or abs(turn) > CONTEXT_RADIUS:
            raise _fail(
                source,
                f"{item_path}.turn",
                f"expected an integer offset -{CONTEXT_RADIUS}..-1 or 1..{CONTEXT_RADIUS}, got {turn!r}",
            )
        if turn in turns:
            raise _fail(source, f"{item_path}.turn", f"duplicate turn {turn}")
        turns.add(turn)
        if item.get("speaker") not in SPEAKERS:
            raise _fail(source, f"{item_path}.speaker", f"expected 'user' or 'ai', got {item.get('speaker')!r}")
        _check_text(item.get("text"), source, f"{item_path}.text")


def validate_scores(scores: Any, source: str, path: str) -> None:
    """Check {axis: int 1..5} for exactly the four axes."""
    if not isinstance(scores, dict):
        raise _fail(source, path, "expected an object {axis: 1..5}")
    extra = sorted(set(scores) - set(AXES))
    if extra:
        raise _fail(source, f"{path}.{extra[0]}", "unknown axis")
    for axis in AXES:
        value = scores.get(axis)
        if not _is_int(value) or not SCALE_MIN <= value <= SCALE_MAX:
            raise _fail(source, f"{path}.{axis}", f"expected an integer {SCALE_MIN}..{SCALE_MAX}, got {value!r}")


def validate_dialogue(item: Any, source: str, path: str = "$") -> None:
    """Check one seed A.3 input record {"id", "user", "response", "context"}."""
    if not isinstance(item, dict):
        raise _fail(source, path, "expected an object {id, user, response, context}")
    extra = sorted(set(item) - {"id", "user", "response", "context"})
    if extra:
        raise _fail(source, f"{path}.{extra[0]}", "unknown key")
    for key in ("id", "user", "response"):
        _check_text(item.get(key), source, f"{path}.{key}")
    validate_context(item.get("context"), source, f"{path}.context")


def validate_examples(data: Any, source: str = "examples.json") -> None:
    """Check the shape of examples.json; raise ValueError naming the file and the JSON path.

    Each entry: ``{"id", "axis", "user", "response", "context", "expected", "explanation"}`` and
    optionally ``"expected_flags"``: the consistency rule ids (``"C001"``) the example is known to
    trigger, explained in its explanation (the rules are heuristics; such an example teaches where).
    """
    if not isinstance(data, list) or not data:
        raise _fail(source, "$", "expected a non-empty list of examples")
    ids: set[str] = set()
    for i, item in enumerate(data):
        path = f"$[{i}]"
        if not isinstance(item, dict):
            raise _fail(source, path, "expected an object")
        for key in _EXAMPLE_KEYS_REQUIRED:
            if key not in item:
                raise _fail(source, f"{path}.{key}", "missing")
        extra = sorted(set(item) - set(_EXAMPLE_KEYS_REQUIRED) - set(_EXAMPLE_KEYS_OPTIONAL))
        if extra:
            raise _fail(source, f"{path}.{extra[0]}", "unknown key")
        for key in ("id", "user", "response", "explanation"):
            _check_text(item[key], source, f"{path}.{key}")
        if item["id"] in ids:
            raise _fail(source, f"{path}.id", f"duplicate id {item['id']!r}")
        ids.add(item["id"])
        if item["axis"] not in AXES:
            raise _fail(source, f"{path}.axis", f"expected one of {', '.join(AXES)}, got {item['axis']!r}")
        validate_context(item["context"], source, f"{path}.context")
        validate_scores(item["expected"], source, f"{path}.expected")
        flags = item.get("expected_flags", [])
        if not isinstance(flags, list) or not all(isinstance(f, str) and _RULE_ID.match(f) for f in flags):
            raise _fail(source, f"{path}.expected_flags", f"expected a list of rule ids like 'C001', got {flags!r}")


def validate_reference_scores(data: Any, source: str = "reference_scores.json") -> None:
    if not isinstance(data, dict) or not data:
        raise _fail(source, "$", "expected a non-empty object {dialogue id: {axis: 1..5}}")
    for key, scores in data.items():
        validate_scores(scores, source, f"$[{json.dumps(key, ensure_ascii=False)}]")


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
