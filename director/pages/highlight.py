"""Split a text into plain and highlighted segments from the findings' evidence (pure).

Evidence spans are ``{"start", "end"}`` offsets into the original text; overlapping spans of several
findings merge into one highlighted segment that names every rule it belongs to.
"""

from __future__ import annotations

from collections.abc import Iterable


def segments(text: str, findings: Iterable[dict]) -> list[dict]:
    """``[{"text", "rules": [...], "status"}]`` covering ``text`` in order; ``rules`` empty for plain text."""
    marks: list[set[str]] = [set() for _ in text]
    worst: list[str] = ["" for _ in text]
    for finding in findings:
        for span in finding.get("evidence") or ():
            start, end = max(0, int(span.get("start", 0))), min(len(text), int(span.get("end", 0)))
            for index in range(start, end):
                marks[index].add(finding.get("rule", ""))
                if finding.get("status") == "RETRY" or not worst[index]:
                    worst[index] = finding.get("status", "")
    result: list[dict] = []
    for index, char in enumerate(text):
        key = (tuple(sorted(marks[index])), worst[index])
        if result and (tuple(result[-1]["rules"]), result[-1]["status"]) == key:
            result[-1]["text"] += char
        else:
            result.append({"text": char, "rules": list(key[0]), "status": key[1]})
    return result
