"""The widget types a batch's trials use outside its catalogue, and the batch's one ``|W|`` (seed 002 §2.2.4).

``|W|`` (``layer3.metrics.diversity``) is the number of widget types the generator could choose from. A
batch records its catalogue at import; a trial that uses a type outside it shows that the generator
could choose that type too. So the batch's ``|W|`` is its catalogue together with every type any of its
trials uses, one number for every trial of the batch: the normalised entropies of its trials share a
denominator, and their mean is a mean of comparable figures.

A type is what the diversity metric counts: the ``component`` of each widget of a parsed UISpec
(``parse_ui_spec``; for a PlanUISpec the widgets of its three sections). Generated data that is not a
UISpec contributes nothing, as the metric computes nothing for it.

A batch stores what it has seen as ``[{"type", "trials", "widgets"}, ...]``, sorted by type: the
out-of-catalogue types with the number of trials that use each and the number of its widgets. Pure:
no Django.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence

from layer3.metrics.parsing import parse_ui_spec
from layer3.metrics.spec import UISpecError


def spec_components(generated_data: object) -> dict[str, int] | None:
    """``{component: widgets}`` of a trial's generated data, or None when it is not a UISpec."""
    try:
        spec = parse_ui_spec(generated_data)
    except UISpecError:
        return None
    counts: dict[str, int] = {}
    for widget in spec.widgets:
        component = widget["component"]
        counts[component] = counts.get(component, 0) + 1
    return counts


def outside_counts(specs: Iterable[object], catalogue: Collection[str]) -> dict[str, list[int]]:
    """``{type: [trials, widgets]}`` of the types outside ``catalogue`` used by ``specs`` (generated data)."""
    known = catalogue if isinstance(catalogue, set | frozenset) else frozenset(catalogue)
    found: dict[str, list[int]] = {}
    for data in specs:
        counts = spec_components(data)
        if not counts:
            continue
        for component, widgets in counts.items():
            if component in known:
                continue
            tally = found.get(component)
            if tally is None:
                found[component] = [1, widgets]
            else:
                tally[0] += 1
                tally[1] += widgets
    return found


def seen_entries(found: Mapping[str, Sequence[int]]) -> list[dict]:
    """``found`` (``outside_counts``) as a batch stores it: ``[{"type", "trials", "widgets"}]`` sorted by type."""
    return [{"type": name, "trials": found[name][0], "widgets": found[name][1]} for name in sorted(found)]


def merge_seen(stored: Iterable[Mapping], found: Mapping[str, Sequence[int]]) -> tuple[list[dict], tuple[str, ...]]:
    """The stored entries with ``found`` added, and the types ``found`` adds (sorted): new denominators."""
    totals: dict[str, list[int]] = {entry["type"]: [entry["trials"], entry["widgets"]] for entry in stored}
    added = tuple(sorted(name for name in found if name not in totals))
    for name, (trials, widgets) in found.items():
        tally = totals.setdefault(name, [0, 0])
        tally[0] += trials
        tally[1] += widgets
    return seen_entries(totals), added


def available_types(catalogue: Sequence[str], seen: Iterable[Mapping]) -> tuple[str, ...]:
    """The batch's widget types: its catalogue, then the types seen outside it (``|W|`` is their number)."""
    known = set(catalogue)
    return (*catalogue, *(entry["type"] for entry in seen if entry["type"] not in known))
