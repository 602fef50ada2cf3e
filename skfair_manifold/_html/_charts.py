"""The geometry of the pages' charts: grouped bars and the causal graph around the decision."""

import math

from ..utils._graph import ancestor_layers, parents_mapping

#: a bar label longer than this is cut with an ellipsis (the full text is its tooltip)
LABEL_CHARS = 40

#: the width of one character of the charts' 11 px font, a little generous
CHAR_PX = 6.6


def _short(text, limit=LABEL_CHARS):
    text = str(text)
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"


def bar_chart(title, labels, series, *, width=520, bar_height=16, unit_max=1.0):
    """Geometry of a horizontal grouped bar chart drawn by ``_svg.html.j2``.

    ``series``: list of (name, values, intervals or None); values in [0, unit_max].
    The label column is as wide as the longest label (cut at ``LABEL_CHARS``
    characters) and the chart widens to keep a 300 px plot area; the title
    takes its own line above, cut to the chart's width.
    """
    n_series = len(series)
    shown = [_short(label) for label in labels]
    left = int(max(60, CHAR_PX * max((len(t) for t in shown), default=4) + 14))
    right, top = 20, 34
    width = max(width, left + 300 + right)
    row = bar_height * n_series + 10
    height = top + row * len(labels) + 30
    span = width - left - right
    colours = ["#3b6ea8", "#d08c32", "#5b9e5b"]
    bars = []
    for i, label in enumerate(labels):
        for s, (name, values, intervals) in enumerate(series):
            value = values[i]
            y = top + i * row + s * bar_height
            bar = {"y": y, "height": bar_height - 3, "colour": colours[s % len(colours)],
                   "label": shown[i] if s == 0 else "", "full_label": str(label),
                   "series": name, "value": value, "width": 0.0, "x": left, "interval": None}
            if value is not None and math.isfinite(value):
                bar["width"] = max(span * min(value / unit_max, 1.0), 0.0)
            if intervals is not None and intervals[i] is not None \
                    and all(v is not None and math.isfinite(v) for v in intervals[i]):
                lo, hi = intervals[i]
                bar["interval"] = (left + span * max(lo, 0) / unit_max,
                                   left + span * min(hi, unit_max) / unit_max)
            bars.append(bar)
    ticks = [{"x": left + span * t, "label": f"{t * unit_max:.2g}"} for t in (0, .25, .5, .75, 1)]
    legend = [{"name": name, "colour": colours[s % len(colours)], "x": left + 150 * s}
              for s, (name, _, _) in enumerate(series)]
    return {"title": _short(title, int((width - 8) / 7.5)), "full_title": str(title),
            "width": width, "height": height, "bars": bars, "ticks": ticks,
            "legend": legend, "top": top, "bottom": height - 24, "left": left,
            "label_x": left - 6}


#: the widest figure of a page (px): a causal graph's long names are shortened to fit
MAX_FIGURE_WIDTH = 1280


def graph_layout(parents, decision, q, protected, *, weak=(), width=640):
    """Geometry of the causal graph around ``decision`` (layers of ancestors), Q marked.

    ``weak``: the decision's parents that Q leaves out (the weak-parent rule),
    drawn apart (kind ``"weak"``).
    """
    mapping = parents_mapping(parents)
    if decision not in mapping:
        return None
    layers = ancestor_layers(mapping, decision, depth=3)
    # a layer of m nodes is spread over m + 1 equal gaps: each must hold a node, and the
    # figure stays within the page's widest (long names shortened to fit)
    gaps = max(len(layer) for layer in layers) + 1
    cap = max(90, MAX_FIGURE_WIDTH // gaps - 20)
    limit = min(30, max(8, (cap - 16) // 8 - 7))
    longest = max(len(_node_name(node, limit)) for layer in layers for node in layer) + 7
    node_width = max(90, min(cap, 8 * longest + 16))
    width = max(width, (node_width + 20) * gaps)
    layer_gap, top = 90, 40
    height = top + layer_gap * (len(layers) - 1) + 50
    position = {}
    for depth, layer in enumerate(reversed(layers)):
        for i, node in enumerate(layer):
            x = width * (i + 1) / (len(layer) + 1)
            position[node] = (x, top + depth * layer_gap)
    edges = []
    for child, ps in mapping.items():
        for p in ps:
            if child in position and p in position:
                (x1, y1), (x2, y2) = position[p], position[child]
                edges.append({"x1": x1, "y1": y1 + 14, "x2": x2, "y2": y2 - 16})
    nodes = [{"name": _node_name(node, limit), "x": x, "y": y,
              "kind": ("decision" if node == decision else "q" if node in q
                       else "protected" if node == protected
                       else "weak" if str(node) in weak else "other")}
             for node, (x, y) in position.items()]
    return {"width": width, "height": height, "nodes": nodes, "edges": edges,
            "node_width": node_width}


def _node_name(name, limit=30):
    """A node's name for the graph: at most ``limit`` characters, the rest as an ellipsis."""
    text = str(name)
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"
