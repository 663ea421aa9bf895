"""Progress reporting: the protocol the replay calls, and a rich implementation for the CLI.

The replay only calls the protocol; rich is imported when a `RichProgress` is built, so the
engine itself never loads UI code.
"""

from __future__ import annotations

from typing import Any, Protocol


class Progress(Protocol):
    """Receives the replay's progress; every method must be cheap."""

    def dataset(self, name: str, total: int | None, already_done: int) -> None:
        """A dataset starts; `total` when known (a --limit), `already_done` from an earlier run."""

    def advance(self, name: str, conversations: int, units: int) -> None:
        """Conversations of `name` finished, producing `units` result rows."""

    def note(self, text: str) -> None:
        """Something worth a line (resume, skipped records, unavailable metrics)."""


class NullProgress:
    """Reports nothing (library use, tests)."""

    def dataset(self, name: str, total: int | None, already_done: int) -> None:
        pass

    def advance(self, name: str, conversations: int, units: int) -> None:
        pass

    def note(self, text: str) -> None:
        pass


class RichProgress:
    """Rich progress bars: one per dataset and one overall; use as a context manager."""

    def __init__(self, console: Any = None, *, total: int | None = None):
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
        )
        from rich.progress import (
            Progress as Bars,
        )

        self.console = console or Console(stderr=True)
        self.bars = Bars(SpinnerColumn(), TextColumn("{task.description:<28}"), BarColumn(),
                         MofNCompleteColumn(), TextColumn("{task.fields[units]:>9,} units"),
                         TimeElapsedColumn(), console=self.console, transient=False)
        self.overall = self.bars.add_task("overall", total=total, units=0)
        self.tasks: dict[str, Any] = {}
        self.units: dict[Any, int] = {self.overall: 0}

    def __enter__(self) -> RichProgress:
        # The bars (and their refresh thread) start with the first dataset, after the replay has
        # started its worker pool: forking is only safe while no other thread runs.
        return self

    def __exit__(self, *exc: Any) -> None:
        self.bars.stop()

    def dataset(self, name: str, total: int | None, already_done: int) -> None:
        if not self.bars.live.is_started:
            self.bars.start()
        self.tasks[name] = task = self.bars.add_task(name[:28], total=total, completed=already_done, units=0)
        self.units[task] = 0
        self.bars.update(self.overall, advance=already_done)

    def advance(self, name: str, conversations: int, units: int) -> None:
        for task in (self.tasks[name], self.overall):
            self.units[task] += units
            self.bars.update(task, advance=conversations, units=self.units[task])

    def note(self, text: str) -> None:
        self.bars.console.print(f"[dim]{text}[/dim]")
