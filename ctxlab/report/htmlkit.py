"""Small HTML builders for the static report: every dynamic value passes through `esc`.

Conversation text, dataset names, ids, reasons and configs come from datasets nobody vetted, so
the one rule here is that nothing reaches the page unescaped: a message containing
``<script>`` must show as text. The page carries no JavaScript and loads nothing from outside;
figures are embedded as base64 PNG.
"""

from __future__ import annotations

import base64
import html
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI","Noto Sans","Noto Sans CJK JP",sans-serif;margin:0;color:#1d2330;
background:#f6f7f9;line-height:1.45;font-size:14px}
main{max-width:1180px;margin:0 auto;padding:24px 28px 60px;background:#fff}
h1{font-size:26px;margin:0 0 4px}h2{font-size:21px;margin:40px 0 8px;border-bottom:2px solid #e3e6ec;padding-bottom:4px}
h3{font-size:17px;margin:28px 0 6px}h4{font-size:14px;margin:18px 0 4px}
.muted{color:#667085}.note{background:#f1f5fb;border-left:3px solid #4c78a8;padding:8px 12px;margin:10px 0}
.warn{background:#fff6e5;border-left:3px solid #f0a400;padding:8px 12px;margin:10px 0}
table{border-collapse:collapse;margin:8px 0 14px;font-size:12.5px}
th,td{border:1px solid #e3e6ec;padding:3px 7px;text-align:right;vertical-align:top}td:not(.l){white-space:nowrap}
th{background:#f3f4f7;position:sticky;top:0}td.l,th.l{text-align:left}
tr:nth-child(even) td{background:#fafbfc}
.scroll{max-height:520px;overflow:auto;border:1px solid #e3e6ec;display:inline-block;max-width:100%}
.scroll table{margin:0}
img.fig{max-width:100%;height:auto;display:block;margin:8px 0 18px;border:1px solid #eef0f3}
pre{white-space:pre-wrap;word-break:break-word;background:#f7f7f9;padding:8px;margin:4px 0;font-size:12px;
max-height:380px;overflow:auto}
details>summary{cursor:pointer;color:#344054}
.fate{display:inline-block;padding:0 6px;border-radius:8px;font-size:11.5px;font-weight:600}
.kept{background:#dcfce7;color:#166534}.truncated{background:#fef3c7;color:#92400e}
.dropped{background:#fee2e2;color:#991b1b}.summary{background:#dbeafe;color:#1e40af}
.marker{background:#ede9fe;color:#5b21b6}
.bar{background:#eef0f3;width:120px;height:9px;display:inline-block;position:relative}
.bar span{position:absolute;left:0;top:0;bottom:0;background:#9ca3af}.bar span.k{background:#22c55e}
nav ul{margin:4px 0 0 18px;padding:0}
.verdict{border:1px solid #d0d5dd;border-radius:6px;padding:4px 14px 8px;margin:12px 0}
.verdict h4{margin:8px 0 2px;font-size:15px}.verdict p{margin:2px 0 6px}
.verdict table{margin:4px 0 6px;font-size:13.5px;width:100%}.verdict th{width:110px;background:#f3f4f7;position:static}
.verdict tr.run td{font-weight:600;background:#eef6ee}
"""


def esc(value: Any) -> str:
    """Text for the page: escaped, quotes included; None and NaN become an en dash."""
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return "&ndash;"
    return html.escape(str(value), quote=True)


def page(title: str, body: Iterable[str]) -> str:
    """A complete, self-contained HTML document."""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{esc(title)}</title><style>{CSS}</style></head><body><main>\n"
            + "\n".join(body) + "\n</main></body></html>\n")


def figure(png: bytes, alt: str) -> str:
    """An embedded PNG."""
    data = base64.b64encode(png).decode("ascii")
    return f'<img class="fig" alt="{esc(alt)}" src="data:image/png;base64,{data}">'


def para(text: str, cls: str = "") -> str:
    """A paragraph of escaped text."""
    return f'<p class="{cls}">{esc(text)}</p>' if cls else f"<p>{esc(text)}</p>"


def details(summary: str, inner: str, *, open_: bool = False) -> str:
    """A collapsible block (no script needed); `inner` is HTML built by these helpers."""
    return f"<details{' open' if open_ else ''}><summary>{esc(summary)}</summary>{inner}</details>"


def pre(text: str, limit: int = 6000) -> str:
    """Preformatted text, cut at `limit` characters with a note saying how much was left out."""
    text = str(text)
    extra = f"\n... ({len(text) - limit:,} more characters)" if len(text) > limit else ""
    return f"<pre>{esc(text[:limit] + extra)}</pre>"


def fmt(value: Any, kind: str = "") -> str:
    """A value formatted for a table cell (`kind`: pct, int, ms, float or plain)."""
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if kind == "pct":
        return f"{100 * float(value):.1f}%"
    if kind == "int":
        return f"{int(value):,}"
    if kind == "ms":
        return f"{float(value):.2f}"
    if kind == "float" or isinstance(value, float):
        return f"{float(value):.3f}"
    return str(value)


def table(df: pd.DataFrame, columns: Mapping[str, str] | None = None, kinds: Mapping[str, str] | None = None,
          *, left: Sequence[str] = (), scroll: bool = False, max_rows: int = 500) -> str:
    """A DataFrame as an escaped HTML table.

    Args:
        columns: the columns shown and their headers (default: all, named as they are).
        kinds: per column, how `fmt` formats it.
        left: columns aligned left (text).
        scroll: put a long table in a scrolling box.
        max_rows: rows shown; a note says how many were left out.
    """
    if df is None or df.empty:
        return para("(none)", "muted")
    columns = dict(columns or {c: c for c in df.columns})
    kinds = kinds or {}
    head = "".join(f'<th class="{"l" if c in left else ""}">{esc(h)}</th>' for c, h in columns.items())
    rows = []
    for record in df.head(max_rows).to_dict("records"):
        cells = "".join(f'<td class="{"l" if c in left else ""}">{esc(fmt(record.get(c), kinds.get(c, "")))}</td>'
                        for c in columns)
        rows.append(f"<tr>{cells}</tr>")
    more = para(f"... {len(df) - max_rows:,} more rows", "muted") if len(df) > max_rows else ""
    body = f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    return (f'<div class="scroll">{body}</div>' if scroll else body) + more


def key_values(items: Mapping[str, Any]) -> str:
    """A two-column table of labelled values."""
    rows = "".join(f'<tr><th class="l">{esc(k)}</th><td class="l">{esc(v)}</td></tr>' for k, v in items.items())
    return f"<table>{rows}</table>"


def fate_badge(fate: str) -> str:
    """A coloured label for kept / truncated / dropped / summary / marker."""
    cls = fate if fate in ("kept", "truncated", "dropped", "summary", "marker") else "marker"
    return f'<span class="fate {cls}">{esc(fate)}</span>'


def token_bar(tokens: int, kept: int, scale: int) -> str:
    """A bar as long as the message (relative to `scale`), filled green for the part kept."""
    full = 100 * min(tokens, scale) / max(scale, 1)
    part = 100 * min(kept, scale) / max(scale, 1)
    return (f'<span class="bar"><span style="width:{full:.1f}%"></span>'
            f'<span class="k" style="width:{part:.1f}%"></span></span>')
