"""Quality of the Director's hard rules (seed 004) on the labelled evaluation set, in one process.

Reads every ``director/evaluation/*.jsonl`` (the labels and their schema: ``director/evaluation/README.md``),
judges each line with the hard rules (``director.rules.check_utterance``) and, when the line has a
``history``, with the cross-turn WARNs of ``director.sessions.state`` (the state the history leads to,
every history line taken as accepted, as ``director.sessions.services.state_after_history`` builds it),
and prints:

- the status confusion matrix (expected × got, PASS/WARN/RETRY/MODIFY) and each status's precision and recall;
- each finding code's precision, recall and support (the expected codes of a line against the codes found);
- every seed example (``source`` starting with ``seed``) with its result: each must be right;
- every mismatch (status or codes differ): id, text, expected and got.

``--json`` prints the same as one JSON object; ``--markdown`` prints the tables for the README. Exit
status 0; 1 when a seed example is wrong or RETRY's precision or recall is below its threshold
(``--min-retry-precision``, ``--min-retry-recall``, 0.95 each); 2 when the set is invalid (each bad line
named as file:line with its problem). Pure: no Django settings needed.

    .venv/bin/python bench/director_quality.py [--set director/evaluation] [--json | --markdown]
        [--min-retry-precision 0.95] [--min-retry-recall 0.95]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from director.review.scores import worse  # noqa: E402 - after the path set-up
from director.rules import RETRY, RULE_ORDER, WARN, check_utterance, load_rule_set  # noqa: E402
from director.rules.ruleset import RuleSet  # noqa: E402
from director.sessions.state import SessionState, advance, history_findings, leading_topic  # noqa: E402

EVALUATION_DIR = ROOT / "director" / "evaluation"
STATUSES = ("PASS", "WARN", "RETRY", "MODIFY")
SPEAKERS = ("yana", "ayu")
# The finding codes: the hard rules' (RULE_ORDER, litotes included) and the history's.
CODES = (*RULE_ORDER, "early_topic_change", "topic_loop_turns")
WARN_ONLY = frozenset({"bracket", "script_format", "litotes", "topic_loop", "early_topic_change", "topic_loop_turns"})
RETRY_ONLY = frozenset({"setting", "contradiction"})
SOURCE = re.compile(r"seed §\d+(?:\.\d+)*|spec|boundary|over-sensitive|demo|natural|heldout[\w-]*")
REQUIRED = ("id", "speaker", "text", "expected", "codes", "reason", "source")
FIELDS = (*REQUIRED, "history", "ambiguous")


class SetError(Exception):
    """An invalid evaluation set: ``problems`` are ``file:line: field: problem`` strings, in file order."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("\n".join(problems))


@dataclass(frozen=True, slots=True)
class Example:
    id: str
    speaker: str
    text: str
    expected: str
    codes: tuple[str, ...]
    reason: str
    source: str
    history: tuple[tuple[str, str], ...]
    file: str
    line: int
    ambiguous: bool = False  # the seed does not decide the label: left out of the figures, listed apart

    @property
    def is_seed(self) -> bool:
        return self.source.startswith("seed")


@dataclass(frozen=True, slots=True)
class Result:
    example: Example
    status: str
    codes: tuple[str, ...]

    @property
    def right(self) -> bool:
        return self.status == self.example.expected and self.codes == self.example.codes


def _text(value: object) -> bool:
    return isinstance(value, str) and bool(value.strip())


def parse_example(obj: object, file: str, line: int) -> tuple[Example | None, list[str]]:
    """The example of one decoded line of ``file``, or its problems, each starting ``file:line:``."""
    where = f"{file}:{line}"
    if not isinstance(obj, dict):
        return None, [f"{where}: expected a JSON object with {', '.join(REQUIRED)}, got {type(obj).__name__}"]
    problems = [f"{where}: {key}: unknown field; accepted: {', '.join(FIELDS)}" for key in obj if key not in FIELDS]
    problems += [f"{where}: {key}: missing" for key in REQUIRED if key not in obj]
    for key in ("id", "text", "reason"):
        if key in obj and not _text(obj[key]):
            problems.append(
                f"{where}: {key}: expected a non-blank string, got {json.dumps(obj[key], ensure_ascii=False)}"
            )
    if "speaker" in obj and obj["speaker"] not in SPEAKERS:
        problems.append(f"{where}: speaker: expected one of {', '.join(SPEAKERS)}, got {obj['speaker']!r}")
    expected = obj.get("expected")
    if "expected" in obj and expected not in STATUSES:
        problems.append(f"{where}: expected: expected one of {', '.join(STATUSES)}, got {expected!r}")
    if "source" in obj and (not isinstance(obj["source"], str) or not SOURCE.fullmatch(obj["source"])):
        problems.append(
            f"{where}: source: expected 'seed §N[.N]', spec, boundary, over-sensitive, demo, natural or "
            f"heldout[name], got {obj['source']!r}"
        )
    codes = obj.get("codes")
    if "codes" in obj:
        if not isinstance(codes, list) or not all(isinstance(code, str) for code in codes):
            problems.append(f"{where}: codes: expected a list of finding codes, got {codes!r}")
        else:
            unknown = [code for code in codes if code not in CODES]
            if unknown:
                problems.append(f"{where}: codes: unknown {', '.join(unknown)}; known: {', '.join(CODES)}")
            elif codes != sorted(set(codes)):
                problems.append(f"{where}: codes: expected sorted and distinct, got {codes}")
            elif expected in STATUSES:
                problems += [f"{where}: {problem}" for problem in _consistency(expected, codes)]
    if not isinstance(obj.get("ambiguous", False), bool):
        problems.append(f"{where}: ambiguous: expected true or false, got {json.dumps(obj['ambiguous'])}")
    history = obj.get("history", [])
    if not isinstance(history, list):
        problems.append(f"{where}: history: expected a list of {{speaker, text}}, got {type(history).__name__}")
        history = []
    for index, turn in enumerate(history):
        if (
            not isinstance(turn, dict)
            or set(turn) != {"speaker", "text"}
            or turn["speaker"] not in SPEAKERS
            or not _text(turn["text"])
        ):
            problems.append(
                f'{where}: history[{index}]: expected {{"speaker": yana|ayu, "text": non-blank}}, '
                f"got {json.dumps(turn, ensure_ascii=False)}"
            )
    if problems:
        return None, problems
    return (
        Example(
            id=obj["id"],
            speaker=obj["speaker"],
            text=obj["text"],
            expected=expected,
            codes=tuple(codes),
            reason=obj["reason"],
            source=obj["source"],
            history=tuple((turn["speaker"], turn["text"]) for turn in history),
            file=file,
            line=line,
            ambiguous=obj.get("ambiguous", False),
        ),
        [],
    )


def _consistency(expected: str, codes: list[str]) -> list[str]:
    """What contradicts between a status and its codes (findings decide WARN/RETRY; none: PASS or MODIFY)."""
    if not codes:
        return [] if expected in ("PASS", "MODIFY") else [f"expected: {expected} needs at least one code"]
    if expected in ("PASS", "MODIFY"):
        return [f"expected: {expected} means no finding, but codes are {codes}"]
    if expected == WARN and RETRY_ONLY.intersection(codes):
        return [f"expected: WARN, but {', '.join(sorted(RETRY_ONLY.intersection(codes)))} is always a RETRY"]
    if expected == RETRY and set(codes) <= WARN_ONLY:
        return [f"expected: RETRY, but {', '.join(codes)} only ever WARN"]
    return []


def load_set(folder: Path = EVALUATION_DIR) -> list[Example]:
    """Every example of ``folder/*.jsonl`` (not its sub-folders; or of ``folder`` itself when it is one file),
    in file-name and line order; ``SetError`` listing every problem."""
    files = [Path(folder)] if Path(folder).is_file() else sorted(Path(folder).glob("*.jsonl"))
    if not files:
        raise SetError([f"{folder}: no *.jsonl files"])
    examples: list[Example] = []
    problems: list[str] = []
    seen: dict[str, str] = {}
    for path in files:
        try:
            lines = path.read_text(encoding="utf-8").split("\n")
        except (OSError, UnicodeDecodeError) as error:
            problems.append(f"{path.name}: cannot read ({error})")
            continue
        if lines and lines[-1] == "":
            lines.pop()  # the final newline
        for number, raw in enumerate(lines, 1):
            where = f"{path.name}:{number}"
            if not raw.strip():
                problems.append(f"{where}: blank line")
                continue
            try:
                obj = json.loads(raw)
            except json.JSONDecodeError as error:
                problems.append(f"{where}: invalid JSON ({error.msg} at column {error.colno})")
                continue
            example, found = parse_example(obj, path.name, number)
            problems += found
            if example is None:
                continue
            if example.id in seen:
                problems.append(f"{where}: id: {example.id!r} is already used at {seen[example.id]}")
                continue
            seen[example.id] = where
            examples.append(example)
    if problems:
        raise SetError(problems)
    return examples


def state_after(history: tuple[tuple[str, str], ...], rules: RuleSet) -> SessionState:
    """The session state after ``history``, every line accepted (``sessions.services.state_after_history``)."""
    state = SessionState()
    for speaker, text in history:
        verdict = check_utterance(text, speaker, rules)
        character = rules.character(speaker).id
        state = advance(state, status="PASS", speaker=character, topic=leading_topic(verdict), next_speaker=character)
    return state


def judge(example: Example, rules: RuleSet) -> Result:
    """The status and finding codes the Director gives ``example`` (hard rules, then the history's WARNs)."""
    verdict = check_utterance(example.text, example.speaker, rules)
    status = verdict.status
    codes = {finding.rule for finding in verdict.findings}
    if example.history:
        state = state_after(example.history, rules)
        for finding in history_findings(state, leading_topic(verdict), rules.session, shift=verdict.topic_shift):
            codes.add(finding["rule"])
            status = worse(status, finding["status"])
    return Result(example, status, tuple(sorted(codes)))


def _ratio(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


def report(results: list[Result]) -> dict:
    """The figures of ``results``: confusion matrix, per-status and per-code scores, seed examples, mismatches."""
    confusion = {expected: dict.fromkeys(STATUSES, 0) for expected in STATUSES}
    for result in results:
        confusion[result.example.expected][result.status] += 1
    statuses = {}
    for status in STATUSES:
        true = confusion[status][status]
        support = sum(confusion[status].values())
        predicted = sum(confusion[expected][status] for expected in STATUSES)
        statuses[status] = {
            "support": support,
            "predicted": predicted,
            "precision": _ratio(true, predicted),
            "recall": _ratio(true, support),
        }
    expected_codes, found_codes, both = Counter(), Counter(), Counter()
    for result in results:
        expected, found = set(result.example.codes), set(result.codes)
        expected_codes.update(expected)
        found_codes.update(found)
        both.update(expected & found)
    codes = {
        code: {
            "support": expected_codes[code],
            "found": found_codes[code],
            "precision": _ratio(both[code], found_codes[code]),
            "recall": _ratio(both[code], expected_codes[code]),
        }
        for code in CODES
    }

    def row(result: Result) -> dict:
        example = result.example
        return {
            "id": example.id,
            "where": f"{example.file}:{example.line}",
            "speaker": example.speaker,
            "text": example.text,
            "source": example.source,
            "expected": example.expected,
            "expectedCodes": list(example.codes),
            "got": result.status,
            "gotCodes": list(result.codes),
            "statusRight": result.status == example.expected,
            "right": result.right,
        }

    seeds = [row(result) for result in results if result.example.is_seed]
    return {
        "examples": len(results),
        "speakers": dict(Counter(result.example.speaker for result in results)),
        "statusAccuracy": _ratio(sum(r.status == r.example.expected for r in results), len(results)),
        "exactAccuracy": _ratio(sum(r.right for r in results), len(results)),
        "confusion": confusion,
        "statuses": statuses,
        "codes": codes,
        "seedExamples": seeds,
        "seedWrong": sum(not seed["statusRight"] for seed in seeds),
        "mismatches": [row(result) for result in results if not result.right],
    }


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def _flat(text: str) -> str:
    return text.replace("\n", "⏎")


def markdown(figures: dict) -> str:
    """The README tables: the confusion matrix with each status's recall and precision, and the per-code scores."""
    seeds = figures["seedExamples"]
    speakers = ", ".join(f"{speaker} {count}" for speaker, count in sorted(figures["speakers"].items()))
    seed_part = (
        f"seed examples with the expected status: {len(seeds) - figures['seedWrong']} of {len(seeds)}"
        if seeds
        else "no seed examples in this set"
    )
    lines = [
        f"{figures['examples']} labelled lines ({speakers}): "
        f"status right {_pct(figures['statusAccuracy'])}, status and codes right {_pct(figures['exactAccuracy'])}; "
        f"{seed_part}.",
        "",
        "| expected ↓ / got → | " + " | ".join(STATUSES) + " | recall |",
        "| --- | " + " | ".join("---:" for _ in STATUSES) + " | ---: |",
    ]
    for expected in STATUSES:
        counts = " | ".join(str(figures["confusion"][expected][got]) for got in STATUSES)
        lines.append(f"| {expected} | {counts} | {_pct(figures['statuses'][expected]['recall'])} |")
    precision = " | ".join(_pct(figures["statuses"][got]["precision"]) for got in STATUSES)
    lines += [f"| precision | {precision} | |", "", "| code | support | found | precision | recall |"]
    lines.append("| --- | ---: | ---: | ---: | ---: |")
    for code, scores in figures["codes"].items():
        lines.append(
            f"| `{code}` | {scores['support']} | {scores['found']} | {_pct(scores['precision'])} | "
            f"{_pct(scores['recall'])} |"
        )
    return "\n".join(lines)


def text_report(figures: dict) -> str:
    unsure = figures.get("ambiguous") or {"examples": 0}
    out = [markdown(figures)]
    if unsure["examples"]:
        out.append(
            f"\n{unsure['examples']} lines marked ambiguous (the seed does not decide them) are left out of the "
            f"figures above; the Director agrees with the label given on {unsure['statusAgrees']} of them."
        )
    out += ["", f"Seed examples ({len(figures['seedExamples'])}; each must be right):"]
    for seed in figures["seedExamples"]:
        mark = "ok   " if seed["statusRight"] else "WRONG"
        codes = "" if seed["right"] else f"  (codes: expected {seed['expectedCodes']}, got {seed['gotCodes']})"
        out.append(
            f"  {mark} {seed['id']}: expected {seed['expected']}, got {seed['got']}{codes}  {_flat(seed['text'])}"
        )
    out += ["", f"Mismatches ({len(figures['mismatches'])}; status or codes differ):"]
    for miss in figures["mismatches"]:
        out.append(
            f"  {miss['id']} [{miss['where']}, {miss['speaker']}, {miss['source']}] {_flat(miss['text'])}\n"
            f"      expected {miss['expected']} {miss['expectedCodes']}; got {miss['got']} {miss['gotCodes']}"
        )
    return "\n".join(out)


def failures(figures: dict, min_precision: float, min_recall: float) -> list[str]:
    """Why the run fails: wrong seed examples, RETRY precision or recall below the thresholds."""
    found = []
    if figures["seedWrong"]:
        found.append(f"{figures['seedWrong']} seed example(s) without the expected status")
    retry = figures["statuses"][RETRY]
    for name, value, minimum in (
        ("precision", retry["precision"], min_precision),
        ("recall", retry["recall"], min_recall),
    ):
        if value is None or value < minimum:
            found.append(f"RETRY {name} {_pct(value)} < {minimum:.2f}")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--set",
        type=Path,
        default=EVALUATION_DIR,
        help="folder of *.jsonl, or one .jsonl file (default: %(default)s; the held-out set: %(default)s/heldout)",
    )
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="one JSON object")
    output.add_argument("--markdown", action="store_true", help="the README tables only")
    parser.add_argument("--min-retry-precision", type=float, default=0.95)
    parser.add_argument("--min-retry-recall", type=float, default=0.95)
    args = parser.parse_args(argv)

    try:
        examples = load_set(args.set)
    except SetError as error:
        print(f"invalid evaluation set ({len(error.problems)} problem(s)):", file=sys.stderr)
        for problem in error.problems:
            print(f"  {problem}", file=sys.stderr)
        return 2
    rules = load_rule_set()
    results = [judge(example, rules) for example in examples]
    figures = report([result for result in results if not result.example.ambiguous])
    unsure = [result for result in results if result.example.ambiguous]
    figures["ambiguous"] = {
        "examples": len(unsure),
        "statusAgrees": sum(result.status == result.example.expected for result in unsure),
        "lines": [{"id": r.example.id, "where": f"{r.example.file}:{r.example.line}", "text": r.example.text,
                   "label": r.example.expected, "got": r.status, "gotCodes": list(r.codes)} for r in unsure],
    }  # fmt: skip
    failed = failures(figures, args.min_retry_precision, args.min_retry_recall)
    figures["failures"] = failed
    if args.json:
        print(json.dumps(figures, ensure_ascii=False, indent=2))
    elif args.markdown:
        print(markdown(figures))
    else:
        print(text_report(figures))
        print(
            "\n" + ("FAILED: " + "; ".join(failed) if failed else "OK: every seed example right, RETRY thresholds met")
        )
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
