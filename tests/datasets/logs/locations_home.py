"""A home folder holding hand-made sessions in each agent's default layout, for the location tests.

Files get fixed modification times (`T0` plus minutes), so "newest first" is known: per agent, the
file named ``new*`` is newer than ``old*``. Contents are copies of the importer fixtures where
ctxlab reads the format, so a found session also loads.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures"
CLAUDE = FIXTURES / "claude_code" / "session.jsonl"
CODEX = FIXTURES / "codex" / "rollout-2025-10-29T11-00-00-0199aaaa-1111-7000-8000-000000000001.jsonl"
CODEX_OLD = FIXTURES / "codex" / "rollout-2025-05-02T09-00-00-old.jsonl"
PI = FIXTURES / "pi" / "2025-10-29T12-00-00-000Z_7c2e9a40.jsonl"
T0 = 1_760_000_000.0
OVERRIDES = ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "PI_CODING_AGENT_DIR", "GEMINI_CLI_HOME", "AIDER_CHAT_HISTORY_FILE")
GEMINI_JSON = '{"sessionId": "s1", "projectHash": "h", "messages": [{"id": "1", "type": "user", "content": "hi"}]}'


def put(path: Path, minutes: float, source: Path | None = None, text: str = "") -> Path:
    """Write `path` (a copy of `source`, or `text`) last modified `minutes` after `T0`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if source is not None:
        shutil.copyfile(source, path)
    else:
        path.write_text(text, encoding="utf-8")
    os.utime(path, (T0 + 60 * minutes, T0 + 60 * minutes))
    return path


def make_home(home: Path, work: Path) -> dict[str, list[Path]]:
    """Sessions of every agent under `home` (Aider's under `work`); per agent, the paths a search
    must find, newest first. Files beside them that are not sessions are written too."""
    claude = home / ".claude" / "projects" / "-home-me-proj"
    sessions = {
        "claude_code": [put(claude / "5b1f0c7e-new.jsonl", 9, CLAUDE), put(claude / "1a2b3c4d-old.jsonl", 1, CLAUDE)],
        "codex": [put(home / ".codex/sessions/2025/10/29" / "rollout-2025-10-29T11-00-00-new.jsonl", 8, CODEX),
                  put(home / ".codex/sessions/2025/05/02" / "rollout-2025-05-02T09-00-00-old.jsonl", 2, CODEX_OLD)],
        "pi": [put(home / ".pi/agent/sessions/--home-me-proj--" / "2025-10-29T12-00-00-000Z_new.jsonl", 7, PI)],
        "gemini_cli": [put(home / ".gemini/tmp/proj/chats/session-2025-10-29T12-00-resumed.jsonl", 6, text="{}\n"),
                       put(home / ".gemini/tmp/other/chats/session-2025-10-28T09-00-old.json", 3, text=GEMINI_JSON)],
        "aider": [put(work / "proj" / ".aider.chat.history.md", 5, text="# aider chat started at 2025-10-29\n"),
                  put(work / "lib" / "sub" / ".aider.chat.history.md", 4, text="# aider chat started at 2025-10-01\n")],
    }
    put(claude / "agent-a1b2c3.jsonl", 10, CLAUDE)  # a subagent's log beside the sessions (Claude Code < 2.1)
    put(claude / "5b1f0c7e-new" / "subagents" / "agent-a9.jsonl", 10, CLAUDE)
    put(home / ".codex/sessions/2025/10/30" / "rollout-2025-10-30T08-00-00-packed.jsonl.zst", 10, text="zstd")
    put(home / ".codex/sessions/2025/10/29" / "notes.jsonl", 10, text="{}\n")
    put(home / ".gemini/tmp/proj/chats/session-2025-10-29T12-00-resumed.json", 10, text=GEMINI_JSON)  # migrated
    put(home / ".gemini/tmp/proj/chats/parent-id/subagent-id.jsonl", 10, text="{}\n")
    put(work / "node_modules" / "pkg" / ".aider.chat.history.md", 10, text="# vendored\n")
    put(work / ".cache" / ".aider.chat.history.md", 10, text="# hidden\n")
    return sessions
