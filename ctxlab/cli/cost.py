"""`ctxlab cost`: agent logs priced as the provider recorded them and as ctxlab's cache model
predicts them. Parses, calls `ctxlab.cost`, prints."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.markup import escape

from ctxlab.cli.app import command
from ctxlab.cli.common import (
    Limit,
    SkipInvalid,
    Skips,
    Sources,
    console,
    load_sources,
    numeric_table,
    print_skips,
    progress,
)
from ctxlab.cost import CallCost, SessionCheck, check_logs, combined
from ctxlab.errors import CtxlabError


@command()
def cost(
    sources: Sources,
    model: Annotated[str | None, typer.Option(
        help="litellm model that prices every call (e.g. claude-sonnet-4-5, gpt-4o).",
        show_default="each log's own model")] = None,
    lifetime: Annotated[float, typer.Option(help="Cache lifetime in seconds (3600: Anthropic's 1-hour cache).")] = 300,
    counter: Annotated[str, typer.Option(help="Counts the tools and system messages a log shows.")] = "o200k_base",
    worst: Annotated[int, typer.Option(help="List this many mismatching calls (worst first).")] = 10,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object per session, as a list.")] = False,
    limit: Limit = None,
    skip_invalid: SkipInvalid = False,
) -> None:
    """What each recorded session cost with prompt caching, recorded beside predicted."""
    skips = Skips()
    conversations = progress(load_sources(sources, skip_invalid, skips, limit), "Pricing sessions")
    checks = list(check_logs(conversations, model, counter=counter, lifetime_s=lifetime))
    if not checks:
        raise CtxlabError(f"no per-call usage in {', '.join(sources)} (agent logs record it in meta.provider_calls; "
                          "SWE-agent logs keep only run totals)")
    if as_json:
        typer.echo(json.dumps([check.to_json() for check in checks], indent=2))
        return
    _print_sessions([*checks, combined(checks)] if len(checks) > 1 else checks)
    _print_worst(checks, worst)
    print_skips(skips)


def _print_sessions(checks: list[SessionCheck]) -> None:
    table = numeric_table("Recorded / predicted per session (predicted from the recorded prompt sizes)",
                          "session", "model", "calls", "read match", "input", "cache read", "cache write",
                          "USD", "misses", "unexpected hits")
    for check in checks:
        recorded, predicted = check.recorded, check.predicted
        table.add_row(escape(check.session), escape(check.model), f"{len(check.calls):,}",
                      _pct(check.cache_read_match_rate), *_pairs(recorded, predicted),
                      f"{check.count('unexplained miss'):,}", f"{check.count('unexpected hit'):,}")
    console().print(table)


def _pairs(recorded: CallCost, predicted: CallCost) -> list[str]:
    pairs = [(recorded.input_tokens, predicted.input_tokens), (recorded.cache_read_tokens, predicted.cache_read_tokens),
             (recorded.cache_write_tokens, predicted.cache_write_tokens)]
    return [*(f"{a:,} / {b:,}" for a, b in pairs), f"{recorded.cost_usd:,.4f} / {predicted.cost_usd:,.4f}"]


def _print_worst(checks: list[SessionCheck], worst: int) -> None:
    rows = sorted(((s.session, c) for s in checks for c in s.calls if not c.matches),
                  key=lambda row: -abs(row[1].read_error))[:max(worst, 0)]
    if not rows:
        return
    table = numeric_table("Calls whose cache read the model does not predict (within 2% of the prompt + 64)",
                          "session", "call at", "prompt", "recorded read", "predicted read", "since previous",
                          "verdict")
    for session, call in rows:
        gap = "-" if call.gap_s is None else f"{call.gap_s:,.0f} s"
        table.add_row(escape(session), str(call.index), f"{call.recorded.prompt_tokens:,}",
                      f"{call.recorded.cache_read_tokens:,}", f"{call.predicted.cache_read_tokens:,}", gap,
                      call.verdict)
    console().print(table)


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"
