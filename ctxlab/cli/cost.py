"""`ctxlab cost`: agent logs priced as the provider recorded them and as ctxlab's cache model
predicts them. Parses, calls `ctxlab.cost`, prints."""

from __future__ import annotations

import json
from collections import Counter
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from ctxlab.cli.app import command
from ctxlab.cli.common import Limit, SkipInvalid, Skips, console, load_sources, numeric_table, print_skips, progress
from ctxlab.cli.sessions import NEWEST, FromAgent, LogSources, Newest, sources_from
from ctxlab.cost import ESTIMATED, CallCost, SessionCheck, Unpriced, check_logs, combined, price_model
from ctxlab.errors import CtxlabError


@command()
def cost(
    sources: LogSources = None,
    from_agent: FromAgent = None,
    newest: Newest = NEWEST,
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
    """What each recorded session cost with prompt caching, recorded beside predicted.

    A session whose model litellm's price map lacks is priced under the entry of the same model
    when there is one (said so below the table); a session that cannot be priced is named with
    the reason, and the others are priced.
    """
    if model is not None:
        price_model(model)  # an unknown --model fails now, naming close ones
    sources = sources_from(sources, from_agent, newest)
    skips, unpriced = Skips(), list[Unpriced]()
    conversations = progress(load_sources(sources, skip_invalid, skips, limit), "Pricing sessions")
    checks = list(check_logs(conversations, model, counter=counter, lifetime_s=lifetime, on_unpriced=unpriced.append))
    if not checks:
        _print_unpriced(unpriced, stderr=True)
        raise CtxlabError(f"no session in {', '.join(sources)} could be priced ({len(unpriced)} listed above)"
                          if unpriced else f"no per-call usage in {', '.join(sources)} (agent logs record it in "
                                           "meta.provider_calls; SWE-agent logs keep only run totals)")
    if as_json:
        typer.echo(json.dumps([check.to_json() for check in checks], indent=2))
        _print_unpriced(unpriced, stderr=True)
        return
    _print_sessions([*checks, combined(checks)] if len(checks) > 1 else checks)
    _print_aliases(checks)
    _print_estimated(checks)
    _print_unpriced(unpriced)
    _print_worst(checks, worst)
    print_skips(skips)


def _print_aliases(checks: list[SessionCheck]) -> None:
    """One line per model priced under another entry of litellm's map."""
    for alias in dict.fromkeys(c.alias for c in checks if c.alias is not None):
        console().print(f"Note: {alias.describe()}.", markup=False)


def _print_estimated(checks: list[SessionCheck]) -> None:
    """One line per reason some calls' counts are estimates: priced, not checked."""
    reasons = Counter(c.estimated for s in checks for c in s.calls if c.estimated)
    for reason, n in reasons.items():
        sessions = sum(any(c.estimated == reason for c in s.calls) for s in checks)
        console().print(f"Note: {n:,} call(s) in {sessions:,} session(s) record counts that are not the provider's "
                        f"({reason}): priced from those counts as estimates, left out of the cache-read checks "
                        "(read match, misses, hits).", markup=False)


def _print_unpriced(unpriced: list[Unpriced], stderr: bool = False) -> None:
    """One line per session that could not be priced, with the reason."""
    if not unpriced:
        return
    out = Console(stderr=True, highlight=False) if stderr else console()
    out.print(f"Not priced, {len(unpriced)} session(s):", style="yellow")
    for u in unpriced:
        out.print(f"  {u.session}: {u.reason}", markup=False)


def _print_sessions(checks: list[SessionCheck]) -> None:
    table = numeric_table("Recorded / predicted per session (predicted from the recorded prompt sizes)",
                           "session", "model", "calls", "estimated", "read match", "input", "cache read",
                           "cache write", "USD", "misses", "unexpected hits")
    table.columns[0].overflow = "fold"  # a subagent's id differs from its session's at the end
    for check in checks:
        recorded, predicted = check.recorded, check.predicted
        table.add_row(escape(check.session), escape(check.model), f"{len(check.calls):,}",
                      f"{check.count(ESTIMATED):,}", _pct(check.cache_read_match_rate), *_pairs(recorded, predicted),
                      f"{check.count('unexplained miss'):,}", f"{check.count('unexpected hit'):,}")
    console().print(table)


def _pairs(recorded: CallCost, predicted: CallCost) -> list[str]:
    pairs = [(recorded.input_tokens, predicted.input_tokens), (recorded.cache_read_tokens, predicted.cache_read_tokens),
             (recorded.cache_write_tokens, predicted.cache_write_tokens)]
    return [*(f"{a:,} / {b:,}" for a, b in pairs), f"{recorded.cost_usd:,.4f} / {predicted.cost_usd:,.4f}"]


def _print_worst(checks: list[SessionCheck], worst: int) -> None:
    rows = sorted(((s.session, c) for s in checks for c in s.checked if not c.matches),
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
