"""What a Claude Code prompt holds around ``TodoWrite`` that the log shows only in another form.

Measured on the real 1.0.95 session in ``shared/reallogs/claude_code/claude_code.jsonl`` (Chinese
todo items): every ``TodoWrite`` delta was 1,278 tokens billed against 292 estimated from the logged
call and result (-77%, o200k_base), identical across the list's status changes. Two things explain
it to within 2 tokens (the ``claude_legacy`` tokenizer, with the 78-token framing of a tool call
and result that the Edit and Bash deltas of the same session show):

- Claude Code 1.0.95 sends the new todo list again, as JSON in a ``<system-reminder>`` that follows
  the tool result (the logged ``toolUseResult.newTodos``); a list whose items are all completed is
  cleared and the reminder says the list is empty (those deltas are 276 and 90 tokens smaller, the
  size of the list in each part of the session). Claude Code 1.0.98 and 1.0.108 do not: in three
  English sessions of theirs (``1af7fc5e...jsonl`` here, and two more of d-kimuson/claude-code-viewer's
  published mock sessions, measured outside the repository) 21 of the 27 TodoWrite deltas are the
  logged call and result plus the framing any tool call gets (74-88 tokens), and the other 6 carry
  about 90 tokens more, where the list would add 150-190. So `todo_reminder` adds it for versions before
  1.0.98 (`RESENT_UNTIL`), in ctxlab's own wording (Claude Code's text is not published under a
  license that lets us copy it): the measured fixed part is about 30 tokens longer than ours,
  about 60 for the empty list.
- The API counts a tool call's non-string parameters (the ``todos`` array) as JSON with non-ASCII
  characters escaped (``\\u6aa2``), string parameters as written: escaping the array gives 845 + 355
  + 78 = 1,278 and, for the 3-item list of the session's second part, 269 + 155 + 78 = 502 against
  504 billed, while escaping the Write calls' string ``content`` would overshoot them by 150%.
  `rendered_input` writes a call's arguments that way (the same JSON value, so nothing that parses
  them changes). The English sessions cannot show it (nothing to escape).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ctxlab.datasets.logs.common import compact_json

TODO_LIST = "<system-reminder>\nTodo list updated. Current items:\n\n{}\n</system-reminder>"
TODO_EMPTY = "<system-reminder>\nThe todo list is empty: every item is completed.\n</system-reminder>"
RESENT_UNTIL = (1, 0, 98)  # the first version measured not to resend the list


def todo_reminder(result: Any, version: Any) -> str | None:
    """The reminder Claude Code `version` sends after a ``TodoWrite`` whose logged ``toolUseResult``
    is `result` (None when it is not a todo list update, or the version does not send one)."""
    todos = result.get("newTodos") if isinstance(result, Mapping) else None
    if not isinstance(todos, list) or not _before(version, RESENT_UNTIL):
        return None
    done = all(isinstance(t, Mapping) and t.get("status") == "completed" for t in todos)
    return TODO_EMPTY if done else TODO_LIST.format(compact_json(todos))


def _before(version: Any, limit: tuple[int, ...]) -> bool:
    """Whether a ``1.0.95``-style version is older than `limit` (an unknown version is not)."""
    try:
        return tuple(int(part) for part in str(version).split(".")[:3]) < limit
    except ValueError:
        return False


def rendered_input(value: Any) -> str:
    """A ``tool_use`` input as JSON the way the Anthropic API counts it: string parameters as
    written, any other parameter with its non-ASCII characters escaped."""
    if not isinstance(value, Mapping):
        return compact_json({} if value is None else value)
    parts = (f"{json.dumps(str(key), ensure_ascii=False)}:"
             f"{compact_json(item) if isinstance(item, str) else json.dumps(item, separators=(',', ':'))}"
             for key, item in value.items())
    return "{" + ",".join(parts) + "}"
