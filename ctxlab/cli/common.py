"""What the command modules share: the common options, the console, reading sources with skips and
a progress bar, and rich tables. Nothing here decides anything; it parses and prints."""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Iterator
from typing import Annotated, Any

import typer
from rich import box
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

Sources = Annotated[list[str], typer.Argument(
    help="Paths (.jsonl/.json/.parquet or folders), sample:<name>, hf:<dataset>[:<split>] or sharegpt.",
    show_default=False)]
Reference = Annotated[str, typer.Option(help="Real tokenizer that counts what is sent.")]
SkipInvalid = Annotated[bool, typer.Option("--skip-invalid", help="Skip bad records (listed) instead of stopping.")]
Limit = Annotated[int | None, typer.Option(help="Read at most this many conversations (per source list).",
                                           show_default=False)]
Db = Annotated[str | None, typer.Option("--db", help="DuckDB file [default: $CTXLAB_DB or ctxlab.duckdb].",
                                        show_default=False)]
WIDE = 200  # columns when piped: tables stay readable in logs and CI


def console() -> Console:
    """Standard output, created per use so the terminal's width (or $COLUMNS) is read at run time;
    `WIDE` when piped without $COLUMNS."""
    measured = sys.stdout.isatty() or bool(os.environ.get("COLUMNS"))
    return Console(highlight=False, width=None if measured else WIDE)


class Skips(list[tuple[str, str]]):
    """Collects (where, reason) of skipped records; the loader's `on_skip`."""

    def __call__(self, where: str, reason: str) -> None:
        self.append((where, reason))


def load_sources(sources: list[str], skip_invalid: bool, skips: Skips, limit: int | None) -> Iterator[Any]:
    """The conversations of `sources`: stop at a bad record, or (`skip_invalid`) record it in `skips`."""
    from ctxlab.datasets import load_conversations

    return load_conversations(sources, strict=not skip_invalid, on_skip=skips, limit=limit)


def progress(items: Iterator[Any], label: str, total: int | None = None) -> Iterator[Any]:
    """Iterate with a transient progress bar on stderr (hidden when stderr is not a terminal)."""
    columns = [SpinnerColumn(), TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn()]
    err = Console(stderr=True)
    with Progress(*columns, console=err, transient=True, disable=not err.is_terminal) as bar:
        yield from bar.track(items, total=total)


def print_skips(skips: Skips, show_all: bool = False) -> None:
    """List every skip, or (by default) one line per reason with a count and the first places."""
    if not skips:
        return
    out = console()
    out.print(f"\n[yellow]Skipped {len(skips):,} record(s):[/]")
    if show_all:
        for where, reason in skips:
            out.print(f"  {where}: {reason}", markup=False)
        return
    by_reason: dict[str, list[str]] = {}
    for where, reason in skips:
        by_reason.setdefault(reason, []).append(where)
    for reason, places in list(by_reason.items())[:10]:
        more = f", ... ({len(places)} in all)" if len(places) > 3 else ""
        out.print(f"  {reason}: {', '.join(places[:3])}{more}", markup=False)
    if len(by_reason) > 10:
        out.print(f"  ... and {len(by_reason) - 10} other reasons (ctxlab validate --skip-invalid lists all)")


def numeric_table(title: str, *headers: str) -> Table:
    """A table titled on the left whose columns after the first are right-aligned numbers."""
    table = Table(*headers, title=title, title_justify="left")
    for column in table.columns[1:]:
        column.justify = "right"
    return table


def df_table(df: Any, title: str | None = None, columns: dict[str, str] | None = None, max_rows: int = 200) -> Table:
    """A rich table of a DataFrame: `columns` maps the ones shown to their headers."""
    columns = columns or {c: c for c in df.columns}
    table = Table(title=title, title_justify="left", header_style="bold", box=box.SIMPLE_HEAD, pad_edge=False)
    for i, header in enumerate(columns.values()):
        table.add_column(str(header), no_wrap=i < 2, justify="left" if i < 2 else "right")
    for row in df.head(max_rows).itertuples(index=False):
        values = row._asdict()
        table.add_row(*(_cell(values.get(c)) for c in columns))
    return table


def _cell(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, float):
        return f"{value:.2f}" if abs(value) < 1000 else f"{value:,.0f}"
    if hasattr(value, "strftime"):
        return "-" if value != value else value.strftime("%Y-%m-%d %H:%M:%S")  # NaT != NaT
    return str(value)


__all__ = ["WIDE", "Db", "Limit", "Reference", "SkipInvalid", "Skips", "Sources", "console", "df_table", "load_sources",
           "numeric_table", "print_skips", "progress"]
