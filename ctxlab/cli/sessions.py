"""Sessions without paths: ``--from AGENT`` (and ``--newest N``) on the commands that read agent
logs, turned into sources by `sources_from`; ``ctxlab logs find`` lists what it would read."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from ctxlab.datasets.logs.locations import AGENTS, search
from ctxlab.errors import CtxlabError, UnknownNameError

NEWEST = 20
LogSources = Annotated[list[str] | None, typer.Argument(
    help="Paths (files or folders; agent logs are recognised by content), sample:<name>, hf:<dataset>[:<split>] "
         "or sharegpt; none with --from.", show_default=False)]
FromAgent = Annotated[str | None, typer.Option(
    "--from", help=f"Also read the newest sessions an agent keeps in its default folder: {', '.join(AGENTS)} "
                   "(`ctxlab logs find` lists them).", show_default=False)]
Newest = Annotated[int, typer.Option(help="With --from: how many of the newest sessions to read (0: all).")]


def sources_from(sources: list[str] | None, agent: str | None, newest: int = NEWEST) -> list[str]:
    """`sources`, then the `newest` sessions `agent` wrote (saying on stderr which and where).

    Raises:
        CtxlabError: no sources and no agent, an unknown agent, or an agent with no sessions.
    """
    if agent is None:
        if not sources:
            raise CtxlabError(f"give the logs to read (paths), or --from AGENT ({', '.join(AGENTS)})")
        return list(sources)
    if agent not in AGENTS:
        raise UnknownNameError("agent", agent, AGENTS)
    found = search(agent)
    if not found.sessions:
        raise CtxlabError(f"no {agent} sessions in {found.searched}{'; ' + found.note if found.note else ''}")
    chosen = found.sessions[:newest or None]
    Console(stderr=True, highlight=False).print(
        f"Reading the {len(chosen):,} newest of {len(found.sessions):,} {agent} sessions in {found.searched}",
        markup=False)
    return [*(sources or ()), *(s.source for s in chosen)]
