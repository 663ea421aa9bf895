"""`ctxlab logs check`: can the import of these agent logs be trusted? Parses, calls
`ctxlab.metrics.fidelity`, prints one report per session (log text is printed without markup)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape

from ctxlab.cli.app import app, command
from ctxlab.cli.common import Limit, SkipInvalid, Skips, Sources, console, load_sources, print_skips, progress
from ctxlab.errors import CtxlabError

logs = typer.Typer(name="logs", help="Check how faithfully agent logs were imported.", no_args_is_help=True)
app.add_typer(logs)


@command("check", on=logs)
def check(
    sources: Sources,
    counter: Annotated[str | None, typer.Option(
        help="Counter for the residuals.", show_default="a calibration fitted on each session's own deltas")] = None,
    worst: Annotated[int, typer.Option(help="Residuals to show per session.")] = 5,
    limit: Limit = None,
    skip_invalid: SkipInvalid = False,
) -> None:
    """Per session: provider calls, usable deltas and why the rest are not, the worst residuals
    with their messages, and the repairs the import made."""
    from ctxlab.metrics.fidelity import fidelity
    from ctxlab.tokens import get_counter

    if counter is not None:
        get_counter(counter)  # a bad name fails here, before any work
    skips, reports = Skips(), 0
    for conversation in progress(load_sources(sources, skip_invalid, skips, limit), "Checking logs"):
        _print_report(fidelity(conversation, counter, worst))
        reports += 1
    if not reports:
        raise CtxlabError(f"no conversations in {', '.join(sources)}")
    print_skips(skips)


def _print_report(report) -> None:  # a `Fidelity`
    out = console()
    out.print(f"\n[bold]{escape(report.conversation_id)}[/]  {escape(report.format)}"
              f"{'  ' + escape(report.model) if report.model else ''}  [dim]{escape(report.source)}[/]")
    share = f" ({report.usable_share:.0%})" if report.usable_share is not None else ""
    out.print(f"  provider calls: {report.provider_calls}; delta pairs: {report.pairs}; usable: {report.usable}{share}")
    for reason, n in report.unusable.items():
        out.print(f"  not usable, {n}: {reason}", markup=False)
    _print_lines(f"  repairs ({len(report.repairs)}):", report.repairs)
    _print_counts("  left out (entries with no place in a conversation)", report.skipped)
    _print_counts("  placeholders (content a chat message cannot hold)", report.omitted)
    if not report.residuals:
        return
    out.print(f"  worst residuals (estimated with {escape(report.estimator)}):")
    for r in report.residuals:
        out.print(f"    {r.span}: estimate {r.estimate:,}, actual {r.actual:,} ({r.error:+.0%})", markup=False)
        for line in r.messages[:6]:
            out.print(f"      {line}", markup=False, overflow="ellipsis", no_wrap=True)
        if len(r.messages) > 6:
            out.print(f"      ... {len(r.messages) - 6} more message(s)")


def _print_lines(title: str, lines: tuple[str, ...], shown: int = 12) -> None:
    if not lines:
        return
    console().print(title)
    for line in lines[:shown]:
        console().print(f"    - {line}", markup=False)
    if len(lines) > shown:
        console().print(f"    ... and {len(lines) - shown} more")


def _print_counts(title: str, counts: dict[str, int]) -> None:
    if counts:
        console().print(f"{title}: " + ", ".join(f"{k} {v:,}" for k, v in counts.items()), markup=False)
