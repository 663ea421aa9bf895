"""Seed 000's Provider and Assembler around the `sliding_window` compressor.

The seed's context subsystem is Provider -> Compressor -> Assembler: the provider reads the newest
rows of the SQLite `history` table, the compressor fits them to a token budget (the seed's term:
the history's share), and the assembler wraps them in the system prompt and the new user message.
In ctxlab the `budget` given to `compress` (the window, in a replay) covers the whole request, so
assemble first: `sliding_window` pins exactly the two messages the seed's Assembler
adds, and keeps the same history the seed keeps with ``budget - tokens(system + user)``::

    provider = SQLiteHistoryProvider("agent.db")
    history = provider.get_history(chat_id, limit=20)
    messages = assemble(system_prompt, history, user_text)
    result = get_strategy("sliding_window").compress(messages, budget=8000, counter="chars4")

Only the provider does I/O (the standard library's `sqlite3`); the assembler is a pure function.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from os import PathLike

from ctxlab.errors import CtxlabError
from ctxlab.messages import ROLES, Message

SCHEMA = """
CREATE TABLE IF NOT EXISTS history (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    chat_id INTEGER NOT NULL,
    role    TEXT    NOT NULL,
    text    TEXT    NOT NULL
);
CREATE INDEX IF NOT EXISTS history_chat ON history (chat_id, id);
"""


class SQLiteHistoryProvider:
    """Seed 000's SQLiteProvider over the `history` table (created when missing).

    Args:
        path_or_connection: a database file path, ``":memory:"``, or an open `sqlite3.Connection`
            (which the provider uses but does not close).
    """

    def __init__(self, path_or_connection: str | PathLike[str] | sqlite3.Connection):
        self._owned = not isinstance(path_or_connection, sqlite3.Connection)
        self.connection: sqlite3.Connection = (
            path_or_connection if isinstance(path_or_connection, sqlite3.Connection)
            else sqlite3.connect(path_or_connection))
        self.connection.executescript(SCHEMA)

    def get_history(self, chat_id: int, limit: int | None = None) -> list[Message]:
        """The newest `limit` messages of a chat (all when None), oldest first.

        Message ids are ``h<row id>``, so they stay stable as the chat grows.
        """
        if limit is not None and limit <= 0:
            return []
        rows = self.connection.execute(
            "SELECT id, role, text FROM history WHERE chat_id = ? ORDER BY id DESC LIMIT ?",
            (chat_id, -1 if limit is None else limit)).fetchall()
        return [Message(role=role, content=text, id=f"h{row_id}") for row_id, role, text in reversed(rows)]

    def append(self, chat_id: int, role: str, text: str) -> int:
        """Store one message and return its row id.

        Raises:
            CtxlabError: an unknown role.
        """
        if role not in ROLES:
            raise CtxlabError(f"unknown role {role!r} (valid: {', '.join(ROLES)})")
        with self.connection:
            cursor = self.connection.execute(
                "INSERT INTO history (chat_id, role, text) VALUES (?, ?, ?)", (chat_id, role, text))
        return int(cursor.lastrowid or 0)

    def close(self) -> None:
        """Close the database if the provider opened it."""
        if self._owned:
            self.connection.close()

    def __enter__(self) -> SQLiteHistoryProvider:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def assemble(system: str, history: Sequence[Message], user_message: str) -> list[Message]:
    """Seed 000's StandardAssembler: the system prompt, the history, then the user message.

    The two new messages get the ids ``system`` and ``user`` (history ids from the provider are
    ``h<n>``, so they cannot collide).
    """
    return [Message(role="system", content=system, id="system"), *history,
            Message(role="user", content=user_message, id="user")]


__all__ = ["SCHEMA", "SQLiteHistoryProvider", "assemble"]
