"""The widget graph of one trial's ``generatedData``, laid out for the trial drill-down page (pure: no Django).

Widgets are nodes, reactive bindings directed edges typed flow / meta / sync / unknown by
``layer3.metrics.w2wr.binding_types`` (seed 002 §2.2.2, §4.2); the spec is read by
``layer3.metrics.parsing.parse_ui_spec``, so data it refuses gives a graph with ``error`` and no nodes.

Layout, deterministic, in SVG user units rounded to 1 decimal, left to right in columns: a node's column is its
depth along the bindings (longest path without the back edges of a DFS in spec order, so that a cycle or a sync pair
ends in neighbouring columns), past ``MAX_ROWS`` nodes of a group wrapped into more; past ``MAX_COLUMNS`` (a long
chain), the spec order instead. Groups (a UISpec's one, a PlanUISpec's sections) are bands stacked across the
columns; barycenter sweeps order the columns. An edge runs right edge to left edge (back: left to right, 8 lower)
through a slot in each column passed; within a column, it arcs to the right. A widget id the spec does not list gets
a placeholder node (kind ``"missing"``) in the group of the binding's other end; a duplicate id a node per listing,
its bindings going to the first. An edge's label, source port over target port, straddles the middle of its curve
(or a little off it) unless it would cover a node, a section name or an earlier label: then only the tooltip has it.
"""

from __future__ import annotations

import itertools
import math
import unicodedata
from dataclasses import dataclass

from layer3.metrics.parsing import parse_ui_spec
from layer3.metrics.spec import SECTION_NAMES, UISpecError
from layer3.metrics.w2wr import binding_types

TYPES = ("flow", "meta", "sync", "unknown")
MISSING_KIND = "missing"
MAX_ROWS, MAX_COLUMNS = 12, 8

PAD = 16.0  # around the groups
GROUP_PAD = 12.0  # inside a group: left, right, below and (no name) above its nodes
HEADER = 26.0  # above a section's nodes: its name
GROUP_GAP = 8.0  # between two sections
NODE_H, SLOT_H = 36.0, 16.0  # a slot: an edge passing a column
ROW_GAP, TIGHT_ROW_GAP = 26.0, 14.0  # between the nodes and slots of a column: room for edge labels, or none
MIN_GAP, MAX_GAP = 48.0, 120.0  # between columns, widened to hold the labels there
MIN_W, MAX_W, TEXT_PAD = 80.0, 176.0, 8.0
LABEL_PX, KIND_PX, EDGE_PX = 12.0, 10.0, 10.0  # font sizes of the CSS (layer3_graph.css)
MAX_PORT_W, LINE_DY, MARGIN = 88.0, 14.0, 2.0  # an edge label: line width, line spacing, kept free around
SPOTS = (0.5, 0.3, 0.7)  # where on its middle curve an edge label is tried, in turn
LABELLED_EDGES = 16  # more edges get no labels on the graph (too many to read), only tooltips
DISPLAY_SCALE = 1.25  # the SVG's width and height: the view box enlarged (the CSS shrinks it to the card)
MISSING_TEXT = "missing widget"  # the template's text in a placeholder node, only measured here


@dataclass(frozen=True, slots=True)
class GraphGroup:
    name: str  # the section name, "" for a UISpec
    x: float
    y: float
    w: float
    h: float
    label_x: float
    label_y: float


@dataclass(frozen=True, slots=True)
class GraphNode:
    id: str  # the widget id
    label: str  # the id, cut to fit the node with "…"
    title: str  # the full id, for the tooltip
    kind: str  # the widget's component, or "missing" for a placeholder
    kind_label: str  # the component, cut to fit
    group: str
    missing: bool
    x: float
    y: float
    w: float
    h: float
    text_x: float
    label_y: float
    kind_y: float


@dataclass(frozen=True, slots=True)
class GraphEdge:
    id: str  # the binding id
    source: str  # the source widget id
    target: str  # the target widget id
    type: str  # flow, meta, sync or unknown
    reason: str  # why, as w2wr says it ("Unidirectional update", ...)
    label: str  # "sourcePort → targetPort", each port cut to fit
    title: str  # the binding as written: "w1.items → w2.input"
    missing: bool  # an end is a placeholder
    path: str  # SVG path data: M x y C x y x y x y, then L x y C x y x y x y per column passed
    label_x: float  # the label's centre
    label_y: float  # the baseline of its first line ("sourcePort →"); the second is LINE_DY lower
    lines: tuple[str, str] = ("", "")  # the label's two lines
    show_label: bool = False  # whether to print the label: it has room


@dataclass(frozen=True, slots=True)
class GraphError:
    message: str  # what was found and what is accepted
    path: str  # the JSON path of the refused value


@dataclass(frozen=True, slots=True)
class TrialGraph:
    width: float
    height: float
    groups: tuple[GraphGroup, ...]
    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]
    counts: dict[str, int]  # edges per type, all four types
    error: GraphError | None = None
    labelled: bool = False  # whether any edge label is printed (none past LABELLED_EDGES edges)

    @property
    def missing_count(self) -> int:
        """How many placeholder nodes stand for widget ids the spec does not list."""
        return sum(node.missing for node in self.nodes)

    @property
    def display_width(self) -> float:
        return _r(self.width * DISPLAY_SCALE)

    @property
    def display_height(self) -> float:
        return _r(self.height * DISPLAY_SCALE)


def trial_graph(generated_data: object) -> TrialGraph:
    """The laid-out graph of ``generated_data`` (decoded JSON); ``error`` set when it is no UISpec."""
    try:
        spec = parse_ui_spec(generated_data)
    except UISpecError as error:
        message = f"{error.problem}; accepted: {error.accepted}"
        return TrialGraph(0.0, 0.0, (), (), (), dict.fromkeys(TYPES, 0), GraphError(message, error.path))

    # group name -> [(widget id, component or None for a placeholder)]
    if spec.sections is None:
        members = {"": [(w["id"], w["component"]) for w in spec.widgets]}
    else:
        members = {name: [(w["id"], w["component"]) for w in spec.sections[name]] for name in SECTION_NAMES}
    home = {widget_id: name for name, items in reversed(members.items()) for widget_id, _ in items}  # the first
    ends = list(zip(spec.source_widgets, spec.target_widgets, strict=True))
    for source, target in ends:
        group = home.get(source, home.get(target, list(members)[-1]))
        for widget_id in (source, target):
            if widget_id not in home:
                home[widget_id] = group
                members[group].append((widget_id, None))

    names = list(members)
    entries = [(widget_id, kind, group) for group, name in enumerate(names) for widget_id, kind in members[name]]
    count = len(entries)
    index = {widget_id: i for i, (widget_id, _, _) in reversed(list(enumerate(entries)))}  # id -> its first node
    links = [(index[source], index[target]) for source, target in ends]
    lane = [group for _, _, group in entries]  # the group of each node, then of each slot
    column = _columns(_layers(count, links), lane, len(names))
    columns = max(column, default=0) + 1
    chains = []  # per binding: its source, a slot per column passed, its target
    for a, b in links:
        step = 1 if column[b] > column[a] else -1
        passed = range(column[a] + step, column[b], step) if column[a] != column[b] else range(0)
        chains.append([a, *range(len(column), len(column) + len(passed)), b])
        column += passed
        lane += [lane[a] if 2 * i < len(passed) else lane[b] for i in range(len(passed))]
    cells = _order(column, lane, chains, columns, len(names))

    labelled = 0 < len(links) <= LABELLED_EDGES
    ports = [(b["source"].partition(".")[2], b["target"].partition(".")[2]) for b in spec.bindings]
    lines = [(_fit(s, EDGE_PX, MAX_PORT_W - 14) + " →", _fit(t, EDGE_PX, MAX_PORT_W)) for s, t in ports]  # " →": 14
    gaps = [MIN_GAP] * columns  # right of each column
    for chain, pair in zip(chains, lines, strict=True):
        middle = len(chain) // 2 - 1  # the middle piece, a curve, starts there when len(chain) is even
        if labelled and len(chain) % 2 == 0 and column[chain[0]] != column[chain[-1]]:
            c = min(column[chain[middle]], column[chain[middle + 1]])
            gaps[c] = min(MAX_GAP, max(gaps[c], max(_width(t, EDGE_PX) for t in pair) + 2 * MARGIN + 12))
    widths = [MIN_W] * columns
    for (widget_id, kind, _), c in zip(entries, column, strict=False):  # column: the nodes', then the slots'
        text = max(_width(widget_id, LABEL_PX), _width(MISSING_TEXT if kind is None else kind, KIND_PX))
        widths[c] = min(MAX_W, max(widths[c], text + 2 * TEXT_PAD))
    xs = [PAD + GROUP_PAD + sum(widths[:c]) + sum(gaps[:c]) for c in range(columns)]
    arcs = any(column[a] == column[b] == columns - 1 for a, b in links)  # right of the last column
    width = xs[-1] + widths[-1] + (MIN_GAP if arcs else 0.0) + GROUP_PAD + PAD

    header, row_gap = GROUP_PAD if spec.sections is None else HEADER, ROW_GAP if labelled else TIGHT_ROW_GAP
    ys = [0.0] * len(column)  # the middle of each node and slot
    groups: list[GraphGroup] = []
    y = PAD
    for group, name in enumerate(names):
        tall = [sum((NODE_H if v < count else SLOT_H) + row_gap for v in cell[group]) - row_gap for cell in cells]
        content = max(0.0, *tall)
        for cell, t in zip(cells, tall, strict=True):
            top = y + header + (content - t) / 2
            for v in cell[group]:
                h = NODE_H if v < count else SLOT_H
                ys[v], top = top + h / 2, top + h + row_gap
        group_h = header + content + GROUP_PAD
        groups.append(GraphGroup(name, PAD, _r(y), _r(width - 2 * PAD), _r(group_h), PAD + GROUP_PAD, _r(y + 17)))
        y += group_h + GROUP_GAP

    nodes = []
    for i, (widget_id, kind, group) in enumerate(entries):
        x, y, w = xs[column[i]], ys[i] - NODE_H / 2, widths[column[i]]
        label, kind_label = _fit(widget_id, LABEL_PX, w - 2 * TEXT_PAD), _fit(kind or "", KIND_PX, w - 2 * TEXT_PAD)
        nodes.append(GraphNode(
            widget_id, label, widget_id, kind or MISSING_KIND, kind_label, names[group], kind is None,
            _r(x), _r(y), _r(w), NODE_H, _r(x + TEXT_PAD), _r(y + 15), _r(y + 29),
        ))  # fmt: skip
    taken = [(n.x, n.y, n.x + n.w, n.y + n.h) for n in nodes]  # what an edge label must not cover
    taken += [(g.label_x, g.label_y - 12, g.label_x + _width(g.name, LABEL_PX), g.label_y + 3) for g in groups]
    edges: list[GraphEdge] = []
    counts = dict.fromkeys(TYPES, 0)
    pairs: dict[tuple[int, int], int] = {}  # unordered node pair -> edges drawn between them before
    kinds = binding_types(spec)
    for binding, chain, pair, (kind, reason) in zip(spec.bindings, chains, lines, kinds, strict=True):
        a, b = chain[0], chain[-1]
        pairs[min(a, b), max(a, b)] = bend = pairs.get((min(a, b), max(a, b)), -1) + 1
        passed = [(xs[column[v]], ys[v], widths[column[v]]) for v in chain[1:-1]]
        path, spots = _route(nodes[a], column[a], nodes[b], column[b], passed, 0 if passed else bend)
        half = max(_width(t, EDGE_PX) for t in pair) / 2 + MARGIN  # centred: kept inside the view box
        spots = [(min(max(x, half), width - half), y - 4) for x, y in spots]  # the first line's baseline
        boxes = [(x - half, y - 10 - MARGIN, x + half, y + LINE_DY + 3 + MARGIN) for x, y in spots]
        free = [n for n, (left, top, right, bottom) in enumerate(boxes) if labelled and not any(
            left < o[2] and o[0] < right and top < o[3] and o[1] < bottom for o in taken
        )]  # fmt: skip
        taken += [boxes[free[0]]] if free else []
        (mx, my), show = spots[free[0] if free else 0], bool(free)
        counts[kind] += 1
        edges.append(GraphEdge(
            binding["id"], entries[a][0], entries[b][0], kind, reason, f"{pair[0]} {pair[1]}",
            f"{binding['source']} → {binding['target']}", nodes[a].missing or nodes[b].missing,
            path, _r(mx), _r(my), pair, show,
        ))  # fmt: skip
    labelled = any(edge.show_label for edge in edges)
    height = _r(groups[-1].y + groups[-1].h + PAD)
    return TrialGraph(_r(width), height, tuple(groups), tuple(nodes), tuple(edges), counts, None, labelled)


def _layers(count: int, links: list[tuple[int, int]]) -> list[int]:
    """Each node's depth along ``links`` (longest path), leaving out the back edges of a DFS in node order."""
    after: list[list[int]] = [[] for _ in range(count)]
    for a, b in links:
        if a != b and b not in after[a]:
            after[a].append(b)
    state, finished, back = [0] * count, [], set()  # state: 0 unseen, 1 on the DFS stack, 2 finished
    for root in (node for node in range(count) if not state[node]):
        state[root], stack = 1, [(root, iter(after[root]))]
        while stack:
            node, rest = stack[-1]
            nxt = next(rest, None)
            if nxt is None:
                state[node] = 2
                finished.append(stack.pop()[0])
            elif state[nxt] == 1:
                back.add((node, nxt))
            elif state[nxt] == 0:
                state[nxt] = 1
                stack.append((nxt, iter(after[nxt])))
    layer = [0] * count
    for node in reversed(finished):  # a topological order of the graph without its back edges
        for nxt in after[node]:
            if (node, nxt) not in back:
                layer[nxt] = max(layer[nxt], layer[node] + 1)
    return layer


def _columns(layer: list[int], lane: list[int], lanes: int) -> list[int]:
    """Each node's column: its layer, a layer's nodes of a group wrapped into more columns past ``MAX_ROWS``."""
    column, start = [0] * len(layer), 0
    for k in range(max(layer, default=-1) + 1):
        cells = [
            [i for i, (n, g) in enumerate(zip(layer, lane, strict=True)) if (n, g) == (k, group)]
            for group in range(lanes)
        ]
        wraps = max(math.ceil(len(cell) / MAX_ROWS) for cell in cells)
        for cell in cells:
            for row, i in enumerate(cell):
                column[i] = start + row // math.ceil(len(cell) / wraps)
        start += wraps
    if start > MAX_COLUMNS:  # a long chain: each group in spec order, in columns of up to MAX_ROWS
        for group in range(lanes):
            cell = [i for i, g in enumerate(lane) if g == group]
            for row, i in enumerate(cell):
                column[i] = row // math.ceil(len(cell) / math.ceil(len(cell) / MAX_ROWS))
    return column


def _order(column: list[int], lane: list[int], chains: list[list[int]], columns: int, lanes: int) -> list:
    """``cells[c][g]``: the nodes and slots of group ``g`` in column ``c``, top to bottom (barycenter sweeps)."""
    cells: list[list[list[int]]] = [[[] for _ in range(lanes)] for _ in range(columns)]
    for v, (c, g) in enumerate(zip(column, lane, strict=True)):
        cells[c][g].append(v)
    near: list[list[int]] = [[] for _ in column]  # neighbours in the columns either side
    for chain in chains:
        for u, v in itertools.pairwise(chain):
            if abs(column[u] - column[v]) == 1:
                near[u].append(v)
                near[v].append(u)
    down, up = [(c, c - 1) for c in range(1, columns)], [(c, c + 1) for c in range(columns - 2, -1, -1)]
    for c, side in (down + up) * 2:
        rank = {v: i for i, v in enumerate(v for cell in cells[side] for v in cell)}
        own = {v: i for i, v in enumerate(v for cell in cells[c] for v in cell)}
        for cell in cells[c]:
            keys = {v: [rank[u] for u in near[v] if column[u] == side] or [own[v]] for v in cell}
            cell.sort(key=lambda v, keys=keys, own=own: (sum(keys[v]) / len(keys[v]), own[v]))
    return cells


def _route(a: GraphNode, column_a: int, b: GraphNode, column_b: int, passed: list, bend: int) -> tuple:
    """Path data of an edge from ``a`` to ``b`` through the slots ``passed`` ((x, y, width of the column) of each
    column in between), the ``bend``-th between the two, and the spots for its label along its middle piece."""
    if column_a != column_b:  # forward: right edge to left edge; back: left edge to right edge, 8 lower
        forward = column_a < column_b
        start = (a.x + a.w, a.y + a.h / 2) if forward else (a.x, a.y + a.h / 2 + 8)
        end = (b.x, b.y + b.h / 2) if forward else (b.x + b.w, b.y + b.h / 2 + 8)
        runs = [p for x, y, w in passed for p in ((x, y), (x + w, y))[:: 1 if forward else -1]]
        stops = [start, *runs, end]  # a curve from each even stop to the next, a straight run to the next one
        shift = 12 * min(bend, 2)  # more parallel edges overlap the third
        pieces = []
        for p0, p3 in zip(stops[::2], stops[1::2], strict=True):
            reach = max(abs(p3[0] - p0[0]) / 2, 30.0) * (1 if forward else -1)
            pieces.append((p0, (p0[0] + reach, p0[1] + shift), (p3[0] - reach, p3[1] + shift), p3))
    else:  # the same column, or the same node: an arc out to the right
        right, y0, y3 = a.x + a.w, a.y + a.h / 2, b.y + b.h / 2
        y0, y3, rise = (y0 - 8, y0 + 8, 16.0) if a is b else (y0, y3, 0.0)
        bulge = min(36.0 + 0.12 * abs(y3 - y0) + 10 * bend, MIN_GAP / 0.75 - 4)  # a cubic reaches 3/4 of it
        pieces = [((right, y0), (right + bulge, y0 - rise), (right + bulge, y3 + rise), (right, y3))]
    d = " L ".join(f"{_n(p0)} C {_n(p1, p2, p3)}" for p0, p1, p2, p3 in pieces)
    middle = pieces[len(pieces) // 2]  # a curve, or (even count) the run through the middle slot before it
    if not len(pieces) % 2:
        p, q = pieces[len(pieces) // 2 - 1][3], middle[0]
        middle = (p, p, q, q)  # a straight line as a cubic
    spots = [[sum(w * p[i] for w, p in zip(_bernstein(t), middle, strict=True)) for i in (0, 1)] for t in SPOTS]
    return "M " + d, [(_r(x), _r(y)) for x, y in spots]


def _bernstein(t: float) -> tuple[float, ...]:
    return ((1 - t) ** 3, 3 * t * (1 - t) ** 2, 3 * t * t * (1 - t), t**3)


def _width(text: str, size: float) -> float:
    """An estimate of ``text``'s width in a sans-serif font of ``size``, a little generous: wide and ambiguous
    (CJK, →, …) characters 1 em, m and w 0.9, narrow ones 0.38, other capitals 0.72, the rest 0.62."""
    return size * sum(
        1.0 if unicodedata.east_asian_width(c) in "WFA" else 0.9 if c in "mwMW@%"
        else 0.38 if c in " fijlrtI.,:;'!|()[]-" else 0.72 if c.isupper() else 0.62
        for c in text
    )  # fmt: skip


def _fit(text: str, size: float, width: float) -> str:
    """``text``, or as much of it as fits in ``width`` followed by "…"."""
    if _width(text, size) <= width:
        return text
    room, cut = width - _width("…", size), 0
    while _width(text[: cut + 1], size) <= room:
        cut += 1
    return text[:cut] + "…"


def _r(value: float) -> float:
    return round(value, 1) + 0.0  # + 0.0 turns -0.0 into 0.0


def _n(*points: tuple[float, float]) -> str:
    """Path coordinates: 1 decimal at most, no trailing zeros."""
    return " ".join(f"{_r(v):.1f}".removesuffix(".0") for point in points for v in point)
