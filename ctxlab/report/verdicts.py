"""The report's opening: per dataset and window of each per-turn run, the verdict
(`ctxlab.analysis.verdict.Verdict`, in the words every face uses: `ctxlab.analysis.wording`).

A verdict's optional findings (the stand-in gap, the headroom) are rendered by the same loop as
its other lines, and their detail, when they have one, below (collapsed, or shown as a warning):
a new finding needs no change here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ctxlab.analysis.limits import LIMIT_NOTE
from ctxlab.analysis.verdict import Verdict
from ctxlab.analysis.wording import RULE, competing, lines
from ctxlab.report import htmlkit as H

HOW = "`ctxlab recommend SESSIONS --window N` replays sessions call by call and compares every policy."


def verdict_section(runs: Sequence[tuple[str, str, list[Verdict]]]) -> list[str]:
    """The opening section: per (run id, run name, its verdicts), a block per dataset and window."""
    out = ['<h2 id="verdict">Verdict</h2>']
    found = [(rid, name, vs) for rid, name, vs in runs if vs]
    if not found:
        return [*out, H.para(f"No per-turn results in this database, so no verdict: {HOW}", "muted")]
    out.append(H.para("Per dataset and window: the policy to run, the best by needed-context recall (the share of "
                      "the strings the agent's recorded next action used from earlier in the session that were still "
                      "sent, pooled over calls, 95% CI over sessions) and the cheapest (effective cost per session: "
                      f"tokens or dollars sent plus refetching what was lost). {RULE} Only policies no provider would "
                      "reject a call of compete. The fronts behind each verdict are in section 5 of each run."))
    if any(v.headroom is not None for _, _, vs in found for v in vs):
        out.append(H.para(LIMIT_NOTE, "muted"))  # what the headroom lines measure, said once
    for rid, name, vs in found:
        if len(found) > 1 or len(runs) > 1:
            out.append(f'<h3>Run <a href="#run-{H.esc(rid)}">{H.esc(name)}</a></h3>')
        out += [card(v) for v in vs]
    return out


def card(v: Verdict) -> str:
    """One verdict: its heading, its lines (optional findings included), the evidence and any
    finding's detail collapsed."""
    where = f"{v.dataset}, " if v.dataset else ""
    rows = "".join(f'<tr class="{H.esc(line.key.replace(" ", "-"))}"><th class="l">{H.esc(line.key)}</th>'
                   f'<td class="l">{H.esc(line.text)}</td></tr>' for line in lines(v))
    more = "".join(details(v))
    return (f'<div class="verdict"><h4>{H.esc(where)}{v.window:,}-token window</h4>'
            + H.para(f"{v.sessions} sessions, {v.calls:,} calls; {competing(v)}.", "muted")
            + f"<table>{rows}</table>" + H.details("Why: the evidence", H.para(v.evidence)) + more + "</div>")


def details(v: Verdict) -> list[str]:
    """The details of a verdict's findings: a warning shown as one, the rest collapsed."""
    return [H.para(f.detail, "warn") if f.warn else H.details(title, H.para(f.detail))
            for title, f in v.findings() if f.detail]


def named(run: Any) -> tuple[str, str]:
    """(run id, display name) of a `ctxlab.report.html_report.RunData`."""
    return str(run.info["run_id"]), str(run.info.get("name") or run.info["run_id"])


__all__ = ["HOW", "card", "details", "named", "verdict_section"]
