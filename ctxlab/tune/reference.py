"""Markdown for docs/tuning.md, generated from the knobs the presets declare (``make docs`` runs it
through cog): the index of tunable presets, each agent's knobs with their sources, and its snippets
at a window."""

from __future__ import annotations

from ctxlab.strategies.policy.knobs import Bound, Knob, Span, Tuning, W
from ctxlab.tune.agents import knobs_for, tunable
from ctxlab.tune.evidence import written
from ctxlab.tune.snippets import render_snippets

_FENCE = {"json": "json", "toml": "toml", "yaml": "yaml", "env": "sh", "cli": "sh", "python": "python"}


def knob_table(preset: str) -> str:
    """A markdown table of `preset`'s knobs: agent name, ctxlab parameters, type and unit, what the
    source allows, what ctxlab searches, the default and where they are defined."""
    entry = knobs_for(preset)
    rows = ["| knob | ctxlab parameters | type | source allows | searched | default | defined in |",
            "|---|---|---|---|---|---|---|"]
    rows += [_row(entry, knob) for knob in entry.knobs]
    notes = [f"- `{knob.name}`: {knob.note}" for knob in entry.knobs if knob.note]
    notes += [f"- constraint: {c.text}" for c in entry.constraints]
    return "\n".join([*rows, "", *notes]) + "\n"


def tunable_index() -> str:
    """A markdown table of every tunable preset: the agent, its knobs and the source they cite."""
    rows = ["| preset | agent | knobs | source |", "|---|---|---|---|"]
    for preset in tunable():
        entry = knobs_for(preset)
        rows.append(f"| `{preset}` | {entry.agent} | {', '.join(f'`{k.name}`' for k in entry.knobs)} | "
                    f"{entry.source} |")
    return "\n".join(rows) + "\n"


def _row(entry: Tuning, knob: Knob) -> str:
    kind = f"{knob.kind}, {knob.unit}" if knob.unit else knob.kind
    searched = _span(knob.searched) if knob.searched else "not searched"
    if knob.searched is not None and knob.searched.why:
        searched += f" ({knob.searched.why})"
    default = "unset" if knob.default is None else f"`{written(knob.default)}`"
    return (f"| `{knob.name}` | {', '.join(f'`{p}`' for p in knob.params)} | {kind} | "
            f"{_span(knob.allowed) if knob.allowed else 'any'} | {searched} | {default} | {entry.cite(knob.where)} |")


def _span(span: Span) -> str:
    return f"{_bound(span.low, 'no minimum')} .. {_bound(span.high, 'no maximum')}"


def _bound(bound: Bound, none: str) -> str:
    if bound is None:
        return none
    if isinstance(bound, W):
        return f"{bound.share:g} x window"
    return f"{bound:,g}"


def snippet_examples(preset: str, window: int = 64_000) -> str:
    """`preset`'s snippets for its default setting at `window` tokens, as fenced blocks."""
    blocks = []
    for snippet in render_snippets(preset, {}, window):
        blocks.append(f"{snippet.title} (names from {snippet.source}):\n\n"
                      f"```{_FENCE[snippet.kind]}\n{snippet.text}\n```\n")
    return "\n".join(blocks)


__all__ = ["knob_table", "snippet_examples", "tunable_index"]
