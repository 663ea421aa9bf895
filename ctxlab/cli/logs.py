"""`ctxlab logs check`: can the import of these agent logs be trusted? One line per file, then the
reports of the worst sessions (`ctxlab.analysis.log_files`, `ctxlab.metrics.fidelity`).
`ctxlab logs find`: the sessions each agent keeps in its default folder
(`ctxlab.datasets.logs.locations`). Log text is printed without markup, on one line."""

from __future__ import annotations

import datetime
import os
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from ctxlab.cli.app import app, command
from ctxlab.cli.common import Limit, console, numeric_table, progress
from ctxlab.cli.sessions import NEWEST, FromAgent, LogSources, Newest, sources_from
from ctxlab.datasets.logs.locations import AGENTS, first_user_line, one_line, search
from ctxlab.errors import CtxlabError, UnknownNameError

logs = typer.Typer(name="logs", help="Find agent logs and check how faithfully they import.", no_args_is_help=True)
app.add_typer(logs)
DETAILS = 3  # session reports shown without --details: every one up to this many sessions, else the worst


@command("check", on=logs)
def check(
    sources: LogSources = None,
    from_agent: FromAgent = None,
    newest: Newest = NEWEST,
    counter: Annotated[str | None, typer.Option(
        help="Counter for the residuals.", show_default="a calibration fitted on each session's own deltas")] = None,
    worst: Annotated[int, typer.Option(help="Residuals to show per session.")] = 5,
    details: Annotated[bool, typer.Option("--details", help="Print every session's report, not only the worst.")
                       ] = False,
    limit: Limit = None,
) -> None:
    """One line per file: format, sessions, provider calls, usable deltas, repairs, entries left
    out, whether it can be replayed, and why a file was refused; every line skipped as unusable
    (file:line: reason; the rest of its log imported); then, per session, why deltas were
    set aside, the worst residuals with their messages, and the repairs the import made (for the
    sessions with the lowest usable share; --details for all)."""
    from ctxlab.analysis.log_files import check_files, unread_files
    from ctxlab.tokens import get_counter

    if counter is not None:
        get_counter(counter)  # a bad name fails here, before any work
    sources = sources_from(sources, from_agent, newest)
    files = list(progress(check_files(sources, counter, worst, limit), "Checking logs"))
    _print_files(files)
    _print_lines("Lines skipped as unusable (each log's other entries imported):",
                 tuple(line for f in files for line in f.bad_lines), None if details else 20, "  ", " (--details lists all)")
    unread = unread_files(sources)
    if unread:
        console().print("Not read (no reader for these types): "
                        + ", ".join(f"{n} {suffix}" for suffix, n in sorted(unread.items())), markup=False)
    reports = [r for f in files for r in f.reports]
    if not reports:
        raise CtxlabError(f"no conversations in {', '.join(sources)}")
    _print_worst(reports, details)


@command("find", on=logs)
def find(
    agents: Annotated[list[str] | None, typer.Argument(
        help=f"Agents to look for: {', '.join(AGENTS)}.", show_default="all of them")] = None,
    newest: Annotated[int, typer.Option(help="How many of each agent's newest sessions to list (0: all).")] = NEWEST,
    under: Annotated[Path | None, typer.Option(
        help="Where to look for Aider chat histories.", show_default="the current folder")] = None,
    paths: Annotated[bool, typer.Option("--paths", help="Print only the sessions' sources, one per line.")] = False,
) -> None:
    """The sessions each agent keeps in its default folder, newest first: when, how big, and the
    first user message; `--from AGENT --newest N` on logs check, cost and recommend reads them."""
    for agent in agents or AGENTS:
        if agent not in AGENTS:
            raise UnknownNameError("agent", agent, AGENTS)
    for agent in agents or AGENTS:
        found = search(agent, under=under)
        shown = found.sessions[:newest or None]
        if paths:
            for session in shown:
                typer.echo(session.source)
            continue
        _print_found(agent, found, shown)
    if not paths:
        console().print("\nRead them with `--from AGENT --newest N` on logs check, cost or recommend, or pass the "
                        "files (`--paths` prints them).", markup=False)


def _print_files(files: list) -> None:  # `FileCheck`s
    root = _common_folder([f.file for f in files])
    where = f" in {one_line(root)}" if root else ""
    table = numeric_table(escape(f"Agent logs{where}: what ctxlab imports from each file"), "file", "format",
                           "sessions", "calls", "usable deltas", "repairs", "left out", "replays", "note")
    table.caption_justify, table.caption = "left", (
        "calls: provider calls with recorded usage; usable deltas: pairs of consecutive calls whose difference "
        "counts the messages between them; left out: log entries with no place in a conversation")
    for column in (table.columns[0], table.columns[1], table.columns[-1]):
        column.justify, column.overflow = "left", "fold"
    for f in files:
        share = f.usable_share
        usable = "-" if share is None else f"{f.total('usable'):,}/{f.total('pairs'):,} ({share:.0%})"
        style = "red" if f.refused or not f.sessions else "yellow" if share is not None and share < 0.9 else ""
        table.add_row(Text(one_line(os.path.relpath(f.file, root) if root else f.file)), f.formats, f"{f.sessions:,}", f"{f.total('provider_calls'):,}",
                      Text(usable, style=style if share is not None else ""), f"{f.repairs:,}",
                      f"{f.left_out:,}", "yes" if f.replayable else "no", Text(one_line(f.reason()), style=style))
    console().print(table)


def _common_folder(files: list[str]) -> str:
    """The folder all `files` are in ("" when they are not paths in one folder)."""
    try:
        root = os.path.commonpath(files)
    except ValueError:  # absolute and relative paths mixed
        return ""
    root = os.path.dirname(root) if root in files else root
    return root if root and all(os.path.exists(f) for f in files) else ""


def _print_worst(reports: list, details: bool) -> None:  # `Fidelity`s
    if details or len(reports) <= DETAILS:
        shown = reports
    else:
        ranked = sorted((r for r in reports if r.usable_share is not None and r.usable_share < 0.9),
                        key=lambda r: (r.usable_share, -len(r.repairs)))
        shown = ranked[:DETAILS]
        what = f"the {len(shown)} with the lowest usable share (under 90%)" if shown else "none under 90% usable"
        console().print(f"\nSession reports: {what}; --details prints all {len(reports):,}.")
    for report in shown:
        _print_report(report)


def _print_found(agent: str, found, shown: list) -> None:  # a `Found` and its `Session`s
    out = console()
    if not found.sessions:
        out.print(f"[bold]{agent}[/]: no sessions in {escape(str(found.searched))}")
    else:
        table = Table("modified", "size", "first user message", "file", title_justify="left", title=(
            f"{agent}: the {len(shown):,} newest of {len(found.sessions):,} sessions in {escape(str(found.searched))}"))
        table.columns[1].justify, table.columns[3].overflow = "right", "fold"
        for s in shown:
            when = datetime.datetime.fromtimestamp(s.modified).strftime("%Y-%m-%d %H:%M")
            table.add_row(when, _size(s.size), Text(first_user_line(s, 60)), Text(_relative(s.path, found.searched)))
        out.print(table)
    if found.note:
        out.print(f"  {escape(found.note)}")


def _relative(path: Path, root: Path) -> str:
    return one_line(str(path.relative_to(root) if path.is_relative_to(root) else path))


def _size(size: int) -> str:
    return f"{size / 1e6:,.1f} MB" if size >= 1e6 else f"{size / 1e3:,.0f} kB" if size >= 1e3 else f"{size} B"


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


def _print_lines(title: str, lines: tuple[str, ...], shown: int | None = 12, indent: str = "    ",
                 more: str = "") -> None:
    if not lines:
        return
    console().print(title, markup=False)
    for line in lines[:shown]:
        console().print(f"{indent}- {one_line(line)}", markup=False)
    if shown is not None and len(lines) > shown:
        console().print(f"{indent}... and {len(lines) - shown} more{more}", markup=False)


def _print_counts(title: str, counts: dict[str, int]) -> None:
    if counts:
        console().print(f"{title}: " + ", ".join(f"{k} {v:,}" for k, v in counts.items()), markup=False)
