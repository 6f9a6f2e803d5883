"""One trial's figure of each Layer3 metric, and the outcome of each of its items, for paired comparisons.

``trial_values(metrics)`` reads a stored ``Layer3MetricsV1`` dict as :mod:`layer3.statistics.samples` does, one
trial at a time:

- the continuous metrics: GV_CR = ``generatedValueRelevance.avgScore`` (when ``evaluatedItems > 0``), W2WR_SC =
  ``w2wrSemanticCorrectness.avgScore`` (when ``evaluatedBindings > 0``), WS_ENT = ``widgetDiversity.entropy``,
  GC_NC / GC_EC / GC_DEN = ``graphComplexity.nodeCount`` / ``.edgeCount`` / ``.density``;
- the proportions as this trial's rate: GV_UR = useful / evaluatedItems, W2WR_FR / MR / SYR = flow / meta /
  sync over totalBindings, W2WR_CR = correct / evaluatedBindings.

A figure without data is None; a trial without metrics, or with an ``"error"``, has only None.

``trial_items(metrics)`` gives, per proportion metric, each item's verdict keyed by what the item is, so the
same item can be found in another version of the trial:

- GV_UR: ``itemEvaluations`` keyed by (widgetId, portId, itemId, text), verdict the judge's label, success
  score 2 (useful);
- W2WR_CR: ``bindingEvaluations`` keyed by (bindingId, sourceWidget, sourcePort, targetWidget, targetPort),
  success score 2 (correct);
- W2WR_FR / MR / SYR: ``w2wrTypeDistribution.bindingClassifications`` keyed by (bindingId, source, target),
  verdict the type, success the type flow / meta / sync.

A key that occurs twice in one trial names no single item: both are left out.
"""

from __future__ import annotations

from collections.abc import Mapping

from layer3.metrics.provenance import block_judge

CONTINUOUS = ("GV_CR", "W2WR_SC", "WS_ENT", "GC_NC", "GC_EC", "GC_DEN")
ITEM_METRICS = ("GV_UR", "W2WR_FR", "W2WR_MR", "W2WR_SYR", "W2WR_CR")
_TYPE_OF = {"W2WR_FR": "flow", "W2WR_MR": "meta", "W2WR_SYR": "sync"}


def _block(metrics: Mapping, key: str) -> Mapping:
    block = metrics.get(key)
    return block if isinstance(block, Mapping) else {}


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _rate(successes: object, n: object) -> float | None:
    successes, n = _number(successes), _number(n)
    if successes is None or not n:
        return None
    return successes / n


def _usable(metrics: object) -> bool:
    return isinstance(metrics, Mapping) and "error" not in metrics


def trial_values(metrics: object) -> dict[str, float | None]:
    """Every metric of ``LAYER3_METRICS`` for one trial (None where the trial has no such figure)."""
    values: dict[str, float | None] = dict.fromkeys((*CONTINUOUS, *ITEM_METRICS))
    if not _usable(metrics):
        return values
    gv = _block(metrics, "generatedValueRelevance")
    if _number(gv.get("evaluatedItems")):
        values["GV_CR"] = _number(gv.get("avgScore"))
        values["GV_UR"] = _rate(_block(gv, "distribution").get("useful"), gv.get("evaluatedItems"))
    sc = _block(metrics, "w2wrSemanticCorrectness")
    if _number(sc.get("evaluatedBindings")):
        values["W2WR_SC"] = _number(sc.get("avgScore"))
        values["W2WR_CR"] = _rate(_block(sc, "distribution").get("correct"), sc.get("evaluatedBindings"))
    types = _block(metrics, "w2wrTypeDistribution")
    for metric, kind in _TYPE_OF.items():
        values[metric] = _rate(_block(types, "distribution").get(kind), types.get("totalBindings"))
    values["WS_ENT"] = _number(_block(metrics, "widgetDiversity").get("entropy"))
    graph = _block(metrics, "graphComplexity")
    values["GC_NC"] = _number(graph.get("nodeCount"))
    values["GC_EC"] = _number(graph.get("edgeCount"))
    values["GC_DEN"] = _number(graph.get("density"))
    return values


def _keyed(entries: object, fields: tuple[str, ...]) -> dict[tuple, Mapping]:
    found: dict[tuple, Mapping] = {}
    repeated = set()
    for entry in entries if isinstance(entries, list) else ():
        if not isinstance(entry, Mapping):
            continue
        key = tuple(str(entry.get(name, "")) for name in fields)
        if key in found:
            repeated.add(key)
        found[key] = entry
    for key in repeated:
        del found[key]
    return found


def trial_items(metrics: object) -> dict[str, dict[tuple, tuple[str, bool]]]:
    """Per proportion metric, ``{item key: (verdict, success)}`` of one trial ({} where it has none)."""
    items: dict[str, dict[tuple, tuple[str, bool]]] = {metric: {} for metric in ITEM_METRICS}
    if not _usable(metrics):
        return items
    gv = _keyed(
        _block(metrics, "generatedValueRelevance").get("itemEvaluations"), ("widgetId", "portId", "itemId", "text")
    )
    items["GV_UR"] = {key: (str(entry.get("label")), entry.get("score") == 2) for key, entry in gv.items()}
    sc = _keyed(
        _block(metrics, "w2wrSemanticCorrectness").get("bindingEvaluations"),
        ("bindingId", "sourceWidget", "sourcePort", "targetWidget", "targetPort"),
    )
    items["W2WR_CR"] = {key: (str(entry.get("label")), entry.get("score") == 2) for key, entry in sc.items()}
    types = _keyed(
        _block(metrics, "w2wrTypeDistribution").get("bindingClassifications"), ("bindingId", "source", "target")
    )
    for metric, kind in _TYPE_OF.items():
        items[metric] = {key: (str(entry.get("type")), entry.get("type") == kind) for key, entry in types.items()}
    return items


def trial_judges(metrics: object) -> dict[str, str | None]:
    """The judge label of each judged block of one trial ({"gv", "w2wr"}; None where the block has no judged item)."""
    judges: dict[str, str | None] = {"gv": None, "w2wr": None}
    if not _usable(metrics):
        return judges
    gv = _block(metrics, "generatedValueRelevance")
    if _number(gv.get("evaluatedItems")):
        judges["gv"] = block_judge(gv)
    sc = _block(metrics, "w2wrSemanticCorrectness")
    if _number(sc.get("evaluatedBindings")):
        judges["w2wr"] = block_judge(sc)
    return judges
