"""The widget graph of one trial's ``generatedData``, laid out for the trial drill-down page (pure: no Django).

Widgets are nodes, reactive bindings directed edges typed flow / meta / sync / unknown by
``layer3.metrics.w2wr.binding_types`` (seed 002 §2.2.2, §4.2); the spec is read by
``layer3.metrics.parsing.parse_ui_spec``, so data it refuses gives a graph with ``error`` and no nodes.

Layout, deterministic, in SVG user units rounded to 1 decimal, layered left to right: a node's column is its
depth along the bindings (longest path; a binding that closes a cycle, a back edge of a depth-first search
in spec order, does not count, so a sync pair is two neighbouring columns). A column holds at most
``MAX_ROWS`` nodes of a group, more are wrapped into further columns; past ``MAX_COLUMNS`` columns (a long
chain) each group's nodes are put in spec order in columns of ``MAX_ROWS``. A group is a band across the
columns: one unnamed band for a UISpec, one named band per PlanUISpec section, stacked in section order.
Within a column the nodes are ordered by barycenter sweeps to cut crossings. An edge past columns in between
runs through a free slot of each (a "dummy" row); edges go from the source's right edge to the target's left
edge, back edges from the left edge to the right edge a little lower; within a column (self-loops included)
an arc out to the right. A binding to an unlisted widget id gets a placeholder node (kind ``"missing"``) in
the group of its other end; a duplicate id gets a node per listing, its bindings go to the first.
An edge's label sits at the middle of its curve and is left out (``show_label`` false, the tooltip stays)
where it would cover a node, a section name or an earlier label.
"""

from __future__ import annotations

import math
import unicodedata
from dataclasses import dataclass

from layer3.metrics.parsing import parse_ui_spec
from layer3.metrics.spec import SECTION_NAMES, UISpecError
from layer3.metrics.w2wr import binding_types

TYPES = ("flow", "meta", "sync", "unknown")
MISSING_KIND = "missing"
MAX_ROWS, MAX_COLUMNS = 12, 10

PAD = 16.0  # around the groups
GROUP_PAD = 12.0  # inside a group's band, left, right, below and (no name) above its nodes
HEADER = 26.0  # above a section's nodes: its name
GROUP_GAP = 8.0  # between two sections' bands
NODE_H, ROW_GAP, DUMMY_H = 36.0, 14.0, 6.0  # a dummy is the slot of an edge passing a column
MIN_GAP, MAX_GAP = 48.0, 136.0  # between columns; wider to hold the edge labels there, up to MAX_GAP
MIN_W, MAX_W, TEXT_PAD = 80.0, 176.0, 8.0
LABEL_PX, KIND_PX, EDGE_PX = 12.0, 10.0, 10.0  # font sizes of the CSS (layer3_graph.css)
MAX_EDGE_LABEL_W = 120.0
LABEL_MARGIN = 4.0  # kept free around an edge label
LABELLED_EDGES = 16  # more edges get no labels on the graph (too many to read), only tooltips
DISPLAY_SCALE = 1.25  # the SVG's width and height attributes: the view box enlarged (the CSS fits it to the card)
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
    label: str  # "sourcePort → targetPort", cut to fit
    title: str  # the binding as written: "w1.items → w2.input"
    missing: bool  # an end is a placeholder
    path: str  # SVG path data: M x y C x y x y x y, then L x y C x y x y x y per column passed
    label_x: float  # the label's centre
    label_y: float  # its baseline
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


def trial_graph(generated_data: object) -> TrialGraph:  # noqa: PLR0912, PLR0915 - one layout, read top down
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
    home: dict[str, str] = {}  # widget id -> its group, the first listing it
    for name, items in members.items():
        for widget_id, _ in items:
            home.setdefault(widget_id, name)
    last_group = list(members)[-1]
    for source, target in zip(spec.source_widgets, spec.target_widgets):  # noqa: B905 - parsed together
        group = home.get(source, home.get(target, last_group))
        for widget_id in (source, target):
            if widget_id not in home:
                home[widget_id] = group
                members[group].append((widget_id, None))

    names = list(members)
    entries = [(widget_id, kind, lane) for lane, name in enumerate(names) for widget_id, kind in members[name]]
    count = len(entries)
    index: dict[str, int] = {}  # widget id -> its (first) node
    for number, (widget_id, _, _) in enumerate(entries):
        index.setdefault(widget_id, number)
    links = [(index[s], index[t]) for s, t in zip(spec.source_widgets, spec.target_widgets)]  # noqa: B905
    lane = [entry[2] for entry in entries]
    column = _columns(_layers(count, links), lane, len(names))
    columns = max(column, default=0) + 1

    chains = []  # per binding: its source, a dummy per column passed, its target
    for a, b in links:
        step = 1 if column[b] > column[a] else -1
        passed = range(column[a] + step, column[b], step) if column[a] != column[b] else range(0)
        chain = [a]
        for i, c in enumerate(passed):
            chain.append(len(column))
            column.append(c)
            lane.append(lane[a] if 2 * i < len(passed) else lane[b])
        chains.append([*chain, b])
    cells = _order(column, lane, chains, columns, len(names))

    labelled = len(links) <= LABELLED_EDGES
    ports = [f"{b['source'].partition('.')[2]} → {b['target'].partition('.')[2]}" for b in spec.bindings]
    labels = [_fit(text, EDGE_PX, MAX_EDGE_LABEL_W) for text in ports]
    gaps = [MIN_GAP] * columns  # right of each column
    for chain, label in zip(chains, labels):  # noqa: B905 - one of each per binding
        k = len(chain) - 2
        if labelled and column[chain[0]] != column[chain[-1]] and k % 2 == 0:  # the middle is in a gap
            c = min(column[chain[k // 2]], column[chain[k // 2 + 1]])
            gaps[c] = min(MAX_GAP, max(gaps[c], _width(label, EDGE_PX) + 2 * LABEL_MARGIN + 12))
    widths = [MIN_W] * columns
    for (widget_id, kind, _), c in zip(entries, column):  # noqa: B905 - column starts with the nodes'
        text = max(_width(widget_id, LABEL_PX), _width(MISSING_TEXT if kind is None else kind, KIND_PX))
        widths[c] = min(MAX_W, max(widths[c], text + 2 * TEXT_PAD))
    xs, x = [], PAD + GROUP_PAD
    for c in range(columns):
        xs.append(x)
        x += widths[c] + gaps[c]
    right = x - gaps[-1] + (MIN_GAP if any(column[a] == column[b] == columns - 1 for a, b in links) else 0)
    width = right + GROUP_PAD + PAD

    header = GROUP_PAD if spec.sections is None else HEADER
    ys = [0.0] * len(column)  # the middle of each node and dummy
    groups: list[GraphGroup] = []
    y = PAD
    for number, name in enumerate(names):
        tall = [sum(NODE_H if v < count else DUMMY_H for v in cell[number]) for cell in cells]
        tall = [t + ROW_GAP * max(len(cell[number]) - 1, 0) for t, cell in zip(tall, cells)]  # noqa: B905
        content = max(tall, default=0.0)
        for cell, t in zip(cells, tall):  # noqa: B905
            top = y + header + (content - t) / 2
            for v in cell[number]:
                h = NODE_H if v < count else DUMMY_H
                ys[v], top = top + h / 2, top + h + ROW_GAP
        group_h = header + content + GROUP_PAD
        groups.append(GraphGroup(name, PAD, _r(y), _r(width - 2 * PAD), _r(group_h), PAD + GROUP_PAD, _r(y + 17)))
        y += group_h + GROUP_GAP
    height = y - GROUP_GAP + PAD

    nodes = [
        _node(widget_id, kind, names[group], xs[column[i]], ys[i] - NODE_H / 2, widths[column[i]])
        for i, (widget_id, kind, group) in enumerate(entries)
    ]
    taken = [(n.x, n.y, n.x + n.w, n.y + n.h) for n in nodes]  # boxes an edge label must not cover
    taken += [(g.label_x, g.label_y - 12, g.label_x + _width(g.name, LABEL_PX), g.label_y + 3) for g in groups]
    edges: list[GraphEdge] = []
    counts = dict.fromkeys(TYPES, 0)
    pairs: dict[tuple[int, int], int] = {}  # unordered node pair -> edges drawn between them so far
    kinds = binding_types(spec)
    for binding, chain, label, (kind, reason) in zip(spec.bindings, chains, labels, kinds):  # noqa: B905
        a, b = chain[0], chain[-1]
        pair = (min(a, b), max(a, b))
        bend = pairs.get(pair, 0) if len(chain) == 2 else 0
        pairs[pair] = pairs.get(pair, 0) + 1
        points = [(xs[column[v]], ys[v], widths[column[v]]) for v in chain[1:-1]]
        path, label_x, label_y = _route(nodes[a], column[a], nodes[b], column[b], points, bend)
        half = _width(label, EDGE_PX) / 2 + LABEL_MARGIN
        label_x = _r(min(max(label_x, half), width - half))  # centred on label_x: inside the view box
        box = (label_x - half, label_y - 10 - LABEL_MARGIN, label_x + half, label_y + 3 + LABEL_MARGIN)
        show = labelled and not any(_overlap(box, other) for other in taken)
        if show:
            taken.append(box)
        counts[kind] += 1
        edges.append(
            GraphEdge(
                binding["id"], entries[a][0], entries[b][0], kind, reason, label,
                f"{binding['source']} → {binding['target']}", nodes[a].missing or nodes[b].missing,
                path, label_x, label_y, show,
            )
        )  # fmt: skip
    labelled = any(edge.show_label for edge in edges)
    return TrialGraph(_r(width), _r(height), tuple(groups), tuple(nodes), tuple(edges), counts, None, labelled)


def _layers(count: int, links: list[tuple[int, int]]) -> list[int]:
    """Each node's depth along ``links`` (longest path), leaving out the back edges of a DFS in node order."""
    after: list[list[int]] = [[] for _ in range(count)]
    for a, b in links:
        if a != b and b not in after[a]:
            after[a].append(b)
    state, finished, back = [0] * count, [], set()  # state: 0 unseen, 1 on the DFS stack, 2 finished
    for root in range(count):
        stack = [] if state[root] else [(root, iter(after[root]))]
        state[root] = max(state[root], 1)
        while stack:
            node, rest = stack[-1]
            nxt = next(rest, None)
            if nxt is None:
                state[node] = 2
                finished.append(node)
                stack.pop()
            elif state[nxt] == 1:
                back.add((node, nxt))
            elif state[nxt] == 0:
                state[nxt] = 1
                stack.append((nxt, iter(after[nxt])))
    layer = [0] * count
    for node in reversed(finished):  # a topological order of the graph without back edges
        for nxt in after[node]:
            if (node, nxt) not in back:
                layer[nxt] = max(layer[nxt], layer[node] + 1)
    return layer


def _columns(layer: list[int], lane: list[int], lanes: int) -> list[int]:
    """Each node's column: its layer, a layer's cells (its nodes of a group) wrapped past ``MAX_ROWS``."""
    column, start = [0] * len(layer), 0
    for k in range(max(layer, default=-1) + 1):
        cells = [[i for i, (n, g) in enumerate(zip(layer, lane)) if n == k and g == lane_] for lane_ in range(lanes)]  # noqa: B905
        wraps = max(1, *(math.ceil(len(cell) / MAX_ROWS) for cell in cells))
        for cell in cells:
            per = math.ceil(len(cell) / wraps) or 1
            for row, i in enumerate(cell):
                column[i] = start + row // per
        start += wraps
    if start > MAX_COLUMNS:  # a long chain: each group in spec order, in columns of up to MAX_ROWS
        for group in range(lanes):
            members = [i for i, g in enumerate(lane) if g == group]
            per = math.ceil(len(members) / max(1, math.ceil(len(members) / MAX_ROWS))) or 1
            for row, i in enumerate(members):
                column[i] = row // per
    return column


def _order(column: list[int], lane: list[int], chains: list[list[int]], columns: int, lanes: int) -> list:
    """``cells[c][g]``: the nodes and dummies of group ``g`` in column ``c``, top to bottom (barycenter sweeps)."""
    cells = [[[] for _ in range(lanes)] for _ in range(columns)]
    for v, (c, g) in enumerate(zip(column, lane)):  # noqa: B905
        cells[c][g].append(v)
    near: list[list[int]] = [[] for _ in column]  # neighbours in the next column either side
    for chain in chains:
        for u, v in zip(chain, chain[1:]):
            if abs(column[u] - column[v]) == 1:
                near[u].append(v)
                near[v].append(u)
    sweep = [*range(1, columns), *range(columns - 2, -1, -1)]
    for c in sweep * 2:
        for side in (c - 1, c + 1):
            if side in (c - 1 if c in sweep[: columns - 1] else c + 1,) and 0 <= side < columns:
                rank = {v: i for i, v in enumerate(v for cell in cells[side] for v in cell)}
                own = {v: i for i, v in enumerate(v for cell in cells[c] for v in cell)}
                for cell in cells[c]:
                    keys = {v: [rank[u] for u in near[v] if column[u] == side] or [own[v]] for v in cell}
                    cell.sort(key=lambda v, keys=keys, own=own: (sum(keys[v]) / len(keys[v]), own[v]))
    return cells
