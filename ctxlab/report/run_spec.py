"""A run's spec for the report and the dashboard's Runs page: its identity and configuration, and
each strategy's spec in short form (only the parameters that differ from the strategy's defaults),
with the full spec, which rebuilds it exactly, one click away."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pandas as pd

from ctxlab.errors import CtxlabError
from ctxlab.report import htmlkit as H


def run_overview(info: dict[str, Any]) -> dict[str, Any]:
    """A run's identity, totals and configuration as labelled values (report and dashboard)."""
    config = info.get("config") or {}

    def joined(key: str) -> str:
        return ", ".join(map(str, config.get(key, [])))

    def when(value: Any) -> str:
        return value.strftime("%Y-%m-%d %H:%M:%S") if hasattr(value, "strftime") and value == value else str(value)

    return {
        "run id": info["run_id"], "name": info.get("name"), "status": info.get("status"),
        "started": when(info.get("started_at")), "finished": when(info.get("finished_at")),
        "wall time (s)": H.fmt(info.get("wall_s"), "ms"), "conversations": info.get("conversations"),
        "units": info.get("units"), "errors": info.get("errors"), "skipped inputs": info.get("skips"),
        "sources": joined("sources"), "windows": joined("windows"), "counters": joined("counters"),
        "reference tokenizers": joined("references"), "modes": joined("modes"), "estimators": joined("estimators"),
        "limit per source": config.get("limit"),
    }


def spec_text(params: Any) -> str:
    """A stored spec (``params`` JSON) as ``name(key=value, ...)``, every parameter."""
    try:
        data = json.loads(params)
    except (TypeError, ValueError):
        return str(params)
    args = ", ".join(f"{k}={json.dumps(v, default=str)}" for k, v in data.get("params", {}).items())
    return f"{data.get('name')}({args})"


def short_spec(params: Any) -> str:
    """A stored spec as ``name`` plus ``key=value`` for each parameter that differs from what
    ``name`` builds by default (the full spec when the name no longer builds)."""
    try:
        data = json.loads(params)
        defaults = _defaults(str(data.get("name")))
    except (TypeError, ValueError, CtxlabError):
        return spec_text(params)
    changed = {k: v for k, v in data.get("params", {}).items() if k not in defaults or defaults[k] != _json(v)}
    args = ", ".join(f"{k}={json.dumps(v, default=str)}" for k, v in changed.items())
    return f"{data.get('name')}({args})" if args else str(data.get("name"))


@cache
def _defaults(name: str) -> dict[str, str]:
    from ctxlab.strategies import get_strategy

    return {k: _json(v) for k, v in get_strategy(name).spec.params}


def _json(value: Any) -> str:
    return json.dumps(value, default=str, sort_keys=True)


def spec_section(info: dict[str, Any], variants: pd.DataFrame) -> list[str]:
    """The run spec, collapsed: overview, strategies (short specs, the full ones collapsed inside),
    dataset fingerprints, versions, notes and the full configuration."""
    config = info.get("config") or {}
    shown = (variants.assign(short=variants["params"].map(short_spec), spec=variants["params"].map(spec_text))
             if not variants.empty else variants)
    fingerprints = pd.DataFrame(sorted((info.get("fingerprints") or {}).items()), columns=["dataset", "fingerprint"])
    notes = info.get("notes") or []
    inner = [H.key_values(run_overview(info)),
             "<h4>Strategies</h4>",
             H.para("Each as its name and the parameters that differ from that name's defaults.", "muted"),
             H.table(shown, {"label": "strategy", "counter": "counter", "short": "spec"},
                     left=("label", "counter", "short")),
             H.details("Full specs (every parameter; each rebuilds its strategy exactly)",
                       H.table(shown, {"label": "strategy", "counter": "counter", "spec": "full spec"},
                               left=("label", "counter", "spec"), scroll=True)),
             "<h4>Datasets</h4>", H.table(fingerprints, left=("dataset", "fingerprint")),
             "<h4>Versions</h4>", H.key_values(info.get("versions") or {})]
    if notes:
        inner.append("<h4>Notes</h4><ul>" + "".join(f"<li>{H.esc(n)}</li>" for n in notes) + "</ul>")
    inner.append(H.details("Full run config (JSON)", H.pre(json.dumps(config, indent=2, default=str), limit=20000)))
    summary = (f"Run spec: {info.get('conversations')} conversations, {len(variants)} strategy variants, "
               f"windows {', '.join(map(str, config.get('windows', [])))}")
    return ["<h3>Run spec</h3>", H.details(summary, "".join(inner))]


__all__ = ["run_overview", "short_spec", "spec_section", "spec_text"]
