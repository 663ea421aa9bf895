"""Where coding agents keep their session logs, and the newest sessions found there.

Each agent's default folder, its environment override and the file names, from the agent's source
(docs/logs.md "Where the agents keep their logs" cites each file):

- ``claude_code``: ``$CLAUDE_CONFIG_DIR`` or ``~/.claude``, then ``projects/<project>/<session>.jsonl``
  (Claude Code docs, "Explore the .claude directory"). Subagent logs (``agent-*.jsonl``, or under
  ``<session>/subagents/``) are not sessions of their own and are not listed.
- ``codex``: ``$CODEX_HOME`` or ``~/.codex``, then ``sessions/YYYY/MM/DD/rollout-*.jsonl``
  (openai/codex ``codex-rs/utils/home-dir``, ``codex-rs/rollout/src/lib.rs``). Rollouts Codex
  compressed (``.jsonl.zst``) are counted, not listed: ctxlab reads plain JSONL.
- ``pi``: ``$PI_CODING_AGENT_DIR`` or ``~/.pi/agent``, then ``sessions/--<cwd>--/<time>_<id>.jsonl``
  (badlogic/pi-mono ``packages/coding-agent/src/config.ts``, ``core/session-manager.ts``).
- ``gemini_cli``: ``$GEMINI_CLI_HOME`` or ``~``, then ``.gemini/tmp/<project>/chats/session-*.json``
  or ``.jsonl`` (google-gemini/gemini-cli ``packages/core/src/utils/paths.ts``,
  ``config/storage.ts``, ``services/chatRecordingService.ts``); a ``.json`` session resumed
  into its ``.jsonl`` successor is listed once, as the ``.jsonl``.
- ``aider``: ``.aider.chat.history.md`` in the git root of each project (Aider-AI/aider
  ``aider/args.py``, ``--chat-history-file``), searched under a folder, plus
  ``$AIDER_CHAT_HISTORY_FILE``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import NamedTuple

from ctxlab.datasets.loaders import load_conversations
from ctxlab.datasets.logs import FORMATS
from ctxlab.errors import CtxlabError, InvalidInputError
from ctxlab.registry import Registry

AIDER_FILE = ".aider.chat.history.md"
# User-role messages an agent writes itself before the user's first words: Codex's environment
# and AGENTS.md context (openai/codex codex-rs/core/src/environment_context.rs, user_instructions.rs).
_INJECTED = ("<environment_context>", "<user_instructions>", "# AGENTS.md instructions")
_PRUNED = frozenset({"node_modules", "__pycache__", "venv"})  # big trees no git root lives in
# Each agent's finder: (its root folder, the environment) -> (session files, a note on what is left out).
Finder = Callable[[Path, Mapping[str, str]], tuple[list[Path], str]]
LOCATIONS: Registry[Finder] = Registry("agent")


class Session(NamedTuple):
    """One session file an agent wrote: which agent, where, how big and when last written."""

    agent: str
    path: Path
    size: int
    modified: float  # seconds since the epoch

    @property
    def source(self) -> str:
        """How ctxlab loads it: ``<format>:<path>`` when ctxlab has an importer of that name."""
        return f"{self.agent}:{self.path}" if self.agent in FORMATS else str(self.path)


class Found(NamedTuple):
    """What a search found: the sessions (newest first), the folder searched, and a note on what
    was found there but not listed ("" when nothing)."""

    sessions: list[Session]
    searched: Path
    note: str = ""


def find_sessions(agent: str, home: Path | None = None, newest: int | None = None, under: Path | None = None,
                  env: Mapping[str, str] | None = None) -> list[Session]:
    """The sessions `agent` wrote in its default location, newest first.

    Args:
        agent: ``claude_code``, ``codex``, ``pi``, ``gemini_cli`` or ``aider``.
        home: the home folder (default `Path.home`).
        newest: keep only this many (None or 0: all).
        under: where Aider history files are searched (default: the current folder).
        env: the environment holding the agents' overrides (default `os.environ`).

    Raises:
        UnknownNameError: an agent ctxlab knows no location of.
    """
    return search(agent, home, under, env).sessions[:newest or None]


def search(agent: str, home: Path | None = None, under: Path | None = None,
           env: Mapping[str, str] | None = None) -> Found:
    """`find_sessions` with the folder it searched and what it left out (for messages)."""
    find = LOCATIONS.get(agent)
    env = os.environ if env is None else env
    root = agent_root(agent, home or Path.home(), under or Path.cwd(), env)
    files, note = find(root, env)
    sessions = [_session(agent, f) for f in files if f.is_file()]
    return Found(sorted(sessions, key=lambda s: (-s.modified, str(s.path))), root, note)


def first_user_line(session: Session, width: int = 80) -> str:
    """The first user message of the session (not the context an agent sends as one) as one line
    of printable text, cut to `width` characters; the reason in parentheses when ctxlab cannot
    read the file."""
    try:
        conversation = next(iter(load_conversations(session.source)), None)
    except CtxlabError as exc:  # the reason, without the path the listing shows beside it
        reason = exc.reason if isinstance(exc, InvalidInputError) else str(exc).removeprefix(f"{session.path}: ")
        return one_line(f"(not readable: {reason})", width)
    texts = (m.text for m in (conversation.messages if conversation else ())
             if m.role == "user" and m.text and not m.text.lstrip().startswith(_INJECTED))
    return one_line(next(texts, ""), width)


def one_line(text: str, width: int | None = None) -> str:
    """`text` on one line, unprintable characters (controls, terminal escapes' ESC, bidi marks) as
    spaces, runs of whitespace as one, cut to `width` characters with an ellipsis."""
    flat = " ".join("".join(c if c.isprintable() else " " for c in text).split())
    return flat if width is None or len(flat) <= width else flat[:width - 1] + "…"


def agent_root(agent: str, home: Path, under: Path, env: Mapping[str, str]) -> Path:
    """The folder an agent keeps its sessions under, after its environment override."""
    override = {"claude_code": "CLAUDE_CONFIG_DIR", "codex": "CODEX_HOME", "pi": "PI_CODING_AGENT_DIR",
                "gemini_cli": "GEMINI_CLI_HOME"}.get(agent)
    value = env.get(override, "") if override else ""
    if value:
        base = Path(value).expanduser() if value.startswith("~") else Path(value)
        return base / ".gemini" if agent == "gemini_cli" else base
    defaults = {"claude_code": home / ".claude", "codex": home / ".codex", "pi": home / ".pi" / "agent",
                "gemini_cli": home / ".gemini"}
    return defaults.get(agent, under)


@LOCATIONS.register("claude_code")
def _claude_code(root: Path, env: Mapping[str, str]) -> tuple[list[Path], str]:
    return [f for f in root.glob("projects/*/*.jsonl") if not f.name.startswith("agent-")], ""


@LOCATIONS.register("codex")
def _codex(root: Path, env: Mapping[str, str]) -> tuple[list[Path], str]:
    packed = sum(1 for _ in root.glob("sessions/*/*/*/rollout-*.jsonl.zst"))
    note = (f"{packed} compressed rollout(s) (.jsonl.zst) not listed: ctxlab reads plain .jsonl "
            "(`zstd -d FILE` restores one)") if packed else ""
    return list(root.glob("sessions/*/*/*/rollout-*.jsonl")), note


@LOCATIONS.register("pi")
def _pi(root: Path, env: Mapping[str, str]) -> tuple[list[Path], str]:
    return list(root.glob("sessions/*/*.jsonl")), ""


@LOCATIONS.register("gemini_cli")
def _gemini_cli(root: Path, env: Mapping[str, str]) -> tuple[list[Path], str]:
    lines = list(root.glob("tmp/*/chats/session-*.jsonl"))
    resumed = {f.with_suffix(".json") for f in lines}
    return [*lines, *(f for f in root.glob("tmp/*/chats/session-*.json") if f not in resumed)], ""


@LOCATIONS.register("aider")
def _aider(root: Path, env: Mapping[str, str]) -> tuple[list[Path], str]:
    named = env.get("AIDER_CHAT_HISTORY_FILE", "")
    files = {*_walk(root, AIDER_FILE), *([Path(named).expanduser()] if named else [])}
    return sorted(files), ""


def _walk(root: Path, name: str) -> Iterator[Path]:
    """Files called `name` under `root`, not descending into hidden or dependency folders."""
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in _PRUNED]
        if name in files:
            yield Path(folder) / name


def _session(agent: str, path: Path) -> Session:
    stat = path.stat()
    return Session(agent, path, stat.st_size, stat.st_mtime)


AGENTS = tuple(LOCATIONS)

__all__ = ["AGENTS", "AIDER_FILE", "LOCATIONS", "Found", "Session", "agent_root", "find_sessions", "first_user_line",
           "one_line", "search"]
