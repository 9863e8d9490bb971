"""The Grafana dashboard (docs/monitoring/dashboard.json) drawn without Grafana: each panel's
queries asked of a real Prometheus, their series drawn as lines (a stat panel as its last
value) on one HTML page, laid out on the dashboard's grid."""

from __future__ import annotations

import html
import json
import time
import urllib.parse
import urllib.request
from pathlib import Path

COLOURS = ("#3274d9", "#e0752d", "#56a64b", "#a352cc", "#e02f44", "#8ab8ff", "#f2cc0c")
GRID_COLUMN_PX = 52
GRID_ROW_PX = 28
HEADER_PX = 60
PLOT_WIDTH, PLOT_HEIGHT = 560, 110


def prometheus_get(base_url: str, path: str, **query: str | float) -> dict:
    url = f"{base_url}{path}?{urllib.parse.urlencode(query)}"
    with urllib.request.urlopen(url, timeout=10) as response:
        answer = json.loads(response.read())
    assert answer["status"] == "success", answer
    return answer["data"]


def panel_series(base_url: str, panel: dict, seconds: float) -> list[tuple[str, list]]:
    """Each (legend, [(time, value)]) the panel's queries give over the last `seconds`."""
    end = time.time()
    series = []
    for target in panel["targets"]:
        data = prometheus_get(
            base_url,
            "/api/v1/query_range",
            query=target["expr"],
            start=end - seconds,
            end=end,
            step=1,
        )
        for result in data["result"]:
            legend = target["legendFormat"]
            for name, value in result["metric"].items():
                legend = legend.replace("{{" + name + "}}", value)
            points = [(float(at), float(value)) for at, value in result["values"]]
            series.append((legend, [(at, value) for at, value in points if value == value]))
    return series


def _plot(series: list[tuple[str, list]], unit: str) -> str:
    points = [point for _legend, values in series for point in values]
    if not points:
        return '<p class="empty">no data</p>'
    times = [at for at, _value in points]
    top = max(value for _at, value in points) or 1.0
    start, span = min(times), (max(times) - min(times)) or 1.0
    lines, legend = [], []
    for number, (name, values) in enumerate(series):
        colour = COLOURS[number % len(COLOURS)]
        path = " ".join(
            f"{(at - start) / span * PLOT_WIDTH:.1f},{PLOT_HEIGHT - value / top * PLOT_HEIGHT:.1f}"
            for at, value in values
        )
        lines.append(f'<polyline points="{path}" stroke="{colour}" fill="none" stroke-width="2"/>')
        # Each point too: a series of one point (a first rate) is no line.
        lines += [
            f'<circle cx="{(at - start) / span * PLOT_WIDTH:.1f}" r="3" fill="{colour}"'
            f' cy="{PLOT_HEIGHT - value / top * PLOT_HEIGHT:.1f}"/>'
            for at, value in values
        ]
        last = values[-1][1] if values else 0
        legend.append(
            f'<span style="color:{colour}">&#9644; {html.escape(name)}: {last:.4g} {unit}</span>'
        )
    return (
        f'<svg viewBox="-6 -12 {PLOT_WIDTH + 12} {PLOT_HEIGHT + 26}"'
        ' preserveAspectRatio="xMinYMin">'
        f'<text x="0" y="-2" class="axis">{top:.4g} {unit}</text>'
        f'<line x1="0" y1="{PLOT_HEIGHT}" x2="{PLOT_WIDTH}" y2="{PLOT_HEIGHT}" class="axis"/>'
        f'<text x="{PLOT_WIDTH}" y="{PLOT_HEIGHT + 12}" class="axis" text-anchor="end">'
        f"the last {span:.0f} s</text>"
        + "".join(lines)
        + f'</svg><div class="legend">{"".join(legend)}</div>'
    )


def _stat(series: list[tuple[str, list]], unit: str) -> str:
    if not series:
        return '<p class="empty">no data</p>'
    return "".join(
        f'<div class="stat">{values[-1][1]:.4g} {unit}<small>{html.escape(name)}</small></div>'
        for name, values in series
        if values
    )


def page_height(dashboard: dict) -> int:
    """How tall the page is, in pixels."""
    rows = max(panel["gridPos"]["y"] + panel["gridPos"]["h"] for panel in dashboard["panels"])
    return HEADER_PX + rows * GRID_ROW_PX


def render(dashboard: dict, drawn: dict[int, list[tuple[str, list]]], path: Path) -> None:
    """Write the page: every panel at its place on the grid, with the series drawn for it."""
    boxes = []
    for panel in dashboard["panels"]:
        grid, unit = panel["gridPos"], panel["fieldConfig"]["defaults"]["unit"]
        unit = "" if unit == "short" else unit  # Grafana's plain number
        series = drawn[panel["id"]]
        body = _stat(series, unit) if panel["type"] == "stat" else _plot(series, unit)
        boxes.append(
            f'<section style="left:{grid["x"] * GRID_COLUMN_PX}px;top:{grid["y"] * GRID_ROW_PX}px;'
            f'width:{grid["w"] * GRID_COLUMN_PX - 8}px;height:{grid["h"] * GRID_ROW_PX - 8}px">'
            f"<h2>{html.escape(panel['title'])}</h2>{body}</section>"
        )
    page = f"""<!doctype html><meta charset="utf-8"><title>{html.escape(dashboard["title"])}</title>
<style>
body {{ background:#111217; color:#ccccdc; font:13px sans-serif; margin:12px; }}
h1 {{ font-size:18px; margin:0 0 10px; }}
main {{ position:relative; }}
section {{ position:absolute; background:#181b1f; border:1px solid #2c3235; border-radius:3px;
  padding:6px 8px; box-sizing:border-box; overflow:hidden; }}
h2 {{ font-size:13px; margin:0 0 4px; font-weight:600; }}
svg {{ width:100%; height:auto; }}
.axis {{ fill:#8e8e8e; stroke:#444; font-size:10px; }}
text.axis {{ stroke:none; }}
.legend span {{ margin-right:10px; font-size:11px; white-space:nowrap; }}
.stat {{ font-size:28px; color:#73bf69; }}
.stat small {{ display:block; font-size:11px; color:#ccc; }}
.empty {{ color:#777; }}
</style>
<h1>{html.escape(dashboard["title"])}</h1><main>{"".join(boxes)}</main>"""
    path.write_text(page)
